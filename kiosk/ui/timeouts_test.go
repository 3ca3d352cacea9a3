package ui

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk"
)

// A result left untouched says it goes back home ten seconds before it
// does, counting down, and « Plus de temps » gives the player the whole
// timeout again: the kiosk's own timer, not only the screen's.
func TestScreensResultWarnsAndGivesMoreTime(t *testing.T) {
	f := newScrFixture(t)
	f.credit(5 * game.Euro)
	f.tap(fr(game.Stake050.Money()))
	f.tap("Auto")
	f.playToEnd(false)
	require.Equal(t, scrGame, f.s.screen)
	tick := func(d time.Duration) {
		f.clock.Advance(d)
		f.m.Poll()
		f.flush()
		f.s.Poll(f.clock.Now())
		f.flush()
	}
	until := f.m.Snapshot().ResultUntil
	require.False(t, until.IsZero())
	tick(until.Sub(f.clock.Now()) - 11*time.Second)
	assert.Nil(t, f.button("Plus de temps"), "11 s before: no warning yet")
	tick(3 * time.Second)
	assert.Contains(t, f.texts(), "Retour à l’accueil dans 8\u00a0s")
	f.golden("screen-time-warning.png")
	tick(time.Second)
	assert.Contains(t, f.texts(), "Retour à l’accueil dans 7\u00a0s", "it counts down")

	f.tap("Plus de temps")
	assert.Nil(t, f.button("Plus de temps"), "the strip goes once the player asked")
	tick(time.Second)
	assert.True(t, f.m.Snapshot().ResultUntil.After(until), "the kiosk's timeout starts again")
	tick(30 * time.Second)
	assert.Equal(t, scrGame, f.s.screen, "the result stays past the first timeout")
	assert.Equal(t, kiosk.Result, f.m.Snapshot().State)

	tick(f.m.Snapshot().ResultUntil.Sub(f.clock.Now()))
	assert.Equal(t, scrHome, f.s.screen, "untouched again: home")
	assert.Nil(t, f.button("Plus de temps"), "no warning left on the home screen")
}

// The history says it closes, and gives more time, too.
func TestScreensHistoryWarnsAndGivesMoreTime(t *testing.T) {
	f := newScrFixture(t)
	f.tap("Historique")
	require.Equal(t, scrHistory, f.s.screen)
	f.clock.Advance(f.s.opt.HistoryTimeout - 5*time.Second)
	f.s.Poll(f.clock.Now())
	assert.Contains(t, f.texts(), "Retour à l’accueil dans 5\u00a0s")
	f.tap("Plus de temps")
	f.clock.Advance(f.s.opt.HistoryTimeout - 5*time.Second)
	f.s.Poll(f.clock.Now())
	require.NotNil(t, f.button("Plus de temps"), "the warning again, 5 s before")
	f.tap("Retour")
	assert.Nil(t, f.button("Plus de temps"), "the strip leaves with the screen it was about")
	f.tap("Historique")
	f.clock.Advance(f.s.opt.HistoryTimeout - time.Second)
	f.s.Poll(f.clock.Now())
	assert.Equal(t, scrHistory, f.s.screen, "the whole timeout again")
	f.clock.Advance(time.Second)
	f.s.Poll(f.clock.Now())
	assert.Equal(t, scrHome, f.s.screen)
}
