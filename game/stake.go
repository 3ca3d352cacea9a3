package game

import (
	"errors"
	"fmt"
)

// Stake is the price of one unit of play (Art. 2): 0,50 €, 1 € or 2 €.
type Stake Money

// The three stakes of Art. 2.
const (
	Stake050 Stake = 50
	Stake100 Stake = 100
	Stake200 Stake = 200
)

// Stakes lists the stakes in increasing order.
var Stakes = [...]Stake{Stake050, Stake100, Stake200}

// UnitsPerBlock is the size of every block of units (Art. 2).
const UnitsPerBlock = 350_000

// ErrBadStake is returned for an amount that is not one of the three stakes.
var ErrBadStake = errors.New("not a stake of the game (0,50 €, 1 € or 2 €)")

// ParseStake reads a stake written as an amount ("0,50", "1", "2 €").
func ParseStake(s string) (Stake, error) {
	m, err := ParseMoney(s)
	if err != nil {
		return 0, fmt.Errorf("%q: %w", s, ErrBadStake)
	}
	st := Stake(m)
	if !st.Valid() {
		return 0, fmt.Errorf("%q: %w", s, ErrBadStake)
	}
	return st, nil
}

// Valid reports whether s is one of the three stakes.
func (s Stake) Valid() bool { return stakeIndex(s) >= 0 }

// Money is the stake as an amount.
func (s Stake) Money() Money { return Money(s) }

func (s Stake) String() string { return Money(s).String() }

// Bricks is the number of bricks in the wall at this stake (Art. 4.1):
// 27 at 0,50 €, 31 at 1 €, 33 at 2 €. It is 0 for an invalid stake.
func (s Stake) Bricks() int {
	switch s {
	case Stake050:
		return 27
	case Stake100:
		return 31
	case Stake200:
		return 33
	}
	return 0
}
