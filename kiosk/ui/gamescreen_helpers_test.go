package ui

import (
	"flag"
	"image"
	"image/png"
	"os"
	"path/filepath"
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

// updateGameGoldens rewrites the golden images of the game screen instead
// of comparing them: go test ./kiosk/ui -run 'Game|Cartouche' -update-game
var updateGameGoldens = flag.Bool("update-game", false, "rewrite the game screen's golden images under testdata")

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

// assertGameGolden compares img with testdata/name pixel for pixel, or
// writes it there with -update-game. On a mismatch it writes what it got to
// testdata/failed/name and says how many pixels differ (not a hex dump).
func assertGameGolden(t *testing.T, name string, img image.Image) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *updateGameGoldens {
		gsWritePNG(t, path, img)
		return
	}
	f, err := os.Open(path)
	require.NoError(t, err, "golden image missing: run with -update-game and look at it")
	want, err := png.Decode(f)
	f.Close()
	require.NoError(t, err)
	if n := gsPixelsDiffer(want, img); n != 0 {
		failed := filepath.Join("testdata", "failed", name)
		gsWritePNG(t, failed, img)
		t.Errorf("%s: %d pixels differ from the golden image; got %s", name, n, failed)
	}
}

// gsPixelsDiffer counts the pixels that differ (all of them if the sizes do).
func gsPixelsDiffer(a, b image.Image) int {
	ab, bb := a.Bounds(), b.Bounds()
	if ab.Size() != bb.Size() {
		return ab.Dx()*ab.Dy() + bb.Dx()*bb.Dy()
	}
	n := 0
	for y := 0; y < ab.Dy(); y++ {
		for x := 0; x < ab.Dx(); x++ {
			r1, g1, b1, a1 := a.At(ab.Min.X+x, ab.Min.Y+y).RGBA()
			r2, g2, b2, a2 := b.At(bb.Min.X+x, bb.Min.Y+y).RGBA()
			if r1>>8 != r2>>8 || g1>>8 != g2>>8 || b1>>8 != b2>>8 || a1>>8 != a2>>8 {
				n++
			}
		}
	}
	return n
}

func gsWritePNG(t *testing.T, path string, img image.Image) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, png.Encode(f, img))
	require.NoError(t, f.Close())
}
