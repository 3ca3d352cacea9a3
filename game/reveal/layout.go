package reveal

import (
	"errors"
	"fmt"
	"strings"

	"pharaon/game"
)

// Version identifies a layout generator. A released version never changes
// its output: the play record stores the version with the seed, and game
// recall regenerates the walls from them.
type Version uint16

const (
	// V1 is the first layout generator (see generateV1).
	V1 Version = 1
	// Latest is the version new plays use.
	Latest = V1
)

// Walls is the layout of one unit: its main wall and, when the unit's
// prize is revealed through the bonus game, the bonus wall and the amount
// it reveals.
type Walls struct {
	Version  Version
	Stake    game.Stake
	Tier     game.Tier // the unit's prize tier, TierLose for a loser
	ViaBonus bool      // the prize is revealed through the bonus game
	Seed     uint64

	// Main is the wall of Art. 4.1: 27, 31 or 33 bricks by stake.
	Main Wall
	// Bonus is the bonus wall of Art. 4.7 with the red brick in its
	// centre; it has no rows unless ViaBonus.
	Bonus Wall
	// BonusAmount is what the bonus wall reveals: exactly the amount of
	// the unit's tier in the stake's prize table (Art. 4.8); 0 unless
	// ViaBonus.
	BonusAmount game.Money
}

// Errors of Layout; a bad stake wraps game.ErrBadStake.
var (
	ErrBadTier    = errors.New("not a tier of the prize table")
	ErrBadVersion = errors.New("unknown layout version")
	ErrBonusLoser = errors.New("a losing unit has no bonus game")
)

// Layout dresses the outcome of a unit (its stake, prize tier, whether
// the prize is revealed through the bonus game, and its reveal seed) as
// walls, with the generator of the given version. Same arguments, same
// walls, on every machine and forever.
func Layout(stake game.Stake, tier game.Tier, viaBonus bool, seed uint64, v Version) (Walls, error) {
	if !stake.Valid() {
		return Walls{}, fmt.Errorf("layout: stake %d cents: %w", int64(stake), game.ErrBadStake)
	}
	if tier != game.TierLose && !tier.Wins() {
		return Walls{}, fmt.Errorf("layout: tier %d: %w", tier, ErrBadTier)
	}
	if viaBonus && tier == game.TierLose {
		return Walls{}, fmt.Errorf("layout: %w", ErrBonusLoser)
	}
	switch v {
	case V1:
		return generateV1(stake, tier, viaBonus, seed), nil
	}
	return Walls{}, fmt.Errorf("layout: version %d: %w", v, ErrBadVersion)
}

// Outcome evaluates what the main wall reveals under Art. 4.3.
func (l Walls) Outcome() (game.Outcome, error) { return game.Evaluate(l.Main.Counts(), l.Stake) }

// String renders the walls as text, one line per row with rows centred as
// they are drawn; the golden files of testdata are in this form.
func (l Walls) String() string {
	var b strings.Builder
	yn := map[bool]string{false: "no", true: "yes"}
	fmt.Fprintf(&b, "v%d stake=%d tier=%d bonus=%s seed=%#016x\n",
		l.Version, int64(l.Stake), l.Tier, yn[l.ViaBonus], l.Seed)
	writeWall(&b, "main", l.Main)
	if l.ViaBonus {
		fmt.Fprintf(&b, "bonus amount=%d\n", int64(l.BonusAmount))
		writeWall(&b, "bonus", l.Bonus)
	}
	return b.String()
}

func writeWall(b *strings.Builder, name string, w Wall) {
	rows := make([]string, len(w.Rows))
	for i, r := range w.Rows {
		rows[i] = fmt.Sprint(r)
	}
	c := w.Counts()
	var syms []string
	for _, s := range game.Symbols {
		if c[s] > 0 {
			syms = append(syms, fmt.Sprintf("%s:%d", s, c[s]))
		}
	}
	fmt.Fprintf(b, "%s rows=%s symbols=%s stones=%d\n", name, strings.Join(rows, ","), strings.Join(syms, ","), w.Stones())
	i := 0
	for _, r := range w.Rows {
		b.WriteString(strings.Repeat(" ", 2*(MaxPerRow-r)))
		for k := 0; k < r; k++ {
			if k > 0 {
				b.WriteString("  ")
			}
			b.WriteString(w.Bricks[i].Code())
			i++
		}
		b.WriteByte('\n')
	}
}
