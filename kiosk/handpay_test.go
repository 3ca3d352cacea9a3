package kiosk

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/store"
)

// withHandPay restarts f's machine (not booted yet) with the default
// hand-pay limit.
func withHandPay(f *fixture) {
	f.stop()
	f.cfg.Cash.HandPayLimit = 0
	f.start()
}

// newHandPayOffice is newOffice with the default hand-pay limit.
func newHandPayOffice(t *testing.T) (*fixture, *Office) {
	f := newFixture(t)
	withHandPay(f)
	f.boot()
	a := NewAccess(f.st, f.clock, AccessConfig{KDF: fastKDF})
	setPINs(t, a)
	return f, NewOffice(f.m, a, time.Minute)
}

// winTop plays the scenario's unit 1 at 0,50 €: three birds, 3 750 €, above
// the default hand-pay limit. The credit before the stake is 2 €.
func winTop(t *testing.T, f *fixture) *Game {
	t.Helper()
	skipTo(t, f, game.Stake050, 1)
	f.credit(2 * game.Euro)
	g, err := f.m.Play(ctx, game.Stake050, breakout.Auto)
	require.NoError(t, err)
	require.Equal(t, game.Tier(1), g.Play().Tier)
	runToEnd(t, g)
	return g
}

func handPayRows(t *testing.T, f *fixture) []store.Entry {
	t.Helper()
	rows, err := f.st.Entries(ctx, 1000, 0)
	require.NoError(t, err)
	var out []store.Entry
	for _, e := range rows {
		if e.Kind == store.KindHandPay {
			out = append(out, e)
		}
	}
	return out
}

// lockedOut checks that nothing sells, takes notes or prints while the
// kiosk is locked for a hand-pay.
func lockedOut(t *testing.T, f *fixture) {
	t.Helper()
	f.credit(game.Euro) // a held note credited by staff, say: the credit covers a stake
	_, err := f.m.Play(ctx, game.Stake050, breakout.Auto)
	require.ErrorIs(t, err, ErrHandPay, "no play while locked")
	_, err = f.m.CashOut(ctx)
	require.ErrorIs(t, err, ErrHandPay, "no voucher while locked")
	f.m.mu.Lock()
	accept := f.m.acceptPolicyLocked()
	off := f.m.cashInOffLocked()
	f.m.mu.Unlock()
	assert.False(t, accept, "no bank notes while locked")
	snap := f.m.Snapshot()
	assert.False(t, snap.Cash.CanCashOut)
	assert.False(t, snap.Cash.CanCashIn)
	_ = off
}

// A win above the hand-pay limit locks the kiosk; staff record the payment,
// which debits the amount through the ledger with the hand-pay's reference,
// logs who paid, and unlocks.
func TestHandPayWinLocksUntilStaffPay(t *testing.T) {
	f, o := newHandPayOffice(t)
	assert.Equal(t, DefaultHandPayLimit, f.m.HandPayLimit())
	g := winTop(t, f)
	snap := f.m.Snapshot()
	require.True(t, snap.HandPay.Pending(), "3 750 € is above the limit")
	want := 3750*game.Euro + 2*game.Euro - game.Euro/2
	assert.Equal(t, want, snap.HandPay.Amount, "the whole credit after the win")
	assert.Equal(t, HandPayWin, snap.HandPay.Cause)
	assert.Equal(t, g.ID(), snap.HandPay.PlayID)
	assert.Equal(t, Result, snap.State, "the congratulations show first")
	f.m.EndResult()

	lockedOut(t, f)
	locked := f.m.Snapshot().Credit
	require.Equal(t, want+game.Euro, locked)

	staff, err := o.Login(ctx, "135700")
	require.NoError(t, err)
	hp, err := o.PendingHandPay(ctx, staff)
	require.NoError(t, err)
	assert.Equal(t, want, hp.Amount)
	paid, e, err := o.PayHandPay(ctx, staff)
	require.NoError(t, err)
	assert.Equal(t, hp, paid)
	assert.Equal(t, store.KindHandPay, e.Kind)
	assert.Equal(t, -want, e.Amount)
	assert.Equal(t, game.Euro, e.Balance, "only the amount shown to the player is debited")
	assert.Equal(t, hp.Ref, e.Ref)

	snap = f.m.Snapshot()
	assert.False(t, snap.HandPay.Pending(), "unlocked")
	assert.Equal(t, game.Euro, snap.Credit)
	assert.Equal(t, Home, snap.State)
	require.Len(t, handPayRows(t, f), 1)
	m, err := f.st.Meters(ctx)
	require.NoError(t, err)
	assert.EqualValues(t, want, m.Get(store.MeterHandPays))
	assert.EqualValues(t, 1, m.Get(store.MeterHandPaysCount))
	logged := officeEvents(t, f, "handpay_paid")
	require.Len(t, logged, 1)
	assert.Contains(t, logged[0].Detail, "paid by staff")

	_, _, err = o.PayHandPay(ctx, staff)
	require.ErrorIs(t, err, ErrNoHandPay, "paid once")
	require.Len(t, handPayRows(t, f), 1)

	g2, err := f.m.Play(ctx, game.Stake050, breakout.Auto)
	require.NoError(t, err, "the kiosk sells again")
	runToEnd(t, g2)
	require.NoError(t, f.st.Verify(ctx))
}

// The lock survives a restart (it is committed with the win), and its
// payment ends it for good.
func TestHandPayLockSurvivesRestart(t *testing.T) {
	f, _ := newHandPayOffice(t)
	winTop(t, f)
	want := f.m.Snapshot().HandPay
	require.True(t, want.Pending())

	f.restart()
	got := f.m.Snapshot().HandPay
	assert.Equal(t, want.Ref, got.Ref)
	assert.Equal(t, want.Amount, got.Amount)
	lockedOut(t, f)

	a := NewAccess(f.st, f.clock, AccessConfig{KDF: fastKDF})
	o := NewOffice(f.m, a, 0)
	staff, err := o.Login(ctx, "135700")
	require.NoError(t, err)
	hp, e, err := o.PayHandPay(ctx, staff)
	require.NoError(t, err)
	assert.Equal(t, want.Amount, hp.Amount)
	assert.Equal(t, -want.Amount, e.Amount)
	f.restart()
	assert.False(t, f.m.Snapshot().HandPay.Pending(), "paid: no lock after a restart")
}

// A cash-out above the limit prints nothing: it locks for staff, with the
// whole credit. A win below the limit does not lock.
func TestHandPayCashOutAboveLimit(t *testing.T) {
	f := newFixture(t)
	withHandPay(f)
	require.NoError(t, f.st.SetSetting(ctx, "technician", SettingHandPayLimit, "10,00"))
	f.boot()
	assert.Equal(t, 10*game.Euro, f.m.HandPayLimit())
	f.credit(10 * game.Euro)
	_, err := f.m.CashOut(ctx)
	require.False(t, errors.Is(err, ErrHandPay), "10 € is not above 10 €: %v", err)
	require.False(t, f.m.Snapshot().HandPay.Pending())

	f.credit(5 * game.Euro)
	_, err = f.m.CashOut(ctx)
	require.ErrorIs(t, err, ErrHandPay)
	hp := f.m.Snapshot().HandPay
	assert.Equal(t, HandPayCashOut, hp.Cause)
	assert.Equal(t, 15*game.Euro, hp.Amount)
	_, err = f.st.LastVoucher(ctx)
	require.ErrorIs(t, err, store.ErrNotFound, "no voucher issued")
	lockedOut(t, f)

	_, e, err := f.m.PayHandPay(ctx, "staff")
	require.NoError(t, err)
	assert.Equal(t, -15*game.Euro, e.Amount)
	assert.Equal(t, game.Euro, f.m.Snapshot().Credit)
}

// A bad limit setting is ignored with a warning; the default stays.
func TestHandPayBadLimitIgnored(t *testing.T) {
	f := newFixture(t)
	withHandPay(f)
	require.NoError(t, f.st.SetSetting(ctx, "technician", SettingHandPayLimit, "15000,01"))
	f.boot()
	assert.Equal(t, DefaultHandPayLimit, f.m.HandPayLimit())
}

// A hand-pay lock cleared on the disk (its setting's row deleted, the
// triggers put back as they were) to let the kiosk pay out by voucher: the
// next start is out of service on its anchor, the credit not shown; the
// lock's amount rewritten in place breaks the settings' chain.
func TestHandPaySettingsEditedOnTheDiskAreAFault(t *testing.T) {
	for _, c := range []struct{ name, sql, fault string }{
		{"the lock cleared", `DELETE FROM settings WHERE id = (SELECT max(id) FROM settings)`, FaultAnchor},
		{"the lock's amount changed", `UPDATE settings SET value = replace(value, '"amount":', '"amount":1') WHERE key = 'handpay.lock'`, FaultIntegrity},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newAnchoredFixture(t)
			withHandPay(f)
			f.boot()
			winTop(t, f)
			require.True(t, f.m.Snapshot().HandPay.Pending())
			f.stop()
			asAttacker(t, f.path, c.sql, "settings")

			f.start()
			f.boot()
			snap := f.m.Snapshot()
			require.Equal(t, OutOfService, snap.State)
			assert.Equal(t, c.fault, snap.Fault.Code)
			assert.Contains(t, snap.Fault.Detail, "settings")
			assert.Zero(t, snap.Credit)
		})
	}
}
