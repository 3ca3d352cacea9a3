package kiosk

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/hw/id003"
	"pharaon/hw/sim/id003sim"
	"pharaon/store"
)

func playerEvents(t *testing.T, st *store.Store) map[string]int {
	t.Helper()
	evs, err := st.EventsWhere(ctx, store.EventQuery{Source: "player", N: 500})
	require.NoError(t, err)
	out := map[string]int{}
	for _, e := range evs {
		out[e.Code]++
	}
	return out
}

// The reality check falls due at every N minutes of a session's time, by
// the machine's clock; no play is sold until the player answers; the
// checks shown are kept, so a restart neither repeats nor skips one; and
// the session's time and net position are what the ledger says.
func TestRealityCheckEveryNMinutes(t *testing.T) {
	f := newFixture(t)
	f.cfg.PollEvery = -1
	f.cfg.Protection.RealityEvery = 30 * time.Minute
	f.stop()
	f.start()
	f.boot()
	p := f.m.Snapshot().Protection
	assert.False(t, p.Active, "no credit, no session")
	assert.Equal(t, 30*time.Minute, p.RealityEvery)

	f.credit(5 * game.Euro)
	f.m.Poll()
	require.True(t, f.m.Snapshot().Protection.Active)
	g, err := f.m.Play(ctx, game.Stake050, breakout.Auto)
	require.NoError(t, err)
	runToEnd(t, g)
	f.m.Poll()
	p = f.m.Snapshot().Protection
	assert.Equal(t, g.Play().Prize-game.Money(game.Stake050), p.Net, "net position: won minus staked")

	f.clock.Advance(29 * time.Minute)
	f.m.Poll()
	p = f.m.Snapshot().Protection
	assert.False(t, p.RealityCheck, "29 minutes: not yet")
	assert.Equal(t, 29*time.Minute, p.Played.Truncate(time.Minute))

	f.clock.Advance(time.Minute)
	f.m.Poll()
	require.True(t, f.m.Snapshot().Protection.RealityCheck, "30 minutes of session: the check")
	_, err = f.m.Play(ctx, game.Stake050, breakout.Auto)
	require.ErrorIs(t, err, ErrRealityCheck, "play pauses while the check is shown")
	f.m.DismissRealityCheck()
	assert.False(t, f.m.Snapshot().Protection.RealityCheck)
	g, err = f.m.Play(ctx, game.Stake050, breakout.Auto)
	require.NoError(t, err, "answered: play goes on")
	runToEnd(t, g)

	f.clock.Advance(29 * time.Minute)
	f.m.Poll()
	assert.False(t, f.m.Snapshot().Protection.RealityCheck, "the next one 30 minutes after the first")
	f.clock.Advance(time.Minute)
	f.m.Poll()
	require.True(t, f.m.Snapshot().Protection.RealityCheck, "60 minutes: the second")
	f.m.DismissRealityCheck()

	f.restart()
	f.m.Poll()
	assert.False(t, f.m.Snapshot().Protection.RealityCheck, "the two checks shown are kept: no third at 60 minutes")
	f.clock.Advance(30 * time.Minute)
	f.m.Poll()
	assert.True(t, f.m.Snapshot().Protection.RealityCheck, "90 minutes: the third, after a restart")
	assert.Equal(t, 90*time.Minute, f.m.Snapshot().Protection.Played.Truncate(time.Minute))

	ev := playerEvents(t, f.st)
	assert.Equal(t, 3, ev[store.EventRealityCheck])
	assert.Equal(t, 2, ev[EventRealityDismissed])
	counts, err := f.st.PlayerFactCounts(ctx, time.Time{}, time.Time{})
	require.NoError(t, err)
	assert.Equal(t, int64(3), counts[store.FactRealityCheck])
}

// Off: no reality check, however long the session.
func TestRealityCheckOff(t *testing.T) {
	f := newFixture(t)
	f.cfg.PollEvery = -1
	f.cfg.Protection = ProtectionConfig{RealityEvery: -1}
	f.stop()
	f.start()
	f.boot()
	f.credit(5 * game.Euro)
	f.clock.Advance(5 * time.Hour)
	f.m.Poll()
	p := f.m.Snapshot().Protection
	assert.False(t, p.RealityCheck)
	assert.Zero(t, p.RealityEvery)
	assert.True(t, p.Active)
}

// The operator's ceiling on a session's notes: the note that would pass it
// comes back with a sentence that says why, the kiosk stops taking notes
// once the smallest would pass it, and the limit reached is recorded once.
func TestCeilingRefusesTheNextNote(t *testing.T) {
	f, d, _ := newCashFixture(t, func(c *Config) { c.Protection.SessionCeiling = 30 * game.Euro })
	f.boot()
	cashReady(t, f.m)
	insert(t, d, 2000)
	waitFor(t, func() bool { return f.m.Snapshot().Credit == 20*game.Euro }, "credit")
	insert(t, d, 2000)
	waitFor(t, func() bool { return d.Validator.Counts().Returned == 1 && d.Validator.State() == id003.StateIdle }, "note back")
	var e CashInEvent
	waitFor(t, func() bool { e = f.m.Snapshot().Cash.CashIn; return e.Kind == NoteReturned }, "returned")
	assert.Equal(t, "ceiling_limit", e.Code)
	assert.Equal(t, Message{Code: MsgNoteOverCeiling, Amount: 20 * game.Euro, Limit: 30 * game.Euro}, e.Reason)

	insert(t, d, 1000)
	waitFor(t, func() bool { return f.m.Snapshot().Credit == 30*game.Euro }, "credit 30")
	waitFor(t, func() bool { return !f.m.cash.validator.Snapshot().Accepting }, "inhibited at the ceiling")
	waitFor(t, func() bool { return f.m.Snapshot().Protection.Reached == LimitCeiling }, "reached")
	s := f.m.Snapshot()
	assert.False(t, s.Cash.CanCashIn)
	assert.Equal(t, Message{Code: MsgCashInCeiling, Amount: 30 * game.Euro, Limit: 30 * game.Euro}, s.Cash.CashInOff)
	waitFor(t, func() bool { return d.Validator.State() == id003.StateDisabled }, "unit disabled")
	require.ErrorIs(t, d.Validator.InsertNote(500), id003sim.ErrDisabled)
	waitFor(t, func() bool { return playerEvents(t, f.st)[store.EventLimitReached] == 1 }, "limit reached recorded")
	f.m.Poll()
	assert.Equal(t, 1, playerEvents(t, f.st)[store.EventLimitReached], "once a session")

	// A cash-out ends the session: the next one starts with nothing in.
	_, err := f.m.CashOut(ctx)
	require.NoError(t, err)
	waitFor(t, func() bool { return f.m.Snapshot().Cash.CanCashIn }, "notes taken again in a new session")
	assert.Empty(t, f.m.Snapshot().Protection.Reached)
	require.NoError(t, f.st.Verify(ctx))
}

// The player's limit: set before the session, lowered during it, never
// raised nor taken away while it lasts; kept over a restart; gone with the
// session.
func TestPlayerLimitLowersNeverRaises(t *testing.T) {
	f, d, _ := newCashFixture(t, func(c *Config) { c.Protection = ProtectionConfig{} }) // the defaults
	f.boot()
	cashReady(t, f.m)
	assert.Equal(t, LimitChoices, f.m.Snapshot().Protection.Limits, "every choice under the 300 € ceiling")
	require.ErrorIs(t, f.m.SetPlayerLimit(ctx, 30*game.Euro), ErrBadLimit)
	require.NoError(t, f.m.SetPlayerLimit(ctx, 100*game.Euro))
	require.NoError(t, f.m.SetPlayerLimit(ctx, 50*game.Euro), "no session yet: any choice")
	assert.Equal(t, 50*game.Euro, f.m.Snapshot().Protection.PlayerLimit)

	insert(t, d, 2000)
	waitFor(t, func() bool { return f.m.Snapshot().Credit == 20*game.Euro }, "credit")
	waitFor(t, func() bool { return f.m.Snapshot().Protection.MoneyIn == 20*game.Euro }, "session read")
	p := f.m.Snapshot().Protection
	assert.Equal(t, 50*game.Euro, p.PlayerLimit, "the limit set before the note is the session's")
	assert.Equal(t, []game.Money{20 * game.Euro}, p.Limits, "only lower choices during the session")
	require.ErrorIs(t, f.m.SetPlayerLimit(ctx, 100*game.Euro), ErrLimitRaise)
	require.ErrorIs(t, f.m.SetPlayerLimit(ctx, 0), ErrLimitRaise)

	f.restart()
	cashReady(t, f.m)
	assert.Equal(t, 50*game.Euro, f.m.Snapshot().Protection.PlayerLimit, "kept over a restart")
	require.NoError(t, f.m.SetPlayerLimit(ctx, 20*game.Euro))
	waitFor(t, func() bool { return !f.m.cash.validator.Snapshot().Accepting }, "20 € in: the 20 € limit stops the notes")
	s := f.m.Snapshot()
	assert.Equal(t, LimitPlayer, s.Protection.Reached)
	assert.Equal(t, Message{Code: MsgCashInPlayerLimit, Amount: 20 * game.Euro, Limit: 20 * game.Euro}, s.Cash.CashInOff)

	_, err := f.m.CashOut(ctx)
	require.NoError(t, err)
	waitFor(t, func() bool { return f.m.Snapshot().Cash.CanCashIn }, "a new session takes notes")
	assert.Zero(t, f.m.Snapshot().Protection.PlayerLimit, "the limit ended with its session")
	ev := playerEvents(t, f.st)
	assert.Equal(t, 3, ev[store.EventLimitSet])
	assert.Equal(t, 1, ev[store.EventLimitReached])
}

// The daily report counts the day's reality checks, limits set and limits
// reached, beside their totals since the start: read back from what the
// printer printed.
func TestDailyReportCountsPlayerProtection(t *testing.T) {
	f, d, _ := newCashFixture(t, func(c *Config) {
		c.Protection.SessionCeiling = 20 * game.Euro
		c.Protection.RealityEvery = 10 * time.Minute
		c.PollEvery = -1
	})
	f.boot()
	cashReady(t, f.m)
	a := NewAccess(f.st, f.clock, AccessConfig{KDF: fastKDF})
	setPINs(t, a)
	o := NewOffice(f.m, a, 1000*time.Hour)
	staff, err := o.Login(ctx, "135700")
	require.NoError(t, err)

	require.NoError(t, f.m.SetPlayerLimit(ctx, 20*game.Euro))
	insert(t, d, 2000) // 20 € in: both limits reached, recorded at the machine's next tick
	waitFor(t, func() bool { f.m.Poll(); return playerEvents(t, f.st)[store.EventLimitReached] == 1 }, "limit reached")
	f.clock.Advance(10 * time.Minute)
	f.m.Poll()
	require.True(t, f.m.Snapshot().Protection.RealityCheck)
	f.m.DismissRealityCheck()
	_, err = f.m.CashOut(ctx)
	require.NoError(t, err)

	require.NoError(t, o.PrintDaily(ctx, staff, f.clock.Now()))
	r, err := d.Printer.WaitReceipt(ctx, 2)
	require.NoError(t, err)
	plain := r.Plain()
	assert.Contains(t, plain, "Protection des joueurs")
	assert.Regexp(t, `(?m)^Points sur le jeu\s+1\s+1$`, plain)
	assert.Regexp(t, `(?m)^Limites fixées\s+1\s+1$`, plain)
	assert.Regexp(t, `(?m)^Limites atteintes\s+1\s+1$`, plain)
	counts, err := o.PlayerFacts(ctx, staff)
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{store.FactRealityCheck: 1, store.FactLimitSet: 1, store.FactLimitReached: 1}, counts)
}

// A limit reached is recorded once; the clock's ticks after it cost no
// write transaction of the store (each would take the writer's lock to
// find the fact already there).
func TestLimitReachedWritesOnce(t *testing.T) {
	var writes atomic.Int64
	f := newFixture(t)
	f.stop()
	f.storeOpts = []store.Option{store.WithWriteHook(func() { writes.Add(1) })}
	f.cfg.PollEvery = -1
	f.cfg.Protection = ProtectionConfig{RealityEvery: -1}
	f.start()
	f.boot()
	require.NoError(t, f.m.SetPlayerLimit(ctx, 20*game.Euro))
	f.m.ledgerMu.Lock()
	e, err := f.st.BillIn(ctx, 20*game.Euro, "test-note")
	require.NoError(t, err)
	f.m.showBalance(e.Balance)
	f.m.ledgerMu.Unlock()
	f.m.Poll()
	require.Equal(t, LimitPlayer, f.m.Snapshot().Protection.Reached)
	require.Equal(t, 1, playerEvents(t, f.st)[store.EventLimitReached])
	before := writes.Load()
	for range 10 {
		f.clock.Advance(time.Second)
		f.m.Poll()
	}
	assert.Equal(t, before, writes.Load(), "ten ticks with the limit reached: no write")
	assert.Equal(t, 1, playerEvents(t, f.st)[store.EventLimitReached])
}

// A losing game that takes the credit to nothing ends the session as it
// ends, not at the clock's next tick: its finish moves no money, and the
// screens must not show the session's line after it.
func TestLosingLastGameEndsTheSession(t *testing.T) {
	f := newFixture(t)
	f.stop()
	f.cfg.PollEvery = -1
	f.start()
	f.boot()
	f.credit(game.Stake050.Money())
	for i := 0; f.m.Snapshot().Credit > 0; i++ {
		require.Less(t, i, 200, "the credit never ran out")
		g, err := f.m.Play(ctx, game.Stake050, breakout.Auto)
		require.NoError(t, err)
		require.True(t, f.m.Snapshot().Protection.Active, "a game on is a session")
		runToEnd(t, g)
		f.m.EndResult()
	}
	assert.False(t, f.m.Snapshot().Protection.Active, "no credit, no game: no session, without a tick")
}

// A read of the session given up because the kiosk is stopping (its
// context cancelled) is not an error of the store: nothing is logged. A
// stop used to leave an error event "session unreadable" after the last
// one, which the centre counts as a fault.
func TestSessionReadCancelledLogsNothing(t *testing.T) {
	f := newFixture(t)
	f.boot()
	f.credit(5 * game.Euro)
	stopping, cancel := context.WithCancel(ctx)
	cancel()
	f.m.refreshSession(stopping)
	evs, err := f.st.EventsWhere(ctx, store.EventQuery{MinLevel: store.LevelError, N: 100})
	require.NoError(t, err)
	for _, e := range evs {
		assert.NotEqual(t, "session_unread", e.Code, "%s", e.Detail)
	}
}
