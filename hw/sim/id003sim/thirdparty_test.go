package id003sim_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/hw"
	"pharaon/hw/id003"
	"pharaon/hw/sim/id003sim"
)

// interruptHost is an ID-003 host written apart from hw/id003, the way field-proven third-party
// hosts that use interrupt mode work: it resets the unit and polls it through initialisation,
// enables it, switches it to interrupt mode 1 (SET COMM MODE 0x01), and from then on sends a status
// request only after the unit's ENQ, which it reads as those hosts do: a frame like any answer
// (FC 05 05 and its CRC), every byte before a SYNC dropped. It never polls on a timer of its own, so
// a unit that keeps quiet, or calls in a form it does not read, stalls it.
type interruptHost struct {
	t      *testing.T
	port   hw.Port
	buf    []byte
	enq    int                // ENQs received and not yet answered with a status request
	lost   int                // bytes dropped before a SYNC (a single-byte ENQ among them)
	states []id003.State      // every status it read, in order
	unit   func() id003.State // for the failure message only
}

func newInterruptHost(t *testing.T, s *id003sim.Sim, path string) *interruptHost {
	t.Helper()
	port, err := hw.Open(path, id003.Mode)
	require.NoError(t, err)
	t.Cleanup(func() { port.Close() })
	require.NoError(t, port.SetReadTimeout(20*time.Millisecond))
	return &interruptHost{t: t, port: port, unit: s.State}
}

// read takes what the unit sent until the deadline, or until a frame (returned) or, with
// untilENQ, an ENQ arrives. ENQ frames are counted; bytes outside a frame are dropped.
func (h *interruptHost) read(deadline time.Time, untilENQ bool) (id003.Frame, bool) {
	rd := make([]byte, 64)
	for {
		for len(h.buf) > 0 {
			if h.buf[0] != id003.Sync {
				h.lost++
				h.buf = h.buf[1:]
				continue
			}
			if len(h.buf) < 2 || len(h.buf) < int(h.buf[1]) {
				break
			}
			n := int(h.buf[1])
			f, err := id003.DecodeFrame(h.buf[:n])
			h.buf = h.buf[n:]
			if err == nil && f.Cmd == id003.ENQ {
				h.enq++
				continue
			}
			if err == nil {
				return f, true
			}
		}
		if (untilENQ && h.enq > 0) || time.Now().After(deadline) {
			return id003.Frame{}, false
		}
		n, err := h.port.Read(rd)
		require.NoError(h.t, err)
		h.buf = append(h.buf, rd[:n]...)
	}
}

// ask sends a command and returns the unit's answer.
func (h *interruptHost) ask(cmd byte, data ...byte) id003.Frame {
	h.t.Helper()
	_, err := h.port.Write(id003.MustEncode(cmd, data...))
	require.NoError(h.t, err)
	f, ok := h.read(time.Now().Add(time.Second), false)
	require.True(h.t, ok, "no answer to command 0x%02X", cmd)
	return f
}

func (h *interruptHost) status() id003.Frame {
	h.t.Helper()
	f := h.ask(id003.CmdStatusRequest)
	h.states = append(h.states, id003.StateOf(f.Cmd))
	return f
}

// start resets the unit and polls it through initialisation, then configures it.
func (h *interruptHost) start(mode byte) {
	h.t.Helper()
	require.Equal(h.t, id003.RespAck, h.ask(id003.CmdReset).Cmd)
	deadline := time.Now().Add(5 * time.Second)
	for st := h.status().Cmd; st != id003.StatusDisabled && st != id003.StatusIdle; st = h.status().Cmd {
		require.True(h.t, time.Now().Before(deadline), "unit never finished initialising (at %s)", id003.StateOf(st))
	}
	h.configure(mode)
}

// configure enables every note and sets the communication mode, each setting checked by its echo.
func (h *interruptHost) configure(mode byte) {
	h.t.Helper()
	for _, c := range []id003.Frame{
		{Cmd: id003.CmdSetEnable, Data: []byte{0, 0}},
		{Cmd: id003.CmdSetInhibit, Data: []byte{0}},
		{Cmd: id003.CmdSetCommMode, Data: []byte{mode}},
	} {
		require.True(h.t, c.Equal(h.ask(c.Cmd, c.Data...)), "setting 0x%02X not echoed", c.Cmd)
	}
}

// serve answers the unit's ENQs until a note's VEND VALID is acknowledged and the unit is idle
// again, or the deadline passes: on ESCROW it stacks, on VEND VALID it acknowledges.
func (h *interruptHost) serve(deadline time.Time) {
	h.t.Helper()
	acked := false
	for {
		if _, ok := h.read(deadline, true); ok {
			h.t.Fatalf("the unit sent a frame nobody asked for")
		}
		if h.enq == 0 {
			h.t.Fatalf("no ENQ from the unit: the host stalls, the unit at %s; the host saw %v", h.unit(), h.states)
		}
		h.enq--
		f := h.status()
		switch f.Cmd {
		case id003.StatusEscrow:
			require.Equal(h.t, id003.RespAck, h.ask(id003.CmdStack1).Cmd)
		case id003.StatusVendValid:
			_, err := h.port.Write(id003.MustEncode(id003.CmdAck))
			require.NoError(h.t, err)
			acked = true
		case id003.StatusIdle:
			if acked {
				return
			}
		}
	}
}

// A host that switches the unit to interrupt mode and polls only on ENQ takes a note to the
// stacker, in the unit's own time.
func TestSimInterruptModeHostStacksANote(t *testing.T) {
	link := filepath.Join(t.TempDir(), "bv")
	s := id003sim.New(id003sim.Config{})
	require.NoError(t, s.Start(link))
	defer s.Close()
	h := newInterruptHost(t, s, link)
	h.start(id003.CommInterrupt1)
	require.NoError(t, s.InsertNote(1000))
	h.serve(time.Now().Add(5 * time.Second))

	assert.Equal(t, id003sim.Counts{Stacked: 1, StackedSum: 1000, Values: []int64{1000}, VendValid: 1, Acked: 1}, s.Counts())
	// The two statuses that wait for the host are seen whatever the timing; the others may pass
	// between two polls, as on a real unit.
	assert.Contains(t, h.states, id003.StateEscrow)
	assert.Contains(t, h.states, id003.StateVendValid)
}

// enqs does something and counts the ENQs the unit sends for it: the status request sent after
// it is answered after every ENQ the unit owed by then.
func (h *interruptHost) enqs(do func()) int {
	h.t.Helper()
	before := h.enq
	do()
	h.status()
	n := h.enq - before
	h.enq = before
	return n
}

// Each communication mode calls the host (ENQ) for the changes of status it should, and a change a
// command causes is called after the command's own answer. The unit's clock is a fake one, moved
// on by the test, so every ENQ is on the line before the next status request's answer.
func TestSimInterruptModesCallTheHost(t *testing.T) {
	tests := []struct {
		mode byte
		want []int // ENQs for: insert, read, STACK, stacked, ACK, done, stacker pulled out
	}{
		{id003.CommPolling, []int{0, 0, 0, 0, 0, 0, 0}},
		{id003.CommInterrupt1, []int{1, 1, 1, 1, 1, 1, 1}},
		// Only what waits on the host: ESCROW, VEND VALID, and a fault staff must hear of.
		{id003.CommInterrupt2, []int{0, 1, 0, 1, 0, 0, 1}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("mode %d", tt.mode), func(t *testing.T) {
			link := filepath.Join(t.TempDir(), "bv")
			s, c := newSim(id003sim.Config{})
			require.NoError(t, s.Start(link))
			defer s.Close()
			h := newInterruptHost(t, s, link)
			require.Equal(t, id003.RespAck, h.ask(id003.CmdReset).Cmd)
			c.Advance(timing.Init)
			h.configure(tt.mode)
			var got []int
			got = append(got, h.enqs(func() { require.NoError(t, s.InsertNote(2000)) }))
			got = append(got, h.enqs(func() { c.Advance(timing.Accept) }))
			got = append(got, h.enqs(func() {
				require.Equal(t, id003.RespAck, h.ask(id003.CmdStack1).Cmd)
				require.Zero(t, h.enq, "an ENQ came before the command's answer")
			}))
			got = append(got, h.enqs(func() { c.Advance(timing.Stack) }))
			got = append(got, h.enqs(func() {
				_, err := h.port.Write(id003.MustEncode(id003.CmdAck))
				require.NoError(t, err)
			}))
			got = append(got, h.enqs(func() { c.Advance(timing.Stacked) }))
			assert.Equal(t, id003.StateIdle, h.states[len(h.states)-1])
			got = append(got, h.enqs(func() { require.NoError(t, s.Inject(id003sim.StackerOpen, 0)) }))
			assert.Equal(t, tt.want, got)
			assert.Equal(t, 1, s.Counts().Acked)
		})
	}
}

// Every setting command is echoed and read back by its status request, over the line, as a host
// that checks its settings does; a communication mode the unit lacks is refused.
func TestSimSettingsOverPTY(t *testing.T) {
	link := filepath.Join(t.TempDir(), "bv")
	s, _ := newSim(id003sim.Config{})
	require.NoError(t, s.Start(link))
	defer s.Close()
	h := newInterruptHost(t, s, link)
	tests := []struct {
		set, get byte
		data     []byte
	}{
		{id003.CmdSetEnable, id003.CmdGetEnable, []byte{0x82, 0x00}},
		{id003.CmdSetSecurity, id003.CmdGetSecurity, []byte{0x04, 0x00}},
		{id003.CmdSetCommMode, id003.CmdGetCommMode, []byte{id003.CommInterrupt2}},
		{id003.CmdSetCommMode, id003.CmdGetCommMode, []byte{id003.CommInterrupt1}},
		{id003.CmdSetCommMode, id003.CmdGetCommMode, []byte{id003.CommPolling}},
		{id003.CmdSetInhibit, id003.CmdGetInhibit, []byte{0x01}},
		{id003.CmdSetDirection, id003.CmdGetDirection, []byte{0x0C}},
		{id003.CmdSetOptionalFun, id003.CmdGetOptionalFun, []byte{0x02, 0x00}},
	}
	for _, tt := range tests {
		set := id003.Frame{Cmd: tt.set, Data: tt.data}
		assert.True(t, set.Equal(h.ask(tt.set, tt.data...)), "0x%02X % X not echoed", tt.set, tt.data)
		got := h.ask(tt.get)
		assert.True(t, id003.Frame{Cmd: tt.get, Data: tt.data}.Equal(got), "0x%02X read back %v", tt.get, got)
	}
	assert.Equal(t, id003.RespInvalidCommand, h.ask(id003.CmdSetCommMode, 0x03).Cmd, "no mode 3")
	assert.True(t, id003.Frame{Cmd: id003.CmdGetCommMode, Data: []byte{0}}.Equal(h.ask(id003.CmdGetCommMode)))
}

// In interrupt mode 2 the host polls only when called, so after its ACK it is not called again: the
// unit still finishes the note and is ready for the next one, by itself.
func TestSimInterruptMode2UnitIdlesWithoutPolls(t *testing.T) {
	c := &fakeClock{}
	s := id003sim.New(id003sim.Config{Timing: timing, Clock: c, StartIdle: true})
	_, _ = answer(t, s, id003.CmdSetCommMode, id003.CommInterrupt2)
	require.NoError(t, s.InsertNote(500))
	c.Advance(timing.Accept)
	is(t, s, st(id003.StatusEscrow, 0x62), "called for the escrow")
	_, _ = answer(t, s, id003.CmdStack1)
	c.Advance(timing.Stack)
	is(t, s, st(id003.StatusVendValid, 0x62), "called for the ACK")
	_, _ = answer(t, s, id003.CmdAck)
	c.Advance(timing.Stacked)
	assert.Equal(t, id003.StateIdle, s.State(), "no poll needed to finish")
	require.NoError(t, s.InsertNote(1000))
}

// A unit that calls in the single-byte form stalls the field's hosts: they drop any byte before a
// SYNC and never poll. The default form is the frame they read (TestSimInterruptModeHostStacksANote).
func TestSimSingleByteENQStallsAFieldHost(t *testing.T) {
	link := filepath.Join(t.TempDir(), "bv")
	s := id003sim.New(id003sim.Config{ENQ: id003.ENQByte})
	require.NoError(t, s.Start(link))
	defer s.Close()
	h := newInterruptHost(t, s, link)
	h.start(id003.CommInterrupt1)
	require.NoError(t, s.InsertNote(1000))
	_, ok := h.read(time.Now().Add(500*time.Millisecond), true)
	assert.False(t, ok)
	assert.Zero(t, h.enq, "the field host read no ENQ")
	assert.NotZero(t, h.lost, "the unit did call, in a form the host drops")
	assert.Zero(t, s.Counts().Stacked)
}
