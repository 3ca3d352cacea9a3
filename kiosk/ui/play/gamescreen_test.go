package play

import (
	"fmt"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/game/reveal"
)

// testHooks records what the game screen told the screens.
type testHooks struct {
	combos  []game.Outcome
	bonus   int
	ends    int
	tapped  int
	touches int
}

func (h *testHooks) attach(g *Screen) {
	g.OnCombination = func(o game.Outcome) { h.combos = append(h.combos, o) }
	g.OnBonusWall = func() { h.bonus++ }
	g.OnEnd = func() { h.ends++ }
	g.OnCartoucheTapped = func() { h.tapped++ }
	g.OnActivity = func() { h.touches++ }
}

// A whole Auto game through the real engine, frame after frame, for losing,
// winning and bonus units at every stake: the cartouche never shows more
// than the wall has revealed, ends showing exactly the main wall's counts
// (Art. 4.6), blinks the combination the layout was dressed with and no
// other, the bonus wall comes only for a unit won through the bonus game and
// ends on the red brick's second hit (Art. 4.7), and OnEnd comes once.
func TestGameScreenAutoGameToTheEnd(t *testing.T) {
	type unit struct {
		stake game.Stake
		tier  game.Tier
		bonus bool
		seed  uint64
	}
	units := []unit{
		{game.Stake050, game.TierLose, false, 1},
		{game.Stake100, game.TierLose, false, 2},
		{game.Stake200, game.TierLose, false, 3},
		{game.Stake050, 1, false, 4},
		{game.Stake100, 2, false, 5},
		{game.Stake200, 3, false, 6},
		{game.Stake050, 4, false, 7},
		{game.Stake100, 5, false, 8},
		{game.Stake200, 6, false, 9},
		{game.Stake050, 7, false, 10},
		{game.Stake100, 8, false, 11},
		{game.Stake200, 8, true, 12},
		{game.Stake050, 2, true, 13},
	}
	// one screen plays every game in turn, as the kiosk's does
	rig := newGameRig(t, fyne.NewSize(1280, 800))
	for _, u := range units {
		t.Run(fmt.Sprintf("%s-tier%d-bonus%v", u.stake.Money().Plain(), u.tier, u.bonus), func(t *testing.T) {
			l := testWalls(t, u.stake, u.tier, u.bonus, u.seed)
			want, err := l.Outcome()
			require.NoError(t, err)
			rig.t = t
			var h testHooks
			h.attach(rig.g)
			d := newTestDemo(t, l, breakout.Auto)
			rig.g.Play(d)
			t0 := rig.clock.t
			assert.Equal(t, u.stake, rig.g.Stake())

			limit := 4*breakout.AutoBoundTicks/2 + 600 // frames: two walls, the interlude, the flights
			for i := 0; i < limit && h.ends == 0; i++ {
				rig.frame()
				shown, rev := rig.g.Cartouche().Counts(), d.Revealed()
				for s := range shown {
					require.LessOrEqual(t, shown[s], rev[s], "the cartouche shows a %s not revealed yet", game.Symbol(s))
				}
			}
			t.Logf("ended after %v of game time", rig.clock.t.Sub(t0))
			require.Equal(t, 1, h.ends, "the game ends")
			assert.True(t, rig.g.Over())
			assert.True(t, d.Done())
			assert.Equal(t, l.Main.Counts(), rig.g.Cartouche().Counts(), "the cartouche shows the main wall's reveal")

			comb, blinking := rig.g.Cartouche().Blinking()
			if want.Kind == game.Lose {
				assert.Empty(t, h.combos)
				assert.False(t, blinking && !u.bonus, "a losing wall blinks nothing")
			} else {
				require.Len(t, h.combos, 1)
				assert.Equal(t, want, h.combos[0])
				if !u.bonus {
					assert.True(t, blinking)
					assert.Equal(t, want.Combination, comb)
				}
			}
			if u.bonus {
				assert.Equal(t, 1, h.bonus, "the bonus wall appears once")
				w := rig.g.Playfield().World()
				require.True(t, w.IsBonus())
				assert.Equal(t, 2, w.RedHits())
				assert.False(t, blinking, "the snakes stop blinking on the bonus wall")
			} else {
				assert.Zero(t, h.bonus)
			}

			// the last wall is drawn as it ended (every brick fallen on the
			// main wall; the red one on the bonus wall, Art. 4.7), nothing
			// in flight
			r := rig.g.Playfield().rend
			for i, b := range rig.g.Playfield().World().Bricks() {
				s := r.slots[i]
				assert.Equal(t, b.Alive() && !b.Content.IsRed(), s.brick.Visible(), "brick %d", i)
				assert.Equal(t, !b.Alive(), s.content.Visible(), "content of brick %d", i)
				assert.Equal(t, b.Content.IsRed(), s.kind == slotRed)
				if !u.bonus {
					assert.False(t, b.Alive())
				}
			}
			assert.False(t, r.red.Visible() || r.cracked.Visible())
			for s := range rig.g.rend.flyers {
				for k := range rig.g.rend.flyers[s] {
					assert.False(t, rig.g.rend.flyers[s][k].Visible())
				}
			}
			assert.True(t, r.badge.Visible(), "the AUTO badge")
		})
	}
}

// A Jouer game with the player's touches: a tap beside the ball moves the
// paddle and does not launch; a drag moves the paddle; a tap on the ball
// launches it (Art. 4.4); a lost ball shows the ghost mask, comes back on
// the paddle and launches again; a player who walks away hands the game to
// Auto, which finishes it.
func TestGameScreenJouer(t *testing.T) {
	rig := newGameRig(t, fyne.NewSize(1280, 800))
	var h testHooks
	h.attach(rig.g)
	l := testWalls(t, game.Stake100, 6, false, 21)
	s := breakout.DefaultSettings()
	s.IdleTicks = breakout.MinIdleTicks
	d, err := NewDemoGame(l, breakout.Play, s)
	require.NoError(t, err)
	rig.g.Play(d)
	rig.frames(2)
	pf := rig.g.Playfield()
	c := rig.w.Canvas()
	w := d.World()

	ballAt := func() fyne.Position {
		b := w.Ball()
		return pf.Position().Add(pf.rend.geom.pos(b.X, b.Y))
	}
	require.Equal(t, breakout.OnPaddle, w.Ball().Phase)

	// a tap far to the left of the ball steers, it does not launch
	start := w.Paddle().X
	test.TapCanvas(c, fyne.NewPos(150, 700))
	rig.frames(30)
	assert.Equal(t, breakout.OnPaddle, w.Ball().Phase, "a tap beside the ball does not launch it")
	assert.Less(t, w.Paddle().X, start-200*breakout.Unit, "the paddle went toward the tap")
	assert.Equal(t, pf.rend.geom.toFieldX(150), w.Paddle().Target)

	// a drag to the right moves the paddle there
	test.Drag(c, fyne.NewPos(700, 600), 40, 0)
	rig.frames(30)
	assert.InDelta(t, float64(pf.rend.geom.toFieldX(700)), float64(w.Paddle().X), float64(breakout.Unit))
	assert.Equal(t, breakout.OnPaddle, w.Ball().Phase, "a drag does not launch")

	// a tap on the ball launches it
	test.TapCanvas(c, ballAt())
	rig.frame()
	assert.Equal(t, breakout.Flying, w.Ball().Phase, "the tapped ball is launched")
	assert.GreaterOrEqual(t, h.touches, 3, "each touch is activity for the kiosk")

	// the paddle stays put: the ball is lost sooner or later, the ghost
	// mask fades in, out, and the ball is back on the paddle
	r := pf.rend
	rig.until(60*60, "the ball is lost", func() bool { return w.Ball().Phase == breakout.Lost })
	rig.frame()
	assert.True(t, r.ghost.Visible(), "the ghost mask shows as the ball is lost (Art. 4.4)")
	assert.Greater(t, r.ghost.Translucency, 0.5, "it fades in")
	assert.False(t, r.ball.Visible())
	rig.frames(30)
	assert.Zero(t, r.ghost.Translucency, "then shows fully")
	rig.until(5*60, "the ball is back", func() bool { return w.Ball().Phase == breakout.OnPaddle })
	rig.frame()
	assert.False(t, r.ghost.Visible(), "the mask is gone once the ball is back")
	assert.True(t, r.ball.Visible())
	assert.False(t, r.badge.Visible(), "no AUTO badge in Jouer")

	test.TapCanvas(c, ballAt())
	rig.frame()
	assert.Equal(t, breakout.Flying, w.Ball().Phase, "launches are unlimited")

	// the player walks away: Auto takes over and finishes the wall
	rig.until(s.IdleTicks/2+60, "Auto engages", func() bool { return w.Mode() == breakout.Auto })
	rig.frame()
	assert.True(t, r.badge.Visible(), "the AUTO badge shows")
	rig.until(breakout.AutoBoundTicks/2+200, "the end", func() bool { return h.ends > 0 })
	assert.Equal(t, l.Main.Counts(), rig.g.Cartouche().Counts())
	assert.Len(t, h.combos, 1)
}

// Tapping the cartouche asks for the prize table of the stake (Art. 4.2).
func TestGameScreenCartoucheTap(t *testing.T) {
	rig := newGameRig(t, fyne.NewSize(1280, 800))
	var h testHooks
	h.attach(rig.g)
	rig.g.Play(newTestDemo(t, testWalls(t, game.Stake200, 0, false, 3), breakout.Auto))
	cart := rig.g.Cartouche()
	test.TapCanvas(rig.w.Canvas(), cart.Position().Add(fyne.NewPos(cart.Size().Width/2, cart.Size().Height/2)))
	assert.Equal(t, 1, h.tapped)
	assert.Equal(t, game.Stake200, rig.g.Stake())
	assert.Zero(t, h.touches, "a tap on the cartouche is not on the playfield")
}

// The playfield keeps the field's 6:5 aspect on the left, the panel keeps
// room for the cartouche, and the stake and credit are on screen, at the
// kiosk's screen sizes and a narrow one.
func TestGameScreenLayout(t *testing.T) {
	sizes := []struct {
		size      fyne.Size
		wantField fyne.Size
	}{
		{fyne.NewSize(1280, 800), fyne.NewSize(960, 800)},
		{fyne.NewSize(1920, 1080), fyne.NewSize(1296, 1080)},
		{fyne.NewSize(1024, 768), fyne.NewSize(1024-MinPanel, (1024-MinPanel)*5/6.0)},
	}
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%vx%v", sz.size.Width, sz.size.Height), func(t *testing.T) {
			rig := newGameRig(t, sz.size)
			rig.g.SetCredit(123450)
			rig.g.Play(newTestDemo(t, testWalls(t, game.Stake050, 0, false, 1), breakout.Play))
			rig.frame()
			pf := rig.g.Playfield()
			assert.Equal(t, float32(0), pf.Position().X)
			assert.InDelta(t, sz.wantField.Width, pf.Size().Width, 0.01)
			assert.InDelta(t, sz.wantField.Height, pf.Size().Height, 0.01)
			assert.InDelta(t, 1.2, pf.Size().Width/pf.Size().Height, 0.001, "6:5")
			cart := rig.g.Cartouche()
			assert.GreaterOrEqual(t, cart.Position().X, pf.Size().Width, "the cartouche is right of the field")
			_, sym := cart.SymbolBox(game.Bird)
			assert.GreaterOrEqual(t, sym.Width, float32(40), "symbols stay readable")
			r := rig.g.rend
			assert.Equal(t, "1\u00a0234,50\u00a0€", r.creditVal.Text)
			assert.Equal(t, "0,50\u00a0€", r.stakeVal.Text)
			for _, o := range []fyne.CanvasObject{r.stakeCap, r.stakeVal, r.creditCap, r.creditVal} {
				assert.True(t, o.Visible())
				assert.GreaterOrEqual(t, o.Position().Y, float32(0))
				assert.LessOrEqual(t, o.Position().Y+o.MinSize().Height, sz.size.Height)
				assert.GreaterOrEqual(t, o.Position().X, pf.Size().Width)
			}
			assert.GreaterOrEqual(t, 2*pf.touchRadius(), float32(60), "the ball's touch target")
		})
	}
}

// A game recovered after a restart is drawn as it stands, without
// animation, and ends like any other.
func TestGameScreenRecoveredGame(t *testing.T) {
	l := testWalls(t, game.Stake200, 3, false, 6)
	d := newTestDemo(t, l, breakout.Auto)
	for i := 0; i < 300; i++ {
		d.Step(breakout.Input{})
	}
	before := d.Revealed()
	require.NotEqual(t, game.Counts{}, before, "some symbols are out")
	rig := newGameRig(t, fyne.NewSize(1280, 800))
	var h testHooks
	h.attach(rig.g)
	rig.g.Play(d)
	assert.Equal(t, before, rig.g.Cartouche().Counts(), "the cartouche shows the reveal at once")
	r := rig.g.Playfield().rend
	for i, b := range d.World().Bricks() {
		assert.Equal(t, b.Alive(), r.slots[i].brick.Visible(), "brick %d", i)
		if !b.Alive() {
			assert.Zero(t, r.slots[i].content.Translucency, "no fade for what fell before")
		}
	}
	rig.until(breakout.AutoBoundTicks/2+200, "the end", func() bool { return h.ends > 0 })
	assert.Equal(t, l.Main.Counts(), rig.g.Cartouche().Counts())
}

// Play(nil) clears the screen: no wall, nothing counted, no pump.
func TestGameScreenPlayNil(t *testing.T) {
	rig := newGameRig(t, fyne.NewSize(1280, 800))
	rig.g.Play(newTestDemo(t, testWalls(t, game.Stake050, 1, false, 3), breakout.Auto))
	rig.until(20*60, "a symbol counted", func() bool { return rig.g.Cartouche().Counts() != game.Counts{} })
	rig.g.Play(nil)
	assert.False(t, rig.g.running)
	assert.Nil(t, rig.g.Playfield().World())
	assert.Equal(t, game.Counts{}, rig.g.Cartouche().Counts())
	rig.frames(5) // frames of a cleared screen do nothing
	assert.False(t, rig.g.Over())
	assert.False(t, rig.g.Playfield().rend.ball.Visible())
}

// The demo plays the main wall, then the bonus wall, and keeps the main
// wall's reveal for the cartouche.
func TestDemoGame(t *testing.T) {
	l := testWalls(t, game.Stake100, 4, true, 99)
	d := newTestDemo(t, l, breakout.Auto)
	assert.Equal(t, game.Stake100, d.Stake())
	main := d.World()
	for !main.Done() {
		d.Step(breakout.Input{})
	}
	assert.False(t, d.Done())
	require.NotSame(t, main, d.World())
	assert.True(t, d.World().IsBonus())
	assert.Equal(t, l.Main.Counts(), d.Revealed())
	for !d.Done() {
		d.Step(breakout.Input{})
	}
	assert.Equal(t, 2, d.World().RedHits())
	assert.Equal(t, l.Main.Counts(), d.Revealed())

	_, err := NewDemoGame(l, breakout.Mode(9), breakout.DefaultSettings())
	assert.ErrorIs(t, err, breakout.ErrBadMode)
	_, err = NewDemoGame(reveal.Walls{}, breakout.Auto, breakout.DefaultSettings())
	assert.Error(t, err)
}

// The session's line stays within the panel whatever its length, at the
// smallest screen the kiosk runs on.
func TestSessionLineFitsThePanel(t *testing.T) {
	rig := newGameRig(t, fyne.NewSize(1024, 768))
	g := rig.g
	g.SetSession("Session\u00a0: 12\u00a0h\u00a059 · bilan -12\u00a0345,50\u00a0€ · billets 9\u00a0999\u00a0€")
	r := g.rend
	require.NotNil(t, r)
	assert.LessOrEqual(t, r.session.MinSize().Width, r.panelW, "the line fits the panel")
	assert.GreaterOrEqual(t, r.session.Position().X, r.panelX)
	assert.Equal(t, g.Session(), r.session.Text)
	g.SetSession("")
	assert.Empty(t, r.session.Text, "no session, no line")
}
