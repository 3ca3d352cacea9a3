package ui

import (
	"context"
	"testing"

	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk"
)

// A double tap on Jouer sells one unit: the first tap asks the kiosk, which
// commits the stake on its own goroutine; until it answers, Jouer and Auto
// are disabled and a second tap does nothing.
func TestScreensDoubleTapPlaysOnce(t *testing.T) {
	f := newScrFixture(t)
	f.credit(5 * game.Euro)
	f.tap(fr(game.Stake050.Money()))
	release := f.holdWrites() // the kiosk's answer waits on the disk
	jouer := f.button("Jouer")
	require.NotNil(t, jouer)
	f.runUI(func() {
		test.Tap(jouer)
		test.Tap(jouer) // the same finger again, before the screen changed
	})
	assert.Equal(t, scrHome, f.s.screen, "the home screen stays until the kiosk answers")
	for _, label := range []string{"Jouer", "Auto"} {
		b := f.button(label)
		require.NotNil(t, b, label)
		assert.True(t, b.Disabled(), "%s waits for the kiosk's answer", label)
	}
	release()
	f.inFlight.Wait()
	f.flush()
	require.Equal(t, scrGame, f.s.screen)
	assert.Equal(t, 5*game.Euro-game.Stake050.Money(), f.m.Snapshot().Credit, "one stake debited")
	plays, err := f.st.LastPlays(context.Background(), 5, 0)
	require.NoError(t, err)
	assert.Len(t, plays, 1, "one unit sold")
}

// The finish of a game is committed off the screens' goroutine: a database
// stalled on its disk at the end of a game stalls no frame. The symbols
// land, the wall stays cleared, and the result waits for the commit; once
// it is made the window shows what was credited (Art. 4.8, invariant 3).
func TestScreensResultWaitsForTheFinish(t *testing.T) {
	f := newScrFixture(t)
	f.credit(10 * game.Euro)
	f.tap(fr(game.Stake100.Money()))
	f.tap("Auto") // three birds (the 1 € scenario's first unit)
	g := f.game()
	require.NotNil(t, g)
	release := f.holdWrites()
	released := false
	defer func() {
		if !released {
			release()
		}
	}()
	frames := 0
	for ; frames < 15*240 && !f.s.gs.Landed(); frames++ {
		f.clock.Advance(slowFrame)
		f.runUI(func() { f.s.gs.Frame(f.clock.Now()) })
	}
	require.True(t, f.s.gs.Landed(), "the wall is cleared and its symbols landed")
	for i := 0; i < 120; i++ { // two seconds of frames while the disk is stalled
		f.clock.Advance(scrFrame)
		f.runUI(func() { f.s.gs.Frame(f.clock.Now()) })
		f.flush()
	}
	assert.False(t, f.s.gs.Over(), "no result before the finish is committed")
	assert.NotEqual(t, ovWin, f.s.overlay)
	assert.NotEqual(t, kiosk.StageDone, g.Stage())
	assert.Equal(t, 9*game.Euro, f.s.gs.Credit(), "the credit shown is the one the stake left")

	release()
	released = true
	g.Wait()
	f.frame()
	require.True(t, f.s.gs.Over())
	f.endShown()
	res := g.Result()
	require.Equal(t, game.Win, res.Outcome.Kind)
	assert.Equal(t, prize(game.Stake100, 1), res.Won)
	assert.Equal(t, ovWin, f.s.overlay)
	assert.Contains(t, f.texts(), fr(res.Won), "the window shows the amount credited")
	assert.Equal(t, 9*game.Euro+res.Won, f.m.Snapshot().Credit)
}
