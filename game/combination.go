package game

import (
	"errors"
	"fmt"
)

// Combination is a winning combination of Art. 4.3: Count symbols of one
// kind. Three snakes open the bonus game instead of paying an amount.
type Combination struct {
	Symbol Symbol
	Count  int
	Bonus  bool
	amount [len(Stakes)]Money
}

// Amount is what the combination pays at stake s (0 for the bonus
// combination, whose amount is the unit's own prize, revealed in the bonus).
func (c Combination) Amount(s Stake) Money {
	i := stakeIndex(s)
	if i < 0 {
		return 0
	}
	return c.amount[i]
}

func (c Combination) String() string { return fmt.Sprintf("%d×%s", c.Count, c.Symbol) }

// combinations is the table of Art. 4.3, row by row, with the amounts at
// 0,50 €, 1 € and 2 €.
var combinations = [...]Combination{
	{Symbol: Bird, Count: 3, amount: [3]Money{3750 * Euro, 7500 * Euro, 15000 * Euro}},
	{Symbol: Bird, Count: 2, amount: [3]Money{150, 3 * Euro, 6 * Euro}},
	{Symbol: Scarab, Count: 3, amount: [3]Money{500 * Euro, 1000 * Euro, 2000 * Euro}},
	{Symbol: Scarab, Count: 2, amount: [3]Money{1 * Euro, 2 * Euro, 4 * Euro}},
	{Symbol: Cross, Count: 3, amount: [3]Money{125 * Euro, 250 * Euro, 500 * Euro}},
	{Symbol: Cross, Count: 2, amount: [3]Money{50, 1 * Euro, 2 * Euro}},
	{Symbol: Head, Count: 3, amount: [3]Money{3750, 75 * Euro, 150 * Euro}},
	{Symbol: Eye, Count: 3, amount: [3]Money{5 * Euro, 10 * Euro, 20 * Euro}},
	{Symbol: Snake, Count: 3, Bonus: true},
}

// Combinations returns the combinations of Art. 4.3 in the regulation's order.
func Combinations() []Combination { return append([]Combination(nil), combinations[:]...) }

// CombinationOf returns the combination formed by exactly n symbols s, if
// any: "2 symboles oiseau" means two birds, not three.
func CombinationOf(s Symbol, n int) (Combination, bool) {
	for _, c := range combinations {
		if c.Symbol == s && c.Count == n {
			return c, true
		}
	}
	return Combination{}, false
}

// BonusCombination is three snakes.
func BonusCombination() Combination { return combinations[len(combinations)-1] }

// MaxPerSymbol is the most symbols of one kind a wall may reveal: no
// combination needs more, and a wall never shows more.
const MaxPerSymbol = 3

// OutcomeKind says how a reveal ends.
type OutcomeKind uint8

const (
	Lose  OutcomeKind = iota // no combination: no congratulation window (Art. 4.8)
	Win                      // one combination paying its amount (Art. 4.6)
	Bonus                    // three snakes: the bonus game (Art. 4.6, 4.7)
)

func (k OutcomeKind) String() string {
	switch k {
	case Lose:
		return "lose"
	case Win:
		return "win"
	case Bonus:
		return "bonus"
	}
	return fmt.Sprintf("outcome(%d)", uint8(k))
}

// Outcome is what a revealed wall means under Art. 4.3.
type Outcome struct {
	Kind        OutcomeKind
	Combination Combination // for Win and Bonus
	Tier        Tier        // for Win: the prize table row paid
	Amount      Money       // for Win
}

// Errors of Evaluate: a reveal that no correct wall can produce.
var (
	ErrAmbiguous    = errors.New("reveal shows more than one winning combination")
	ErrTooMany      = errors.New("reveal shows more than three of a symbol")
	ErrInvalidCount = errors.New("negative symbol count")
)

// Evaluate reads the symbols revealed by a wall at stake s and returns the
// combination of Art. 4.3 they form, the bonus, or nothing. A reveal showing
// two combinations or more than three of a symbol is an error: a correct
// layout never shows one, so the caller treats it as a fault.
func Evaluate(c Counts, s Stake) (Outcome, error) {
	if !s.Valid() {
		return Outcome{}, fmt.Errorf("evaluate: %w", ErrBadStake)
	}
	var out Outcome
	found := 0
	for _, sym := range Symbols {
		n := c[sym]
		switch {
		case n < 0:
			return Outcome{}, fmt.Errorf("evaluate: %d×%s: %w", n, sym, ErrInvalidCount)
		case n > MaxPerSymbol:
			return Outcome{}, fmt.Errorf("evaluate: %d×%s: %w", n, sym, ErrTooMany)
		}
		comb, ok := CombinationOf(sym, n)
		if !ok {
			continue
		}
		found++
		out.Combination = comb
		if comb.Bonus {
			out.Kind = Bonus
			continue
		}
		out.Kind = Win
		out.Amount = comb.Amount(s)
		tier, ok := Table(s).TierOf(out.Amount)
		if !ok {
			return Outcome{}, fmt.Errorf("evaluate: %s pays %s, not a lot of the table", comb, out.Amount)
		}
		out.Tier = tier
	}
	if found > 1 {
		return Outcome{}, fmt.Errorf("evaluate: %v: %w", c, ErrAmbiguous)
	}
	return out, nil
}
