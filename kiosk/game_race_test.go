package kiosk

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
)

// The screens step a game on their goroutine while the cash loop and every
// listener read the machine's snapshot, which asks whether a game is on
// (gameOnLocked reads its stage). The stage must change under the machine's
// lock, or the race detector reports the two goroutines.
func TestGameStageRacesNoSnapshot(t *testing.T) {
	f := newFixture(t)
	f.boot()
	g, _ := startScenario(t, f, game.Stake050, 9, breakout.Auto) // through the bonus: main, bonus, done
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				_ = f.m.Snapshot()
				_ = f.m.Current()
			}
		}
	}()
	runToEnd(t, g)
	close(stop)
	wg.Wait()
	require.Equal(t, StageDone, g.Stage())
}
