package kiosk

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/store"
)

// In test mode a note is recognised and given back: no credit, no ledger
// row, no meter moves; it is listed and logged. Test mode starts only with
// no credit; once it is off, notes are credited again.
func TestTestModeTouchesNoMeter(t *testing.T) {
	f, d, o := newCashOffice(t)
	tech, err := o.Login(ctx, "246800")
	require.NoError(t, err)
	staff, err := o.Login(ctx, "135700")
	require.NoError(t, err)
	require.ErrorIs(t, o.SetTestMode(ctx, staff, true), ErrNotAllowed)

	before, err := f.st.Meters(ctx)
	require.NoError(t, err)
	require.NoError(t, o.SetTestMode(ctx, tech, true))
	insert(t, d, 2000)
	waitFor(t, func() bool { _, n, _ := o.TestMode(ctx, tech); return len(n) == 1 }, "note recognised")
	insert(t, d, 500)
	waitFor(t, func() bool { _, n, _ := o.TestMode(ctx, tech); return len(n) == 2 }, "second note recognised")
	on, notes, err := o.TestMode(ctx, tech)
	require.NoError(t, err)
	assert.True(t, on)
	assert.Equal(t, 20*game.Euro, notes[0].Denom)
	assert.Equal(t, 5*game.Euro, notes[1].Denom)
	waitFor(t, func() bool { return f.m.Snapshot().Cash.CashIn.Code == "test_mode" && !f.m.Snapshot().Cash.NoteInPath }, "note given back")
	assert.Equal(t, Message{Code: MsgNoteTestMode, Amount: 5 * game.Euro}, f.m.Snapshot().Cash.CashIn.Reason)

	after, err := f.st.Meters(ctx)
	require.NoError(t, err)
	assert.Equal(t, before, after, "no meter moved")
	entries, err := f.st.Entries(ctx, 10, 0)
	require.NoError(t, err)
	assert.Empty(t, entries, "no ledger row")
	assert.Zero(t, f.m.Snapshot().Credit)
	logged := func() int {
		ev, err := f.st.EventsWhere(ctx, store.EventQuery{Source: "validator"})
		require.NoError(t, err)
		n := 0
		for _, e := range ev {
			if e.Code == "test_note" {
				n++
			}
		}
		return n
	}
	waitFor(t, func() bool { return logged() == 2 }, "both notes logged (the cash events are written by their queue)")

	require.NoError(t, o.SetTestMode(ctx, tech, false))
	insertAll(t, f, d, 10*game.Euro)
	assert.Equal(t, 10*game.Euro, f.m.Snapshot().Credit, "credited once test mode is off")
	require.ErrorIs(t, o.SetTestMode(ctx, tech, true), ErrBusy, "not with a credit")
	require.Len(t, officeEvents(t, f, "test_mode_refused"), 1)
	require.Len(t, officeEvents(t, f, "test_mode"), 2)
}

// Test mode ends with the technician's session, whether it was left by
// the Quitter button or ended by the idle time: a note inserted after is
// credited.
func TestTestModeEndsWithTheSession(t *testing.T) {
	for _, why := range []string{"done", "idle"} {
		t.Run(why, func(t *testing.T) {
			f, d, o := newCashOffice(t)
			tech, err := o.Login(ctx, "246800")
			require.NoError(t, err)
			require.NoError(t, o.SetTestMode(ctx, tech, true))
			require.NoError(t, o.Logout(ctx, tech, why))
			tech2, err := o.Login(ctx, "246800")
			require.NoError(t, err)
			on, _, err := o.TestMode(ctx, tech2)
			require.NoError(t, err)
			assert.False(t, on, "test mode off once the session ended")
			insertAll(t, f, d, 10*game.Euro)
			assert.Equal(t, 10*game.Euro, f.m.Snapshot().Credit, "a note after the session is credited")
			require.Len(t, officeEvents(t, f, "test_mode"), 2, "on, then off at the session's end")
		})
	}
}
