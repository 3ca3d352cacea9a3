package play

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/game/reveal"
	"pharaon/kiosk/ui/art"
)

// newFieldRig shows a lone playfield of 600×500 (half a field unit a pixel)
// with world w.
func newFieldRig(t *testing.T, w *breakout.World) *Playfield {
	t.Helper()
	a := test.NewTempApp(t)
	a.Settings().SetTheme(art.Theme())
	p := NewPlayfield()
	p.SetWords(frenchWords)
	win := test.NewWindow(p)
	win.SetPadded(false)
	win.Resize(fyne.NewSize(600, 500))
	t.Cleanup(win.Close)
	p.SetWorld(w)
	p.Frame(time.Unix(0, 0))
	return p
}

func newFieldWorld(t *testing.T, mode breakout.Mode, s breakout.Settings) (*breakout.World, reveal.Walls) {
	t.Helper()
	l := testWalls(t, game.Stake100, 4, true, 77)
	w, err := breakout.New(l.Main, mode, s)
	require.NoError(t, err)
	return w, l
}

func TestPlayfieldGeometry(t *testing.T) {
	tests := []struct {
		size fyne.Size
		want fieldGeom
	}{
		{fyne.NewSize(600, 500), fieldGeom{X: 0, Y: 0, S: 0.5}},
		{fyne.NewSize(700, 500), fieldGeom{X: 50, Y: 0, S: 0.5}},   // wider: centred
		{fyne.NewSize(600, 700), fieldGeom{X: 0, Y: 100, S: 0.5}},  // taller: centred
		{fyne.NewSize(1296, 1080), fieldGeom{X: 0, Y: 0, S: 1.08}}, // 1920×1080's field
	}
	for _, tc := range tests {
		g := newFieldGeom(tc.size)
		assert.InDelta(t, tc.want.X, g.X, 1e-3)
		assert.InDelta(t, tc.want.Y, g.Y, 1e-3)
		assert.InDelta(t, tc.want.S, g.S, 1e-5)
	}
	g := newFieldGeom(fyne.NewSize(600, 500))
	assert.Equal(t, int32(0), g.toFieldX(-40), "left of the field: its left side")
	assert.Equal(t, int32(breakout.FieldWidth), g.toFieldX(900), "right of it: its right side")
	assert.Equal(t, int32(300*breakout.Unit), g.toFieldX(150))
	assert.Equal(t, fyne.NewPos(150, 250), g.pos(300*breakout.Unit, 500*breakout.Unit))
}

// Touch (Art. 4.4): a tap on the ball launches it once; within the touch
// radius counts as on the ball; a tap or a press elsewhere, and a drag,
// set the paddle's target to the finger; a press on the ball does not move
// the paddle under it.
func TestPlayfieldTouch(t *testing.T) {
	w, _ := newFieldWorld(t, breakout.Play, breakout.DefaultSettings())
	p := newFieldRig(t, w)
	touches := 0
	p.OnActivity = func() { touches++ }
	b := w.Ball()
	ball := p.rend.geom.pos(b.X, b.Y)

	in := p.Input()
	assert.Equal(t, breakout.Input{PaddleX: w.Paddle().X}, in, "nothing done: no steering, no launch")

	test.TapAt(p, ball.Add(fyne.NewPos(30, -30))) // 42 px away, within 56
	in = p.Input()
	assert.True(t, in.Launch, "a tap near enough the ball launches")
	assert.False(t, in.Steer, "and does not steer")
	assert.False(t, p.Input().Launch, "a launch is taken once")

	p.TouchRadius = 10 // below the minimum: 30 px
	test.TapAt(p, ball.Add(fyne.NewPos(29, 0)))
	assert.True(t, p.Input().Launch, "a 60 px target at least")
	test.TapAt(p, ball.Add(fyne.NewPos(31, 0)))
	in = p.Input()
	assert.False(t, in.Launch, "beyond the radius it is not on the ball")
	assert.True(t, in.Steer)
	assert.Equal(t, p.rend.geom.toFieldX(ball.X+31), in.PaddleX, "the tap steers the paddle")
	p.TouchRadius = 0

	p.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(40, 480)}})
	assert.Equal(t, int32(80*breakout.Unit), p.Input().PaddleX, "a press steers at once")
	p.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: ball}})
	assert.Equal(t, int32(80*breakout.Unit), p.Input().PaddleX, "a press on the ball leaves the paddle")

	p.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(590, 100)}, Dragged: fyne.NewDelta(5, 0)})
	assert.Equal(t, int32(1180*breakout.Unit), p.Input().PaddleX, "the finger's x, wherever it is on the field")
	p.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(-50, 100)}})
	assert.Equal(t, int32(0), p.Input().PaddleX, "clamped to the field")
	p.DragEnd()
	assert.Equal(t, 7, touches, "every touch is activity")

	// the engine takes the input: the paddle heads for the target
	for i := 0; i < 60; i++ {
		w.Step(p.Input())
	}
	assert.Equal(t, int32(breakout.PaddleWidth/2), w.Paddle().X, "the paddle went as far left as it can")
}

// Nothing to touch without a wall.
func TestPlayfieldWithoutWorld(t *testing.T) {
	p := newFieldRig(t, nil)
	test.TapAt(p, fyne.NewPos(300, 400))
	p.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(100, 100)}})
	assert.Equal(t, breakout.Input{}, p.Input())
	for i := range p.rend.slots {
		assert.False(t, p.rend.slots[i].brick.Visible())
	}
	assert.False(t, p.rend.ball.Visible())
	assert.False(t, p.rend.paddle[1].Visible())
}

// The playfield draws what the world holds: standing bricks, what fell
// bricks uncovered (fading in after the event), the stones' timers, the
// AUTO badge, the red brick's hits.
func TestPlayfieldDrawsTheWorld(t *testing.T) {
	s := breakout.DefaultSettings()
	w, l := newFieldWorld(t, breakout.Auto, s)
	p := newFieldRig(t, w)
	r := p.rend
	t0 := time.Unix(100, 0)
	now := t0
	assert.True(t, r.badge.Visible(), "AUTO")
	for i := range r.slots {
		assert.Equal(t, i < l.Main.Len(), r.slots[i].brick.Visible(), "slot %d", i)
		assert.False(t, r.slots[i].content.Visible())
	}

	var fell int = -1
	var fellAt time.Time
	stoneSeen := false
	for tick := 0; !w.Done(); tick++ {
		if tick%2 == 0 {
			now = now.Add(testFrame)
		}
		for _, e := range w.Step(breakout.Input{}) {
			p.Event(e, now)
			if e.Kind == breakout.BrickDestroyed && fell < 0 {
				fell, fellAt = e.Brick, now
			}
		}
		p.Frame(now)
		if fell >= 0 && now.Equal(fellAt) {
			assert.False(t, r.slots[fell].brick.Visible(), "the fallen brick is gone")
			assert.True(t, r.slots[fell].content.Visible(), "what it hid shows")
			assert.Equal(t, 1.0, r.slots[fell].content.Translucency, "fading in from nothing")
		}
		if fell >= 0 && now.Sub(fellAt) == 14*testFrame {
			assert.Zero(t, r.slots[fell].content.Translucency, "fully shown after the fade")
		}
		for st := range game.Stones {
			left := w.Effect(game.Stone(st))
			h := r.stones[st]
			assert.Equal(t, left > 0, h.gem.Visible(), "stone %d timer", st)
			assert.Equal(t, left > 0, r.bars[st].Visible(), "stone %d bar", st)
			if left > 0 {
				stoneSeen = true
				secs := (left + breakout.TicksPerSecond - 1) / breakout.TicksPerSecond
				assert.Equal(t, stoneSeconds[secs], h.secs.Text)
				pw := r.geom.len(w.Paddle().Width)
				assert.InDelta(t, pw*float32(left)/float32(s.StoneTicks), r.bars[st].Size().Width, 0.01, "the bar shrinks with the time left")
			}
		}
	}
	require.True(t, stoneSeen, "the wall has a stone")
	p.Frame(now)
	for i := 0; i < l.Main.Len(); i++ {
		assert.False(t, r.slots[i].brick.Visible())
		assert.True(t, r.slots[i].content.Visible())
	}

	// the bonus wall: the red brick, intact, cracked, gone; 0/2, 1/2, 2/2
	bonus, err := breakout.New(l.Bonus, breakout.Auto, s)
	require.NoError(t, err)
	p.SetWorld(bonus)
	p.Frame(now)
	assert.True(t, r.redCap.Visible())
	assert.Equal(t, "0/2", r.redCount.Text)
	assert.True(t, r.red.Visible())
	assert.False(t, r.cracked.Visible())
	hits := 0
	for !bonus.Done() {
		now = now.Add(testFrame / 2)
		for _, e := range bonus.Step(breakout.Input{}) {
			p.Event(e, now)
			if e.Kind == breakout.RedBrickHit {
				hits = e.N
				p.Frame(now)
				assert.Equal(t, redHitsText[hits], r.redCount.Text)
				assert.True(t, r.flash.Visible(), "the red brick flashes when hit")
				assert.Equal(t, hits == 1, r.cracked.Visible(), "cracked after the first hit")
				assert.False(t, r.red.Visible())
				assert.Equal(t, hits >= 1, r.redPips[0][1].Visible())
				assert.Equal(t, hits >= 2, r.redPips[1][1].Visible())
			}
		}
		p.Frame(now)
	}
	assert.Equal(t, 2, hits)
	p.Frame(now.Add(redFlash))
	assert.False(t, r.flash.Visible(), "the flash is over")

	// a main wall again: no bonus count
	p.SetWorld(w)
	assert.False(t, r.redCap.Visible())
	assert.False(t, r.red.Visible() || r.cracked.Visible())
}

// The ring round a ball waiting for a tap shows in Jouer only.
func TestPlayfieldLaunchHint(t *testing.T) {
	w, _ := newFieldWorld(t, breakout.Play, breakout.DefaultSettings())
	p := newFieldRig(t, w)
	assert.True(t, p.rend.hint.Visible(), "Jouer, ball on the paddle: tap it")
	w.Step(breakout.Input{Launch: true})
	p.Frame(time.Unix(1, 0))
	assert.False(t, p.rend.hint.Visible(), "in flight")

	a, _ := newFieldWorld(t, breakout.Auto, breakout.DefaultSettings())
	p.SetWorld(a)
	assert.False(t, p.rend.hint.Visible(), "Auto launches by itself")
}

// Between two ticks the ball and the paddle are drawn where they were at the
// frame's time (frameBetween); a frame with alpha 1 draws the world as it is.
func TestPlayfieldDrawsBetweenTicks(t *testing.T) {
	w, _ := newFieldWorld(t, breakout.Play, breakout.DefaultSettings())
	p := newFieldRig(t, w)
	g := p.rend.geom
	now := time.Unix(7, 0)
	steer := breakout.Input{Steer: true, PaddleX: 100 * breakout.Unit}
	w.Step(breakout.Input{Launch: true})
	for i := 0; i < 10; i++ {
		w.Step(steer)
	}
	p.beforeStep()
	before, pb := w.Ball(), w.Paddle()
	w.Step(steer)
	after, pa := w.Ball(), w.Paddle()
	require.Equal(t, breakout.Flying, after.Phase)
	require.NotEqual(t, pb.X, pa.X, "the paddle moved this tick")
	rad := after.Radius

	p.frameBetween(now, 0.5)
	mid := g.pos((before.X+after.X)/2-rad, (before.Y+after.Y)/2-rad)
	assert.InDelta(t, mid.X, p.rend.ball.Position().X, 0.01)
	assert.InDelta(t, mid.Y, p.rend.ball.Position().Y, 0.01)
	assert.InDelta(t, g.pos((pb.X+pa.X)/2-pa.Width/2, 0).X, p.rend.paddle[0].Position().X, 0.01)

	p.Frame(now)
	assert.Equal(t, g.pos(after.X-rad, after.Y-rad), p.rend.ball.Position(), "Frame draws the world as it is")

	// a launch is not smoothed: the ball is drawn where it is
	w2, _ := newFieldWorld(t, breakout.Play, breakout.DefaultSettings())
	p.SetWorld(w2)
	p.beforeStep()
	w2.Step(breakout.Input{Launch: true})
	b := w2.Ball()
	require.Equal(t, breakout.Flying, b.Phase)
	p.frameBetween(now, 0)
	assert.Equal(t, g.pos(b.X-b.Radius, b.Y-b.Radius), p.rend.ball.Position())
}

// The backdrop: its frieze and base band over plain lapis by default, the
// whole sky on demand.
func TestPlayfieldBackdrop(t *testing.T) {
	w, _ := newFieldWorld(t, breakout.Auto, breakout.DefaultSettings())
	p := newFieldRig(t, w)
	r := p.rend
	assert.True(t, r.frieze.Visible())
	assert.True(t, r.base.Visible())
	assert.False(t, r.sky.Visible())
	assert.Equal(t, float32(600), r.frieze.Size().Width)
	assert.InDelta(t, art.PlayfieldInner.Y*500, r.frieze.Size().Height, 1)
	assert.InDelta(t, 500, r.base.Position().Y+r.base.Size().Height, 0.01, "the base band ends the field")
	assert.Less(t, r.frieze.Size().Height+r.base.Size().Height, float32(100), "the bands are a small part of the field")

	p.SetFullBackdropMaxPixels(FullBackdropAlways)
	assert.True(t, r.sky.Visible())
	assert.True(t, r.frieze.Visible(), "the whole backdrop's frieze apart, to go over the ball")
	assert.False(t, r.base.Visible())
	assert.Equal(t, float32(600), r.sky.Size().Width)
	assert.InDelta(t, r.frieze.Size().Height, r.sky.Position().Y, 0.01, "the rest right under the frieze")
	assert.InDelta(t, 500, r.sky.Position().Y+r.sky.Size().Height, 0.01, "to the field's end")
	p.SetFullBackdropMaxPixels(0)
	assert.False(t, r.sky.Visible())
	assert.True(t, r.frieze.Visible())
}

// Above its size limit, the whole backdrop gives way to the frieze and the
// base band, and comes back when the field fits again or the limit goes.
func TestPlayfieldFullBackdropLimit(t *testing.T) {
	w, _ := newFieldWorld(t, breakout.Auto, breakout.DefaultSettings())
	p := newFieldRig(t, w) // a 600 × 500 field at scale 1: 300 000 pixels
	r := p.rend
	p.SetFullBackdropMaxPixels(300_000)
	assert.True(t, p.FullBackdropShown(), "a field of exactly the limit")
	p.SetFullBackdropMaxPixels(299_999)
	assert.False(t, p.FullBackdropShown())
	assert.True(t, r.frieze.Visible() && r.base.Visible())
	assert.InDelta(t, 500, r.base.Position().Y+r.base.Size().Height, 0.01)
	p.Resize(fyne.NewSize(480, 400)) // smaller than the limit again
	assert.True(t, p.FullBackdropShown(), "a field that shrank under the limit")
	assert.False(t, r.base.Visible())
	p.Resize(fyne.NewSize(600, 500))
	assert.False(t, p.FullBackdropShown(), "and grew over it")
	p.SetFullBackdropMaxPixels(FullBackdropAlways)
	assert.True(t, p.FullBackdropShown(), "no limit")
	p.SetFullBackdropMaxPixels(-1)
	assert.False(t, p.FullBackdropShown(), "below 0: never")
}

// The ball rises to the field's top (the engine's top wall), under the
// backdrop's frieze: the frieze is drawn over the ball and its ring, so
// the ball passes under it rather than over the ornament.
func TestPlayfieldFriezeOverTheBall(t *testing.T) {
	w, _ := newFieldWorld(t, breakout.Auto, breakout.DefaultSettings())
	p := newFieldRig(t, w)
	r := p.rend
	at := func(o fyne.CanvasObject) int {
		for i, x := range r.objects {
			if x == o {
				return i
			}
		}
		t.Fatalf("object not drawn")
		return -1
	}
	for _, full := range []int{0, FullBackdropAlways} {
		p.SetFullBackdropMaxPixels(full)
		require.True(t, r.frieze.Visible(), "the frieze drawn apart, whole backdrop (%d) or not", full)
	}
	assert.Greater(t, at(r.frieze), at(r.ball), "the frieze over the ball")
	assert.Greater(t, at(r.frieze), at(r.hint), "and over the ring round it")
	assert.Less(t, float32(breakout.BallRadius*2/breakout.Unit)*500/float32(fieldH), r.frieze.Size().Height,
		"a ball at the field's top is under the frieze whole")
}
