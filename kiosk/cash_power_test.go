package kiosk

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/hw/id003"
	"pharaon/hw/sim/id003sim"
	"pharaon/store"
)

// The kiosk dies while a note is stacking; the unit loses power too and
// comes back with POWER UP WITH BILL IN STACKER; the kiosk restarts. The
// unit stacks the note at its reset without VEND VALID: the kiosk credits
// the note's intent at its recorded value and says so in a critical event.
func TestPowerCutInStackerAfterRestartCreditsTheNote(t *testing.T) {
	f, d := newPowerFixture(t, id003sim.Config{StackPolls: 1 << 20})
	f.boot()
	cashReady(t, f.m)
	insert(t, d, 2000)
	waitFor(t, func() bool { return d.Validator.State() == id003.StateStacking }, "stacking")
	f.stop()
	d.Validator.PowerCycle()
	require.Equal(t, id003.StatePowerUpBillInStacker, d.Validator.State())
	f.start()
	f.boot()
	waitFor(t, func() bool { return d.Validator.Counts().Stacked == 1 }, "stacked at the reset")
	waitFor(t, func() bool { return f.m.Snapshot().Credit == 20*game.Euro }, "the stacked note is credited: %v", f.m.Snapshot().Credit)
	cashReady(t, f.m)
	insert(t, d, 500) // and the next note is its own
	waitFor(t, func() bool { return d.Validator.State() == id003.StateStacking }, "stacking")
	d.Validator.PowerCycle() // the unit alone this time: the kiosk is alive
	waitFor(t, func() bool { return f.m.Snapshot().Credit == 25*game.Euro }, "credited, kiosk alive: %v", f.m.Snapshot().Credit)
	waitFor(t, func() bool { return d.Validator.Counts().Stacked == 2 }, "stacked at the reset")
	f.m.Close()
	assertCashBalances(t, f.st, d)
	log := logLines(t, f.st)
	assert.Equal(t, 2, strings.Count(log, "critical validator power_up_credit"), log)
	intents, err := f.st.BillIntents(ctx, 10, 0)
	require.NoError(t, err)
	for _, in := range intents {
		assert.Equal(t, store.IntentCredited, in.State, "intent %d", in.ID)
	}
}

// The unit loses power between the kiosk's stacking mark and STACK: it
// refuses STACK (it is powering up) and reports the note in the acceptor;
// the host knows its STACK was not taken, the unit returns the note, and
// the intent is void: nothing credited, nothing for staff.
func TestPowerCutBeforeStackVoidsTheIntent(t *testing.T) {
	f, d := newPowerFixture(t, id003sim.Config{})
	var once sync.Once
	f.m.cash.hook = func(p string) {
		if p == pointStackMarked {
			once.Do(d.Validator.PowerCycle)
		}
	}
	f.boot()
	cashReady(t, f.m)
	insert(t, d, 1000)
	waitFor(t, func() bool { return d.Validator.Counts().Returned == 1 }, "note returned at the reset")
	cashReady(t, f.m)
	in, err := f.st.LatestBillIntent(ctx)
	require.NoError(t, err)
	assert.Equal(t, store.IntentVoid, in.State, in.Reason)
	held, err := f.st.HeldIntents(ctx)
	require.NoError(t, err)
	assert.Empty(t, held)
	insert(t, d, 500)
	waitFor(t, func() bool { return f.m.Snapshot().Credit == 5*game.Euro }, "next note credited")
	f.m.Close()
	assertCashBalances(t, f.st, d)
}

// STACK may have reached the unit, then the unit reports POWER UP WITH BILL
// IN ACCEPTOR: it returns or stacks the note by its own rule, and the
// kiosk cannot tell. The intent is held for staff with a critical event,
// nothing is credited; staff count the cash box and close it.
func TestPowerCutInAcceptorAfterStackHoldsTheIntent(t *testing.T) {
	f, d := newPowerFixture(t, id003sim.Config{})
	var once sync.Once
	f.m.cash.hook = func(p string) {
		if p == pointStackMarked {
			once.Do(func() {
				d.Validator.PowerCycle()
				_ = d.Validator.Unplug() // STACK is lost on the way: the host cannot know
			})
		}
	}
	f.boot()
	cashReady(t, f.m)
	insert(t, d, 1000)
	waitFor(t, func() bool { return !f.m.cash.validator.Snapshot().Connected }, "line lost")
	require.NoError(t, d.Validator.Replug())
	waitFor(t, func() bool { return d.Validator.Counts().Returned == 1 }, "note settled at the reset")
	var held []store.BillIntent
	waitFor(t, func() bool {
		var err error
		held, err = f.st.HeldIntents(ctx)
		return err == nil && len(held) == 1
	}, "intent held")
	assert.Equal(t, 10*game.Euro, held[0].Denom)
	assert.Contains(t, held[0].Reason, "power up with bill in acceptor")
	assert.Zero(t, f.m.Snapshot().Credit)
	assert.Equal(t, Message{Code: MsgNoteHeld, Amount: 10 * game.Euro}, f.m.Snapshot().Cash.Validator.Warning)
	cashReady(t, f.m)
	insert(t, d, 500)
	waitFor(t, func() bool { return f.m.Snapshot().Credit == 5*game.Euro }, "next note credited")
	_, err := f.st.CloseHeldIntent(ctx, held[0].ID, "cash box counted: the 10 € note was returned")
	require.NoError(t, err)
	f.m.Close()
	assertCashBalances(t, f.st, d)
	assert.Contains(t, logLines(t, f.st), "critical validator intent_held")
}

// A note jams in the stacker after STACK; staff clear the jam and the unit
// comes back idle without VEND VALID. The note may be in the cash box: its
// intent is held for staff, not voided as a returned note would be.
func TestJamClearedAfterStackHoldsTheIntent(t *testing.T) {
	f, d := newPowerFixture(t, id003sim.Config{StackPolls: 1 << 20})
	f.boot()
	cashReady(t, f.m)
	insert(t, d, 5000)
	waitFor(t, func() bool { return d.Validator.State() == id003.StateStacking }, "stacking")
	require.NoError(t, d.Validator.Inject(id003sim.JamInStacker, 1))
	waitFor(t, func() bool { return f.m.Snapshot().Cash.Validator.Code == "46" }, "jam seen: %+v", f.m.Snapshot().Cash.Validator)
	d.Validator.Clear()
	f.m.ResetValidator()
	var held []store.BillIntent
	// The store holds the intent, then the kiosk shows it: wait for both.
	waitFor(t, func() bool {
		var err error
		held, err = f.st.HeldIntents(ctx)
		return err == nil && len(held) == 1 && f.m.Snapshot().Cash.Validator.Warning == Message{Code: MsgNoteHeld, Amount: 50 * game.Euro}
	}, "intent held")
	assert.Equal(t, 50*game.Euro, held[0].Denom)
	assert.Zero(t, f.m.Snapshot().Credit)
	cashReady(t, f.m)
	assert.Equal(t, Message{Code: MsgNoteHeld, Amount: 50 * game.Euro}, f.m.Snapshot().Cash.Validator.Warning)
	e, err := f.st.CreditHeldIntent(ctx, held[0].ID, "jam cleared: the note was in the stacker")
	require.NoError(t, err)
	assert.Equal(t, 50*game.Euro, e.Balance)
}

// STACK is sent for a note just as the validator's line is lost; the unit
// gives the note back on its own timer; then the whole cabinet loses power
// (the kiosk and the unit). The unit comes back with a plain POWER UP (no
// note in its path), which the host answers with a reset, not with the
// kiosk's PowerUp: the intent the kiosk left "stacking" is held for staff
// when the unit is first seen idle after its reset, not left open until
// the next note's escrow.
func TestPowerCutAfterLostStackHoldsTheNote(t *testing.T) {
	f, d := newPowerFixture(t, id003sim.Config{MoveOnUnseen: true,
		Timing: id003sim.Durations{Escrow: 300 * time.Millisecond}})
	var once sync.Once
	pulled := make(chan struct{})
	f.m.cash.hook = func(p string) {
		if p == pointStackMarked {
			once.Do(func() {
				_ = d.Validator.Unplug() // STACK is lost on the way
				close(pulled)
			})
		}
	}
	f.boot()
	cashReady(t, f.m)
	insert(t, d, 1000)
	<-pulled
	waitFor(t, func() bool { return d.Validator.Counts().Returned == 1 }, "the unit gives the note back: %+v", d.Validator.Counts())
	in, err := f.st.PendingBillIntent(ctx)
	require.NoError(t, err)
	require.Equal(t, store.IntentStacking, in.State)

	f.stop() // the power cut: the kiosk and the unit
	d.Validator.PowerCycle()
	require.Equal(t, id003.StatePowerUp, d.Validator.State())
	require.NoError(t, d.Validator.Replug())
	f.start()
	f.boot()
	cashReady(t, f.m)
	var held []store.BillIntent
	waitFor(t, func() bool {
		held, err = f.st.HeldIntents(ctx)
		return err == nil && len(held) == 1
	}, "the intent is held after the power-up's reset, not left stacking: %v", err)
	assert.Equal(t, in.ID, held[0].ID)
	_, err = f.st.PendingBillIntent(ctx)
	require.True(t, errors.Is(err, store.ErrNotFound), "no intent left open: %v", err)
	waitFor(t, func() bool {
		return f.m.Snapshot().Cash.Validator.Warning == Message{Code: MsgNoteHeld, Amount: 10 * game.Euro}
	}, "staff are told: %+v", f.m.Snapshot().Cash.Validator)
	assert.Zero(t, f.m.Snapshot().Credit, "nothing credited on a guess")
	assert.Zero(t, d.Validator.Counts().Stacked, "the note never reached the cash box")

	// The next note is credited on its own.
	insert(t, d, 500)
	waitFor(t, func() bool { return f.m.Snapshot().Credit == 5*game.Euro }, "next note credited")
	_, err = f.st.CloseHeldIntent(ctx, held[0].ID, "cash box counted: the 10 € note was given back")
	require.NoError(t, err)
	f.m.Close()
	assertCashBalances(t, f.st, d)
}
