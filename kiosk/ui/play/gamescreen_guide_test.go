package play

import (
	"fmt"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/kiosk/ui/golden"
)

// What the game says to do, in both languages: a golden name per language.
var guideLangs = []struct {
	words Words
	tag   string
}{{frenchWords, "fr"}, {englishWords, "en"}}

// tapField taps the playfield at field point (x, y), in field units.
func (r *gameRig) tapField(x, y float32) {
	pf := r.g.Playfield()
	test.TapCanvas(r.w.Canvas(), pf.Position().Add(pf.rend.geom.unitPos(x, y)))
}

// tapBall taps the ball.
func (r *gameRig) tapBall() {
	pf := r.g.Playfield()
	b := pf.World().Ball()
	test.TapCanvas(r.w.Canvas(), pf.Position().Add(pf.rend.geom.pos(b.X, b.Y)))
}

// A Jouer wall says to tap the ball while it waits on the paddle: at its
// first launch and after a lost ball, until the ball is launched (Art. 4.4).
func TestGameSaysToTapTheBall(t *testing.T) {
	for _, l := range guideLangs {
		t.Run(l.tag, func(t *testing.T) {
			rig := newGameRig(t, fyne.NewSize(1280, 800))
			rig.g.SetWords(l.words)
			rig.g.SetCredit(450)
			d := newTestDemo(t, testWalls(t, game.Stake100, 0, false, 8), breakout.Play)
			rig.g.Play(d)
			rig.frames(24)
			r := rig.g.Playfield().rend
			require.True(t, r.tip.Visible(), "before the first launch")
			assert.Equal(t, l.words.TapBall, r.tip.Text)
			require.True(t, r.hint.Visible())
			assert.False(t, r.badge.Visible())
			name := "game-jouer-waiting.png"
			if l.words.English {
				name = "game-jouer-waiting-en.png"
			}
			golden.Assert(t, name, rig.capture())

			rig.tapBall()
			rig.frames(2)
			w := d.World()
			require.Equal(t, breakout.Flying, w.Ball().Phase)
			assert.False(t, r.tip.Visible(), "the ball is launched")
			rig.until(60*60, "the ball is lost", func() bool { return w.Ball().Phase == breakout.Lost })
			assert.False(t, r.tip.Visible(), "not while the ghost shows")
			rig.until(5*60, "the ball back on the paddle", func() bool { return w.Ball().Phase == breakout.OnPaddle })
			rig.frame()
			assert.True(t, r.tip.Visible(), "after a lost ball")
		})
	}
}

// The last seconds before an idle Jouer game goes to Auto are counted down
// on the field, and a touch anywhere cancels the countdown and keeps the
// game in Jouer — a touch where the paddle already heads too.
func TestGameCountsDownToAuto(t *testing.T) {
	for _, l := range guideLangs {
		t.Run(l.tag, func(t *testing.T) {
			rig := newGameRig(t, fyne.NewSize(1280, 800))
			rig.g.SetWords(l.words)
			rig.g.SetCredit(300)
			d := newTestDemo(t, testWalls(t, game.Stake050, 0, false, 3), breakout.Play)
			rig.g.Play(d)
			w := d.World()
			r := rig.g.Playfield().rend
			idle := w.Settings().IdleTicks
			rig.until(2*idle, "10 s before Auto", func() bool { return w.Idle() >= idle-10*breakout.TicksPerSecond-2 })
			assert.False(t, r.countTxt.Visible(), "no countdown before the last 10 s")
			rig.until(60, "the countdown", func() bool { return r.countTxt.Visible() })
			assert.Equal(t, fmt.Sprintf(l.words.AutoIn, 10), r.countTxt.Text)
			rig.until(2*idle, "7 s before Auto", func() bool { return w.Idle() >= idle-7*breakout.TicksPerSecond })
			rig.frame()
			assert.Equal(t, fmt.Sprintf(l.words.AutoIn, 7), r.countTxt.Text)
			if !l.words.English {
				assert.Equal(t, "Auto dans 7\u00a0s — touchez pour continuer", r.countTxt.Text)
			}
			golden.Assert(t, fmt.Sprintf("game-auto-countdown-%s.png", l.tag), rig.capture())

			// Two touches at the same point: the second does not move
			// the paddle's target, and cancels all the same.
			for i := 0; i < 2; i++ {
				rig.tapField(900, 500)
				rig.frame()
				assert.Less(t, w.Idle(), 2, "touch %d is activity", i)
				rig.frame()
				assert.False(t, r.countTxt.Visible(), "touch %d cancels the countdown", i)
				assert.Equal(t, breakout.Play, w.Mode())
				rig.until(2*idle, "the countdown again", func() bool { return r.countTxt.Visible() })
			}
			// A player reading the prize table is there too.
			cart := rig.g.Cartouche()
			test.TapCanvas(rig.w.Canvas(), cart.Position().Add(fyne.NewPos(cart.Size().Width/2, cart.Size().Height/2)))
			rig.frame()
			assert.Less(t, w.Idle(), 2, "a tap on the cartouche is activity")
			rig.until(2*idle, "the countdown again", func() bool { return r.countTxt.Visible() })
			rig.until(11*60, "Auto", func() bool { return w.Mode() == breakout.Auto })
			rig.frame()
			assert.False(t, r.countTxt.Visible(), "no countdown in Auto")
			assert.True(t, r.badge.Visible())
		})
	}
}

// After 30 s of a Jouer wall the player may finish it in Auto: the button
// hands the wall to Auto (recorded, so the game replays), which ends it.
func TestGameFinishesInAuto(t *testing.T) {
	for _, l := range guideLangs {
		t.Run(l.tag, func(t *testing.T) {
			rig := newGameRig(t, fyne.NewSize(1280, 800))
			rig.g.SetWords(l.words)
			rig.g.SetCredit(1200)
			var h testHooks
			h.attach(rig.g)
			walls := testWalls(t, game.Stake200, 4, false, 12)
			d := newTestDemo(t, walls, breakout.Play)
			rig.g.Play(d)
			w := d.World()
			r := rig.g.Playfield().rend
			b, _ := rig.finishAt()
			rig.frame()
			rig.tapBall()
			rig.frames(2)
			assert.True(t, b.Disabled(), "not at the start of a wall")
			rig.until(40*60, "30 s of the wall", func() bool { return w.Tick() >= finishAfter })
			rig.frame()
			require.Equal(t, breakout.Play, w.Mode())
			require.False(t, b.Disabled(), "after 30 s")
			assert.Equal(t, l.words.FinishAuto, b.Text)
			assert.GreaterOrEqual(t, b.Size().Height, float32(60), "a finger's target")
			golden.Assert(t, fmt.Sprintf("game-finish-auto-%s.png", l.tag), rig.capture())

			rig.tapFinish()
			rig.frame()
			require.Equal(t, breakout.Auto, w.Mode(), "the button hands the wall to Auto")
			assert.False(t, b.Visible())
			assert.True(t, r.badge.Visible())
			rig.until(30*60, "the end", func() bool { return h.ends > 0 })
			rec := w.AppendRecording(nil)
			_, err := breakout.Replay(walls.Main, rec, nil)
			require.NoError(t, err, "the game replays")
		})
	}
}

// resumedDemo is a demo standing for a game resumed after a restart.
type resumedDemo struct{ *DemoGame }

func (resumedDemo) Resumed() bool { return true }

// A resumed game says so; a Jouer game waits with its ball on the paddle
// (the kiosk rests it), an Auto game goes on once the notice is gone.
func TestGameSaysItIsResumed(t *testing.T) {
	for _, l := range guideLangs {
		t.Run(l.tag, func(t *testing.T) {
			rig := newGameRig(t, fyne.NewSize(1280, 800))
			rig.g.SetWords(l.words)
			rig.g.SetCredit(650)
			d := newTestDemo(t, testWalls(t, game.Stake050, 6, false, 6), breakout.Play)
			// bricks fell before the restart
			d.World().Step(breakout.Input{Launch: true})
			for i := 0; i < 1500 && d.World().Ball().Phase != breakout.Lost; i++ {
				b := d.World().Ball()
				d.World().Step(breakout.Input{Steer: true, PaddleX: b.X})
			}
			d.World().Step(breakout.Input{Rest: true})
			rig.g.Play(resumedDemo{d})
			rig.frames(6)
			r := rig.g.Playfield().rend
			require.True(t, r.noticeTxt.Visible())
			assert.Equal(t, l.words.Resumed, r.noticeTxt.Text)
			assert.True(t, r.tip.Visible(), "the ball waits for the player")
			golden.Assert(t, fmt.Sprintf("game-resumed-%s.png", l.tag), rig.capture())
			rig.clock.t = rig.clock.t.Add(DefaultResumeNotice)
			rig.frame()
			assert.False(t, r.noticeTxt.Visible(), "the notice goes")
			assert.Equal(t, breakout.OnPaddle, d.World().Ball().Phase)
		})
	}
	t.Run("auto", func(t *testing.T) {
		rig := newGameRig(t, fyne.NewSize(1280, 800))
		rig.g.ResumeNotice = time.Second
		d := newTestDemo(t, testWalls(t, game.Stake050, 6, false, 6), breakout.Auto)
		rig.g.Play(resumedDemo{d})
		rig.frames(30)
		r := rig.g.Playfield().rend
		assert.True(t, r.noticeTxt.Visible())
		assert.Zero(t, d.World().Tick(), "Auto waits for the notice")
		rig.frames(40)
		assert.False(t, r.noticeTxt.Visible())
		assert.Positive(t, d.World().Tick(), "then goes on")
	})
	t.Run("new game", func(t *testing.T) {
		rig := newGameRig(t, fyne.NewSize(1280, 800))
		rig.g.Play(newTestDemo(t, testWalls(t, game.Stake050, 6, false, 6), breakout.Auto))
		rig.frame()
		assert.False(t, rig.g.Playfield().rend.noticeTxt.Visible(), "a game just sold is not resumed")
	})
}
