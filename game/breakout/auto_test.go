package breakout

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/reveal"
)

// Auto clears every wall, main and bonus, of every stake, within
// AutoBoundTicks (12 s of game time), without ever losing the ball, and
// the cleared main wall has revealed exactly its layout. Over 2 000 units
// per stake (× n with BREAKOUT_SOAK=n); the max and mean are logged.
func TestAutoClearsEveryWallWithinTheBound(t *testing.T) {
	units := soak(2000)
	for _, stake := range game.Stakes {
		for _, bonus := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d/bonus=%v", int64(stake), bonus), func(t *testing.T) {
				t.Parallel()
				maxT, sum, n := uint32(0), 0, 0
				for u := 0; u < units; u++ {
					seed := uint64(u) * 0x9e3779b97f4a7c15
					tier := game.Tier(u % (game.NumTiers + 1))
					l := walls(t, stake, tier, tier != 0 && (bonus || u%3 == 0), seed)
					wall := l.Main
					if bonus {
						if !l.ViaBonus {
							continue
						}
						wall = l.Bonus
					}
					w := newWorld(t, wall, Auto, DefaultSettings())
					for !w.Done() && w.Tick() <= AutoBoundTicks {
						for _, e := range w.Step(Input{}) {
							require.NotEqual(t, BallLost, e.Kind, "seed %#x: Auto lost the ball", seed)
						}
					}
					require.True(t, w.Done(), "seed %#x: not cleared in %d ticks", seed, AutoBoundTicks)
					if !bonus {
						require.Equal(t, wall.Counts(), w.Revealed(), "seed %#x", seed)
					}
					maxT = max(maxT, w.Tick())
					sum += int(w.Tick())
					n++
				}
				t.Logf("Auto, %s: max %d ticks (%.2f s), mean %.0f ticks", t.Name(), maxT, float64(maxT)/TicksPerSecond, float64(sum)/float64(n))
			})
		}
	}
}

// A game idle from the start (a paddle that never moves) goes to Auto
// after exactly IdleTicks and is then cleared within the bound.
func TestIdleFromTheStartIsClearedByAuto(t *testing.T) {
	s := DefaultSettings()
	for _, stake := range game.Stakes {
		l := walls(t, stake, 6, true, 77)
		for _, wall := range []reveal.Wall{l.Main, l.Bonus} {
			w := newWorld(t, wall, Play, s)
			for i := 0; i < s.IdleTicks; i++ {
				ev := w.Step(Input{})
				if i < s.IdleTicks-1 {
					require.Empty(t, ev)
				} else {
					require.Contains(t, kinds(ev), AutoEngaged)
				}
			}
			for !w.Done() && w.Tick() < uint32(s.IdleTicks+AutoBoundTicks) {
				w.Step(Input{})
			}
			assert.True(t, w.Done())
			rec, err := DecodeRecording(w.AppendRecording(nil))
			require.NoError(t, err)
			assert.Empty(t, rec.Inputs, "no input, nothing recorded")
			assert.Equal(t, w.Tick(), rec.End)
		}
	}
}
