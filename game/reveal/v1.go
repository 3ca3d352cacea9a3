package reveal

import "pharaon/game"

// Version 1, frozen. Everything in this file is part of the format: the
// shapes, the caps, the ranges, and the order in which draws are taken
// from the stream. Change nothing here; write generateV2 instead.

// v1Rows are the main walls' shapes by stake (Art. 4.1): 27 bricks at
// 0,50 € in a block of courses 5-6-5-6-5; 31 at 1 € as an hourglass
// 7-6-5-6-7; 33 at 2 € as 7-6-7-6-7. Neighbouring courses differ by one
// brick, so each brick sits across two below it, as in masonry.
var v1Rows = map[game.Stake][]int{
	game.Stake050: {5, 6, 5, 6, 5},
	game.Stake100: {7, 6, 5, 6, 7},
	game.Stake200: {7, 6, 7, 6, 7},
}

// v1BonusRows is the bonus wall (Art. 4.7): a diamond of 29 bricks whose
// middle course of seven has the red brick at its centre, index 14.
var v1BonusRows = []int{5, 6, 7, 6, 5}

const v1BonusRed = 14

// v1Cap is how many of each symbol the main wall may show when that
// symbol is not the unit's combination: one bird, scarab or cross (two
// would pay), two heads, eyes or snakes (three would pay or open the
// bonus). These caps are what keeps a loser losing and a winner showing a
// single combination.
var v1Cap = game.Counts{game.Bird: 1, game.Scarab: 1, game.Cross: 1, game.Head: 2, game.Eye: 2, game.Snake: 2}

// generateV1 draws, from a SplitMix64 stream seeded with seed, in this
// order:
//
//  1. total, the number of symbol bricks of the main wall: 3 + below(4),
//     so 3 to 6 whatever the outcome (how many symbols a wall shows tells
//     nothing of the outcome).
//  2. total − k further symbols, k being the 0, 2 or 3 symbols of the
//     unit's combination (three snakes for a bonus unit). Their kinds are
//     independent uniform draws over the six symbols conditioned on the
//     caps (v1Cap, and none of the combination's kind), sampled exactly
//     one by one: each next kind s is picked with weight the number of
//     capped sequences that can still complete after it (completions), by
//     one below(sum of weights) walked over the kinds in game.Symbols
//     order. This is what "near misses appear naturally" means here: a
//     losing wall shows two heads exactly as often as independent draws
//     that happen to lose would, nothing steers toward or away from it.
//  3. stones, the number of spell stones: below(4), 0 to 3; then each
//     stone's kind, below(3) in game.Stones order.
//  4. a Fisher–Yates shuffle of the wall's contents (the symbols in symbol
//     order, the stones, then the empty bricks): for i from n−1 down to 1,
//     swap i with below(i+1).
//  5. for a bonus unit only: the bonus wall's stones, below(3), 0 to 2,
//     each kind below(3); then the same shuffle over the 28 bricks other
//     than the red one.
func generateV1(stake game.Stake, tier game.Tier, viaBonus bool, seed uint64) Walls {
	r := splitMix64{state: seed}
	l := Walls{Version: V1, Stake: stake, Tier: tier, ViaBonus: viaBonus, Seed: seed}

	var counts game.Counts
	capLeft := v1Cap
	switch {
	case viaBonus:
		c := game.BonusCombination()
		counts[c.Symbol] = c.Count
		capLeft[c.Symbol] = 0
	case tier.Wins():
		c := game.Table(stake).Prizes[tier-1].Combination
		counts[c.Symbol] = c.Count
		capLeft[c.Symbol] = 0
	}
	k := 0
	for _, n := range counts {
		k += n
	}

	total := 3 + r.intn(4)
	for left := total - k; left > 0; left-- {
		var w [game.NumSymbols]uint64
		sum := uint64(0)
		for _, s := range game.Symbols {
			if capLeft[s] > 0 {
				capLeft[s]--
				w[s] = completions(capLeft, left-1)
				capLeft[s]++
				sum += w[s]
			}
		}
		x := r.below(sum)
		for _, s := range game.Symbols {
			if x < w[s] {
				counts[s]++
				capLeft[s]--
				break
			}
			x -= w[s]
		}
	}

	rows := v1Rows[stake]
	n := stake.Bricks()
	bricks := make([]Content, 0, n)
	// Symbols in symbol order, so the list depends only on counts.
	for _, s := range game.Symbols {
		for j := 0; j < counts[s]; j++ {
			bricks = append(bricks, SymbolContent(s))
		}
	}
	for j, ns := 0, r.intn(4); j < ns; j++ {
		bricks = append(bricks, StoneContent(game.Stone(r.intn(game.NumStones))))
	}
	for len(bricks) < n {
		bricks = append(bricks, Empty)
	}
	shuffle(&r, bricks)
	l.Main = Wall{Rows: append([]int(nil), rows...), Bricks: bricks}

	if viaBonus {
		l.BonusAmount = game.Table(stake).Amount(tier)
		others := make([]Content, 0, 28)
		for j, ns := 0, r.intn(3); j < ns; j++ {
			others = append(others, StoneContent(game.Stone(r.intn(game.NumStones))))
		}
		for len(others) < 28 {
			others = append(others, Empty)
		}
		shuffle(&r, others)
		b := make([]Content, 0, 29)
		b = append(b, others[:v1BonusRed]...)
		b = append(b, Red)
		b = append(b, others[v1BonusRed:]...)
		l.Bonus = Wall{Rows: append([]int(nil), v1BonusRows...), Bricks: b}
	}
	return l
}

func shuffle(r *splitMix64, c []Content) {
	for i := len(c) - 1; i > 0; i-- {
		j := r.intn(i + 1)
		c[i], c[j] = c[j], c[i]
	}
}

// completions is the number of sequences of n symbols in which symbol s
// appears at most caps[s] times: the weight of a partial draw in the exact
// sampling of step 2. Small integers (at most 6^6), computed exactly.
func completions(caps game.Counts, n int) uint64 {
	// ways[j] counts sequences of length j over the symbols seen so far,
	// extended one symbol at a time: choosing c places among j for c
	// copies of the next symbol.
	var ways [game.NumSymbols*game.MaxPerSymbol + 1]uint64
	ways[0] = 1
	seen := 0
	for _, m := range caps {
		var next [len(ways)]uint64
		for j := 0; j <= seen; j++ {
			for c := 0; c <= m; c++ {
				next[j+c] += ways[j] * binomial(j+c, c)
			}
		}
		ways = next
		seen += m
	}
	if n > seen {
		return 0
	}
	return ways[n]
}

func binomial(n, k int) uint64 {
	b := uint64(1)
	for i := 1; i <= k; i++ {
		b = b * uint64(n-k+i) / uint64(i)
	}
	return b
}
