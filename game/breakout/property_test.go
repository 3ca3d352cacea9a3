package breakout

import (
	"fmt"
	"math/bits"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/reveal"
)

// soak is how many games a test runs per case: def by default, a twentieth
// of it (at least one) with -short, def × n with BREAKOUT_SOAK=n (long runs,
// outside CI: make soak).
func soak(def int) int {
	if n, err := strconv.Atoi(os.Getenv("BREAKOUT_SOAK")); err == nil && n > 0 {
		return def * n
	}
	if testing.Short() {
		return max(1, def/20)
	}
	return def
}

// segmentHitsBox reports whether the segment from (x0, y0) to (x1, y1)
// passes through the open interior of b: an independent check in floating
// point (Liang–Barsky clipping), with a margin of a sub-unit for the
// engine's rounding.
func segmentHitsBox(x0, y0, x1, y1 int64, b box) bool {
	const margin = 1.0
	lo := [2]float64{float64(b.x0) + margin, float64(b.y0) + margin}
	hi := [2]float64{float64(b.x1) - margin, float64(b.y1) - margin}
	p := [2]float64{float64(x0), float64(y0)}
	d := [2]float64{float64(x1 - x0), float64(y1 - y0)}
	t0, t1 := 0.0, 1.0
	for a := 0; a < 2; a++ {
		if d[a] == 0 {
			if p[a] <= lo[a] || p[a] >= hi[a] {
				return false
			}
			continue
		}
		ta, tb := (lo[a]-p[a])/d[a], (hi[a]-p[a])/d[a]
		if ta > tb {
			ta, tb = tb, ta
		}
		t0, t1 = max(t0, ta), min(t1, tb)
		if t0 >= t1 {
			return false
		}
	}
	return true
}

// checker holds the invariants of a game, checked at every step.
type checker struct {
	t       *testing.T
	w       *World
	wall    reveal.Wall
	name    string
	gone    []bool // destroyed bricks
	symbols game.Counts
	bad     string
}

func newChecker(t *testing.T, w *World, wall reveal.Wall, name string) *checker {
	c := &checker{t: t, w: w, wall: wall, name: name, gone: make([]bool, wall.Len())}
	w.onSegment = func(x0, y0, x1, y1 int64) {
		for m := w.alive; m != 0; m &= m - 1 {
			i := bits.TrailingZeros64(m)
			if c.bad == "" && segmentHitsBox(x0, y0, x1, y1, w.boxes[i]) {
				c.bad = fmt.Sprintf("tick %d: path (%d,%d)→(%d,%d) crosses brick %d", w.tick, x0, y0, x1, y1, i)
			}
		}
	}
	return c
}

func (c *checker) fail(format string, a ...any) {
	if c.bad == "" {
		c.bad = fmt.Sprintf("tick %d: ", c.w.tick) + fmt.Sprintf(format, a...)
	}
}

func (c *checker) step(ev []Event) {
	w := c.w
	for _, e := range ev {
		switch e.Kind {
		case BrickDestroyed:
			if c.gone[e.Brick] {
				c.fail("brick %d destroyed twice", e.Brick)
			}
			c.gone[e.Brick] = true
			if e.Content != c.wall.Bricks[e.Brick] {
				c.fail("brick %d uncovers %v, the layout says %v", e.Brick, e.Content, c.wall.Bricks[e.Brick])
			}
		case SymbolRevealed:
			c.symbols.Add(e.Symbol)
		}
	}
	b, p := w.Ball(), w.Paddle()
	if b.Phase != Lost {
		if b.X < BallRadius || b.X > FieldWidth-BallRadius || b.Y < BallRadius || b.Y > lostLine {
			c.fail("ball out of the field at (%d, %d)", b.X, b.Y)
		}
		for i, br := range w.Bricks() {
			bx := w.boxes[i]
			if br.Alive() && int64(b.X) > bx.x0 && int64(b.X) < bx.x1 && int64(b.Y) > bx.y0 && int64(b.Y) < bx.y1 {
				c.fail("ball at (%d, %d) inside brick %d", b.X, b.Y, i)
			}
		}
	}
	if b.Phase == Flying && !w.Done() {
		if abs64(int64(b.VY)) < int64(w.speed())/2-2 {
			c.fail("vertical speed %d below half of %d", b.VY, w.speed())
		}
	}
	if p.X-p.Width/2 < 0 || p.X+p.Width/2 > FieldWidth {
		c.fail("paddle out of the field: %d wide at %d", p.Width, p.X)
	}
	standing := 0
	for i, br := range w.Bricks() {
		if br.Alive() {
			standing++
			if c.gone[i] {
				c.fail("brick %d destroyed yet standing", i)
			}
		}
	}
	if standing != w.Standing() {
		c.fail("standing %d, counted %d", w.Standing(), standing)
	}
	if c.symbols != w.Revealed() {
		c.fail("events revealed %v, world says %v", c.symbols, w.Revealed())
	}
}

// done checks a finished wall: it revealed exactly the layout.
func (c *checker) done() {
	w := c.w
	if !w.Done() {
		c.fail("not done")
		return
	}
	if w.IsBonus() {
		if w.RedHits() != 2 {
			c.fail("bonus wall done with %d red hits", w.RedHits())
		}
		return
	}
	if w.Revealed() != c.wall.Counts() {
		c.fail("revealed %v, the layout hides %v", w.Revealed(), c.wall.Counts())
	}
	for i, g := range c.gone {
		if !g {
			c.fail("brick %d never destroyed", i)
		}
	}
}

// Random input sequences on every stake, main and bonus walls: at every
// step the ball stays in the field, outside every standing brick, never
// crosses one, keeps its vertical speed; the player's part lasts a while,
// then the game is left alone, goes to Auto and is cleared within the
// bound, having revealed exactly the layout.
func TestPropertyRandomGames(t *testing.T) {
	games := soak(3)
	for _, stake := range game.Stakes {
		for _, kind := range []string{"still", "random", "jitter", "tracker"} {
			for _, bonus := range []bool{false, true} {
				name := fmt.Sprintf("%d/%s/bonus=%v", int64(stake), kind, bonus)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					worst := uint32(0)
					for g := 0; g < games; g++ {
						seed := uint64(g)*1_000_003 + uint64(stake)
						l := walls(t, stake, game.Tier(1+g%8), true, seed)
						wall := l.Main
						if bonus {
							wall = l.Bonus
						}
						s := DefaultSettings()
						if g%2 == 1 {
							s.IdleTicks = MinIdleTicks // sooner to Auto
							s.StoneTicks = MinStoneTicks
						}
						worst = max(worst, playGame(t, wall, s, newPlayer(kind, seed), 600+int(seed%3000), fmt.Sprintf("%s game %d", name, g)))
					}
					t.Logf("longest Auto after the player left: %d ticks", worst)
				})
			}
		}
	}
}

// playGame plays one game and returns how long Auto took after it engaged.
func playGame(t *testing.T, wall reveal.Wall, s Settings, p player, playTicks int, name string) uint32 {
	w := newWorld(t, wall, Play, s)
	c := newChecker(t, w, wall, name)
	engaged := uint32(0)
	limit := uint32(playTicks + s.IdleTicks + 2*AutoBoundTicks)
	for !w.Done() && w.Tick() < limit && c.bad == "" {
		var in Input
		if int(w.Tick()) < playTicks {
			in = p.input(w)
		}
		ev := w.Step(in)
		for _, e := range ev {
			if e.Kind == AutoEngaged {
				engaged = w.Tick()
			}
		}
		c.step(ev)
	}
	c.done()
	require.Empty(t, c.bad, name)
	if engaged == 0 {
		return 0
	}
	require.LessOrEqual(t, w.Tick()-engaged, uint32(AutoBoundTicks), "%s: Auto took too long", name)
	return w.Tick() - engaged
}
