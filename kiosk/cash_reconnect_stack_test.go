package kiosk

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/hw/id003"
	"pharaon/hw/sim/id003sim"
	"pharaon/kiosk/kiosktest"
	"pharaon/store"
)

// STACK is sent for a note just as the validator's line is lost, and the
// kiosk restarts before the line is back (the new run of the host knows
// nothing of the note). The unit, as a real one, gives the note back on
// its own timer. When the line comes back the unit is idle: the note left
// the path after STACK without VEND VALID, so it may be in the cash box.
// The kiosk, out of service for the validator's silence at its boot until a
// technician's clear, resolves its intent at the unit's first idle status,
// as the cash-in rules say (held for staff), instead of leaving it
// "stacking" until the next note's escrow.
func TestReconnectIdleAfterStackHoldsTheNote(t *testing.T) {
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

	f.stop() // the kiosk restarts while the line is down
	f.cfg.DeviceCheck = kiosktest.SelfTestBound
	f.start()
	f.boot()
	// A validator that does not answer at boot is a fault of the devices'
	// self-test: nothing of the cash is touched until a technician's clear
	// finds it answering.
	require.Equal(t, FaultValidator, f.m.Snapshot().Fault.Code)
	require.NoError(t, d.Validator.Replug())
	o, tech := technician(t, f)
	require.NoError(t, o.ClearFault(ctx, tech))
	cashReady(t, f.m)
	var held []store.BillIntent
	waitFor(t, func() bool {
		held, err = f.st.HeldIntents(ctx)
		return err == nil && len(held) == 1
	}, "the intent is held at the reconnect, not left stacking: %v", err)
	assert.Equal(t, in.ID, held[0].ID)
	_, err = f.st.PendingBillIntent(ctx)
	require.True(t, errors.Is(err, store.ErrNotFound), "no intent left open: %v", err)
	waitFor(t, func() bool {
		return f.m.Snapshot().Cash.Validator.Warning == Message{Code: MsgNoteHeld, Amount: 10 * game.Euro}
	},
		"staff are told: %+v", f.m.Snapshot().Cash.Validator)
	assert.Zero(t, f.m.Snapshot().Credit, "nothing credited on a guess")

	// The next note is credited on its own.
	insert(t, d, 500)
	waitFor(t, func() bool { return f.m.Snapshot().Credit == 5*game.Euro }, "next note credited")
	_, err = f.st.CloseHeldIntent(ctx, held[0].ID, "cash box counted: the 10 € note was given back")
	require.NoError(t, err)
	f.m.Close()
	assertCashBalances(t, f.st, d)
}

// The line is lost while the unit stacks a note; the note reaches VEND
// VALID with no host to acknowledge it, and the unit is reset meanwhile
// (by anything but this kiosk's host, which never resets a unit owing a
// VEND VALID). The unit keeps the note in the cash box and, once
// initialised, reports its VEND VALID again: when the line is back the
// kiosk credits the note exactly once, whether the same run of the host
// knew it or the kiosk restarted in between.
func TestResetAtVendValidWhileOfflineCreditsOnce(t *testing.T) {
	for _, restart := range []bool{false, true} {
		t.Run(map[bool]string{false: "same run", true: "kiosk restarted"}[restart], func(t *testing.T) {
			// A state waits to be seen by the host (the default): STACKING
			// is seen before the line goes, and the initialisation after
			// the reset is seen when it comes back.
			f, d := newPowerFixture(t, id003sim.Config{})
			var once sync.Once
			pulled := make(chan struct{})
			f.m.cash.hook = func(p string) {
				if p == pointStacking {
					once.Do(func() {
						_ = d.Validator.Unplug()
						close(pulled)
					})
				}
			}
			f.boot()
			cashReady(t, f.m)
			insert(t, d, 1000)
			select {
			case <-pulled:
			case <-time.After(30 * time.Second):
				t.Fatalf("STACKING never seen: %s", d.Validator.State())
			}
			waitFor(t, func() bool { return d.Validator.State() == id003.StateVendValid }, "VEND VALID with no host")
			if restart {
				f.stop()
			}
			b, _ := d.Validator.Handle(id003.Frame{Cmd: id003.CmdReset})
			require.NotNil(t, b, "the unit answers the reset")
			if restart {
				f.cfg.DeviceCheck = kiosktest.SelfTestBound
				f.start()
				f.boot()
				// The line still down at boot: the devices' self-test fault,
				// cleared by a technician once the unit answers.
				require.Equal(t, FaultValidator, f.m.Snapshot().Fault.Code)
			}
			require.NoError(t, d.Validator.Replug())
			if restart {
				o, tech := technician(t, f)
				require.NoError(t, o.ClearFault(ctx, tech))
			}
			waitFor(t, func() bool { return f.m.Snapshot().Credit == 10*game.Euro }, "the note credited: %+v", d.Validator.Counts())
			cashReady(t, f.m)
			held, err := f.st.HeldIntents(ctx)
			require.NoError(t, err)
			assert.Empty(t, held, "nothing left for staff")
			last, err := f.st.LatestBillIntent(ctx)
			require.NoError(t, err)
			assert.Equal(t, store.IntentCredited, last.State)
			assert.Equal(t, 1, d.Validator.Counts().Stacked)
			f.m.Close()
			assertCashBalances(t, f.st, d)
		})
	}
}
