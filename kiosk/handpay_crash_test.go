package kiosk

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/store"
)

// errCrashed is what the writes of a play get once crashAfterFinish has
// "killed" the kiosk: nothing more of the play reaches the database.
var errCrashed = errors.New("kiosk killed (test)")

// crashAfterFinish is the play writer's store with a kill right after the
// commit of a play's finish, once armed: FinishPlay commits, then the
// writer's later writes of a play (a finish, an event, a recording, a
// bonus) fail as if the process had died there. It is the crash between
// the finish of a winning play and whatever the kiosk writes after it.
type crashAfterFinish struct {
	playStore
	armed, crashed atomic.Bool
}

func (c *crashAfterFinish) FinishPlay(ctx context.Context, id int64, f store.FinishInfo) (store.Play, error) {
	if c.crashed.Load() {
		return store.Play{}, errCrashed
	}
	p, err := c.playStore.FinishPlay(ctx, id, f)
	if err == nil && c.armed.Load() {
		c.crashed.Store(true)
	}
	return p, err
}

func (c *crashAfterFinish) Log(ctx context.Context, e store.Event) (store.Event, error) {
	if c.crashed.Load() {
		return store.Event{}, errCrashed
	}
	return c.playStore.Log(ctx, e)
}

func (c *crashAfterFinish) SaveRecording(ctx context.Context, id int64, rec []byte) error {
	if c.crashed.Load() {
		return errCrashed
	}
	return c.playStore.SaveRecording(ctx, id, rec)
}

func (c *crashAfterFinish) EnterBonus(ctx context.Context, id int64, rec []byte) error {
	if c.crashed.Load() {
		return errCrashed
	}
	return c.playStore.EnterBonus(ctx, id, rec)
}

// withCrashAfterFinish gives f's machine (started, not booted) a play
// writer that dies after the next finish once armed.
func withCrashAfterFinish(f *fixture) *crashAfterFinish {
	c := &crashAfterFinish{playStore: f.st}
	f.m.w.Close()
	f.m.w = newWriter(c)
	return c
}

// playUntilSettled steps g until it is done or stopped.
func playUntilSettled(t *testing.T, g *Game) {
	t.Helper()
	for i := 0; g.Stage() != StageDone && g.Err() == nil; i++ {
		require.Less(t, i, 4*60*breakout.TicksPerSecond, "game %d does not end", g.ID())
		if !g.Settled() {
			g.Wait()
			continue
		}
		g.Step(breakout.Input{})
	}
}

// A kiosk killed right after the commit of a win above the hand-pay limit
// (a direct win and one through the bonus) keeps its lock: the next start
// finds it locked for the whole credit after the prize, even when a note
// on its way was credited after the win (VEND VALID is credited whatever
// the kiosk's state) and the win is no longer the last ledger movement.
func TestHandPayLockKeptThroughACrashAfterTheWin(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stake game.Stake
		unit  int
		prize game.Money
	}{
		{"three birds at 0,50 €", game.Stake050, 1, 3750 * game.Euro},
		{"three scarabs through the bonus at 2 €", game.Stake200, 9 + 1, 2000 * game.Euro},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.boot()
			skipTo(t, f, tc.stake, tc.unit) // without a limit: the scenario's earlier wins do not lock
			f.credit(5 * game.Euro)         // the last movement is not one of those wins
			f.stop()
			f.cfg.Cash.HandPayLimit = 0 // the default limit
			f.start()
			c := withCrashAfterFinish(f)
			f.boot()
			before := f.m.Snapshot().Credit
			g, err := f.m.Play(ctx, tc.stake, breakout.Auto)
			require.NoError(t, err)
			require.Equal(t, tc.prize, g.Play().Prize)
			c.armed.Store(true)
			playUntilSettled(t, g)
			require.True(t, c.crashed.Load(), "the finish committed, then the kiosk died")
			want := before - tc.stake.Money() + tc.prize

			f.credit(10 * game.Euro) // a note on its way, credited on its VEND VALID
			f.restart()
			hp := f.m.Snapshot().HandPay
			require.True(t, hp.Pending(), "the win above the limit is locked after the restart")
			assert.Equal(t, fmt.Sprintf("win-%d", g.ID()), hp.Ref)
			assert.Equal(t, HandPayWin, hp.Cause)
			assert.Equal(t, g.ID(), hp.PlayID)
			assert.Equal(t, want, hp.Amount, "the whole credit after the prize")
			lockedOut(t, f)
			require.NoError(t, f.st.Verify(ctx))
		})
	}
}

// A game interrupted before its end and finished by the recovery at the
// next start (here in its bonus, to a 2 000 € prize) locks like a game
// finished without a restart.
func TestHandPayLockAfterRecoveredBonusWin(t *testing.T) {
	f := newFixture(t)
	f.boot()
	skipTo(t, f, game.Stake200, 9+1) // without a limit: the scenario's earlier wins do not lock
	f.credit(game.Euro)              // the last movement is not one of those wins
	withHandPay(f)
	f.boot()
	g, c := startScenario(t, f, game.Stake200, 0, breakout.Auto)
	c.prize = 2000 * game.Euro
	require.Equal(t, c.prize, g.Play().Prize)
	for g.Stage() == StageMain {
		g.Step(breakout.Input{})
	}
	require.Equal(t, StageBonus, g.Stage())
	g.Wait()
	f.restart()
	r := f.m.Current()
	require.NotNil(t, r)
	require.Equal(t, c.id, r.ID())
	runToEnd(t, r)
	hp := f.m.Snapshot().HandPay
	require.True(t, hp.Pending(), "the resumed game's 2 000 € is above the limit")
	assert.Equal(t, fmt.Sprintf("win-%d", c.id), hp.Ref)
	assert.Equal(t, c.creditBefore-c.stake.Money()+c.prize, hp.Amount)
	f.restart()
	assert.Equal(t, hp.Ref, f.m.Snapshot().HandPay.Ref, "still locked after another restart")
}

// Staff's payment of a hand-pay and the end of the lock are one commit: a
// kiosk killed right after the payment's ledger row does not come back
// locked for a hand-pay already paid (nor ask staff to pay it again).
func TestHandPayPaymentAndUnlockAreOneCommit(t *testing.T) {
	f, _ := newHandPayOffice(t)
	winTop(t, f)
	hp := f.m.Snapshot().HandPay
	require.True(t, hp.Pending())
	f.m.EndResult()

	// What Office.PayHandPay commits first; the kiosk dies right after.
	e, err := f.st.HandPay(ctx, hp.Amount, hp.Ref)
	require.NoError(t, err)
	f.restart()
	assert.False(t, f.m.Snapshot().HandPay.Pending(), "paid in ledger row %d: not locked again", e.ID)
	assert.Equal(t, e.Balance, f.m.Snapshot().Credit)
	require.Len(t, handPayRows(t, f), 1)
	require.NoError(t, f.st.Verify(ctx))
}
