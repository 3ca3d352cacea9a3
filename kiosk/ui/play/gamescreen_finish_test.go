package play

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
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
		follow(w, func() bool { return w.Standing() <= finishBricks })
		if w.Standing() <= finishBricks && !w.Done() && !w.IsBonus() {
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
			follow(w, func() bool { return w.Standing() <= finishBricks+1 })
			require.Equal(t, finishBricks+1, w.Standing(), "four bricks left")
			rig.g.Play(d)
			rig.frame()
			r := rig.g.Playfield().rend
			require.Less(t, w.Tick(), uint32(finishAfter))
			assert.False(t, r.finish.Visible(), "four bricks left, the wall younger than 30 s")

			follow(w, func() bool { return w.Standing() <= finishBricks })
			require.LessOrEqual(t, w.Standing(), finishBricks)
			rig.frame()
			require.Less(t, w.Tick(), uint32(finishAfter), "the bricks, not the time")
			require.Equal(t, breakout.Play, w.Mode())
			require.True(t, r.finish.Visible(), "three bricks left")
			assert.Equal(t, l.words.FinishAuto, r.finish.Text)

			pf := rig.g.Playfield()
			test.TapCanvas(rig.w.Canvas(), pf.Position().Add(r.finish.Position()).Add(fyne.NewPos(20, 20)))
			rig.frame()
			assert.Equal(t, breakout.Auto, w.Mode(), "the button hands the wall to Auto")
			assert.False(t, r.finish.Visible())
		})
	}
}

type wallsFound struct {
	ok   bool
	seed uint64
}
