package ui

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk"
)

// The hidden corner: a short press does nothing, a long one opens the
// maintenance screen at home; during a game the request waits until the
// game and its result are over, and only then opens it.
func TestMaintenanceCornerWaitsForTheGame(t *testing.T) {
	opened := 0
	f := newScrFixture(t, func(f *scrFixture, _ *kiosk.Config) { f.opt.OnMaintenance = func() { opened++ } })
	press := func(hold time.Duration) {
		f.runUI(func() { f.s.corner.MouseDown(&desktop.MouseEvent{}) })
		f.clock.Advance(hold)
		f.runUI(func() { f.s.Poll(f.clock.Now()) })
		f.runUI(func() { f.s.corner.MouseUp(&desktop.MouseEvent{}) })
	}
	pos, size := f.s.corner.Position(), f.s.corner.Size()
	assert.Equal(t, fyne.NewPos(0, 0), pos, "the corner is the top-left one")
	assert.InDelta(t, windowSize.Height*cornerSide, size.Width, 0.5)

	press(time.Second)
	assert.Zero(t, opened, "a short press opens nothing")
	press(DefaultMaintenanceHold)
	assert.Equal(t, 1, opened, "a long press at home opens maintenance at once")

	f.credit(5 * game.Euro)
	f.tap(fr(game.Stake050.Money()))
	f.tap("Auto")
	require.Equal(t, scrGame, f.s.screen)
	press(DefaultMaintenanceHold)
	assert.Equal(t, 1, opened, "a game in progress is not interrupted")
	assert.True(t, f.s.MaintenancePending())
	f.playToEnd(false)
	f.flush()
	f.runUI(func() { f.s.Poll(f.clock.Now()) })
	assert.Equal(t, 1, opened, "the result is the player's")
	f.tap("Accueil")
	f.flush()
	assert.Equal(t, 2, opened, "maintenance opens once the result is over")
	assert.False(t, f.s.MaintenancePending())
}

// The out-of-service screen keeps the hidden corner: a long press opens
// the maintenance screen, where a technician reads the fault and clears
// it (kiosk/ui/maint fault.go).
func TestMaintenanceCornerOnTheOutOfServiceScreen(t *testing.T) {
	opened := 0
	f := newScrFixture(t, stubbed(func(s kiosk.Snapshot) kiosk.Snapshot {
		s.State = kiosk.OutOfService
		s.Fault = kiosk.Fault{Code: kiosk.FaultSoftware, Detail: "/usr/bin/pharaon"}
		return s
	}, nil), func(f *scrFixture, _ *kiosk.Config) { f.opt.OnMaintenance = func() { opened++ } })
	require.Equal(t, scrOutOfService, f.s.screen)
	f.runUI(func() { f.s.corner.MouseDown(&desktop.MouseEvent{}) })
	f.clock.Advance(DefaultMaintenanceHold)
	f.runUI(func() { f.s.Poll(f.clock.Now()) })
	f.runUI(func() { f.s.corner.MouseUp(&desktop.MouseEvent{}) })
	assert.Equal(t, 1, opened, "a long press out of service opens maintenance")
}

// A press held past the hold counts when it is released, whether or not
// the kiosk's clock ticked (Poll) between the hold's end and the release:
// the clock ticks once a second, and a press released at 3.4 s was
// ignored when no tick fell between 3 s and the release.
func TestMaintenanceCornerCountsAtRelease(t *testing.T) {
	opened := 0
	f := newScrFixture(t, func(f *scrFixture, _ *kiosk.Config) { f.opt.OnMaintenance = func() { opened++ } })
	f.runUI(func() { f.s.corner.MouseDown(&desktop.MouseEvent{}) })
	f.clock.Advance(DefaultMaintenanceHold - 100*time.Millisecond)
	f.runUI(func() { f.s.Poll(f.clock.Now()) })
	f.clock.Advance(400 * time.Millisecond)
	f.runUI(func() { f.s.corner.MouseUp(&desktop.MouseEvent{}) })
	assert.Equal(t, 1, opened, "released after the hold, no tick in between: it counts")
	f.runUI(func() { f.s.Poll(f.clock.Now()) })
	assert.Equal(t, 1, opened, "once")

	f.runUI(func() { f.s.corner.MouseDown(&desktop.MouseEvent{}) })
	f.clock.Advance(DefaultMaintenanceHold - 100*time.Millisecond)
	f.runUI(func() { f.s.corner.MouseUp(&desktop.MouseEvent{}) })
	f.runUI(func() { f.s.Poll(f.clock.Now()) })
	assert.Equal(t, 1, opened, "a press released before the hold does nothing")
}
