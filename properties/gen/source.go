// Package gen generates JSON Schemas, values aimed at a schema, tool estates
// and principals for the property tests. Every generator draws its choices
// from a Source, so the same code serves rapid (which shrinks the choices) in
// process and a seeded pseudo-random stream in the black-box checks, where
// the same seed must give the same messages.
//
// Choices are ordered simplest first: a Source that returns 0 everywhere
// yields the smallest case, which is what a shrinker converges to.
package gen

import (
	"math/bits"
	mathrand "math/rand"
	"math/rand/v2"
)

// Source supplies the generators' choices.
type Source interface {
	// Intn returns a choice in [0, n); n is at least 1.
	Intn(n int) int
}

// Rand is a Source backed by a seeded PCG stream.
type Rand struct{ r *rand.Rand }

// NewRand returns a Source whose choices are fixed by seed.
func NewRand(seed uint64) *Rand {
	return &Rand{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Intn implements Source.
func (r *Rand) Intn(n int) int {
	if n <= 1 {
		return 0
	}
	return r.r.IntN(n)
}

// chance reports true with probability 1/n.
func chance(s Source, n int) bool { return s.Intn(n) == n-1 }

// flip reports true with probability 1/2; false is the simpler choice.
func flip(s Source) bool { return s.Intn(2) == 1 }

// pick returns one element of xs.
func pick[E any](s Source, xs []E) E { return xs[s.Intn(len(xs))] }

// subset returns the elements of xs that a sequence of flips keeps, in order.
func subset[E any](s Source, xs []E) []E {
	var out []E
	for _, x := range xs {
		if flip(s) {
			out = append(out, x)
		}
	}
	return out
}

// OneIn reports true with probability 1/n: a rarer, more complex choice.
func OneIn(s Source, n int) bool { return chance(s, n) }

// choices draws choices in [0, n) from a math/rand source as its Intn(n)
// does, the same values in the same order from the same stream, for the
// loops that draw many choices of one n (a long random string): the
// bound of Int31n's rejection is computed once rather than per choice,
// and the remainder by multiplication (Lemire's fastmod, exact for a
// 32-bit dividend) rather than a division. TestChoicesMatchIntn holds it
// to Intn.
type choices struct {
	n    int32
	pow2 bool
	max  int32  // the largest Int31 that Int31n keeps
	m    uint64 // 2^64 / n, rounded up
}

// newChoices returns the choices in [0, n); 1 <= n < 2^31.
func newChoices(n int) choices {
	c := choices{n: int32(n), pow2: n&(n-1) == 0}
	c.max = int32((1 << 31) - 1 - (1<<31)%uint32(n))
	c.m = ^uint64(0)/uint64(n) + 1
	return c
}

// draw returns r.Intn(c.n), drawing from r as it does.
func (c choices) draw(r *mathrand.Rand) int {
	if c.pow2 {
		return int(r.Int31() & (c.n - 1))
	}
	v := r.Int31()
	for v > c.max {
		v = r.Int31()
	}
	hi, _ := bits.Mul64(c.m*uint64(v), uint64(c.n))
	return int(hi)
}
