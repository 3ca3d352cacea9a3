package ui

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk"
)

// While the idle kiosk waits for its restart into a new system, the
// player's screen says so in both languages, with nothing to touch, and
// stays (no attract loop); a restart that does not come gives the kiosk
// back: home, or the out-of-service screen of a kiosk out of service.
func TestScreensSayTheRestartIntoANewSystem(t *testing.T) {
	m := newFakeMachine(t, 0)
	f := newFakeFixture(t, m)
	require.Equal(t, scrHome, f.s.screen)
	lock := func(on bool) {
		m.push(func(s *kiosk.Snapshot) { s.Maintenance, s.Restarting = on, on })
		f.flush()
	}

	lock(true)
	require.Equal(t, scrRestart, f.s.screen)
	text := f.screenText()
	assert.Contains(t, text, "Mise à jour du logiciel")
	assert.Contains(t, text, "La borne redémarre sur sa nouvelle version et revient dans un instant.")
	assert.Contains(t, text, "Software update")
	assert.Contains(t, text, "The kiosk is restarting into its new version and will be back in a moment.")
	assert.Nil(t, f.button("Jouer"), "nothing to play here")
	f.golden("screen-restart.png")
	f.clock.Advance(10 * time.Minute)
	f.s.Poll(f.clock.Now())
	assert.Equal(t, scrRestart, f.s.screen, "no attract loop over it")

	lock(false)
	assert.Equal(t, scrHome, f.s.screen, "the restart did not come: the kiosk sells again")
	require.NotNil(t, f.button("Jouer"))

	m.push(func(s *kiosk.Snapshot) {
		s.State, s.Fault = kiosk.OutOfService, kiosk.Fault{Code: kiosk.FaultPrinter, Detail: "paper out"}
	})
	f.flush()
	require.Equal(t, scrOutOfService, f.s.screen)
	lock(true)
	assert.Equal(t, scrRestart, f.s.screen, "a kiosk out of service restarts too")
	lock(false)
	assert.Equal(t, scrOutOfService, f.s.screen, "and is out of service again if it does not")

	// The maintenance screen's lock is not a restart: the player's screen
	// stays under it.
	m.push(func(s *kiosk.Snapshot) { s.State, s.Fault, s.Maintenance = kiosk.Home, kiosk.Fault{}, true })
	f.flush()
	assert.Equal(t, scrHome, f.s.screen)
}
