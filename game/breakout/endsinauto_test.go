package breakout

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// EndsInAuto, read from a recording, agrees with the world that recorded
// it: games left idle for a while at random moments, some handed to Auto by
// the player, some played to the end in Jouer.
func TestRecordingEndsInAutoAgreesWithTheWorld(t *testing.T) {
	s := DefaultSettings()
	s.IdleTicks = MinIdleTicks
	autos, jouers := 0, 0
	for seed := uint64(1); seed <= 24; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		w := newWorld(t, walls(t, game.Stake100, 0, false, seed).Main, Play, s)
		var p player = jitter{r}
		if seed%2 == 0 {
			p = randomPlayer{r}
		}
		// Activity, then a pause (half IdleTicks, or about IdleTicks: one
		// tick short, exact, or past it), then activity again.
		pauseAt := uint32(1 + r.IntN(3*TicksPerSecond))
		pause := uint32(s.IdleTicks - 2 + r.IntN(4))
		if seed%3 == 0 {
			pause = uint32(s.IdleTicks / 2)
		}
		askAuto := seed%6 == 0
		for tick := uint32(1); tick < 40*TicksPerSecond && !w.Done(); tick++ {
			in := p.input(w)
			if tick > pauseAt && tick <= pauseAt+pause {
				in = Input{}
			}
			if askAuto && tick == pauseAt {
				in.Auto = true
			}
			w.Step(in)
			if tick%16 != 0 && tick != pauseAt+pause+1 {
				continue
			}
			rec, err := DecodeRecording(w.AppendRecording(nil))
			require.NoError(t, err)
			if !assert.Equal(t, w.Mode() == Auto, rec.EndsInAuto(), "seed %d tick %d", seed, tick) {
				return
			}
		}
		if w.Mode() == Auto {
			autos++
		} else {
			jouers++
		}
	}
	assert.Positive(t, autos)
	assert.Positive(t, jouers)
}
