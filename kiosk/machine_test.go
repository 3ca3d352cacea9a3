package kiosk

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/game/reveal"
	"pharaon/store"
)

var ctx = context.Background()

// runToEnd steps g until it is done, with no input (Auto plays, or a Jouer
// game goes Auto when idle), waiting for the writes its walls' ends ask
// for. It returns the events seen.
func runToEnd(t *testing.T, g *Game) map[breakout.EventKind]int {
	t.Helper()
	seen := map[breakout.EventKind]int{}
	for i := 0; g.Stage() != StageDone; i++ {
		require.Less(t, i, 4*60*breakout.TicksPerSecond, "game %d does not end", g.ID())
		require.NoError(t, g.Err())
		if !g.Settled() {
			g.Wait()
			continue
		}
		for _, e := range g.Step(breakout.Input{}) {
			seen[e.Kind]++
		}
	}
	return seen
}

// runUntilStopped steps g until it ends or stops on an error, waiting for
// its writes.
func runUntilStopped(g *Game) {
	for i := 0; i < 4*60*breakout.TicksPerSecond && g.Err() == nil && g.Stage() != StageDone; i++ {
		g.Step(breakout.Input{})
		g.Wait()
	}
}

// syncWriter waits until the machine's writer has made every write asked
// for so far: it takes its writes in order.
func syncWriter(m *Machine) {
	done := make(chan struct{})
	m.w.submit(func(context.Context, playStore, int) error { return nil }, func(error) { close(done) })
	<-done
}

// Every stake × every kind of outcome, from the stake debit to the credit:
// the amount credited is the unit's prize from the table, the walls reveal the
// unit's combination (or three snakes and the bonus wall), and the history
// shows the game, newest first.
func TestPlayEveryOutcome(t *testing.T) {
	f := newFixture(t)
	f.boot()
	snap := f.m.Snapshot()
	require.Equal(t, Home, snap.State)
	for _, s := range game.Stakes {
		require.True(t, snap.Available[s], "stake %s available", s)
	}
	for _, s := range game.Stakes {
		tab := game.Table(s)
		for i, sc := range scenario() {
			f.credit(s.Money())
			before := f.m.Snapshot().Credit
			g, err := f.m.Play(ctx, s, breakout.Auto)
			require.NoError(t, err)
			assert.Equal(t, before-s.Money(), f.m.Snapshot().Credit, "stake debited at once (Art. 4.1)")
			assert.Equal(t, Playing, f.m.Snapshot().State)
			assert.Equal(t, uint32(i), g.Play().Unit, "units sold in block order")
			assert.Equal(t, sc.Tier, g.Play().Tier)

			seen := runToEnd(t, g)
			res := g.Result()
			want := tab.Amount(sc.Tier)
			assert.Equal(t, want, res.Won, "%s unit %d", s, i)
			assert.False(t, res.Mismatch)
			assert.Equal(t, before-s.Money()+want, f.m.Snapshot().Credit)
			assert.Equal(t, Result, f.m.Snapshot().State)
			assert.Equal(t, g.Walls().Main.Counts(), g.Revealed())
			switch {
			case sc.Tier == game.TierLose:
				assert.Equal(t, game.Lose, res.Outcome.Kind)
				assert.Zero(t, seen[breakout.RedBrickHit])
			case sc.ViaBonus:
				assert.Equal(t, game.Bonus, res.Outcome.Kind)
				assert.Equal(t, 3, g.Revealed()[game.Snake])
				assert.Equal(t, 2, seen[breakout.RedBrickHit], "the red brick is hit twice (Art. 4.7)")
				assert.Equal(t, want, g.Walls().BonusAmount)
				assert.Equal(t, want, res.Outcome.Amount)
			default:
				assert.Equal(t, game.Win, res.Outcome.Kind)
				assert.Equal(t, sc.Tier, res.Outcome.Tier)
				c := res.Outcome.Combination
				assert.Equal(t, c.Count, g.Revealed()[c.Symbol])
				assert.Less(t, g.Revealed()[game.Snake], 3)
				assert.Zero(t, seen[breakout.RedBrickHit])
			}
			hist, err := f.m.History(ctx, 2)
			require.NoError(t, err)
			require.NotEmpty(t, hist)
			assert.Equal(t, g.ID(), hist[0].PlayID, "newest first")
			assert.True(t, hist[0].Finished)
			assert.Equal(t, res.Outcome.Kind, hist[0].Outcome.Kind)
			assert.Equal(t, want, hist[0].Won)
			f.m.EndResult()
			assert.Equal(t, Home, f.m.Snapshot().State)
		}
	}
	require.NoError(t, f.st.Verify(ctx), "ledger, chains and meters hold")
	m, err := f.st.Meters(ctx)
	require.NoError(t, err)
	assert.EqualValues(t, 3*len(scenario()), m.Get(store.MeterPlays))
}

func TestJouerIdleContinuesInAuto(t *testing.T) {
	f := newFixture(t)
	f.boot()
	f.credit(game.Euro)
	g, err := f.m.Play(ctx, game.Stake050, breakout.Play)
	require.NoError(t, err)
	seen := runToEnd(t, g)
	assert.Equal(t, 1, seen[breakout.AutoEngaged], "a walked-away player's game continues in Auto")
	assert.Equal(t, Result, f.m.Snapshot().State)
	assert.Equal(t, game.Lose, g.Result().Outcome.Kind, "the first unit of the scenario loses")
}

func TestJouerWithInputs(t *testing.T) {
	f := newFixture(t)
	f.boot()
	f.credit(game.Euro)
	g, err := f.m.Play(ctx, game.Stake100, breakout.Play)
	require.NoError(t, err)
	// The player follows the ball with the paddle and relaunches it.
	for i := 0; i < 60*breakout.TicksPerSecond && g.Stage() == StageMain; i++ {
		b := g.World().Ball()
		g.Step(breakout.Input{Steer: true, PaddleX: b.X, Launch: b.Phase == breakout.OnPaddle})
		assert.Equal(t, breakout.Play, g.World().Mode(), "a player who plays stays in Jouer")
	}
	assert.Less(t, g.World().Standing(), 31, "bricks fell under the player's paddle")
}

func TestPlayRefusals(t *testing.T) {
	f := newFixture(t)
	f.boot()
	_, err := f.m.Play(ctx, game.Stake200, breakout.Auto)
	assert.ErrorIs(t, err, ErrInsufficientCredit)
	_, err = f.m.Play(ctx, game.Stake(70), breakout.Auto)
	assert.ErrorIs(t, err, ErrBadStake)
	f.credit(150)
	_, err = f.m.Play(ctx, game.Stake200, breakout.Auto)
	assert.ErrorIs(t, err, ErrInsufficientCredit)
	assert.Equal(t, game.Money(150), f.m.Snapshot().Credit, "a refused play debits nothing")
	g, err := f.m.Play(ctx, game.Stake050, breakout.Auto)
	require.NoError(t, err)
	_, err = f.m.Play(ctx, game.Stake050, breakout.Auto)
	assert.ErrorIs(t, err, ErrBusy, "one game at a time")
	assert.Equal(t, game.Money(100), f.m.Snapshot().Credit)
	runToEnd(t, g)

	// A stake whose block is withdrawn is unavailable.
	b, err := f.st.OpenBlock(ctx, game.Stake100)
	require.NoError(t, err)
	_, err = f.st.WithdrawBlock(ctx, b.ID, "test")
	require.NoError(t, err)
	_, err = f.m.Play(ctx, game.Stake100, breakout.Auto)
	assert.ErrorIs(t, err, ErrUnavailable)
	assert.False(t, f.m.Snapshot().Available[game.Stake100])
	assert.Equal(t, game.Money(100), f.m.Snapshot().Credit)
}

func TestProductionIsNotDev(t *testing.T) {
	f := newFixture(t)
	f.stop()
	f.cfg.Dev = false
	f.start()
	f.boot()
	assert.False(t, f.m.Snapshot().Dev, "no development panel on a production kiosk")
	assert.Zero(t, f.m.Snapshot().Credit, "a kiosk has no credit of its own")
}

func TestResultReturnsHomeWhenIdle(t *testing.T) {
	f := newFixture(t)
	f.boot()
	f.credit(game.Euro)
	g, err := f.m.Play(ctx, game.Stake050, breakout.Auto)
	require.NoError(t, err)
	runToEnd(t, g)
	require.Equal(t, Result, f.m.Snapshot().State)
	f.clock.Advance(20 * time.Second)
	f.m.Touch()
	f.clock.Advance(20 * time.Second)
	f.m.Poll()
	assert.Equal(t, Result, f.m.Snapshot().State, "touched 20 s ago: the result stays")
	f.clock.Advance(11 * time.Second)
	f.m.Poll()
	assert.Equal(t, Home, f.m.Snapshot().State)
}

func TestOnChangeTellsEveryChange(t *testing.T) {
	f := newFixture(t)
	var mu sync.Mutex // the writer's goroutine tells of the game's start and end
	var states []State
	f.m.OnChange(func(s Snapshot) {
		mu.Lock()
		states = append(states, s.State)
		mu.Unlock()
	})
	f.boot()
	f.credit(game.Euro)
	g, err := f.m.Play(ctx, game.Stake050, breakout.Auto)
	require.NoError(t, err)
	runToEnd(t, g)
	// The finish commits on the play writer's goroutine, which tells the
	// listeners after it: the end is heard shortly after the game ends.
	waitFor(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(states) > 0 && states[len(states)-1] == Result
	}, "the listeners never heard of the result")
	mu.Lock()
	defer mu.Unlock()
	assert.Contains(t, states, Playing)
}

// skipTo sells units until the next one to sell is the scenario's unit i.
func skipTo(t *testing.T, f *fixture, s game.Stake, i int) {
	t.Helper()
	for n := 0; n < i; n++ {
		f.credit(s.Money())
		g, err := f.m.Play(ctx, s, breakout.Auto)
		require.NoError(t, err)
		runToEnd(t, g)
		f.m.EndResult()
	}
}

// A mismatch between the walls and the unit is caught: critical event, the
// unit's committed prize paid (not what the walls showed), out of service.
func TestMismatchIsCaught(t *testing.T) {
	for _, tc := range []struct {
		name      string
		unit      int       // scenario index
		wallsTier game.Tier // what the faulty walls show
		wallsVia  bool
	}{
		{"loser shows 3 birds", 0, 1, false},
		{"top prize shows nothing", 1, game.TierLose, false},
		{"2 crosses shows 3 eyes", 8, 5, false},
		{"bonus unit shows direct win", 9, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if testing.Short() && tc.unit > 1 {
				t.Skip("-short: the first units only")
			}
			f := newFixture(t)
			f.boot()
			skipTo(t, f, game.Stake050, tc.unit)
			f.m.layoutHook = func(p store.Play) (reveal.Walls, error) {
				return reveal.Layout(p.Stake, tc.wallsTier, tc.wallsVia, p.Seed, reveal.V1)
			}
			f.credit(game.Euro)
			before := f.m.Snapshot().Credit
			g, err := f.m.Play(ctx, game.Stake050, breakout.Auto)
			require.NoError(t, err)
			runToEnd(t, g)
			prize := game.Table(game.Stake050).Amount(scenario()[tc.unit].Tier)
			res := g.Result()
			assert.True(t, res.Mismatch)
			assert.Equal(t, prize, res.Won, "the unit's prize is what is paid")
			snap := f.m.Snapshot()
			assert.Equal(t, before-50+prize, snap.Credit)
			assert.Equal(t, OutOfService, snap.State)
			assert.Equal(t, FaultMismatch, snap.Fault.Code)
			_, err = f.m.Play(ctx, game.Stake050, breakout.Auto)
			assert.ErrorIs(t, err, ErrOutOfService)
			evs, err := f.st.Events(ctx, 50, 0)
			require.NoError(t, err)
			found := false
			for _, e := range evs {
				if e.Code == FaultMismatch && e.Level == store.LevelCritical {
					found = true
				}
			}
			assert.True(t, found, "a critical reveal_mismatch event is logged")
			p, err := f.st.Play(ctx, g.ID())
			require.NoError(t, err)
			assert.True(t, p.Mismatch, "the play is marked")
			require.NoError(t, f.st.Verify(ctx))
		})
	}
}

func TestStoreFailureTakesOutOfService(t *testing.T) {
	f := newFixture(t)
	f.boot()
	f.credit(game.Euro)
	g, err := f.m.Play(ctx, game.Stake050, breakout.Auto)
	require.NoError(t, err)
	require.NoError(t, f.st.Close()) // the database is gone under the game
	runUntilStopped(g)
	require.Error(t, g.Err())
	assert.NotEqual(t, StageDone, g.Stage())
	assert.Equal(t, OutOfService, f.m.Snapshot().State)
	assert.Equal(t, FaultStore, f.m.Snapshot().Fault.Code)
	assert.Nil(t, g.Step(breakout.Input{}), "a failed game does not go on")
	f.st = nil // closed already
}

// Changes made at once by several goroutines reach a listener in order: what
// it is told never goes back, and the last call shows the machine as it is.
// (The test counts in Fault.Detail, which nothing else of an idle machine
// writes; the credit is re-read from the ledger by the machine's own loop.)
func TestOnChangeNeverGoesBack(t *testing.T) {
	f := newFixture(t)
	f.boot()
	var mu sync.Mutex
	var seen []int
	f.m.OnChange(func(s Snapshot) {
		n, err := strconv.Atoi(s.Fault.Detail)
		if err != nil {
			return
		}
		runtime.Gosched() // a listener takes time: let another delivery overtake it
		mu.Lock()
		seen = append(seen, n)
		mu.Unlock()
	})
	counter := 0
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				f.m.update(func() { counter++; f.m.fault.Detail = strconv.Itoa(counter) })
			}
		}()
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, seen)
	for i := 1; i < len(seen); i++ {
		require.GreaterOrEqual(t, seen[i], seen[i-1], "call %d went back in time", i)
	}
	assert.Equal(t, 1600, seen[len(seen)-1])
}
