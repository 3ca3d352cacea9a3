package kiosk

import (
	"context"
	"slices"
	"testing"
	"time"

	"pharaon/game"
	"pharaon/game/breakout"
)

// Figures of the game's hot path: the screens step a Game once per tick
// (120 a second). Between two saves a step costs what the engine's step
// costs and allocates nothing; every SaveTicks the recording is encoded and
// handed to the writer.
//
//	go test -run '^$' -bench 'Game' -benchmem ./kiosk

// benchCycle is how many ticks a benchmark plays a wall before it starts
// the same wall again: 5 s, too short for a player to clear it.
const benchCycle = 5 * breakout.TicksPerSecond

// follow is a player who follows the ball with the paddle and relaunches it.
func follow(w *breakout.World) breakout.Input {
	b := w.Ball()
	return breakout.Input{Steer: true, PaddleX: b.X, Launch: b.Phase == breakout.OnPaddle}
}

// benchGames returns a maker of fresh Jouer games on one play at 2 € (its
// stake debited once). The writer drops their periodic saves, so that the
// saves' writes to the database are not measured.
func benchGames(b *testing.B) func() *Game {
	f := newFixture(b)
	f.credit(game.Stake200.Money())
	g, err := f.m.Play(ctx, game.Stake200, breakout.Play)
	if err != nil {
		b.Fatal(err)
	}
	f.m.w.st = droppedSaves{f.m.w.st}
	p := g.Play()
	return func() *Game {
		g, err := f.m.newGame(p, breakout.Play)
		if err != nil {
			b.Fatal(err)
		}
		return g
	}
}

// droppedSaves is the store without its periodic saves.
type droppedSaves struct{ playStore }

func (droppedSaves) SaveRecording(context.Context, int64, []byte) error { return nil }

// BenchmarkGameStep: a tick of a Jouer game, the periodic saves included.
// Baseline: the engine's step of the same wall with the same player.
func BenchmarkGameStep(b *testing.B) {
	games := benchGames(b)
	b.Run("baseline-engine", func(b *testing.B) {
		b.ReportAllocs()
		w := games().World()
		for i := 0; i < b.N; i++ {
			if i%benchCycle == 0 && i > 0 {
				b.StopTimer()
				w = games().World()
				b.StartTimer()
			}
			w.Step(follow(w))
		}
	})
	b.Run("game", func(b *testing.B) {
		b.ReportAllocs()
		g := games()
		for i := 0; i < b.N; i++ {
			if i%benchCycle == 0 && i > 0 {
				b.StopTimer()
				g = games()
				b.StartTimer()
			}
			g.Step(follow(g.World()))
		}
		if g.Stage() != StageMain {
			b.Fatalf("the wall ended within a cycle (stage %s): shorten benchCycle", g.Stage())
		}
	})
}

// BenchmarkGameSave: one periodic save of a game played for 5 s (its
// recording encoded and handed to the writer). Baseline: the engine
// encoding its own recording into a reused buffer.
func BenchmarkGameSave(b *testing.B) {
	g := benchGames(b)()
	for range benchCycle {
		g.Step(follow(g.World()))
	}
	b.Run("baseline-engine-recording", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for i := 0; i < b.N; i++ {
			buf = g.World().AppendRecording(buf[:0])
		}
	})
	b.Run("save", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			g.save()
		}
	})
}

// BenchmarkGameWallEndStep: the tick that clears a wall, which hands on the
// wall's end (the bonus transition, or the finish that credits the prize:
// a durable commit with synchronous=FULL), against the other ticks of the
// same Auto games (ns/step, the baseline). The screens run the tick in a
// frame, so ns/wall-end-step is what a game's end costs the frame it falls
// in. The writes themselves are waited for outside the measure.
//
//	go test -run '^$' -bench GameWallEndStep -benchtime 100x ./kiosk
func BenchmarkGameWallEndStep(b *testing.B) {
	f := newFixture(b)
	f.boot()
	var end, other time.Duration
	var ends, steps int
	for i := 0; i < b.N; i++ {
		f.credit(game.Stake050.Money())
		g, err := f.m.Play(ctx, game.Stake050, breakout.Auto)
		if err != nil {
			b.Fatal(err)
		}
		for n := 0; g.Stage() != StageDone; n++ {
			if n > 4*breakout.AutoBoundTicks || g.Err() != nil {
				b.Fatalf("game %d does not end: %v", g.ID(), g.Err())
			}
			t0 := time.Now()
			ev := g.Step(breakout.Input{})
			d := time.Since(t0)
			if slices.ContainsFunc(ev, func(e breakout.Event) bool { return e.Kind == breakout.WallCleared }) {
				end += d
				ends++
			} else {
				other += d
				steps++
			}
			g.Wait()
		}
		f.m.EndResult()
	}
	b.ReportMetric(float64(end.Nanoseconds())/float64(ends), "ns/wall-end-step")
	b.ReportMetric(float64(other.Nanoseconds())/float64(steps), "ns/step")
}
