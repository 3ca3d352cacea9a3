package play

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

// testFrame is one frame of the tests' screen: 60 Hz, rounded up to the
// nanosecond so that it is worth exactly two engine ticks.
const testFrame = 16_666_667 * time.Nanosecond

// testClock is the tests' clock: it moves only when told.
type testClock struct{ t time.Time }

func (c *testClock) Now() time.Time { return c.t }

// gameRig is a game screen in a test window with its clock.
type gameRig struct {
	t     testing.TB
	g     *Screen
	w     fyne.Window
	clock *testClock
}

// newGameRig puts a new game screen in a headless window of size, with the
// kiosk's theme.
func newGameRig(t testing.TB, size fyne.Size) *gameRig {
	t.Helper()
	a := test.NewTempApp(t)
	a.Settings().SetTheme(art.Theme())
	c := &testClock{t: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	g := NewScreen(c.Now)
	g.SetWords(frenchWords)
	w := test.NewWindow(g)
	w.SetPadded(false)
	w.Resize(size)
	t.Cleanup(w.Close)
	return &gameRig{t: t, g: g, w: w, clock: c}
}

// frame runs one frame of the screen.
func (r *gameRig) frame() {
	r.clock.t = r.clock.t.Add(testFrame)
	r.g.Frame(r.clock.t)
}

// frames runs n frames.
func (r *gameRig) frames(n int) {
	for i := 0; i < n; i++ {
		r.frame()
	}
}

// until runs frames until cond holds, failing after max frames.
func (r *gameRig) until(max int, what string, cond func() bool) {
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
func (r *gameRig) capture() image.Image { return r.w.Canvas().Capture() }

// testWalls lays out a unit.
func testWalls(t testing.TB, stake game.Stake, tier game.Tier, viaBonus bool, seed uint64) reveal.Walls {
	t.Helper()
	l, err := reveal.Layout(stake, tier, viaBonus, seed, reveal.Latest)
	require.NoError(t, err)
	return l
}

// newTestDemo starts a demo of the unit in mode with the default settings.
func newTestDemo(t testing.TB, l reveal.Walls, mode breakout.Mode) *DemoGame {
	t.Helper()
	d, err := NewDemoGame(l, mode, breakout.DefaultSettings())
	require.NoError(t, err)
	return d
}

// The words the screens' catalogue gives the widget (kiosk/ui, i18n.go), in
// French and in English.
var (
	frenchWords = Words{
		Stake: "MISE", Credit: "CRÉDIT", Auto: "AUTO", RedBrick: "BRIQUE ROUGE",
		TapBall:    "Touchez la balle pour la lancer",
		AutoIn:     "Auto dans %d\u00a0s — touchez pour continuer",
		FinishAuto: "Finir en Auto", Resumed: "Partie reprise",
		FinishWait:      "dans %d\u00a0s ou dès 3 briques restantes",
		FinishWaitBonus: "dans %d\u00a0s",
		FinishDoes:      "le système détruit les briques restantes",
	}
	englishWords = Words{
		Stake: "STAKE", Credit: "CREDIT", Auto: "AUTO", RedBrick: "RED BRICK",
		TapBall:    "Tap the ball to launch it",
		AutoIn:     "Auto in %d\u00a0s — touch to keep playing",
		FinishAuto: "Finish in Auto", Resumed: "Game resumed",
		FinishWait:      "in %d\u00a0s or when 3 bricks are left",
		FinishWaitBonus: "in %d\u00a0s",
		FinishDoes:      "the system destroys the bricks left",
		English:         true,
	}
)
