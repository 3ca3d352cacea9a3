package id003sim_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/hw"
	"pharaon/hw/id003"
	"pharaon/hw/sim/id003sim"
)

func enc(cmd byte, data ...byte) []byte { return id003.MustEncode(cmd, data...) }

func decode(t *testing.T, b []byte) id003.Frame {
	t.Helper()
	f, err := id003.DecodeFrame(b)
	require.NoError(t, err, "% X", b)
	return f
}

// answer sends one frame to the simulator's handler and decodes the answer.
func answer(t *testing.T, s *id003sim.Sim, cmd byte, data ...byte) (id003.Frame, bool) {
	t.Helper()
	b, _ := s.Handle(id003.Frame{Cmd: cmd, Data: data})
	if b == nil {
		return id003.Frame{}, false
	}
	return decode(t, b), true
}

func poll(t *testing.T, s *id003sim.Sim) id003.Frame {
	t.Helper()
	f, ok := answer(t, s, id003.CmdStatusRequest)
	require.True(t, ok)
	return f
}

// the durations of the tests' units: all different, so that a state ending at the wrong time shows
var timing = id003sim.Durations{Accept: 1100 * time.Millisecond, Stack: 900 * time.Millisecond,
	Stacked: 300 * time.Millisecond, Reject: 700 * time.Millisecond, Init: 2 * time.Second, Escrow: 10 * time.Second}

// newSim is a unit at POWER UP on a fake clock, with the tests' timing unless cfg has one, that
// moves on on time whether polled or not, as a real unit does.
func newSim(cfg id003sim.Config) (*id003sim.Sim, *fakeClock) {
	if cfg.Timing == (id003sim.Durations{}) {
		cfg.Timing = timing
	}
	cfg.MoveOnUnseen = true
	c := &fakeClock{}
	cfg.Clock = c
	return id003sim.New(cfg), c
}

// idleSim is a simulator reset and enabled, as a host leaves it, on a fake clock.
func idleSim(t *testing.T, cfg id003sim.Config) (*id003sim.Sim, *fakeClock) {
	t.Helper()
	s, c := newSim(cfg)
	_, _ = answer(t, s, id003.CmdReset)
	_, _ = answer(t, s, id003.CmdSetInhibit, 0)
	c.Advance(time.Minute) // INITIALIZE ends; an idle unit has nothing more to do
	require.Equal(t, id003.StateIdle, s.State())
	return s, c
}

func TestSimAnswersEveryHostCommand(t *testing.T) {
	s, _ := newSim(id003sim.Config{})
	tests := []struct {
		name string
		cmd  byte
		data []byte
		want id003.Frame
	}{
		{"status at power up", id003.CmdStatusRequest, nil, id003.Frame{Cmd: id003.StatusPowerUp}},
		{"stack outside escrow", id003.CmdStack1, nil, id003.Frame{Cmd: id003.RespInvalidCommand}},
		{"stack-2 outside escrow", id003.CmdStack2, nil, id003.Frame{Cmd: id003.RespInvalidCommand}},
		{"return outside escrow", id003.CmdReturn, nil, id003.Frame{Cmd: id003.RespInvalidCommand}},
		{"hold outside escrow", id003.CmdHold, nil, id003.Frame{Cmd: id003.RespInvalidCommand}},
		{"wait outside escrow", id003.CmdWait, nil, id003.Frame{Cmd: id003.RespInvalidCommand}},
		{"set enable", id003.CmdSetEnable, []byte{0xE1, 0xFF}, id003.Frame{Cmd: 0xC0, Data: []byte{0xE1, 0xFF}}},
		{"set security", id003.CmdSetSecurity, []byte{0x10, 0x00}, id003.Frame{Cmd: 0xC1, Data: []byte{0x10, 0x00}}},
		{"set comm mode", id003.CmdSetCommMode, []byte{0x00}, id003.Frame{Cmd: 0xC2, Data: []byte{0x00}}},
		{"set comm mode interrupt 1", id003.CmdSetCommMode, []byte{0x01}, id003.Frame{Cmd: 0xC2, Data: []byte{0x01}}},
		{"get comm mode interrupt 1", id003.CmdGetCommMode, nil, id003.Frame{Cmd: 0x82, Data: []byte{0x01}}},
		{"set comm mode interrupt 2", id003.CmdSetCommMode, []byte{0x02}, id003.Frame{Cmd: 0xC2, Data: []byte{0x02}}},
		{"set a comm mode the unit lacks", id003.CmdSetCommMode, []byte{0x03}, id003.Frame{Cmd: id003.RespInvalidCommand}},
		{"get comm mode after a refusal", id003.CmdGetCommMode, nil, id003.Frame{Cmd: 0x82, Data: []byte{0x02}}},
		{"back to polling", id003.CmdSetCommMode, []byte{0x00}, id003.Frame{Cmd: 0xC2, Data: []byte{0x00}}},
		{"set inhibit", id003.CmdSetInhibit, []byte{0x01}, id003.Frame{Cmd: 0xC3, Data: []byte{0x01}}},
		{"set direction", id003.CmdSetDirection, []byte{0x0C}, id003.Frame{Cmd: 0xC4, Data: []byte{0x0C}}},
		{"set optional function", id003.CmdSetOptionalFun, []byte{0x02, 0x00}, id003.Frame{Cmd: 0xC5, Data: []byte{0x02, 0x00}}},
		{"get enable", id003.CmdGetEnable, nil, id003.Frame{Cmd: 0x80, Data: []byte{0xE1, 0xFF}}},
		{"get security", id003.CmdGetSecurity, nil, id003.Frame{Cmd: 0x81, Data: []byte{0x10, 0x00}}},
		{"get comm mode", id003.CmdGetCommMode, nil, id003.Frame{Cmd: 0x82, Data: []byte{0x00}}},
		{"get inhibit", id003.CmdGetInhibit, nil, id003.Frame{Cmd: 0x83, Data: []byte{0x01}}},
		{"get direction", id003.CmdGetDirection, nil, id003.Frame{Cmd: 0x84, Data: []byte{0x0C}}},
		{"get optional function", id003.CmdGetOptionalFun, nil, id003.Frame{Cmd: 0x85, Data: []byte{0x02, 0x00}}},
		{"version", id003.CmdGetVersion, nil, id003.Frame{Cmd: 0x88, Data: []byte("PHARAON-SIM ID003 EUR V1.00 2025-01-01")}},
		{"boot version", id003.CmdGetBootVersion, nil, id003.Frame{Cmd: 0x89, Data: []byte("PHARAON-SIM BOOT V1.00")}},
		{"currency assignment", id003.CmdGetCurrency, nil, id003.Frame{Cmd: 0x8A,
			Data: id003.EncodeCurrencyAssignment(id003.EURTable.Entries(id003.CountryEUR))}},
		{"setting with a short argument", id003.CmdSetEnable, []byte{0xE1}, id003.Frame{Cmd: id003.RespInvalidCommand}},
		{"status request with data", id003.CmdStatusRequest, []byte{0}, id003.Frame{Cmd: id003.RespInvalidCommand}},
		{"unknown command", 0x99, nil, id003.Frame{Cmd: id003.RespInvalidCommand}},
		{"a status byte is no command", 0x13, nil, id003.Frame{Cmd: id003.RespInvalidCommand}},
		{"reset", id003.CmdReset, nil, id003.Frame{Cmd: id003.RespAck}},
		{"status after reset", id003.CmdStatusRequest, nil, id003.Frame{Cmd: id003.StatusInitialize}},
	}
	for _, tt := range tests { // in order: the settings read back are the ones set above
		got, ok := answer(t, s, tt.cmd, tt.data...)
		require.True(t, ok, tt.name)
		assert.True(t, tt.want.Equal(got), "%s: got %v want %v", tt.name, got, tt.want)
	}
	_, ok := answer(t, s, id003.CmdAck)
	assert.False(t, ok, "the unit answers nothing to the host's ACK")
}

// is asserts the unit's answer to a status request.
func is(t *testing.T, s *id003sim.Sim, want id003.Frame, msg string) {
	t.Helper()
	got := poll(t, s)
	assert.True(t, want.Equal(got), "%s: got %v want %v", msg, got, want)
}

func st(status byte, data ...byte) id003.Frame { return id003.Frame{Cmd: status, Data: data} }

func TestSimNotePath(t *testing.T) {
	s, c := idleSim(t, id003sim.Config{})
	require.NoError(t, s.InsertNote(1000))
	assert.ErrorIs(t, s.InsertNote(500), id003sim.ErrBusy)
	is(t, s, st(id003.StatusAccepting), "inserted")
	c.Advance(timing.Accept - 1)
	is(t, s, st(id003.StatusAccepting), "polls do not hurry the unit")
	c.Advance(1)
	is(t, s, st(id003.StatusEscrow, 0x63), "read")
	f, _ := answer(t, s, id003.CmdHold)
	assert.Equal(t, id003.RespAck, f.Cmd)
	is(t, s, st(id003.StatusHolding), "held")
	f, _ = answer(t, s, id003.CmdStack2)
	assert.Equal(t, id003.RespAck, f.Cmd)
	is(t, s, st(id003.StatusStacking), "stack")
	c.Advance(timing.Stack - 1)
	is(t, s, st(id003.StatusStacking), "still stacking")
	c.Advance(1)
	for range 3 { // repeated until acknowledged, however long it takes
		is(t, s, st(id003.StatusVendValid, 0x63), "vend valid")
		c.Advance(time.Hour)
	}
	assert.Equal(t, 1, s.Counts().Stacked, "counted at the point of no return")
	_, ok := answer(t, s, id003.CmdAck)
	assert.False(t, ok)
	is(t, s, st(id003.StatusStacked), "acknowledged")
	c.Advance(timing.Stacked)
	is(t, s, st(id003.StatusIdle), "done")
	assert.Equal(t, id003sim.Counts{Stacked: 1, StackedSum: 1000, Values: []int64{1000}, VendValid: 1, Acked: 1}, s.Counts())
}

func TestSimReturnAndEscrowTimeout(t *testing.T) {
	s, c := idleSim(t, id003sim.Config{})
	require.NoError(t, s.InsertNote(500))
	c.Advance(timing.Accept)
	is(t, s, st(id003.StatusEscrow, 0x62), "read")
	f, _ := answer(t, s, id003.CmdReturn)
	assert.Equal(t, id003.RespAck, f.Cmd)
	is(t, s, st(id003.StatusReturning), "return")
	c.Advance(timing.Reject)
	is(t, s, st(id003.StatusIdle), "given back")

	require.NoError(t, s.InsertNote(500))
	c.Advance(timing.Accept)
	c.Advance(timing.Escrow - 1)
	is(t, s, st(id003.StatusEscrow, 0x62), "no decision yet")
	c.Advance(1)
	is(t, s, st(id003.StatusRejecting, 0x79), "no decision: the unit gives it back")
	c.Advance(timing.Reject)
	is(t, s, st(id003.StatusIdle), "given back")

	// HOLD keeps the note for another escrow timeout, from the last HOLD.
	require.NoError(t, s.InsertNote(500))
	c.Advance(timing.Accept)
	c.Advance(timing.Escrow - time.Second)
	answer(t, s, id003.CmdHold)
	c.Advance(timing.Escrow - time.Second)
	answer(t, s, id003.CmdHold)
	c.Advance(timing.Escrow - 1)
	is(t, s, st(id003.StatusHolding), "held")
	c.Advance(1)
	is(t, s, st(id003.StatusRejecting, 0x79), "held too long")
	c.Advance(timing.Reject)
	assert.Equal(t, 3, s.Counts().Returned)
	assert.Zero(t, s.Counts().Stacked)
}

func TestSimRejectsCounterfeitAndInhibited(t *testing.T) {
	s, c := idleSim(t, id003sim.Config{})
	require.NoError(t, s.InsertCounterfeit(id003.RejectMagnetic))
	c.Advance(timing.Accept)
	is(t, s, st(id003.StatusRejecting, 0x72), "counterfeit")
	c.Advance(timing.Reject - 1)
	is(t, s, st(id003.StatusRejecting, 0x72), "still going back")
	c.Advance(1)
	is(t, s, st(id003.StatusIdle), "given back")
	_, _ = answer(t, s, id003.CmdSetEnable, 0x04, 0x00) // inhibit 10 € (0x63, bit 2)
	require.NoError(t, s.InsertNote(1000))
	c.Advance(timing.Accept)
	is(t, s, st(id003.StatusRejecting, 0x79), "inhibited")
	assert.ErrorIs(t, s.InsertNote(700), id003sim.ErrUnknown)
}

func TestSimInhibitAndFaults(t *testing.T) {
	s, c := idleSim(t, id003sim.Config{})
	_, _ = answer(t, s, id003.CmdSetInhibit, 1)
	is(t, s, st(id003.StatusDisabled), "inhibited")
	assert.ErrorIs(t, s.InsertNote(500), id003sim.ErrDisabled)
	_, _ = answer(t, s, id003.CmdSetInhibit, 0)
	is(t, s, st(id003.StatusIdle), "enabled")

	require.NoError(t, s.Inject(id003sim.Failure, 0xA6))
	is(t, s, st(id003.StatusFailure, 0xA6), "failure")
	_, _ = answer(t, s, id003.CmdReset)
	is(t, s, st(id003.StatusInitialize), "reset")
	c.Advance(timing.Init)
	is(t, s, st(id003.StatusFailure, 0xA6), "a reset does not repair a failure")
	s.Clear()
	c.Advance(timing.Init)
	is(t, s, st(id003.StatusDisabled), "after a reset the unit waits to be enabled")

	require.NoError(t, s.Inject(id003sim.Cheated, 0))
	is(t, s, st(id003.StatusCheated), "cheated")
	_, _ = answer(t, s, id003.CmdReset)
	c.Advance(timing.Init)
	is(t, s, st(id003.StatusDisabled), "cheated clears with a reset")
	assert.ErrorIs(t, s.Inject("smoke", 0), id003sim.ErrFault)
}

func TestSimStackerFullAtCapacity(t *testing.T) {
	s, c := idleSim(t, id003sim.Config{Capacity: 1})
	require.NoError(t, s.InsertNote(500))
	c.Advance(timing.Accept)
	answer(t, s, id003.CmdStack1)
	c.Advance(timing.Stack)
	answer(t, s, id003.CmdAck)
	c.Advance(timing.Stacked)
	is(t, s, st(id003.StatusStackerFull), "full")
	s.Clear() // emptied
	assert.Zero(t, s.Counts().Stacked)
}

// The deprecated poll counts still build and keep their intent, in time.
func TestSimPollCountsBecomeDurations(t *testing.T) {
	s, c := newSim(id003sim.Config{Timing: id003sim.Durations{Accept: time.Second}, StackPolls: 1 << 20, EscrowTimeout: 60})
	_, _ = answer(t, s, id003.CmdReset)
	_, _ = answer(t, s, id003.CmdSetInhibit, 0)
	c.Advance(id003sim.QuickTiming.Init)
	require.NoError(t, s.InsertNote(500))
	c.Advance(time.Second)
	c.Advance(6*time.Second - 1)
	is(t, s, st(id003.StatusEscrow, 0x62), "60 polls are 6 s")
	answer(t, s, id003.CmdStack1)
	c.Advance(24 * time.Hour)
	is(t, s, st(id003.StatusStacking), "a note that never leaves STACKING")
}

func TestSimLineFaults(t *testing.T) {
	s, _ := idleSim(t, id003sim.Config{Seed: 1})
	good := enc(id003.StatusIdle)
	tests := []struct {
		fault id003sim.Fault
		check func(t *testing.T, b []byte)
	}{
		{id003sim.Silence, func(t *testing.T, b []byte) { assert.Nil(t, b) }},
		{id003sim.BadCRC, func(t *testing.T, b []byte) {
			_, err := id003.DecodeFrame(b)
			assert.ErrorIs(t, err, id003.ErrCRC)
		}},
		{id003sim.Merged, func(t *testing.T, b []byte) { assert.Equal(t, append(bytes.Clone(good), good...), b) }},
		{id003sim.Garbage, func(t *testing.T, b []byte) {
			assert.Greater(t, len(b), len(good))
			assert.Equal(t, good, b[len(b)-len(good):])
		}},
		{id003sim.Split, func(t *testing.T, b []byte) { assert.Equal(t, good, b) }},
	}
	for _, tt := range tests {
		t.Run(string(tt.fault), func(t *testing.T) {
			require.NoError(t, s.Inject(tt.fault, 1))
			b, fault := s.Handle(id003.Frame{Cmd: id003.CmdStatusRequest})
			assert.Equal(t, tt.fault, fault)
			tt.check(t, b)
			b, fault = s.Handle(id003.Frame{Cmd: id003.CmdStatusRequest})
			assert.Empty(t, fault, "one answer only")
			assert.Equal(t, good, b)
		})
	}
}

func TestSimPowerCycle(t *testing.T) {
	s, c := idleSim(t, id003sim.Config{})
	require.NoError(t, s.InsertNote(2000))
	s.PowerCycle()
	is(t, s, st(id003.StatusPowerUpBillInAcceptor), "power up")
	c.Advance(time.Hour)
	is(t, s, st(id003.StatusPowerUpBillInAcceptor), "POWER UP waits for a RESET")
	f, _ := answer(t, s, id003.CmdStack1)
	assert.Equal(t, id003.RespInvalidCommand, f.Cmd, "after power up only a reset moves the unit")
	_, _ = answer(t, s, id003.CmdReset)
	c.Advance(timing.Init)
	is(t, s, st(id003.StatusDisabled), "note returned")
	assert.Equal(t, 1, s.Counts().Returned)
}

// The simulator over a real pty, driven with raw bytes as any host would.
func TestSimOverPTY(t *testing.T) {
	link := filepath.Join(t.TempDir(), "bv")
	s, _ := newSim(id003sim.Config{}) // its clock stands still: INITIALIZE lasts
	require.NoError(t, s.Start(link))
	defer s.Close()
	port, err := hw.Open(s.Path(), id003.Mode)
	require.NoError(t, err)
	defer port.Close()
	require.NoError(t, port.SetReadTimeout(2*time.Second))
	read := func(n int) []byte {
		var got []byte
		buf := make([]byte, 64)
		for len(got) < n {
			k, err := port.Read(buf)
			require.NoError(t, err)
			if k == 0 {
				break
			}
			got = append(got, buf[:k]...)
		}
		return got
	}
	tests := []struct {
		name  string
		write []byte
		want  []byte
	}{
		{"status", enc(0x11), enc(0x40)},
		{"garbage then status", append([]byte{0x00, 0x13, 0x37}, enc(0x11)...), enc(0x40)},
		{"bad crc", []byte{0xFC, 0x05, 0x11, 0x00, 0x00}, enc(id003.StatusCommunicationError)},
		{"unknown", enc(0x77), enc(id003.RespInvalidCommand)},
		{"reset", enc(0x40), enc(0x50)},
	}
	for _, tt := range tests {
		_, err := port.Write(tt.write)
		require.NoError(t, err)
		assert.Equal(t, tt.want, read(len(tt.want)), tt.name)
	}
	// A frame in two writes.
	st := enc(0x11)
	_, err = port.Write(st[:2])
	require.NoError(t, err)
	time.Sleep(10 * time.Millisecond)
	_, err = port.Write(st[2:])
	require.NoError(t, err)
	assert.Equal(t, enc(0x1B), read(5))
	assert.Equal(t, 1, s.Counts().BadCommands)
}

func TestSimUnplugKeepsState(t *testing.T) {
	link := filepath.Join(t.TempDir(), "bv")
	s, _ := idleSim(t, id003sim.Config{})
	require.NoError(t, s.Start(link))
	defer s.Close()
	require.NoError(t, s.InsertNote(500))
	require.NoError(t, s.Unplug())
	_, err := hw.Open(link, id003.Mode)
	assert.ErrorIs(t, err, hw.ErrNotFound)
	require.NoError(t, s.Replug())
	assert.Equal(t, link, s.Path())
	port, err := hw.Open(link, id003.Mode)
	require.NoError(t, err)
	defer port.Close()
	require.NoError(t, port.SetReadTimeout(time.Second))
	_, err = port.Write(enc(0x11))
	require.NoError(t, err)
	buf := make([]byte, 5)
	n, err := port.Read(buf)
	require.NoError(t, err)
	assert.Equal(t, enc(id003.StatusAccepting), buf[:n], "the note is still in the path")
}

func TestSimControlChannel(t *testing.T) {
	s, _ := idleSim(t, id003sim.Config{})
	in := strings.Join([]string{
		`{"op":"insert","cents":1000}`,
		`{"op":"insert","cents":1000}`,
		`not json`,
		`{"op":"fault","fault":"bad-crc","n":2}`,
		`{"op":"fault","fault":"jam-stacker"}`,
		`{"op":"clear"}`,
		`{"op":"explode"}`,
		`{"op":"status"}`,
	}, "\n")
	var out bytes.Buffer
	require.NoError(t, s.ServeControl(strings.NewReader(in), &out))
	var replies []id003sim.Reply
	dec := json.NewDecoder(&out)
	for dec.More() {
		var r id003sim.Reply
		require.NoError(t, dec.Decode(&r))
		replies = append(replies, r)
	}
	require.Len(t, replies, 8)
	assert.True(t, replies[0].OK)
	assert.Equal(t, "accepting", replies[0].State)
	assert.False(t, replies[1].OK)
	assert.Contains(t, replies[1].Error, "already")
	assert.False(t, replies[2].OK)
	assert.True(t, replies[3].OK)
	assert.Equal(t, "jam in stacker", replies[4].State)
	assert.Equal(t, "initialize", replies[5].State)
	assert.Equal(t, 1, replies[5].Counts.Removed)
	assert.False(t, replies[6].OK)
	assert.True(t, replies[7].OK)
}

// A real unit gives a note back about 10 s after ESCROW when the host decides nothing, however
// often the host polls.
func TestSimEscrowTimeoutIsTheSameAtAnyPollingPeriod(t *testing.T) {
	for _, period := range []time.Duration{100 * time.Millisecond, 150 * time.Millisecond} {
		t.Run(period.String(), func(t *testing.T) {
			s, c := idleSim(t, id003sim.Config{Timing: id003sim.UnitTiming})
			require.NoError(t, s.InsertNote(500))
			var now, escrowAt, rejectAt time.Duration
			for now < time.Minute && rejectAt == 0 {
				now += period // the host polls once a period
				c.Advance(period)
				switch poll(t, s).Cmd {
				case id003.StatusEscrow:
					if escrowAt == 0 {
						escrowAt = now
					}
				case id003.StatusRejecting:
					rejectAt = now
				}
			}
			require.NotZero(t, escrowAt)
			require.NotZero(t, rejectAt)
			// Polls see the unit's changes up to a period late, at both ends.
			assert.InDelta(t, float64(10*time.Second), float64(rejectAt-escrowAt), float64(period),
				"the note waited %v in escrow", rejectAt-escrowAt)
		})
	}
}

// By default a state whose time is up waits for one status request to report it, so that a host
// sees every state even at QuickTiming's pace; the answer after that is the next state.
func TestSimStateWaitsToBeSeen(t *testing.T) {
	c := &fakeClock{}
	s := id003sim.New(id003sim.Config{Timing: timing, Clock: c, StartIdle: true})
	require.NoError(t, s.InsertNote(1000))
	c.Advance(timing.Accept)
	require.NoError(t, s.Inject(id003sim.Silence, 1))
	b, _ := s.Handle(id003.Frame{Cmd: id003.CmdStatusRequest})
	require.Nil(t, b)
	is(t, s, st(id003.StatusAccepting), "ACCEPTING, its time up, waits to be reported: a lost answer does not count")
	c.Advance(timing.Escrow)
	is(t, s, st(id003.StatusEscrow, 0x63), "ESCROW is reported once")
	is(t, s, st(id003.StatusRejecting, 0x79), "the escrow timer ran all the same")
}

// SET DIRECTION refuses the ways a note may go in (bit set: refused); a note inserted a refused way
// is given back as inhibited (0x79), the others are read.
func TestSimRefusedDirectionIsRejected(t *testing.T) {
	s, c := idleSim(t, id003sim.Config{})
	_, _ = answer(t, s, id003.CmdSetDirection, 0x0F) // every way refused
	require.NoError(t, s.InsertNote(1000))
	c.Advance(timing.Accept)
	is(t, s, st(id003.StatusRejecting, 0x79), "refused direction")
	c.Advance(timing.Reject)
	_, _ = answer(t, s, id003.CmdSetDirection, 0x05) // A and C refused
	for _, tt := range []struct {
		d    id003sim.Direction
		want id003.Frame
	}{
		{id003sim.DirectionA, st(id003.StatusRejecting, 0x79)},
		{id003sim.DirectionB, st(id003.StatusEscrow, 0x62)},
		{id003sim.DirectionC, st(id003.StatusRejecting, 0x79)},
		{id003sim.DirectionD, st(id003.StatusEscrow, 0x62)},
	} {
		require.NoError(t, s.InsertNoteFacing(500, tt.d))
		c.Advance(timing.Accept)
		is(t, s, tt.want, fmt.Sprintf("direction %d", tt.d))
		_, _ = answer(t, s, id003.CmdReturn)
		c.Advance(timing.Reject)
	}
	assert.ErrorIs(t, s.InsertNoteFacing(500, 4), id003sim.ErrUnknown)
	assert.Equal(t, 5, s.Counts().Returned)
}

func TestSimControlChannelInsertsFacing(t *testing.T) {
	s, c := idleSim(t, id003sim.Config{})
	_, _ = answer(t, s, id003.CmdSetDirection, 0x01) // A refused
	var out bytes.Buffer
	require.NoError(t, s.ServeControl(strings.NewReader(`{"op":"insert","cents":2000,"direction":1}`), &out))
	c.Advance(timing.Accept)
	is(t, s, st(id003.StatusEscrow, 0x64), "inserted the B way")
}
