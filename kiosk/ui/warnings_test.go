package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The three warnings of French law take turns at the foot of the home
// screen and of the attract loop, one a minute, the same on every screen,
// in the language shown; the turn changes the notice alone (the home
// screen's buttons are the same objects after it).
func TestScreensWarningsTakeTurns(t *testing.T) {
	m := newFakeMachine(t, 0)
	f := newFakeFixture(t, m, func(o *Options) { o.AttractAfter = 10 * time.Minute })
	require.Equal(t, scrHome, f.s.screen)
	shown := func() string {
		t.Helper()
		var got []string
		for _, w := range []string{"endettement, dépendance", "isolement, endettement", "dépendance, isolement",
			"debt, addiction", "isolation, debt", "addiction, isolation"} {
			if strings.Contains(f.screenText(), w) {
				got = append(got, w)
			}
		}
		require.Len(t, got, 1, "one warning at a time: %q", f.screenText())
		assert.Contains(t, f.screenText(), "09\u00a074\u00a075\u00a013\u00a013", "the helpline's number")
		return got[0]
	}
	poll := func(d time.Duration) {
		f.clock.Advance(d)
		f.runUI(func() { f.s.Poll(f.clock.Now()) })
	}
	// The fixture's clock starts on a minute that shows the first.
	require.Equal(t, "endettement, dépendance", shown())
	assert.Contains(t, f.screenText(), "Jeu interdit aux mineurs.")
	play := f.button("Jouer")
	poll(59 * time.Second)
	assert.Equal(t, "endettement, dépendance", shown(), "a minute each")
	poll(time.Second)
	assert.Equal(t, "isolement, endettement", shown())
	assert.Same(t, play, f.button("Jouer"), "the notice alone changed")
	poll(time.Minute)
	assert.Equal(t, "dépendance, isolement", shown())
	f.runUI(func() { f.s.SetLang(English) })
	assert.Equal(t, "addiction, isolation", shown(), "the same warning in the language shown")
	assert.Contains(t, f.screenText(), "No sale to minors.")
	f.runUI(func() { f.s.SetLang(French) })
	poll(time.Minute)
	assert.Equal(t, "endettement, dépendance", shown(), "and again from the first")

	// The attract loop carries them too.
	poll(10 * time.Minute)
	require.Equal(t, scrAttract, f.s.screen)
	first := shown()
	poll(time.Minute)
	assert.NotEqual(t, first, shown(), "the next one over the attract loop")
}
