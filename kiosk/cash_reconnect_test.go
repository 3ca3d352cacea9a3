package kiosk

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/hw/id003"
	"pharaon/hw/sim/id003sim"
	"pharaon/store"
)

// A note waits in escrow when the line drops, after the kiosk took it and
// before STACK reached the unit. Meanwhile the credit grows to the maximum.
// After the reconnect the kiosk decides again: the note is returned, its
// earlier intent is void, and the maximum holds.
func TestReconnectAsksTheKioskAgain(t *testing.T) {
	f, d := newPowerFixture(t, id003sim.Config{})
	f.cfg.Cash.MaxCredit = 30 * game.Euro
	f.stop()
	f.start()
	var once sync.Once
	pulled := make(chan struct{})
	f.m.cash.hook = func(p string) {
		if p == pointEscrow {
			once.Do(func() {
				_ = d.Validator.Unplug() // STACK never reaches the unit
				close(pulled)
			})
		}
	}
	f.boot()
	cashReady(t, f.m)
	insert(t, d, 1000)
	<-pulled
	waitFor(t, func() bool { return !f.m.cash.validator.Snapshot().Connected }, "line lost")
	require.Equal(t, id003.StateEscrow, d.Validator.State())
	f.credit(25 * game.Euro) // the credit moved on while the line was down
	require.NoError(t, d.Validator.Replug())
	waitFor(t, func() bool { return d.Validator.Counts().Returned == 1 }, "the note is returned: %+v", d.Validator.Counts())
	assert.Zero(t, d.Validator.Counts().Stacked, "never stacked on the old decision")
	assert.Equal(t, 25*game.Euro, f.m.Snapshot().Credit)
	in, err := f.st.BillIntent(ctx, 1)
	require.NoError(t, err)
	assert.Equal(t, store.IntentVoid, in.State)
	assert.Contains(t, in.Reason, "decided again")
	_, err = f.st.PendingBillIntent(ctx)
	require.ErrorIs(t, err, store.ErrNotFound)
	require.NoError(t, f.st.Verify(ctx))
}
