package play

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/kiosk/ui/art"
	"pharaon/kiosk/ui/golden"
)

// The game screen in the middle of an Auto game, at the kiosk's two screen
// sizes: bricks standing and fallen, symbols and stones uncovered, a symbol
// flying to the cartouche, the cartouche counting, a stone's timer, the AUTO
// badge, the stake and the credit.
func TestGameGoldenMidGame(t *testing.T) {
	for _, tc := range []struct {
		name string
		size fyne.Size
	}{
		{"game-midgame.png", fyne.NewSize(1280, 800)},
		{"game-midgame-1920x1080.png", fyne.NewSize(1920, 1080)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rig := newGameRig(t, tc.size)
			rig.g.SetCredit(1250)
			d := newTestDemo(t, testWalls(t, game.Stake200, 3, false, 7), breakout.Auto)
			rig.g.Play(d)
			w := d.World()
			// a few symbols counted, one on its way, a stone in effect
			rig.until(1200, "a symbol flying while a stone works", func() bool {
				n := 0
				for _, c := range rig.g.Cartouche().Counts() {
					n += c
				}
				return n >= 1 && flightJustStarted(rig) && w.Effect(game.Green)+w.Effect(game.Pink)+w.Effect(game.Blue) > 0
			})
			rig.frames(15)
			require.Positive(t, rig.g.inFlight)
			require.False(t, w.Done())
			golden.Assert(t, tc.name, rig.capture())
		})
	}
}

// flightJustStarted reports whether a symbol took off on the last frame.
func flightJustStarted(rig *gameRig) bool {
	for s := range rig.g.flights {
		for _, f := range rig.g.flights[s] {
			if f.on && rig.clock.t.Sub(f.at) < testFrame {
				return true
			}
		}
	}
	return false
}

// A Jouer game whose ball was lost: the pharaoh's ghost mask over the
// playfield (Art. 4.4).
func TestGameGoldenGhost(t *testing.T) {
	rig := newGameRig(t, fyne.NewSize(1280, 800))
	rig.g.SetCredit(800)
	d := newTestDemo(t, testWalls(t, game.Stake050, 0, false, 21), breakout.Play)
	rig.g.Play(d)
	rig.frame()
	w := d.World()
	pf := rig.g.Playfield()
	b := w.Ball()
	test.TapCanvas(rig.w.Canvas(), pf.Position().Add(pf.rend.geom.pos(b.X, b.Y)))
	rig.until(60*60, "the ball is lost", func() bool { return w.Ball().Phase == breakout.Lost })
	rig.frames(30)
	require.Equal(t, breakout.Lost, w.Ball().Phase)
	assert.Zero(t, pf.rend.ghost.Translucency)
	golden.Assert(t, "game-ghost.png", rig.capture())
}

// A Jouer game before the first launch: TestGameSaysToTapTheBall.

// The bonus wall after the red brick's first hit (Art. 4.7): the cracked red
// brick in the centre and its count at 1/2.
func TestGameGoldenBonusOneHit(t *testing.T) {
	rig := newGameRig(t, fyne.NewSize(1280, 800))
	rig.g.SetCredit(2500)
	rig.g.BonusDelay = time.Second
	d := newTestDemo(t, testWalls(t, game.Stake100, 2, true, 5), breakout.Auto)
	rig.g.Play(d)
	rig.until(30*60, "the first hit of the red brick", func() bool {
		w := rig.g.Playfield().World()
		return w.IsBonus() && w.RedHits() == 1
	})
	rig.frames(25) // the flash is over
	w := rig.g.Playfield().World()
	require.Equal(t, 1, w.RedHits())
	r := rig.g.Playfield().rend
	assert.True(t, r.cracked.Visible())
	assert.False(t, r.red.Visible())
	assert.Equal(t, "1/2", r.redCount.Text)
	golden.Assert(t, "game-bonus-red-1of2.png", rig.capture())
}

// A winning Auto game at its end: the combination blinks in the cartouche
// (Art. 4.6), lit then dim.
func TestGameGoldenWinBlinks(t *testing.T) {
	rig := newGameRig(t, fyne.NewSize(1280, 800))
	rig.g.SetCredit(1750)
	var h testHooks
	h.attach(rig.g)
	d := newTestDemo(t, testWalls(t, game.Stake100, 3, false, 42), breakout.Auto)
	rig.g.Play(d)
	rig.until(30*60, "the end", func() bool { return h.ends > 0 })
	require.Len(t, h.combos, 1)
	assert.Equal(t, game.Cross, h.combos[0].Combination.Symbol)
	cart := rig.g.Cartouche()
	require.True(t, cart.BlinkLit(), "the combination starts lit")
	golden.Assert(t, "game-win-blink-lit.png", rig.capture())

	rig.clock.t = rig.clock.t.Add(BlinkHalfPeriod)
	rig.g.Frame(rig.clock.t)
	require.False(t, cart.BlinkLit(), "half a period later it is dim")
	golden.Assert(t, "game-win-blink-dim.png", rig.capture())

	rig.clock.t = rig.clock.t.Add(BlinkHalfPeriod)
	rig.g.Frame(rig.clock.t)
	assert.True(t, cart.BlinkLit(), "and lit again")
}

// The cartouche alone, as other screens may show it: three scarabs blinking
// (lit and dim), an eye and a snake found.
func TestCartoucheGoldenBlink(t *testing.T) {
	a := test.NewTempApp(t)
	a.Settings().SetTheme(art.Theme())
	c := NewCartouche()
	w := test.NewWindow(c)
	w.SetPadded(false)
	w.Resize(fyne.NewSize(260, 640))
	t.Cleanup(w.Close)
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	c.SetCounts(game.Counts{game.Scarab: 3, game.Eye: 1, game.Snake: 1})
	comb, ok := game.CombinationOf(game.Scarab, 3)
	require.True(t, ok)
	c.Blink(comb, t0)
	c.Frame(t0)
	golden.Assert(t, "cartouche-blink-lit.png", w.Canvas().Capture())
	c.Frame(t0.Add(BlinkHalfPeriod + BlinkHalfPeriod/2))
	golden.Assert(t, "cartouche-blink-dim.png", w.Canvas().Capture())
}
