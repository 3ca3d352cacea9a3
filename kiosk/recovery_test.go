package kiosk

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/store"
)

// saveNow makes g save its recording and waits until the store has it.
func saveNow(t *testing.T, f *fixture, g *Game) []byte {
	t.Helper()
	g.save()
	want := append([]byte(nil), g.rec...)
	syncWriter(f.m)
	p, err := f.st.Play(ctx, g.ID())
	require.NoError(t, err)
	require.Equal(t, want, p.Recording, "the writer wrote the recording")
	return want
}

// play a Jouer game for n ticks with a player following the ball.
func playFor(g *Game, n int) {
	for i := 0; i < n && g.Stage() != StageDone; i++ {
		b := g.World().Ball()
		g.Step(breakout.Input{Steer: true, PaddleX: b.X, Launch: b.Phase == breakout.OnPaddle})
	}
}

type recoveryCheck struct {
	creditBefore game.Money // before the stake
	stake        game.Stake
	prize        game.Money
	id           int64
}

// finishResumed runs the resumed game to its end and checks the money: the
// stake debited once, the prize credited once, the store consistent.
func finishResumed(t *testing.T, f *fixture, c recoveryCheck) {
	t.Helper()
	g := f.m.Current()
	require.NotNil(t, g, "the interrupted play is resumed")
	assert.Equal(t, c.id, g.ID())
	runToEnd(t, g)
	assert.Equal(t, c.prize, g.Result().Won)
	assert.False(t, g.Result().Mismatch)
	assert.Equal(t, c.creditBefore-c.stake.Money()+c.prize, f.m.Snapshot().Credit)
	require.NoError(t, f.st.Verify(ctx))
	f.restart()
	assert.Nil(t, f.m.Current(), "nothing left to resume")
	assert.Equal(t, c.creditBefore-c.stake.Money()+c.prize, f.m.Snapshot().Credit, "never credited twice")
}

func startScenario(t *testing.T, f *fixture, s game.Stake, unit int, mode breakout.Mode) (*Game, recoveryCheck) {
	t.Helper()
	skipTo(t, f, s, unit)
	f.credit(5 * game.Euro)
	c := recoveryCheck{creditBefore: f.m.Snapshot().Credit, stake: s, prize: game.Table(s).Amount(scenario()[unit].Tier)}
	g, err := f.m.Play(ctx, s, mode)
	require.NoError(t, err)
	c.id = g.ID()
	return g, c
}

func TestRecoverRightAfterTheStake(t *testing.T) {
	f := newFixture(t)
	f.boot()
	_, c := startScenario(t, f, game.Stake100, 3, breakout.Play) // 3 crosses
	f.restart()
	assert.Equal(t, Playing, f.m.Snapshot().State)
	g := f.m.Current()
	require.NotNil(t, g)
	assert.Equal(t, uint32(0), g.World().Tick(), "no recording: the wall starts afresh")
	assert.Equal(t, breakout.Play, g.World().Mode())
	finishResumed(t, f, c)
}

func TestRecoverMidWallResumesTheSameWall(t *testing.T) {
	f := newFixture(t)
	f.boot()
	g, c := startScenario(t, f, game.Stake050, 6, breakout.Play) // 2 birds
	playFor(g, 10*breakout.TicksPerSecond)
	require.Equal(t, StageMain, g.Stage())
	saveNow(t, f, g)
	hash, tick, standing := g.World().Hash(), g.World().Tick(), g.World().Standing()
	require.Less(t, standing, 27, "bricks fell before the crash")
	bricks, flying := append([]breakout.Brick(nil), g.World().Bricks()...), g.World().Ball().Phase != breakout.OnPaddle

	f.restart()
	r := f.m.Current()
	require.NotNil(t, r)
	assert.Equal(t, bricks, r.World().Bricks(), "the same wall in the same state")
	if flying {
		// the ball is put back on the paddle, a tick of the engine
		// (TestRecoverJouerWaitsWithTheBallOnThePaddle)
		assert.Equal(t, tick+1, r.World().Tick())
	} else {
		assert.Equal(t, hash, r.World().Hash(), "the same wall in the same state")
		assert.Equal(t, tick, r.World().Tick())
	}
	assert.Equal(t, Playing, f.m.Snapshot().State)
	assert.Equal(t, c.creditBefore-c.stake.Money(), f.m.Snapshot().Credit)
	finishResumed(t, f, c)
}

func TestRecoverDuringBonus(t *testing.T) {
	f := newFixture(t)
	f.boot()
	g, c := startScenario(t, f, game.Stake200, 9+1, breakout.Auto) // 3 scarabs through the bonus
	for g.Stage() == StageMain {
		g.Step(breakout.Input{})
	}
	require.Equal(t, StageBonus, g.Stage())
	assert.Equal(t, Bonus, f.m.Snapshot().State)
	for i := 0; i < 30; i++ {
		g.Step(breakout.Input{})
	}
	saveNow(t, f, g)
	hash := g.World().Hash()

	f.restart()
	r := f.m.Current()
	require.NotNil(t, r)
	assert.Equal(t, StageBonus, r.Stage())
	assert.Equal(t, Bonus, f.m.Snapshot().State)
	assert.Equal(t, hash, r.World().Hash())
	assert.Equal(t, 3, r.Revealed()[game.Snake], "the cartouche shows the main wall's three snakes again")
	finishResumed(t, f, c)
}

func TestRecoverBonusEnteredBeforeAnySave(t *testing.T) {
	f := newFixture(t)
	f.boot()
	g, c := startScenario(t, f, game.Stake050, 9+7, breakout.Auto) // 2 scarabs through the bonus
	for g.Stage() == StageMain {
		g.Step(breakout.Input{})
	}
	require.Equal(t, StageBonus, g.Stage())
	g.Wait()
	f.restart() // the bonus wall had no step saved
	r := f.m.Current()
	require.NotNil(t, r)
	assert.Equal(t, StageBonus, r.Stage())
	assert.Equal(t, uint32(0), r.World().Tick())
	finishResumed(t, f, c)
}

// The wall was cleared but the finish never committed (the database failed,
// the power went): at restart the play resumes and is finished once.
func TestRecoverWallClearedFinishLost(t *testing.T) {
	f := newFixture(t)
	f.boot()
	g, c := startScenario(t, f, game.Stake100, 1, breakout.Auto) // top prize
	for g.World().Standing() > 1 {
		g.Step(breakout.Input{})
	}
	saveNow(t, f, g)
	require.NoError(t, f.st.Close())
	runUntilStopped(g)
	require.Error(t, g.Err(), "the finish could not commit")
	f.st = nil
	f.restart()
	finishResumed(t, f, c)
}

// A crash after the finish committed leaves nothing to resume and the prize
// credited once.
func TestNoRecoveryAfterFinish(t *testing.T) {
	f := newFixture(t)
	f.boot()
	g, c := startScenario(t, f, game.Stake050, 5, breakout.Auto) // 3 eyes
	runToEnd(t, g)
	f.restart()
	assert.Nil(t, f.m.Current())
	assert.Equal(t, Home, f.m.Snapshot().State)
	assert.Equal(t, c.creditBefore-c.stake.Money()+c.prize, f.m.Snapshot().Credit)
}

// Unreadable saved inputs do not block the kiosk: the same wall starts again
// in Auto and pays the same prize.
func TestRecoverWithCorruptRecording(t *testing.T) {
	f := newFixture(t)
	f.boot()
	g, c := startScenario(t, f, game.Stake050, 2, breakout.Play) // 3 scarabs
	playFor(g, 3*breakout.TicksPerSecond)
	rec := saveNow(t, f, g) // the writer is idle after this
	// Garbage longer than the recording: the store keeps the longer.
	garbage := append([]byte("K\x01\x05garbage"), rec...)
	require.NoError(t, f.st.SaveRecording(ctx, g.ID(), garbage))
	f.restart()
	r := f.m.Current()
	require.NotNil(t, r)
	assert.Equal(t, breakout.Auto, r.World().Mode())
	finishResumed(t, f, c)
}

func TestRecordingsRoundTrip(t *testing.T) {
	for _, tc := range [][2][]byte{{nil, nil}, {[]byte{1, 2, 3}, nil}, {[]byte{1}, []byte{4, 5}}, {bytes.Repeat([]byte{7}, 300), []byte{9}}} {
		b := encodeRecordings(nil, tc[0], tc[1])
		m, bo, err := decodeRecordings(b)
		require.NoError(t, err)
		assert.Equal(t, len(tc[0]), len(m))
		assert.Equal(t, len(tc[1]), len(bo))
		assert.True(t, bytes.Equal(tc[0], m) && bytes.Equal(tc[1], bo))
	}
	for _, bad := range []string{"X", "K\x02\x00\x00", "K\x01", "K\x01\x05ab", "K\x01\x00\x00extra", "K\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", "K\x01\x80\x00\x00"} {
		_, _, err := decodeRecordings([]byte(bad))
		assert.ErrorIs(t, err, ErrBadRecordings, "%q", bad)
	}
}

func FuzzDecodeRecordings(f *testing.F) {
	f.Add([]byte{})
	f.Add(encodeRecordings(nil, []byte{1, 2}, []byte{3}))
	f.Add([]byte("K\x01\x05garbage"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, bo, err := decodeRecordings(b)
		if err != nil {
			return
		}
		if len(b) == 0 {
			return
		}
		// What decodes re-encodes to the same bytes.
		if !bytes.Equal(encodeRecordings(nil, m, bo), b) {
			t.Fatalf("%x does not round-trip", b)
		}
	})
}

// A play in its bonus whose kept recording stops short of the main wall's
// end cannot come from this kiosk (EnterBonus keeps the whole main wall,
// and the store refuses any shorter save after it): the kiosk does not
// guess the rest of the wall, it stays out of service for a technician.
func TestRecoverBonusWithShortMainWallIsAFault(t *testing.T) {
	f := newFixture(t)
	f.boot()
	g, _ := startScenario(t, f, game.Stake050, 9+7, breakout.Auto) // 2 scarabs through the bonus
	for i := 0; i < breakout.TicksPerSecond; i++ {
		g.Step(breakout.Input{})
	}
	saveNow(t, f, g)
	require.NoError(t, f.st.SetPlayState(ctx, g.ID(), store.PlayBonus)) // the state without its recording
	f.restart()
	snap := f.m.Snapshot()
	assert.Equal(t, OutOfService, snap.State)
	assert.Equal(t, FaultRecovery, snap.Fault.Code)
	assert.Contains(t, snap.Fault.Detail, "short of its end")
	assert.Nil(t, f.m.Current())
}

// A Jouer game resumed with its ball in flight does not let the ball fall
// before the player is there: the resumed game says it is resumed and waits
// with the ball on the paddle for the launch. The rest is part of the
// recording, so the whole game, replayed from the recording the finish
// keeps, ends in the state the game ended in.
func TestRecoverJouerWaitsWithTheBallOnThePaddle(t *testing.T) {
	f := newFixture(t)
	f.boot()
	g, c := startScenario(t, f, game.Stake050, 6, breakout.Play) // 2 birds
	playFor(g, 5*breakout.TicksPerSecond)
	for i := 0; g.World().Ball().Phase != breakout.Flying; i++ {
		require.Less(t, i, 10*breakout.TicksPerSecond, "the ball flies")
		playFor(g, 1)
	}
	assert.False(t, g.Resumed(), "a game just sold is not resumed")
	saveNow(t, f, g)
	bricks := append([]breakout.Brick(nil), g.World().Bricks()...)

	f.restart()
	r := f.m.Current()
	require.NotNil(t, r)
	assert.True(t, r.Resumed(), "the resumed game says so")
	w := r.World()
	assert.Equal(t, breakout.Play, w.Mode())
	assert.Equal(t, breakout.OnPaddle, w.Ball().Phase, "the ball waits on the paddle")
	assert.Equal(t, bricks, w.Bricks(), "the same wall")
	for i := 0; i < 3*breakout.TicksPerSecond; i++ {
		r.Step(breakout.Input{})
	}
	assert.Equal(t, breakout.OnPaddle, w.Ball().Phase, "until the player launches it")
	finishResumed(t, f, c)

	p, err := f.st.Play(ctx, c.id)
	require.NoError(t, err)
	mainRec, _, err := decodeRecordings(p.Recording)
	require.NoError(t, err)
	dec, err := breakout.DecodeRecording(mainRec)
	require.NoError(t, err)
	rests := 0
	for _, in := range dec.Inputs {
		if in.Input.Rest {
			rests++
		}
	}
	assert.Equal(t, 1, rests, "the rest is recorded")
	again, err := breakout.Replay(r.Walls().Main, mainRec, nil)
	require.NoError(t, err, "the whole game replays")
	assert.True(t, again.Done())
	assert.Equal(t, w.Hash(), again.Hash(), "to the state it ended in")
}

// An Auto game resumed says so and goes on: nobody is to launch its ball.
func TestRecoverAutoSaysItIsResumed(t *testing.T) {
	f := newFixture(t)
	f.boot()
	g, c := startScenario(t, f, game.Stake100, 3, breakout.Auto)
	for i := 0; i < 3*breakout.TicksPerSecond; i++ {
		g.Step(breakout.Input{})
	}
	saveNow(t, f, g)
	hash := g.World().Hash()
	f.restart()
	r := f.m.Current()
	require.NotNil(t, r)
	assert.True(t, r.Resumed())
	assert.Equal(t, hash, r.World().Hash(), "the Auto game as it was")
	finishResumed(t, f, c)
}
