// Package properties states the invariants of the reference estate as
// rapid properties, each a function of the implementation under test so
// that a deliberately broken implementation can be shown to falsify it.
//
// Every property returns a func(*rapid.T) for rapid.Check. The tests in
// this package run each one on the reference (it must hold) and on a mutant
// (it must fail), and TestMain raises rapid's default number of cases to
// 1,000 per property unless -rapid.checks is given.
package properties

import (
	"sync"

	"pgregory.net/rapid"

	"github.com/mcpconform/mcpconform/properties/gen"
)

// source adapts a rapid.T to gen.Source, so generators' choices are
// rapid's draws and shrink with them.
type source struct{ t *rapid.T }

// choices caches one generator per range; building one per draw is slow.
var choices sync.Map // int → *rapid.Generator[int]

func (s source) Intn(n int) int {
	if n <= 1 {
		return 0
	}
	g, ok := choices.Load(n)
	if !ok {
		g, _ = choices.LoadOrStore(n, rapid.IntRange(0, n-1))
	}
	return g.(*rapid.Generator[int]).Draw(s.t, "choice")
}

// Source returns a gen.Source whose choices are draws from t.
func Source(t *rapid.T) gen.Source { return source{t} }
