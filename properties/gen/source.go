// Package gen generates JSON Schemas, values aimed at a schema, tool estates
// and principals for the property tests. Every generator draws its choices
// from a Source, so the same code serves rapid (which shrinks the choices) in
// process and a seeded pseudo-random stream in the black-box checks, where
// the same seed must give the same messages.
//
// Choices are ordered simplest first: a Source that returns 0 everywhere
// yields the smallest case, which is what a shrinker converges to.
package gen

import "math/rand/v2"

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
