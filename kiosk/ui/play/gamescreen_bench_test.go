package play

import (
	"testing"

	"fyne.io/fyne/v2"

	"pharaon/game"
	"pharaon/game/breakout"
)

// BenchmarkGameFrame measures one frame of the game screen at 60 Hz in an
// Auto game (the busiest: the ball is fast, bricks fall, symbols fly):
//
//   - engine: the baseline, the two engine ticks of a frame alone
//     (DemoGame.Step), no screen;
//   - frame: Screen.Frame, the same two ticks plus the events, the
//     flights and the reading of the world into the canvas objects;
//   - countdown: a Jouer frame in the last seconds before Auto, the ball
//     waiting on the paddle: the hint to tap it and the countdown shown,
//     its text changing each second;
//   - finishwait: a Jouer frame in a wall's first 30 s, the ball waiting
//     on the paddle: the finish button greyed, its caption counting the
//     seconds before it is offered (after one wait, as countdown's texts
//     after their first: Fyne measures a new text once, then keeps it
//     while it is drawn).
//
// frame − engine is what the screen adds per frame. Games restart when
// they end, outside the timer. All must show 0 allocs/op: a frame allocates
// nothing (Fyne's own drawing, after the frame, is not measured here).
func BenchmarkGameFrame(b *testing.B) {
	walls := testWalls(b, game.Stake200, 3, false, 7)

	b.Run("engine", func(b *testing.B) {
		d := newTestDemo(b, walls, breakout.Auto)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if d.Done() {
				b.StopTimer()
				d = newTestDemo(b, walls, breakout.Auto)
				b.StartTimer()
			}
			d.Step(breakout.Input{})
			d.Step(breakout.Input{})
		}
	})

	b.Run("frame", func(b *testing.B) {
		rig := newGameRig(b, fyne.NewSize(1280, 800))
		ended := false
		rig.g.OnEnd = func() { ended = true }
		rig.g.Play(newTestDemo(b, walls, breakout.Auto))
		rig.frames(3)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if ended {
				b.StopTimer()
				ended = false
				rig.g.Play(newTestDemo(b, walls, breakout.Auto))
				rig.frames(3)
				b.StartTimer()
			}
			rig.frame()
		}
	})

	b.Run("countdown", func(b *testing.B) {
		rig := newGameRig(b, fyne.NewSize(1280, 800))
		start := func() {
			d := newTestDemo(b, walls, breakout.Play)
			rig.g.Play(d)
			for d.World().Idle() < d.World().Settings().IdleTicks-countdownMax*breakout.TicksPerSecond {
				rig.frame()
			}
		}
		start()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if rig.g.Playfield().World().Mode() == breakout.Auto {
				b.StopTimer()
				start()
				b.StartTimer()
			}
			rig.frame()
		}
	})

	b.Run("finishwait", func(b *testing.B) {
		rig := newGameRig(b, fyne.NewSize(1280, 800))
		var w *breakout.World
		start := func() {
			d := newTestDemo(b, walls, breakout.Play)
			rig.g.Play(d)
			w = d.World()
			rig.frames(3)
		}
		start()
		for w.Tick() < finishAfter-breakout.TicksPerSecond {
			rig.frame()
		}
		start()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if w.Tick() >= finishAfter-breakout.TicksPerSecond {
				b.StopTimer()
				start()
				b.StartTimer()
			}
			rig.frame()
		}
	})
}
