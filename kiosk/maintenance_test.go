package kiosk

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/hw/id003"
	"pharaon/hw/sim/id003sim"
)

// While the maintenance screen is open the player is locked out: no play is
// sold, the validator is inhibited and says why, no cash-out starts; the
// reprint staff ask for is not refused for it. Leaving maintenance opens
// everything again, and both changes are in the event log.
func TestMaintenanceLocksThePlayerOut(t *testing.T) {
	f, d, _ := newCashFixture(t, nil)
	f.boot()
	cashReady(t, f.m)
	insert(t, d, 500)
	waitFor(t, func() bool { return f.m.Snapshot().Credit == 5*game.Euro && !f.m.Snapshot().Cash.NoteInPath }, "credit")

	f.m.SetMaintenance(true)
	snap := f.m.Snapshot()
	assert.True(t, snap.Maintenance)
	assert.False(t, snap.Restarting, "the maintenance screen is no restart")
	assert.False(t, snap.Cash.CanCashIn)
	assert.False(t, snap.Cash.CanCashOut)
	assert.Equal(t, Message{Code: MsgCashInMaintenance}, snap.Cash.CashInOff)
	waitFor(t, func() bool { return d.Validator.State() == id003.StateDisabled }, "validator inhibited in maintenance")
	require.ErrorIs(t, d.Validator.InsertNote(500), id003sim.ErrDisabled)

	_, err := f.m.Play(ctx, game.Stake050, breakout.Auto)
	require.ErrorIs(t, err, ErrMaintenance)
	_, err = f.m.CashOut(ctx)
	require.ErrorIs(t, err, ErrMaintenance)
	credit, err := f.st.Credit(ctx)
	require.NoError(t, err)
	assert.Equal(t, 5*game.Euro, credit, "nothing moved the credit")
	_, err = f.m.ReprintLast(ctx)
	require.ErrorIs(t, err, ErrNoVoucher, "a reprint is not refused for maintenance")

	f.m.SetMaintenance(false)
	assert.False(t, f.m.Snapshot().Maintenance)
	waitFor(t, func() bool { return d.Validator.State() == id003.StateIdle }, "taking notes again")
	g, err := f.m.Play(ctx, game.Stake050, breakout.Auto)
	require.NoError(t, err)
	runToEnd(t, g)

	es, err := f.st.Events(ctx, 1000, 0)
	require.NoError(t, err)
	var codes []string
	for _, e := range es {
		if e.Code == "maintenance_on" || e.Code == "maintenance_off" {
			codes = append(codes, e.Code)
		}
	}
	assert.ElementsMatch(t, []string{"maintenance_on", "maintenance_off"}, codes)
}

// The kiosk id set at the first start's setup names the kiosk at once and
// after a restart, over the configuration's; a bad one changes nothing.
func TestSetKioskIDSurvivesRestart(t *testing.T) {
	f := newFixture(t)
	f.cfg.KioskID = "PH-CONF"
	f.stop()
	f.start()
	f.boot()
	assert.Equal(t, "PH-CONF", f.m.KioskID())
	require.ErrorIs(t, f.m.SetKioskID(ctx, "setup", "PH 7"), ErrKioskID)
	assert.Equal(t, "PH-CONF", f.m.KioskID())
	require.NoError(t, f.m.SetKioskID(ctx, "setup", "PH-0007"))
	assert.Equal(t, "PH-0007", f.m.KioskID())
	f.restart()
	assert.Equal(t, "PH-0007", f.m.KioskID())
}

// Someone at the maintenance screen keeps the session alive without an
// action (Office.Touch); a touch after the session ended does not revive it.
func TestOfficeTouchKeepsTheSessionAlive(t *testing.T) {
	f, o := newOffice(t)
	s, err := o.Login(ctx, "135700")
	require.NoError(t, err)
	f.clock.Advance(50 * time.Second)
	o.Touch(s)
	f.clock.Advance(50 * time.Second)
	assert.False(t, o.Expire(ctx, s), "touched 50 s ago")
	f.clock.Advance(10 * time.Second)
	assert.True(t, o.Expire(ctx, s))
	o.Touch(s)
	assert.True(t, o.Expire(ctx, s), "an ended session stays ended")
	_, err = o.Meters(ctx, s)
	require.ErrorIs(t, err, ErrSessionEnded)
}
