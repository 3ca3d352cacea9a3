package ui

import (
	"image"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/game/reveal"
	"pharaon/kiosk/ui/art"
)

// gsTestFrame is one frame of the tests' screen: 60 Hz, rounded up to the
// nanosecond so that it is worth exactly two engine ticks.
const gsTestFrame = 16_666_667 * time.Nanosecond

// gsClock is the tests' clock: it moves only when told.
type gsClock struct{ t time.Time }

func (c *gsClock) Now() time.Time { return c.t }

// gsRig is a game screen in a test window with its clock.
type gsRig struct {
	t     testing.TB
	g     *GameScreen
	w     fyne.Window
	clock *gsClock
}

// newGameRig puts a new game screen in a headless window of size, with the
// kiosk's theme.
func newGameRig(t testing.TB, size fyne.Size) *gsRig {
	t.Helper()
	a := test.NewTempApp(t)
	a.Settings().SetTheme(art.Theme())
	c := &gsClock{t: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	g := NewGameScreen(c.Now)
	w := test.NewWindow(g)
	w.SetPadded(false)
	w.Resize(size)
	t.Cleanup(w.Close)
	return &gsRig{t: t, g: g, w: w, clock: c}
}

// frame runs one frame of the screen.
func (r *gsRig) frame() {
	r.clock.t = r.clock.t.Add(gsTestFrame)
	r.g.Frame(r.clock.t)
}

// frames runs n frames.
func (r *gsRig) frames(n int) {
	for i := 0; i < n; i++ {
		r.frame()
	}
}

// until runs frames until cond holds, failing after max frames.
func (r *gsRig) until(max int, what string, cond func() bool) {
	r.t.Helper()
	for i := 0; i < max; i++ {
		if cond() {
			return
		}
		r.frame()
	}
	require.FailNow(r.t, "timed out waiting", what)
}

// capture is the window as drawn.
func (r *gsRig) capture() image.Image { return r.w.Canvas().Capture() }

// gsWalls lays out a unit.
func gsWalls(t testing.TB, stake game.Stake, tier game.Tier, viaBonus bool, seed uint64) reveal.Walls {
	t.Helper()
	l, err := reveal.Layout(stake, tier, viaBonus, seed, reveal.Latest)
	require.NoError(t, err)
	return l
}

// newGSDemo starts a demo of the unit in mode with the default settings.
func newGSDemo(t testing.TB, l reveal.Walls, mode breakout.Mode) *DemoGame {
	t.Helper()
	d, err := NewDemoGame(l, mode, breakout.DefaultSettings())
	require.NoError(t, err)
	return d
}
