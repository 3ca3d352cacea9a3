package kiosk

import (
	"testing"

	"pharaon/game"
	"pharaon/game/breakout"
)

// Figures of the game's hot path: the screens step a Game once per tick
// (120 a second). Between two saves a step costs what the engine's step
// costs and allocates nothing; every SaveTicks the recording is encoded and
// handed to the saver.
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
// stake debited once), on a machine that is not started: its saver does not
// run, so the saves' writes to the database are not measured.
func benchGames(b *testing.B) func() *Game {
	f := newFixture(b)
	f.credit(game.Stake200.Money())
	g, err := f.m.Play(ctx, game.Stake200, breakout.Play)
	if err != nil {
		b.Fatal(err)
	}
	p := g.Play()
	return func() *Game {
		g, err := f.m.newGame(p, breakout.Play)
		if err != nil {
			b.Fatal(err)
		}
		return g
	}
}

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
// recording encoded and offered to the saver). Baseline: the engine
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
