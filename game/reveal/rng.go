package reveal

import "math/bits"

// splitMix64 is the SplitMix64 generator of Steele, Lea and Flood ("Fast
// splittable pseudorandom number generators", OOPSLA 2014), written out
// here so that the layout of a version can never change under us with a
// library update. The state is the seed; each draw adds the golden gamma
// and mixes (Stafford's variant 13 finaliser).
type splitMix64 struct{ state uint64 }

func (r *splitMix64) next() uint64 {
	r.state += 0x9e3779b97f4a7c15
	z := r.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// below returns a uniform integer in [0, n) for n ≥ 1, by Lemire's
// multiply-and-shift with rejection ("Fast random integer generation in an
// interval", 2019): exact uniformity, and a number of draws that depends
// only on the stream, so it is as reproducible as next itself.
func (r *splitMix64) below(n uint64) uint64 {
	if n == 0 {
		panic("reveal: below(0)")
	}
	hi, lo := bits.Mul64(r.next(), n)
	if lo < n {
		threshold := -n % n // (2^64 - n) mod n
		for lo < threshold {
			hi, lo = bits.Mul64(r.next(), n)
		}
	}
	return hi
}

// intn is below for small int bounds.
func (r *splitMix64) intn(n int) int { return int(r.below(uint64(n))) }
