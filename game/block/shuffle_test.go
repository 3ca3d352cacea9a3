package block

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// Critical values of the chi-square distribution at significance 0.001,
// by degrees of freedom. The statistical tests use fixed seeds, so they are
// reproducible: a failure is a property of the code, not bad luck of the
// run.
var chi2Crit001 = map[int]float64{1: 10.828, 2: 13.816, 3: 16.266, 4: 18.467, 6: 22.458, 9: 27.877, 11: 31.264, 23: 49.728}

// chi2 is Pearson's statistic of observed counts against equal expected
// counts.
func chi2(observed []int) float64 {
	total := 0
	for _, o := range observed {
		total += o
	}
	e := float64(total) / float64(len(observed))
	s := 0.0
	for _, o := range observed {
		d := float64(o) - e
		s += d * d / e
	}
	return s
}

func assertUniform(t *testing.T, observed []int, what string) {
	t.Helper()
	crit, ok := chi2Crit001[len(observed)-1]
	require.True(t, ok, "no critical value for %d degrees of freedom", len(observed)-1)
	x := chi2(observed)
	assert.Less(t, x, crit, "%s: chi² = %.2f over %d cells %v", what, x, len(observed), observed)
}

// The statistic itself: a flat sample passes, a visibly skewed one fails.
func TestChi2(t *testing.T) {
	assert.Zero(t, chi2([]int{10, 10, 10, 10}))
	assert.InDelta(t, 0.8, chi2([]int{12, 8, 10, 10}), 1e-12) // (2² + 2²) / 10
	skew := []int{1150, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 850}
	assert.Greater(t, chi2(skew), chi2Crit001[9], "a 15%% skew on 10 000 draws is detected")
}

// Winners, each frequent tier, the losers and the via-bonus units fall
// evenly into the ten deciles of the block, in several shuffled blocks.
func TestShuffleSpreadsTiersOverDeciles(t *testing.T) {
	t.Parallel()
	sp, _ := officialSpec(game.Stake050)
	bonus, err := bonusLots(sp, DefaultBonusShare)
	require.NoError(t, err)
	const decile = game.UnitsPerBlock / 10
	for seed := byte(1); seed <= 4; seed++ {
		order, err := shuffled(sp, bonus, newDrawer(seeded(seed)))
		require.NoError(t, err)
		require.Len(t, order, game.UnitsPerBlock)
		var winners, viaBonus [10]int
		var byTier [game.NumTiers + 1][10]int
		for i, b := range order {
			d := i / decile
			tier := game.Tier(b &^ bonusFlag)
			byTier[tier][d]++
			if tier.Wins() {
				winners[d]++
			}
			if b&bonusFlag != 0 {
				viaBonus[d]++
			}
		}
		name := func(what string) string { return fmt.Sprintf("block %d: %s", seed, what) }
		if seed == 1 {
			// The test can fail: the same block in tier order does.
			var unshuffled [10]int
			for i := range sp.units - sp.losers() {
				unshuffled[i/decile]++
			}
			assert.Greater(t, chi2(unshuffled[:]), chi2Crit001[9])
		}
		assertUniform(t, winners[:], name("winners"))
		assertUniform(t, viaBonus[:], name("via bonus"))
		assertUniform(t, byTier[game.TierLose][:], name("losers"))
		for tier := game.Tier(5); tier <= game.NumTiers; tier++ { // 1 500 lots and more
			assertUniform(t, byTier[tier][:], name(fmt.Sprintf("tier %d", tier)))
		}
		// And nothing was lost or made up by the shuffle.
		for tier := game.Tier(0); tier <= game.NumTiers; tier++ {
			n := 0
			for _, c := range byTier[tier] {
				n += c
			}
			assert.Equal(t, game.Table(game.Stake050).LotsOf(tier), n)
		}
	}
}

// The bounded draw of the shuffle is uniform for small bounds, where a
// biased method would show most.
func TestUintnIsUniform(t *testing.T) {
	g := newDrawer(seeded(42))
	for _, n := range []int{2, 3, 5, 7, 10, 12} {
		counts := make([]int, n)
		for range 20_000 * n {
			v, err := g.uintn(uint64(n))
			if err != nil || v >= uint64(n) {
				t.Fatalf("uintn(%d) = %d, %v", n, v, err)
			}
			counts[v]++
		}
		assertUniform(t, counts, fmt.Sprintf("uintn(%d)", n))
	}
}

// Fisher–Yates gives the 24 orders of 4 elements equally often, and each
// element lands equally often at each position.
func TestShuffleAllPermutationsEquallyLikely(t *testing.T) {
	g := newDrawer(seeded(43))
	perms := map[[4]byte]int{}
	var at [4][4]int
	const rounds = 24 * 2000
	for range rounds {
		a := []byte{0, 1, 2, 3}
		require.NoError(t, g.shuffle(a))
		perms[[4]byte(a)]++
		for pos, v := range a {
			at[v][pos]++
		}
	}
	require.Len(t, perms, 24)
	var counts []int
	for _, c := range perms {
		counts = append(counts, c)
	}
	assertUniform(t, counts, "permutations of 4")
	for v := range at {
		assertUniform(t, at[v][:], fmt.Sprintf("positions of %d", v))
	}
}

// words is a random source returning the given 64-bit words.
func words(ws ...uint64) *bytes.Reader {
	b := make([]byte, 0, 8*len(ws))
	for _, w := range ws {
		b = binary.BigEndian.AppendUint64(b, w)
	}
	return bytes.NewReader(b)
}

// The rejection of Lemire's method, checked exactly with big integers:
// word x maps to floor(x·n / 2⁶⁴) and is redrawn exactly when
// x·n mod 2⁶⁴ < 2⁶⁴ mod n. For each bound, the first and last words of the
// first and last buckets of outputs are fed in, and each bucket is shown to
// accept the same number of words: no output is more likely than another.
func TestUintnRejectsExactlyTheBiasedWords(t *testing.T) {
	two64 := new(big.Int).Lsh(big.NewInt(1), 64)
	ceilDiv := func(a, b *big.Int) *big.Int {
		q, r := new(big.Int).QuoRem(a, b, new(big.Int))
		if r.Sign() != 0 {
			q.Add(q, big.NewInt(1))
		}
		return q
	}
	const marker = 0xffff_ffff_ffff_ffff // accepted for every n: lo = 2⁶⁴ − n ≥ 2⁶⁴ mod n
	for _, n := range []uint64{2, 3, 5, 7, 10, 349_999, 350_000, 1<<32 + 1, 3 << 62, 1<<63 + 1, marker} {
		bn := new(big.Int).SetUint64(n)
		threshold := new(big.Int).Mod(two64, bn)
		markerOut := new(big.Int).Rsh(new(big.Int).Mul(new(big.Int).SetUint64(marker), bn), 64).Uint64()
		var accepted []uint64
		buckets := []uint64{0, 1, n - 2, n - 1}
		for _, j := range buckets {
			if j >= n {
				continue
			}
			bj := new(big.Int).SetUint64(j)
			first := ceilDiv(new(big.Int).Mul(bj, two64), bn)                                // first word of bucket j
			end := ceilDiv(new(big.Int).Mul(new(big.Int).Add(bj, big.NewInt(1)), two64), bn) // first word of bucket j+1
			size := new(big.Int).Sub(end, first)
			lo := new(big.Int).Sub(new(big.Int).Mul(first, bn), new(big.Int).Mul(bj, two64))
			rejectFirst := lo.Cmp(threshold) < 0
			// What the code does with the first and the last word.
			for _, x := range []uint64{first.Uint64(), new(big.Int).Sub(end, big.NewInt(1)).Uint64()} {
				v, err := newDrawer(words(x, marker)).uintn(n)
				require.NoError(t, err)
				if x == first.Uint64() && rejectFirst {
					assert.Equal(t, markerOut, v, "n=%d: word %#x is redrawn", n, x)
				} else {
					assert.Equal(t, j, v, "n=%d: word %#x gives %d", n, x, j)
				}
			}
			// Within a bucket lo grows by n per word, so only its first word
			// can fall below the threshold (< n).
			acc := size.Uint64()
			if rejectFirst {
				acc--
			}
			accepted = append(accepted, acc)
		}
		for _, a := range accepted {
			assert.Equal(t, accepted[0], a, "n=%d: buckets accept %v words", n, accepted)
		}
		want := new(big.Int).Quo(two64, bn).Uint64() // floor(2⁶⁴ / n) words per output
		assert.Equal(t, want, accepted[0], "n=%d", n)
	}
	// With n = 3·2⁶², x mod n would give the outputs below 2⁶² twice as
	// often as the others; here the words with lo < 2⁶², such as 0, are
	// redrawn.
	v, err := newDrawer(words(0, 1<<63+1)).uintn(3 << 62)
	require.NoError(t, err)
	assert.Equal(t, uint64(3<<61), v)
}
