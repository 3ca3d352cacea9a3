package breakout

import (
	"os"
	"path/filepath"
	"testing"

	"pharaon/game"
	"pharaon/game/reveal"
)

// restore puts w back in src's state, reusing w's memory.
func (w *World) restore(src *World) {
	bricks, events, rec := w.bricks, w.events, w.rec
	*w = *src
	w.bricks = append(bricks[:0], src.bricks...)
	w.events = events[:0]
	w.rec = append(rec[:0], src.rec...)
}

// benchSteps runs cycles of n steps from a template world.
func benchSteps(b *testing.B, tmpl *World, n int, in Input) {
	w := &World{events: make([]Event, 0, cap(tmpl.events))}
	w.restore(tmpl)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i == n {
			w.restore(tmpl)
			i = 0
		}
		w.Step(in)
		i++
	}
}

// BenchmarkStep: one step with the full 33-brick wall, the ball in flight
// (goal: under 5 µs, a thousandth of a 1/120 s step), in Jouer and in Auto
// (with the controller's predictions). Baselines: the ball resting on the
// paddle, and the ball in flight against a wall of a single brick.
func BenchmarkStep(b *testing.B) {
	full := walls(b, game.Stake200, 1, false, 7).Main
	launched := func(wall []int, mode Mode) *World {
		w := newWorld(b, wallOf(wall), mode, DefaultSettings())
		if len(wall) > 1 {
			w = newWorld(b, full, mode, DefaultSettings())
		}
		w.Step(Input{Launch: true})
		return w
	}
	b.Run("baseline-on-paddle", func(b *testing.B) {
		benchSteps(b, newWorld(b, full, Play, DefaultSettings()), 1000, Input{})
	})
	b.Run("baseline-flying-1-brick", func(b *testing.B) {
		benchSteps(b, launched([]int{1}, Play), 240, Input{})
	})
	b.Run("flying-33-bricks", func(b *testing.B) {
		benchSteps(b, launched([]int{7, 6, 7, 6, 7}, Play), 240, Input{})
	})
	b.Run("auto-33-bricks", func(b *testing.B) {
		benchSteps(b, newWorld(b, full, Auto, DefaultSettings()), 240, Input{})
	})
}

// BenchmarkAutoGame: a whole wall played by Auto, from New to cleared
// (goal: under 2 ms). The bonus wall is the baseline.
func BenchmarkAutoGame(b *testing.B) {
	l := walls(b, game.Stake200, 2, true, 8)
	for _, c := range []struct {
		name string
		wall reveal.Wall
	}{
		{"baseline-bonus-wall", l.Bonus},
		{"main-wall-27", walls(b, game.Stake050, 0, false, 8).Main},
		{"main-wall-33", l.Main},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			ticks := 0
			for b.Loop() {
				w, err := New(c.wall, Auto, DefaultSettings())
				if err != nil {
					b.Fatal(err)
				}
				for !w.Done() {
					w.Step(Input{})
				}
				ticks = int(w.Tick())
			}
			b.ReportMetric(float64(ticks), "ticks/game")
		})
	}
}

// BenchmarkReplay: restoring a 76 s Jouer game from its recording (crash
// recovery, game recall).
func BenchmarkReplay(b *testing.B) {
	g := goldenGames[6]
	rec, err := os.ReadFile(filepath.Join("testdata", "golden", g.name+".rec"))
	if err != nil {
		b.Fatal(err)
	}
	wall := g.wall(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(rec)))
	for b.Loop() {
		if _, err := Replay(wall, rec, nil); err != nil {
			b.Fatal(err)
		}
	}
}
