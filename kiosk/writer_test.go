package kiosk

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mattn/go-sqlite3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/hw"
	"pharaon/store"
)

// busyStore is the store with its FinishPlay refused as SQLite refuses a
// write while another connection holds the database, the first fails
// times.
type busyStore struct {
	playStore
	mu       sync.Mutex
	fails    int
	attempts int
}

func (s *busyStore) FinishPlay(ctx context.Context, id int64, f store.FinishInfo) (store.Play, error) {
	s.mu.Lock()
	s.attempts++
	busy := s.attempts <= s.fails
	s.mu.Unlock()
	if busy {
		return store.Play{}, sqlite3.Error{Code: sqlite3.ErrBusy}
	}
	return s.playStore.FinishPlay(ctx, id, f)
}

func (s *busyStore) tries() int { s.mu.Lock(); defer s.mu.Unlock(); return s.attempts }

// withBusyFinish makes the machine's writer see fails busy refusals of
// FinishPlay, and wait 1 ms between its attempts.
func withBusyFinish(f *fixture, fails int) *busyStore {
	b := &busyStore{playStore: f.m.w.st, fails: fails}
	f.m.w.st = b
	f.m.w.backoff = hw.Backoff{Min: time.Millisecond, Max: time.Millisecond}
	return b
}

// A database busy at the end of a game (a technician's query holding it)
// is waited for: the writer tries the finish again, and the prize is
// credited once.
func TestBusyFinishIsRetried(t *testing.T) {
	f := newFixture(t)
	f.boot()
	g, c := startScenario(t, f, game.Stake050, 3, breakout.Auto) // 3 crosses
	busy := withBusyFinish(f, defaultWriteTries-1)
	runToEnd(t, g)
	assert.Equal(t, defaultWriteTries, busy.tries(), "every refusal tried again")
	assert.Equal(t, c.prize, g.Result().Won)
	assert.Equal(t, Result, f.m.Snapshot().State)
	assert.Equal(t, c.creditBefore-c.stake.Money()+c.prize, f.m.Snapshot().Credit)
	require.NoError(t, f.st.Verify(ctx))
}

// A database that stays busy takes the kiosk out of service after a bounded
// number of attempts; the play stays unfinished, and the next start
// finishes it once.
func TestBusyFinishGivesUp(t *testing.T) {
	f := newFixture(t)
	f.boot()
	g, c := startScenario(t, f, game.Stake050, 3, breakout.Auto)
	busy := withBusyFinish(f, 1000)
	runUntilStopped(g)
	require.Error(t, g.Err())
	assert.True(t, store.Transient(g.Err()), "%v", g.Err())
	assert.Equal(t, defaultWriteTries, busy.tries(), "bounded")
	assert.NotEqual(t, StageDone, g.Stage())
	assert.Equal(t, OutOfService, f.m.Snapshot().State)
	assert.Equal(t, FaultStore, f.m.Snapshot().Fault.Code)
	assert.Equal(t, c.creditBefore-c.stake.Money(), f.m.Snapshot().Credit, "nothing credited")
	f.restart()
	finishResumed(t, f, c)
}

// A periodic save that reaches the writer after the bonus transition —
// made before it, so older — cannot take the play's recording back: the
// store refuses it, and a restart finds the main wall cleared and the bonus
// wall where it was. In Auto the main wall's recording can keep its length as
// the ticks go, so only the bonus wall's start, kept with the transition,
// makes the transition's recording the longer.
func TestLateSaveCannotUndoTheBonus(t *testing.T) {
	f := newFixture(t)
	f.boot()
	g, c := startScenario(t, f, game.Stake050, 9+7, breakout.Auto) // 2 scarabs through the bonus
	for i := 0; i < 2*breakout.TicksPerSecond; i++ {
		g.Step(breakout.Input{})
	}
	early := bytes.Clone(g.recording())
	for g.Stage() == StageMain {
		g.Step(breakout.Input{})
	}
	g.Wait()
	entered, err := f.st.Play(ctx, g.ID())
	require.NoError(t, err)
	require.Equal(t, store.PlayBonus, entered.State)

	f.m.w.save(g.ID(), early) // the late save
	syncWriter(f.m)
	p, err := f.st.Play(ctx, g.ID())
	require.NoError(t, err)
	assert.Equal(t, entered.Recording, p.Recording, "the bonus transition's recording is kept")
	assert.ErrorIs(t, f.st.SaveRecording(ctx, g.ID(), early), store.ErrStaleRecording)

	f.restart()
	r := f.m.Current()
	require.NotNil(t, r)
	assert.Equal(t, StageBonus, r.Stage())
	assert.Equal(t, 3, r.Revealed()[game.Snake], "the main wall is cleared")
	finishResumed(t, f, c)
}

// The writer owns its goroutine: Close stops it, twice is harmless, and a
// write asked for afterwards is refused at once.
func TestWriterClose(t *testing.T) {
	f := newFixture(t)
	f.boot()
	f.credit(game.Euro)
	g, err := f.m.Play(ctx, game.Stake050, breakout.Auto)
	require.NoError(t, err)
	runToEnd(t, g)
	f.m.w.Close()
	f.m.w.Close()
	_, err = f.m.Play(ctx, game.Stake050, breakout.Auto)
	assert.ErrorIs(t, err, errWriterClosed)
	f.m.w.save(g.ID(), nil) // dropped
}
