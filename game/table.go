package game

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
)

// art3 holds the prize tables of Art. 3.1, 3.2 and 3.3 exactly as printed:
// for each stake, the number of lots per block and the amount of each lot,
// from the highest prize down. The regulation's "TOTAL" column and its
// closing line are not copied: they are computed from these rows (and the
// printed closing total of Art. 3.1, 122 550 €, does not match its own rows,
// which sum to 122 250 €; see table_test.go).
var art3 = [len(Stakes)][NumTiers]row{
	{ // 3.1, 0,50 €
		{5, 3750 * Euro}, {8, 500 * Euro}, {75, 125 * Euro}, {250, 3750 * Euro / 100},
		{1_500, 5 * Euro}, {7_500, 150}, {32_000, 1 * Euro}, {60_000, 50},
	},
	{ // 3.2, 1 €
		{5, 7500 * Euro}, {8, 1000 * Euro}, {75, 250 * Euro}, {250, 75 * Euro},
		{1_500, 10 * Euro}, {7_500, 3 * Euro}, {32_000, 2 * Euro}, {60_000, 1 * Euro},
	},
	{ // 3.3, 2 €
		{5, 15000 * Euro}, {8, 2000 * Euro}, {75, 500 * Euro}, {250, 150 * Euro},
		{1_500, 20 * Euro}, {7_500, 6 * Euro}, {32_000, 4 * Euro}, {60_000, 2 * Euro},
	},
}

type row struct {
	lots   int
	amount Money
}

// Tier identifies a row of a prize table: 1 is the top prize, NumTiers the
// smallest. TierLose (0) is a losing unit.
type Tier uint8

const (
	TierLose Tier = 0
	// NumTiers is the number of rows of every prize table.
	NumTiers = 8
)

// Wins reports whether t is a winning tier.
func (t Tier) Wins() bool { return t >= 1 && t <= NumTiers }

// Prize is one row of a prize table with the combination of Art. 4.3 that
// reveals it.
type Prize struct {
	Tier        Tier
	Lots        int   // lots of this prize in each block
	Amount      Money // amount of one lot
	Combination Combination
}

// PrizeTable is the prize table of one stake (Art. 3).
type PrizeTable struct {
	Stake  Stake
	Prizes [NumTiers]Prize // Prizes[t-1] is tier t
}

var tables [len(Stakes)]PrizeTable

func init() {
	for i, s := range Stakes {
		t := PrizeTable{Stake: s}
		for r, rw := range art3[i] {
			c, ok := combinationPaying(s, rw.amount)
			if !ok {
				panic(fmt.Sprintf("game: Art. 3 row %s at %s has no combination of Art. 4.3", rw.amount, s))
			}
			t.Prizes[r] = Prize{Tier: Tier(r + 1), Lots: rw.lots, Amount: rw.amount, Combination: c}
		}
		tables[i] = t
	}
}

// combinationPaying finds the one direct-win combination of Art. 4.3 whose
// amount at stake s is m.
func combinationPaying(s Stake, m Money) (Combination, bool) {
	var found Combination
	n := 0
	for _, c := range combinations {
		if !c.Bonus && c.Amount(s) == m {
			found = c
			n++
		}
	}
	return found, n == 1
}

// Table returns the prize table of stake s. It panics for an invalid stake.
func Table(s Stake) PrizeTable {
	i := stakeIndex(s)
	if i < 0 {
		panic(fmt.Sprintf("game: no prize table for stake %d cents", int64(s)))
	}
	return tables[i]
}

func stakeIndex(s Stake) int {
	for i, v := range Stakes {
		if v == s {
			return i
		}
	}
	return -1
}

// Amount is the amount of a lot of tier t, 0 for TierLose or an unknown tier.
func (t PrizeTable) Amount(tier Tier) Money {
	if !tier.Wins() {
		return 0
	}
	return t.Prizes[tier-1].Amount
}

// TierOf returns the tier whose lot is worth m, if any.
func (t PrizeTable) TierOf(m Money) (Tier, bool) {
	for _, p := range t.Prizes {
		if p.Amount == m {
			return p.Tier, true
		}
	}
	return TierLose, false
}

// Lots is the number of winning units in a block.
func (t PrizeTable) Lots() int {
	n := 0
	for _, p := range t.Prizes {
		n += p.Lots
	}
	return n
}

// Losers is the number of losing units in a block.
func (t PrizeTable) Losers() int { return UnitsPerBlock - t.Lots() }

// LotsOf is the number of units of tier t in a block, losers included.
func (t PrizeTable) LotsOf(tier Tier) int {
	if tier == TierLose {
		return t.Losers()
	}
	if !tier.Wins() {
		return 0
	}
	return t.Prizes[tier-1].Lots
}

// Total is the sum of all the lots of a block.
func (t PrizeTable) Total() Money {
	var m Money
	for _, p := range t.Prizes {
		m += Money(p.Lots) * p.Amount
	}
	return m
}

// Sales is what a whole block takes in stakes.
func (t PrizeTable) Sales() Money { return Money(UnitsPerBlock) * Money(t.Stake) }

// PayoutRatio is Total / Sales, the share of the stakes returned as prizes.
func (t PrizeTable) PayoutRatio() float64 { return float64(t.Total()) / float64(t.Sales()) }

// WinOdds is N in "one unit in N wins".
func (t PrizeTable) WinOdds() float64 { return float64(UnitsPerBlock) / float64(t.Lots()) }

// Odds is N in "one unit in N wins a lot of tier t".
func (t PrizeTable) Odds(tier Tier) float64 {
	return float64(UnitsPerBlock) / float64(t.LotsOf(tier))
}

// Digest identifies the table by content: SHA-256 of the regulation's
// reference, the stake and every row. A block names the table it was drawn
// against by this digest, so a block cannot be read against another table.
func (t PrizeTable) Digest() [32]byte {
	h := sha256.New()
	h.Write([]byte("pharaon/reglement-2008-12-17/art3\x00"))
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(t.Stake))
	h.Write(b[:])
	for _, p := range t.Prizes {
		binary.BigEndian.PutUint64(b[:], uint64(p.Lots))
		h.Write(b[:])
		binary.BigEndian.PutUint64(b[:], uint64(p.Amount))
		h.Write(b[:])
	}
	var d [32]byte
	h.Sum(d[:0])
	return d
}
