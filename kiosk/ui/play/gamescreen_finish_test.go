package play

import (
	"fmt"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/kiosk/ui/art"
	"pharaon/kiosk/ui/golden"
	"pharaon/kiosk/ui/touch"
)

// follow plays a Jouer wall as a deft player would, straight on the world:
// the paddle under the ball (a little aside, to angle it), the ball
// launched whenever it waits, until done says so or the wall is 30 s old.
func follow(w *breakout.World, done func() bool) {
	for !done() && !w.Done() && w.Tick() < finishAfter {
		b := w.Ball()
		w.Step(breakout.Input{Steer: true, PaddleX: b.X + 200, Launch: b.Phase == breakout.OnPaddle})
	}
}

// Three bricks or fewer left in a Jouer wall offer to finish it in Auto
// before the wall's 30 s: not at four, at three, and the button hands the
// wall to Auto.
func TestGameOffersAutoForTheLastBricks(t *testing.T) {
	// A wall that a deft player brings down to three bricks before 30 s:
	// the physics are deterministic, so the search finds the same seed.
	var walls wallsFound
	for seed := uint64(0); seed < 60 && !walls.ok; seed++ {
		l := testWalls(t, game.Stake200, 0, false, seed)
		d := newTestDemo(t, l, breakout.Play)
		w := d.World()
		follow(w, func() bool { return w.Standing() <= FinishBricks })
		if w.Standing() <= FinishBricks && !w.Done() && !w.IsBonus() {
			walls = wallsFound{ok: true, seed: seed}
		}
	}
	require.True(t, walls.ok, "a wall brought down to three bricks within 30 s")

	for _, l := range guideLangs {
		t.Run(l.tag, func(t *testing.T) {
			rig := newGameRig(t, fyne.NewSize(1280, 800))
			rig.g.SetWords(l.words)
			rig.g.SetCredit(1200)
			d := newTestDemo(t, testWalls(t, game.Stake200, 0, false, walls.seed), breakout.Play)
			w := d.World()
			follow(w, func() bool { return w.Standing() <= FinishBricks+1 })
			require.Equal(t, FinishBricks+1, w.Standing(), "four bricks left")
			rig.g.Play(d)
			rig.frame()
			b, _ := rig.finishAt()
			require.Less(t, w.Tick(), uint32(finishAfter))
			assert.True(t, b.Disabled(), "four bricks left, the wall younger than 30 s")

			follow(w, func() bool { return w.Standing() <= FinishBricks })
			require.LessOrEqual(t, w.Standing(), FinishBricks)
			rig.frame()
			require.Less(t, w.Tick(), uint32(finishAfter), "the bricks, not the time")
			require.Equal(t, breakout.Play, w.Mode())
			require.False(t, b.Disabled(), "three bricks left")
			assert.Equal(t, l.words.FinishAuto, b.Text)
			assert.Equal(t, l.words.FinishDoes, b.Caption)

			rig.tapFinish()
			rig.frame()
			assert.Equal(t, breakout.Auto, w.Mode(), "the button hands the wall to Auto")
			assert.False(t, b.Visible(), "an Auto wall has nothing to finish")
		})
	}
}

type wallsFound struct {
	ok   bool
	seed uint64
}

// finishAt is the finish button and its top left in the window.
func (r *gameRig) finishAt() (*touch.Button, fyne.Position) {
	b := r.g.rend.finish.b
	return b, r.g.Position().Add(b.Position())
}

// tapFinish taps the middle of the finish button's place.
func (r *gameRig) tapFinish() {
	b, at := r.finishAt()
	test.TapCanvas(r.w.Canvas(), at.Add(fyne.NewPos(b.Size().Width/2, b.Size().Height/2)))
}

// The finish button is in its place from the start of a Jouer wall, greyed
// with when it will be offered; a tap there then neither moves the paddle
// nor launches the ball nor finishes the wall, and the button does not move
// when it becomes active.
func TestGameFinishButtonWaitsInItsPlace(t *testing.T) {
	for _, l := range guideLangs {
		t.Run(l.tag, func(t *testing.T) {
			rig := newGameRig(t, fyne.NewSize(1280, 800))
			rig.g.SetWords(l.words)
			rig.g.SetCredit(1200)
			d := newTestDemo(t, testWalls(t, game.Stake200, 4, false, 12), breakout.Play)
			rig.g.Play(d)
			rig.frames(2)
			w := d.World()
			b, at := rig.finishAt()
			require.True(t, b.Visible(), "in its place from the start")
			assert.True(t, b.Disabled(), "greyed before 30 s")
			assert.Equal(t, l.words.FinishAuto, b.Text)
			assert.Equal(t, fmt.Sprintf(l.words.FinishWait, 30), b.Caption)
			golden.Assert(t, fmt.Sprintf("game-finish-wait-%s.png", l.tag), rig.capture())

			before := w.Paddle()
			rig.tapFinish()
			rig.frames(3)
			assert.Equal(t, before.X, w.Paddle().X, "the paddle did not move")
			assert.Equal(t, before.Target, w.Paddle().Target, "nor was it sent anywhere")
			assert.Equal(t, breakout.OnPaddle, w.Ball().Phase, "the ball was not launched")
			assert.Equal(t, breakout.Play, w.Mode(), "the wall is not finished")

			rig.tapBall()
			rig.until(15*60, "10 s of the wall", func() bool { return w.Tick() >= 10*breakout.TicksPerSecond })
			rig.frame()
			assert.Equal(t, fmt.Sprintf(l.words.FinishWait, 20), b.Caption, "it counts down")
			target := w.Paddle().Target
			rig.tapFinish()
			rig.frames(2)
			assert.Equal(t, target, w.Paddle().Target, "a tap there during play does not steer")
			assert.Equal(t, breakout.Play, w.Mode())

			rig.until(40*60, "30 s of the wall", func() bool { return w.Tick() >= finishAfter })
			rig.frame()
			require.Equal(t, breakout.Play, w.Mode())
			assert.False(t, b.Disabled(), "active after 30 s")
			assert.Equal(t, l.words.FinishDoes, b.Caption)
			_, now := rig.finishAt()
			assert.Equal(t, at, now, "in the same place")
			rig.tapFinish()
			rig.frame()
			assert.Equal(t, breakout.Auto, w.Mode(), "the button hands the wall to Auto")
		})
	}
}

// The finish button never lies on the playfield, whose every point steers
// the paddle, at the kiosk's screen sizes; it is a finger's target, its
// words fit it, and it covers neither the stake, the cartouche nor the
// credit.
func TestGameFinishButtonBesideTheField(t *testing.T) {
	for _, size := range []fyne.Size{{Width: 1024, Height: 768}, {Width: 1280, Height: 800}, {Width: 1366, Height: 768}, {Width: 1920, Height: 1080}} {
		for _, l := range guideLangs {
			t.Run(fmt.Sprintf("%vx%v-%s", size.Width, size.Height, l.tag), func(t *testing.T) {
				rig := newGameRig(t, size)
				rig.g.SetWords(l.words)
				rig.g.SetCredit(123450)
				rig.g.Play(newTestDemo(t, testWalls(t, game.Stake200, 0, false, 1), breakout.Play))
				rig.frame()
				b, at := rig.finishAt()
				require.True(t, b.Visible())
				box := rectOf(at, b.Size())
				pf := rig.g.Playfield()
				assert.False(t, box.Overlaps(rectOf(pf.Position(), pf.Size())), "button %v on the playfield %v", box, rectOf(pf.Position(), pf.Size()))
				assert.True(t, box.In(rectOf(fyne.NewPos(0, 0), size)), "button %v on screen", box)
				assert.GreaterOrEqual(t, b.Size().Height, touch.MinTouch)
				cart := rig.g.Cartouche()
				assert.False(t, box.Overlaps(rectOf(cart.Position(), cart.Size())), "button on the cartouche")
				_, sym := cart.SymbolBox(game.Bird)
				assert.GreaterOrEqual(t, sym.Width, float32(40), "symbols stay readable")
				sr := rig.g.rend
				for _, o := range []fyne.CanvasObject{sr.stakeCap, sr.stakeVal, sr.creditCap, sr.creditVal} {
					assert.False(t, box.Overlaps(rectOf(o.Position(), o.MinSize())), "button on %q", o.(*canvas.Text).Text)
				}
				for _, c := range []string{fmt.Sprintf(l.words.FinishWait, 30), fmt.Sprintf(l.words.FinishWaitBonus, 30), l.words.FinishDoes} {
					cw := art.MeasureText(c, b.CaptionSize, fyne.TextStyle{}).Width
					assert.LessOrEqual(t, cw, b.Size().Width*0.95, "caption %q fits", c)
				}
				assert.LessOrEqual(t, art.MeasureText(b.Text, b.TextSize, fyne.TextStyle{Bold: true}).Width, b.Size().Width*0.95)
				if size.Width == 1024 {
					golden.Assert(t, fmt.Sprintf("game-finish-wait-1024x768-%s.png", l.tag), rig.capture())
				}
			})
		}
	}
}

// rect is a box on screen.
type rect struct{ x0, y0, x1, y1 float32 }

func rectOf(p fyne.Position, s fyne.Size) rect {
	return rect{p.X, p.Y, p.X + s.Width, p.Y + s.Height}
}

// Overlaps reports whether r and o share any area.
func (r rect) Overlaps(o rect) bool {
	return r.x0 < o.x1 && o.x0 < r.x1 && r.y0 < o.y1 && o.y0 < r.y1
}

// In reports whether r lies within o.
func (r rect) In(o rect) bool {
	return r.x0 >= o.x0 && r.y0 >= o.y0 && r.x1 <= o.x1 && r.y1 <= o.y1
}
