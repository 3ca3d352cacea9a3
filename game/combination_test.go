package game

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func counts(kv ...int) Counts {
	var c Counts
	for i := 0; i+1 < len(kv); i += 2 {
		c[kv[i]] = kv[i+1]
	}
	return c
}

func TestEvaluate(t *testing.T) {
	B, S, C, H, E, N := int(Bird), int(Scarab), int(Cross), int(Head), int(Eye), int(Snake)
	cases := []struct {
		name   string
		c      Counts
		stake  Stake
		kind   OutcomeKind
		tier   Tier
		amount Money
	}{
		{"nothing", counts(), Stake050, Lose, 0, 0},
		{"near misses", counts(B, 1, S, 1, C, 1, H, 2, E, 2, N, 2), Stake050, Lose, 0, 0},
		{"3 birds", counts(B, 3, H, 2), Stake050, Win, 1, 3750 * Euro},
		{"3 birds 2 €", counts(B, 3), Stake200, Win, 1, 15000 * Euro},
		{"2 birds", counts(B, 2, E, 1), Stake050, Win, 6, 150},
		{"2 birds 1 €", counts(B, 2), Stake100, Win, 6, 3 * Euro},
		{"3 scarabs", counts(S, 3), Stake100, Win, 2, 1000 * Euro},
		{"2 scarabs", counts(S, 2, N, 2), Stake050, Win, 7, 1 * Euro},
		{"3 crosses", counts(C, 3), Stake200, Win, 3, 500 * Euro},
		{"2 crosses", counts(C, 2, H, 1), Stake050, Win, 8, 50},
		{"3 heads", counts(H, 3), Stake050, Win, 4, 3750},
		{"3 eyes", counts(E, 3, B, 1), Stake100, Win, 5, 10 * Euro},
		{"3 snakes", counts(N, 3, H, 2, E, 2, B, 1), Stake050, Bonus, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := Evaluate(c.c, c.stake)
			require.NoError(t, err)
			assert.Equal(t, c.kind, out.Kind)
			assert.Equal(t, c.tier, out.Tier)
			assert.Equal(t, c.amount, out.Amount)
			if c.kind != Lose {
				assert.Equal(t, c.c[out.Combination.Symbol], out.Combination.Count)
			}
		})
	}
}

func TestEvaluateRefusesImpossibleReveals(t *testing.T) {
	B, S, N, E := int(Bird), int(Scarab), int(Snake), int(Eye)
	_, err := Evaluate(counts(B, 2, S, 2), Stake050)
	assert.ErrorIs(t, err, ErrAmbiguous)
	_, err = Evaluate(counts(B, 3, N, 3), Stake100)
	assert.ErrorIs(t, err, ErrAmbiguous)
	_, err = Evaluate(counts(E, 4), Stake050)
	assert.ErrorIs(t, err, ErrTooMany)
	_, err = Evaluate(counts(E, -1), Stake050)
	assert.ErrorIs(t, err, ErrInvalidCount)
	_, err = Evaluate(counts(), Stake(70))
	assert.ErrorIs(t, err, ErrBadStake)
}

// Every count vector a wall can show evaluates to at most one combination,
// and every winning one pays a lot of the stake's table.
func TestEvaluateExhaustive(t *testing.T) {
	var c Counts
	var walk func(i int)
	n := 0
	walk = func(i int) {
		if i == NumSymbols {
			n++
			combos := 0
			for _, s := range Symbols {
				if _, ok := CombinationOf(s, c[s]); ok {
					combos++
				}
			}
			for _, st := range Stakes {
				out, err := Evaluate(c, st)
				if combos > 1 {
					require.ErrorIs(t, err, ErrAmbiguous)
					continue
				}
				require.NoError(t, err)
				switch out.Kind {
				case Win:
					assert.Equal(t, Table(st).Amount(out.Tier), out.Amount)
				case Lose:
					assert.Equal(t, 0, combos)
				}
			}
			return
		}
		for k := 0; k <= MaxPerSymbol; k++ {
			c[i] = k
			walk(i + 1)
		}
	}
	walk(0)
	assert.Equal(t, 4096, n)
}
