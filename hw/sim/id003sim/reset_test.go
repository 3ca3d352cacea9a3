package id003sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/hw/id003"
	"pharaon/hw/sim/id003sim"
)

// toVendValid takes a note of cents to VEND VALID (code 0x62 for 5 €, 0x63
// for 10 €, …) on an idle unit.
func toVendValid(t *testing.T, s *id003sim.Sim, c *fakeClock, cents int64) {
	t.Helper()
	require.NoError(t, s.InsertNote(cents))
	c.Advance(timing.Accept)
	f := poll(t, s)
	require.Equal(t, id003.StatusEscrow, f.Cmd)
	answer(t, s, id003.CmdStack1)
	c.Advance(timing.Stack)
	require.Equal(t, id003.StatusVendValid, poll(t, s).Cmd)
}

// A RESET does not discharge a VEND VALID the host has not acknowledged:
// the note passed the stacker's point of no return and stays in the cash
// box, and once initialised the unit reports its VEND VALID again (with
// its code) and waits for the ACK, so a host can still credit it. The
// note is counted once.
func TestSimResetAtVendValidKeepsTheNoteAndSaysSo(t *testing.T) {
	s, c := idleSim(t, id003sim.Config{})
	toVendValid(t, s, c, 1000)
	_, _ = answer(t, s, id003.CmdReset)
	is(t, s, st(id003.StatusInitialize), "reset")
	c.Advance(timing.Init)
	is(t, s, st(id003.StatusVendValid, 0x63), "the note's VEND VALID again, after the initialisation")
	c.Advance(time.Hour)
	is(t, s, st(id003.StatusVendValid, 0x63), "VEND VALID waits for the ACK")
	answer(t, s, id003.CmdAck)
	is(t, s, st(id003.StatusStacked), "acknowledged")
	c.Advance(timing.Stacked)
	is(t, s, st(id003.StatusDisabled), "the reset left the unit inhibited")
	got := s.Counts()
	assert.Equal(t, 1, got.Stacked, "in the cash box once")
	assert.Equal(t, []int64{1000}, got.Values)
	assert.Equal(t, 1, got.VendValid, "one note reached VEND VALID")
	assert.Equal(t, 1, got.Acked)
	assert.Zero(t, got.Returned)
}

// A RESET while the note is being stacked: the unit finishes stacking it
// during its initialisation and reports its VEND VALID; a RESET in escrow
// gives the note back.
func TestSimResetWhileStackingOrInEscrow(t *testing.T) {
	s, c := idleSim(t, id003sim.Config{})
	require.NoError(t, s.InsertNote(2000))
	c.Advance(timing.Accept)
	answer(t, s, id003.CmdStack1)
	is(t, s, st(id003.StatusStacking), "stacking")
	_, _ = answer(t, s, id003.CmdReset)
	c.Advance(timing.Init)
	is(t, s, st(id003.StatusVendValid, 0x64), "stacked in the initialisation, and said")
	answer(t, s, id003.CmdAck)
	c.Advance(timing.Stacked)
	assert.Equal(t, []int64{2000}, s.Counts().Values)
	assert.Equal(t, 1, s.Counts().VendValid)

	_, _ = answer(t, s, id003.CmdSetInhibit, 0)
	require.NoError(t, s.InsertNote(500))
	c.Advance(timing.Accept)
	is(t, s, st(id003.StatusEscrow, 0x62), "escrow")
	_, _ = answer(t, s, id003.CmdReset)
	c.Advance(timing.Init)
	is(t, s, st(id003.StatusDisabled), "nothing owed")
	assert.Equal(t, 1, s.Counts().Returned, "the note in escrow is given back")
	assert.Equal(t, 1, s.Counts().Stacked)
}

// The power goes off during the initialisation a RESET at VEND VALID
// started: the note is in the stacker (POWER UP WITH BILL IN STACKER),
// never given back, and counted once.
func TestSimPowerCutAfterResetAtVendValid(t *testing.T) {
	s, c := idleSim(t, id003sim.Config{})
	toVendValid(t, s, c, 1000)
	_, _ = answer(t, s, id003.CmdReset)
	s.PowerCycle()
	is(t, s, st(id003.StatusPowerUpBillInStacker), "the note is in the stacker")
	_, _ = answer(t, s, id003.CmdReset)
	c.Advance(timing.Init)
	is(t, s, st(id003.StatusDisabled), "settled by the power-up report")
	got := s.Counts()
	assert.Equal(t, 1, got.Stacked)
	assert.Zero(t, got.Returned)
}
