package breakout

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/reveal"
)

func kinds(ev []Event) []EventKind {
	var k []EventKind
	for _, e := range ev {
		k = append(k, e.Kind)
	}
	return k
}

// stepUntil steps with no input until an event of kind k, returning that
// step's events, or fails after limit steps.
func stepUntil(t *testing.T, w *World, k EventKind, limit int) []Event {
	t.Helper()
	for i := 0; i < limit; i++ {
		ev := w.Step(Input{})
		for _, e := range ev {
			if e.Kind == k {
				return ev
			}
		}
	}
	t.Fatalf("no %v within %d steps", k, limit)
	return nil
}

// fly puts the ball in flight at (x, y) field units with velocity (vx, vy)
// in sub-units per tick.
func fly(w *World, x, y, vx, vy int32) {
	w.phase, w.bx, w.by, w.vx, w.vy = Flying, x*Unit, y*Unit, vx, vy
}

func TestNewRefusesBadArguments(t *testing.T) {
	good := walls(t, game.Stake050, 0, false, 1).Main
	_, err := New(reveal.Wall{Rows: []int{2}, Bricks: []reveal.Content{reveal.Red, reveal.Red}}, Play, DefaultSettings())
	assert.ErrorIs(t, err, reveal.ErrBadWall)
	bad := DefaultSettings()
	bad.StoneTicks = 0
	_, err = New(good, Play, bad)
	assert.ErrorIs(t, err, ErrBadSettings)
	_, err = New(good, Mode(7), DefaultSettings())
	assert.ErrorIs(t, err, ErrBadMode)
}

func TestSettingsBounds(t *testing.T) {
	require.NoError(t, DefaultSettings().Validate())
	assert.Equal(t, 8*TicksPerSecond, DefaultSettings().StoneTicks)
	assert.Equal(t, 45*TicksPerSecond, DefaultSettings().IdleTicks)
	for _, s := range []Settings{
		{MinStoneTicks - 1, MinIdleTicks, MinGhostTicks},
		{MaxStoneTicks + 1, MinIdleTicks, MinGhostTicks},
		{MinStoneTicks, MinIdleTicks - 1, MinGhostTicks},
		{MinStoneTicks, MaxIdleTicks + 1, MinGhostTicks},
		{MinStoneTicks, MinIdleTicks, MinGhostTicks - 1},
		{MinStoneTicks, MinIdleTicks, MaxGhostTicks + 1},
	} {
		assert.ErrorIs(t, s.Validate(), ErrBadSettings, "%+v", s)
	}
	assert.NoError(t, Settings{MinStoneTicks, MinIdleTicks, MinGhostTicks}.Validate())
	assert.NoError(t, Settings{MaxStoneTicks, MaxIdleTicks, MaxGhostTicks}.Validate())
}

// Every v1 wall lies inside the field, bricks apart by less than the
// ball's width (it cannot slip between two), with room above the wall.
func TestWallGeometry(t *testing.T) {
	for _, stake := range game.Stakes {
		l := walls(t, stake, 1, true, 5)
		for _, wall := range []reveal.Wall{l.Main, l.Bonus} {
			w := newWorld(t, wall, Play, DefaultSettings())
			bs := w.Bricks()
			require.Len(t, bs, wall.Len())
			assert.Equal(t, wall.Len(), w.Standing())
			for i, b := range bs {
				assert.Equal(t, wall.Bricks[i], b.Content)
				r := b.Rect
				assert.True(t, r.X > 4*BallRadius && r.X+r.W < FieldWidth-4*BallRadius, "brick %d inside with a channel", i)
				assert.True(t, r.Y > 4*BallRadius && r.Y+r.H < paddleContactLine-200*Unit, "brick %d", i)
				for j := i + 1; j < len(bs); j++ {
					o := bs[j].Rect
					overlapX := r.X < o.X+o.W && o.X < r.X+r.W
					overlapY := r.Y < o.Y+o.H && o.Y < r.Y+r.H
					assert.False(t, overlapX && overlapY, "bricks %d and %d overlap", i, j)
					// The gap to a neighbour is narrower than the ball.
					if j == i+1 && r.Y == o.Y && o.X-(r.X+r.W) >= 2*BallRadius {
						t.Errorf("gap between %d and %d lets the ball through", i, j)
					}
				}
				want := 1
				if b.Content.IsRed() {
					want = 2
					mid := (r.X + r.W/2)
					assert.Equal(t, int32(FieldWidth/2), mid, "the red brick is in the centre")
				}
				assert.Equal(t, want, b.Hits)
				assert.True(t, b.Alive())
			}
			assert.Equal(t, wall.Len() == 29, w.IsBonus())
		}
	}
}

func TestStartsWithTheBallOnThePaddle(t *testing.T) {
	w := newWorld(t, walls(t, game.Stake100, 0, false, 3).Main, Play, DefaultSettings())
	b, p := w.Ball(), w.Paddle()
	assert.Equal(t, OnPaddle, b.Phase)
	assert.Equal(t, int32(FieldWidth/2), p.X)
	assert.Equal(t, int32(PaddleWidth), p.Width)
	assert.Equal(t, p.X, b.X)
	assert.Equal(t, int32(PaddleTop-BallRadius), b.Y)
	assert.Equal(t, int32(BallRadius), b.Radius)
	assert.Equal(t, Play, w.Mode())
	assert.False(t, w.Done())
	assert.Equal(t, uint32(0), w.Tick())
	assert.Equal(t, game.Counts{}, w.Revealed())
}

func TestPaddleMovesTowardItsTargetAtMostPaddleSpeed(t *testing.T) {
	w := newWorld(t, wallOf([]int{1}), Play, DefaultSettings())
	w.Step(Input{Steer: true, PaddleX: 0})
	assert.Equal(t, int32(FieldWidth/2-PaddleSpeed), w.Paddle().X)
	assert.Equal(t, w.Paddle().X, w.Ball().X, "the resting ball rides along")
	for i := 0; i < 40; i++ {
		w.Step(Input{})
	}
	assert.Equal(t, int32(PaddleWidth/2), w.Paddle().X, "stops against the side")
	w.Step(Input{Steer: true, PaddleX: FieldWidth/2 + 10})
	assert.Equal(t, int32(PaddleWidth/2+PaddleSpeed), w.Paddle().X)
	w.Step(Input{Steer: true, PaddleX: -5 * Unit})
	assert.Equal(t, int32(0), w.Paddle().Target, "target clamped to the field")
}

func TestLaunchSendsTheBallUp(t *testing.T) {
	w := newWorld(t, wallOf([]int{1}), Play, DefaultSettings())
	w.Step(Input{Steer: true, PaddleX: FieldWidth/2 - Unit}) // last moved left
	ev := w.Step(Input{Launch: true})
	assert.Equal(t, []EventKind{Launched}, kinds(ev))
	b := w.Ball()
	assert.Equal(t, Flying, b.Phase)
	assert.Less(t, b.VY, int32(-PlaySpeed/2))
	assert.Less(t, b.VX, int32(0), "from the centre, toward where the paddle last went")
	// Launch while flying does nothing.
	assert.Empty(t, kinds(w.Step(Input{Launch: true})))
}

// The paddle sends the ball at an angle set by where it hits: the farther
// from the centre, the wider, on that side.
func TestPaddleAngleFromHitPosition(t *testing.T) {
	prev := int32(0)
	for _, off := range []int32{2, 20, 50, 80, 99} {
		for _, s := range []int32{-1, 1} {
			w := newWorld(t, wallOf([]int{1}), Play, DefaultSettings())
			fly(w, FieldWidth/2/Unit+s*off, 880, 0, PlaySpeed)
			ev := stepUntil(t, w, PaddleHit, 20)
			assert.Contains(t, kinds(ev), PaddleHit)
			b := w.Ball()
			assert.Less(t, b.VY, int32(0))
			assert.Equal(t, s > 0, b.VX > 0, "off %d side %d", off, s)
			if s > 0 {
				assert.Greater(t, b.VX, prev, "wider as the hit is farther out")
				prev = b.VX
				k := angleIndex(int64(off)*Unit, PaddleWidth/2)
				wantX, wantY := velocity(PlaySpeed, k, 1)
				assert.Equal(t, wantX, b.VX)
				assert.Equal(t, wantY, b.VY)
			}
		}
	}
	// Beyond the paddle's end (and its rounded edge), the ball falls.
	w := newWorld(t, wallOf([]int{1}), Play, DefaultSettings())
	fly(w, FieldWidth/2/Unit+100+BallRadius/Unit, 880, 0, PlaySpeed)
	stepUntil(t, w, BallLost, 40)
}

func TestBrickHitDestroysAndReveals(t *testing.T) {
	wall := wallOf([]int{1}, reveal.SymbolContent(game.Eye))
	w := newWorld(t, wall, Play, DefaultSettings())
	r := w.Bricks()[0].Rect
	fly(w, (r.X+r.W/2)/Unit, 300, 0, -PlaySpeed)
	ev := stepUntil(t, w, BrickHit, 40)
	assert.Equal(t, []EventKind{BrickHit, BrickDestroyed, SymbolRevealed, WallCleared}, kinds(ev))
	assert.Equal(t, 0, ev[0].Brick)
	assert.Equal(t, 0, ev[0].N)
	assert.Equal(t, reveal.SymbolContent(game.Eye), ev[1].Content)
	assert.Equal(t, game.Eye, ev[2].Symbol)
	assert.Equal(t, game.Counts{game.Eye: 1}, w.Revealed())
	assert.False(t, w.Bricks()[0].Alive())
	assert.True(t, w.Done())
	// After the end: nothing moves, no events, the tick stays.
	tick := w.Tick()
	assert.Empty(t, w.Step(Input{Launch: true}))
	assert.Equal(t, tick, w.Tick())
}

// The ball bounces off a brick's face: down from below, sideways from the
// side.
func TestBrickBounces(t *testing.T) {
	wall := wallOf([]int{2})
	w := newWorld(t, wall, Play, DefaultSettings())
	r := w.Bricks()[0].Rect
	fly(w, (r.X+r.W/2)/Unit, 300, 0, -PlaySpeed)
	stepUntil(t, w, BrickDestroyed, 40)
	assert.Greater(t, w.Ball().VY, int32(0), "from below: back down")
	assert.GreaterOrEqual(t, w.Ball().Y, r.Y+r.H+BallRadius, "never into the brick")

	w = newWorld(t, wall, Play, DefaultSettings())
	r = w.Bricks()[0].Rect
	// From the left, level with the brick, moving right and a little up.
	fly(w, (r.X-40*Unit)/Unit, (r.Y+r.H/2)/Unit, PlaySpeed, -Unit/4)
	ev := stepUntil(t, w, BrickHit, 40)
	assert.Equal(t, 0, ev[0].Brick)
	assert.Less(t, w.Ball().VX, int32(0), "from the side: back the other way")
	assert.Less(t, w.Ball().VY, int32(0), "vertical motion kept")
}

// Swept collision: a ball moving farther in one step than a brick is thick
// still hits it.
func TestNoTunnellingAtAnySpeed(t *testing.T) {
	for _, speed := range []int32{PlaySpeed, AutoSpeed, 60 * Unit, 100 * Unit} {
		w := newWorld(t, wallOf([]int{1}), Play, DefaultSettings())
		r := w.Bricks()[0].Rect
		fly(w, (r.X+r.W/2)/Unit, (r.Y+r.H)/Unit+BallRadius/Unit+speed/Unit/2, 0, -speed)
		ev := w.Step(Input{})
		assert.Contains(t, kinds(ev), BrickHit, "speed %d", speed)
		assert.GreaterOrEqual(t, w.Ball().Y, r.Y+r.H+BallRadius, "the ball stays below the brick")
	}
}

func TestLostBallShowsTheGhostThenComesBack(t *testing.T) {
	s := DefaultSettings()
	w := newWorld(t, wallOf([]int{1}), Play, s)
	fly(w, 100, 900, 0, PlaySpeed) // far from the paddle at the centre
	ev := stepUntil(t, w, BallLost, 40)
	i := len(ev) - 1
	assert.Equal(t, BallLost, ev[i].Kind)
	assert.Equal(t, s.GhostTicks, ev[i].Ticks)
	assert.Equal(t, Lost, w.Ball().Phase)
	assert.Equal(t, s.GhostTicks, w.Ball().Ghost)
	for n := 1; n < s.GhostTicks; n++ {
		assert.Empty(t, w.Step(Input{}))
		assert.Equal(t, s.GhostTicks-n, w.Ball().Ghost)
	}
	assert.Equal(t, []EventKind{BallOnPaddle}, kinds(w.Step(Input{})))
	assert.Equal(t, OnPaddle, w.Ball().Phase)
	assert.Equal(t, w.Paddle().X, w.Ball().X)
	// Launches are unlimited (Art. 4.4).
	assert.Equal(t, []EventKind{Launched}, kinds(w.Step(Input{Launch: true})))
}

func TestStoneEffects(t *testing.T) {
	s := DefaultSettings()
	s.StoneTicks = 2 * TicksPerSecond
	wall := wallOf([]int{3}, reveal.StoneContent(game.Pink), reveal.StoneContent(game.Green), reveal.StoneContent(game.Blue))
	w := newWorld(t, wall, Play, s)

	hit := func(i int) []Event {
		r := w.Bricks()[i].Rect
		fly(w, (r.X+r.W/2)/Unit, 300, 0, -PlaySpeed)
		return stepUntil(t, w, BrickDestroyed, 40)
	}
	ev := hit(0)
	assert.Equal(t, []EventKind{BrickHit, BrickDestroyed, StoneStarted}, kinds(ev))
	assert.Equal(t, game.Pink, ev[2].Stone)
	assert.Equal(t, s.StoneTicks, ev[2].Ticks)
	assert.Equal(t, int32(PaddleWidthPink), w.Paddle().Width)
	assert.Equal(t, s.StoneTicks, w.Effect(game.Pink))

	// Green replaces pink at once.
	ev = hit(1)
	assert.Equal(t, []EventKind{BrickHit, BrickDestroyed, StoneEnded, StoneStarted}, kinds(ev))
	assert.Equal(t, game.Pink, ev[2].Stone)
	assert.Equal(t, game.Green, ev[3].Stone)
	assert.Equal(t, int32(PaddleWidthGreen), w.Paddle().Width)
	assert.Equal(t, 0, w.Effect(game.Pink))

	// It lasts exactly StoneTicks.
	w.phase = Lost
	w.ghost = 10 * TicksPerSecond // keep the ball away meanwhile
	for n := 1; n < s.StoneTicks; n++ {
		assert.NotContains(t, kinds(w.Step(Input{})), StoneEnded, "tick %d", n)
	}
	ev = w.Step(Input{})
	assert.Equal(t, []EventKind{StoneEnded}, kinds(ev))
	assert.Equal(t, game.Green, ev[0].Stone)
	assert.Equal(t, int32(PaddleWidth), w.Paddle().Width)
	assert.Equal(t, 0, w.Effect(game.Stone(9)))
}

// The blue stone's magnet holds the ball on the paddle until launched,
// for StoneTicks; then the ball bounces again.
func TestBlueStoneMagnet(t *testing.T) {
	s := DefaultSettings()
	s.StoneTicks = 3 * TicksPerSecond
	w := newWorld(t, wallOf([]int{2}, reveal.StoneContent(game.Blue)), Play, s)
	w.startStone(game.Blue)
	fly(w, FieldWidth/2/Unit+30, 880, 0, PlaySpeed)
	ev := stepUntil(t, w, BallOnPaddle, 20)
	assert.NotContains(t, kinds(ev), PaddleHit)
	b := w.Ball()
	assert.Equal(t, OnPaddle, b.Phase)
	assert.Equal(t, w.Paddle().X+30*Unit, b.X, "held where it landed")
	w.Step(Input{Steer: true, PaddleX: 300 * Unit})
	assert.Equal(t, w.Paddle().X+30*Unit, w.Ball().X, "and carried along")
	for i := 0; i < 2*s.StoneTicks; i++ {
		w.Step(Input{})
	}
	assert.Equal(t, OnPaddle, w.Ball().Phase, "still waits for its launch after the magnet ends")
	assert.Equal(t, []EventKind{Launched}, kinds(w.Step(Input{Launch: true})))
	assert.Greater(t, w.Ball().VX, int32(0), "launched at the angle of where it rests")
	fly(w, w.Paddle().X/Unit, 880, 0, PlaySpeed)
	assert.Contains(t, kinds(stepUntil(t, w, PaddleHit, 20)), PaddleHit, "magnet over: bounces")
}

func TestRedBrickFallsOnItsSecondHit(t *testing.T) {
	l := walls(t, game.Stake100, 4, true, 99)
	w := newWorld(t, reveal.Wall{Rows: []int{3}, Bricks: []reveal.Content{reveal.Empty, reveal.Red, reveal.Empty}}, Play, DefaultSettings())
	assert.True(t, w.IsBonus())
	r := w.Bricks()[1].Rect
	fly(w, (r.X+r.W/2)/Unit, 300, 0, -PlaySpeed)
	ev := stepUntil(t, w, RedBrickHit, 40)
	assert.Equal(t, []EventKind{BrickHit, RedBrickHit}, kinds(ev))
	assert.Equal(t, 1, ev[0].N)
	assert.Equal(t, 1, ev[1].N)
	assert.Equal(t, 1, w.RedHits())
	assert.True(t, w.Bricks()[1].Alive())
	fly(w, (r.X+r.W/2)/Unit, 300, 0, -PlaySpeed)
	ev = stepUntil(t, w, RedBrickHit, 40)
	assert.Equal(t, []EventKind{BrickHit, RedBrickHit, BrickDestroyed, WallCleared}, kinds(ev))
	assert.Equal(t, 2, ev[1].N)
	assert.Equal(t, 2, w.RedHits())
	assert.True(t, w.Done(), "the bonus wall is done with its red brick, other bricks standing")
	assert.Equal(t, 2, w.Standing())
	assert.Equal(t, 0, newWorld(t, l.Main, Play, DefaultSettings()).RedHits())
}

// "No input" is: no launch, no Auto, and a paddle target equal to the one
// before. IdleTicks of it hand the game to Auto.
func TestIdleContinuesInAuto(t *testing.T) {
	s := DefaultSettings()
	s.IdleTicks = MinIdleTicks
	w := newWorld(t, walls(t, game.Stake050, 0, false, 8).Main, Play, s)
	for i := 1; i < s.IdleTicks; i++ {
		in := Input{}
		if i%2 == 0 {
			in = Input{Steer: true, PaddleX: FieldWidth / 2} // the same target: not activity
		}
		assert.NotContains(t, kinds(w.Step(in)), AutoEngaged, "tick %d", i)
		assert.Equal(t, i, w.Idle())
	}
	w.Step(Input{Steer: true, PaddleX: FieldWidth/2 + 1}) // activity
	assert.Equal(t, 0, w.Idle())
	for i := 1; i < s.IdleTicks; i++ {
		w.Step(Input{})
	}
	w.Step(Input{Launch: true}) // a tap is activity too, even with nothing to launch
	assert.Equal(t, 0, w.Idle())
	for i := 1; i < s.IdleTicks; i++ {
		require.Equal(t, Play, w.Mode())
		w.Step(Input{})
	}
	ev := w.Step(Input{})
	assert.Contains(t, kinds(ev), AutoEngaged)
	assert.Equal(t, Auto, w.Mode())
	// In Auto, input is ignored.
	w.Step(Input{Steer: true, PaddleX: 5 * Unit})
	assert.NotEqual(t, int32(5*Unit), w.Paddle().Target, "the controller steers")
}

func TestInputCanHandOverToAuto(t *testing.T) {
	w := newWorld(t, walls(t, game.Stake050, 0, false, 8).Main, Play, DefaultSettings())
	assert.Equal(t, AutoEngaged, w.Step(Input{Auto: true})[0].Kind)
	assert.Equal(t, Auto, w.Mode())
	for !w.Done() && w.Tick() < 2*AutoBoundTicks {
		w.Step(Input{})
	}
	assert.True(t, w.Done())
}

func TestStepDoesNotAllocate(t *testing.T) {
	l := walls(t, game.Stake200, 1, true, 4)
	for _, mode := range []Mode{Play, Auto} {
		w := newWorld(t, l.Main, mode, DefaultSettings())
		w.Step(Input{Launch: true})
		allocs := testing.AllocsPerRun(500, func() { w.Step(Input{}) })
		assert.Zero(t, allocs, "%v", mode)
	}
	w := newWorld(t, l.Main, Play, DefaultSettings())
	ev := w.Step(Input{Launch: true})
	before := cap(ev)
	for i := 0; i < 200; i++ {
		ev = w.Step(Input{})
	}
	assert.Equal(t, before, cap(ev), "the events slice is the world's, reused")
}

func TestStrings(t *testing.T) {
	assert.Equal(t, "play", Play.String())
	assert.Equal(t, "auto", Auto.String())
	assert.Equal(t, "mode(9)", Mode(9).String())
	assert.Equal(t, "flying", Flying.String())
	assert.Equal(t, "phase(9)", Phase(9).String())
	assert.Equal(t, "red-brick-hit", RedBrickHit.String())
	assert.Equal(t, "event(99)", EventKind(99).String())
	assert.Equal(t, "red-brick-hit 2/2", Event{Kind: RedBrickHit, N: 2}.String())
	assert.Equal(t, "symbol eye", Event{Kind: SymbolRevealed, Symbol: game.Eye}.String())
	assert.Equal(t, "stone-started blue 960", Event{Kind: StoneStarted, Stone: game.Blue, Ticks: 960}.String())
	for k := BrickHit; k <= AutoEngaged; k++ {
		assert.NotContains(t, k.String(), "event(")
	}
}
