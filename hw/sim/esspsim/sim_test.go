package esspsim

import (
	"encoding/binary"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/hw/essp"
)

// fakeClock runs the unit's timers when the test advances it, in order of their deadlines.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Duration
	timers []*fakeTimer
}

type fakeTimer struct {
	c       *fakeClock
	at      time.Duration
	f       func()
	stopped bool
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now + d, f: f}
	c.timers = append(c.timers, t)
	return t
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.stopped
	t.stopped = true
	return was
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	end := c.now + d
	for {
		sort.SliceStable(c.timers, func(i, j int) bool { return c.timers[i].at < c.timers[j].at })
		if len(c.timers) == 0 || c.timers[0].at > end {
			break
		}
		t := c.timers[0]
		c.timers = c.timers[1:]
		c.now = t.at
		if t.stopped {
			continue
		}
		t.stopped = true
		c.mu.Unlock()
		t.f()
		c.mu.Lock()
	}
	c.now = end
	c.mu.Unlock()
}

// host is a bare-hands host: it toggles the flag and encodes; no key unless negotiated.
type host struct {
	t   *testing.T
	s   *Sim
	seq bool
	key *essp.Session
}

func (h *host) send(data ...byte) []byte {
	h.t.Helper()
	h.seq = !h.seq
	if data[0] == essp.CmdSync {
		h.seq = true
	}
	return h.raw(h.seq, data)
}

func (h *host) raw(seq bool, data []byte) []byte {
	h.t.Helper()
	payload := data
	var sent uint32
	if h.key != nil {
		sent = h.key.Count
		var err error
		payload, err = h.key.Seal(sent, data, zeros{})
		require.NoError(h.t, err)
	}
	b, _ := h.s.Handle(essp.Frame{Seq: seq, Data: payload})
	if b == nil {
		return nil
	}
	f, err := essp.DecodeFrame(b)
	require.NoError(h.t, err)
	require.Equal(h.t, seq, f.Seq, "the answer carries the command's flag")
	if h.key != nil && f.Data[0] == essp.STEX {
		c, d, err := h.key.Open(f.Data)
		require.NoError(h.t, err)
		require.Equal(h.t, sent+1, c, "the answer's count")
		h.key.Count = c
		return d
	}
	return f.Data
}

type zeros struct{}

func (zeros) Read(b []byte) (int, error) { clear(b); return len(b), nil }

func (h *host) poll() []essp.Event {
	h.t.Helper()
	a := h.send(essp.CmdPollWithAck)
	require.Equal(h.t, byte(essp.RespOK), a[0])
	evs, err := essp.ParseEvents(a[1:])
	require.NoError(h.t, err)
	return evs
}

func newUnit(t *testing.T, cfg Config) (*host, *fakeClock) {
	c := &fakeClock{}
	cfg.Clock = c
	cfg.Timing = UnitTiming
	h := &host{t: t, s: New(cfg)}
	assert.Equal(t, []byte{essp.RespOK}, h.send(essp.CmdSync))
	return h, c
}

func ev(code byte, ch ...byte) essp.Event {
	e := essp.Event{Code: code}
	if len(ch) > 0 {
		e.Channel = ch[0]
	}
	return e
}

func enable(h *host) {
	assert.Equal(h.t, []byte{essp.RespOK}, h.send(essp.CmdSetInhibits, 0x7F, 0x00))
	assert.Equal(h.t, []byte{essp.RespOK}, h.send(essp.CmdEnable))
}

func TestSimAnswersEveryCommand(t *testing.T) {
	h, _ := newUnit(t, Config{})
	assert.Equal(t, []essp.Event{ev(essp.EvSlaveReset), ev(essp.EvDisabled)}, h.poll())
	assert.Equal(t, []essp.Event{ev(essp.EvDisabled)}, h.poll(), "slave reset reported once")
	assert.Equal(t, []byte{essp.RespOK}, h.send(essp.CmdHostProtocol, 6))
	assert.Equal(t, []byte{essp.RespFail}, h.send(essp.CmdHostProtocol, 99))
	a := h.send(essp.CmdSetupRequest)
	st, err := essp.ParseSetup(a[1:])
	require.NoError(t, err)
	assert.Len(t, st.Channels, 7)
	c, _ := st.Cents(3)
	assert.Equal(t, int64(2000), c)
	a = h.send(essp.CmdSerialNumber)
	s, err := essp.ParseSerial(a[1:])
	require.NoError(t, err)
	assert.Equal(t, "10203040", s)
	assert.Len(t, h.send(essp.CmdFirmwareVersion), 17)
	assert.Len(t, h.send(essp.CmdDatasetVersion), 9)
	assert.Equal(t, byte(essp.UnitValidator), h.send(essp.CmdUnitData)[1])
	a = h.send(essp.CmdChannelValues)
	assert.Equal(t, byte(7), a[1])
	assert.Len(t, a, 2+7+7*3+7*4)
	assert.Equal(t, []byte{essp.RespOK, 7, 2, 2, 2, 2, 2, 2, 2}, h.send(essp.CmdChannelSecurity))
	assert.Equal(t, []byte{essp.RespOK}, h.send(essp.CmdDisplayOff))
	assert.Equal(t, []byte{essp.RespOK}, h.send(essp.CmdDisplayOn))
	assert.Equal(t, []byte{essp.RespOK, 0x00}, h.send(essp.CmdLastRejectCode))
	assert.Equal(t, []byte{essp.RespCannotProcess}, h.send(essp.CmdHold), "nothing in escrow")
	assert.Equal(t, []byte{essp.RespCannotProcess}, h.send(essp.CmdReject), "nothing in escrow")
	assert.Equal(t, []byte{essp.RespCannotProcess}, h.send(essp.CmdEventAck), "nothing to acknowledge")
	assert.Equal(t, []byte{essp.RespUnknown}, h.send(0x33), "a command it lacks")
	assert.Equal(t, []byte{essp.RespWrongParams}, h.send(essp.CmdSetInhibits, 1))
	assert.Equal(t, []byte{essp.RespWrongParams}, h.send(essp.CmdEnable, 1))
	assert.Equal(t, []byte{essp.RespOutOfRange}, h.send(essp.CmdSetGenerator, 4, 0, 0, 0, 0, 0, 0, 0), "4 is not prime")
	enable(h)
	assert.Empty(t, h.poll(), "enabled and idle: nothing to say")
	assert.Equal(t, []byte{essp.RespOK}, h.send(essp.CmdSetInhibits, 0, 0))
	assert.Equal(t, []essp.Event{ev(essp.EvChannelDisable)}, h.poll())
}

// A retry (the same flag) gets the same answer and the unit does not act twice.
func TestSimRetryIsNotActedTwice(t *testing.T) {
	h, _ := newUnit(t, Config{})
	h.poll()
	enable(h)
	require.NoError(t, h.s.InsertNote(500))
	before := h.s.Commands()[essp.CmdPollWithAck]
	first := h.raw(!h.seq, []byte{essp.CmdPollWithAck})
	h.seq = !h.seq
	again := h.raw(h.seq, []byte{essp.CmdPollWithAck})
	assert.Equal(t, first, again)
	assert.Equal(t, before+1, h.s.Commands()[essp.CmdPollWithAck])
}

func TestSimNoteFlowWithHoldAndAck(t *testing.T) {
	h, clk := newUnit(t, Config{})
	h.poll()
	enable(h)
	require.NoError(t, h.s.InsertNote(2000))
	assert.Equal(t, []essp.Event{ev(essp.EvReadNote, 0)}, h.poll())
	clk.Advance(UnitTiming.Read)
	assert.Equal(t, []essp.Event{ev(essp.EvReadNote, 3)}, h.poll())
	// HOLD keeps it past the escrow timer, for as long as the host sends it.
	for range 3 {
		clk.Advance(UnitTiming.Escrow - time.Second)
		assert.Equal(t, []byte{essp.RespOK}, h.send(essp.CmdHold))
	}
	assert.Equal(t, "escrow", h.s.State())
	// The next poll stacks it.
	assert.Equal(t, []essp.Event{ev(essp.EvNoteStacking)}, h.poll())
	clk.Advance(UnitTiming.Stack)
	assert.Equal(t, []essp.Event{ev(essp.EvCreditNote, 3), ev(essp.EvNoteStacking)}, h.poll())
	clk.Advance(UnitTiming.Stacked)
	// Not acknowledged: the credit comes again, with what happened since.
	assert.Equal(t, []essp.Event{ev(essp.EvCreditNote, 3), ev(essp.EvNoteStacked)}, h.poll())
	assert.ErrorIs(t, h.s.InsertNote(500), ErrBusy, "no note action before the ack")
	assert.Equal(t, []essp.Event{ev(essp.EvCreditNote, 3)}, h.poll())
	assert.Equal(t, []byte{essp.RespOK}, h.send(essp.CmdEventAck))
	assert.Empty(t, h.poll())
	c := h.s.Counts()
	assert.Equal(t, 1, c.Stacked)
	assert.Equal(t, int64(2000), c.StackedSum)
	assert.Equal(t, 1, c.Acked)
}

func TestSimPlainPollReportsOnce(t *testing.T) {
	h, clk := newUnit(t, Config{})
	h.poll()
	enable(h)
	require.NoError(t, h.s.InsertNote(500))
	clk.Advance(UnitTiming.Read)
	h.poll()
	h.send(essp.CmdPoll) // stacks
	clk.Advance(UnitTiming.Stack)
	a := h.send(essp.CmdPoll)
	assert.Equal(t, essp.AppendEvents([]byte{essp.RespOK}, ev(essp.EvCreditNote, 1), ev(essp.EvNoteStacking)), a)
	a = h.send(essp.CmdPoll)
	assert.Equal(t, essp.AppendEvents([]byte{essp.RespOK}, ev(essp.EvNoteStacking)), a, "plain POLL: the credit was given once")
}

func TestSimEscrowTimeoutAndReject(t *testing.T) {
	h, clk := newUnit(t, Config{})
	h.poll()
	enable(h)
	require.NoError(t, h.s.InsertNote(1000))
	clk.Advance(UnitTiming.Read)
	h.poll()
	clk.Advance(UnitTiming.Escrow)
	assert.Equal(t, []essp.Event{ev(essp.EvNoteRejecting)}, h.poll(), "no HOLD nor poll for 10 s: given back")
	clk.Advance(UnitTiming.Reject)
	assert.Equal(t, []essp.Event{ev(essp.EvNoteRejected)}, h.poll())
	assert.Equal(t, []byte{essp.RespOK, RejectEscrowTimeout}, h.send(essp.CmdLastRejectCode))

	require.NoError(t, h.s.InsertNote(1000))
	clk.Advance(UnitTiming.Read)
	h.poll()
	assert.Equal(t, []byte{essp.RespOK}, h.send(essp.CmdReject))
	clk.Advance(UnitTiming.Reject)
	assert.Equal(t, []essp.Event{ev(essp.EvNoteRejected)}, h.poll())
	assert.Equal(t, []byte{essp.RespOK, RejectByHost}, h.send(essp.CmdLastRejectCode))

	// An inhibited channel is refused by the unit itself.
	assert.Equal(t, []byte{essp.RespOK}, h.send(essp.CmdSetInhibits, 0x01, 0x00))
	require.NoError(t, h.s.InsertNote(1000))
	clk.Advance(UnitTiming.Read)
	assert.Equal(t, []essp.Event{ev(essp.EvNoteRejecting)}, h.poll())
	assert.Equal(t, []byte{essp.RespOK, RejectInhibited}, h.send(essp.CmdLastRejectCode))
	assert.Equal(t, 3, h.s.Counts().Returned+1)
}

func keyExchange(h *host, fixed uint64) {
	le := func(c byte, v uint64) []byte { return binary.LittleEndian.AppendUint64([]byte{c}, v) }
	const g, p, secret = 982451653, 2147483647, 0x2468ACE
	assert.Equal(h.t, []byte{essp.RespOK}, h.send(le(essp.CmdSetGenerator, g)...))
	assert.Equal(h.t, []byte{essp.RespOK}, h.send(le(essp.CmdSetModulus, p)...))
	a := h.send(le(essp.CmdRequestKeyExchange, essp.PowMod(g, secret, p))...)
	require.Len(h.t, a, 9)
	h.key = essp.NewSession(fixed, essp.PowMod(binary.LittleEndian.Uint64(a[1:]), secret, p))
}

func TestSimEncryption(t *testing.T) {
	h, _ := newUnit(t, Config{RequireEncryption: true})
	assert.Equal(t, []byte{essp.RespKeyNotSet}, h.send(essp.CmdEnable), "money commands need the key")
	assert.NotEqual(t, []byte{essp.RespKeyNotSet}, h.send(essp.CmdSerialNumber), "identity does not")
	// An encrypted packet without a key: KEY NOT SET, in plain.
	h.key = essp.NewSession(essp.DefaultFixedKey, 1)
	assert.Equal(t, []byte{essp.RespKeyNotSet}, h.send(essp.CmdPoll))
	h.key = nil
	keyExchange(h, essp.DefaultFixedKey)
	assert.True(t, h.s.Encrypted())
	enable(h)
	evs := h.poll()
	assert.Contains(t, evs, ev(essp.EvSlaveReset))
	// A replayed packet (an old count) is ignored: no answer, nothing done.
	old := h.key.Count
	h.key.Count = old - 1
	assert.Nil(t, h.send(essp.CmdDisable))
	h.seq = !h.seq // unheard: the next command is a new one with a fresh flag
	h.key.Count = old
	on, _ := h.s.Enabled()
	assert.True(t, on)
	// A wrong key: ignored as noise.
	good := h.key
	h.key = essp.NewSession(0x1111, 2)
	assert.Nil(t, h.send(essp.CmdDisable))
	h.seq = !h.seq
	h.key = good
	assert.Greater(t, h.s.Counts().BadFrames, 1)
	assert.Empty(t, h.poll())
}

func TestSimPowerCutWithNoteInPath(t *testing.T) {
	cases := []struct {
		name    string
		steps   func(h *host, clk *fakeClock)
		want    essp.Event
		stacked int
	}{
		{"reading", func(h *host, clk *fakeClock) {}, ev(essp.EvClearedFromFront, 0), 0},
		{"escrow", func(h *host, clk *fakeClock) { clk.Advance(UnitTiming.Read); h.poll() }, ev(essp.EvClearedFromFront, 2), 0},
		{"stacking", func(h *host, clk *fakeClock) { clk.Advance(UnitTiming.Read); h.poll(); h.poll() }, ev(essp.EvClearedToCashBox, 2), 1},
		{"credited, not acknowledged", func(h *host, clk *fakeClock) {
			clk.Advance(UnitTiming.Read)
			h.poll()
			h.poll()
			clk.Advance(UnitTiming.Stack)
			h.poll()
		}, ev(essp.EvClearedToCashBox, 2), 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, clk := newUnit(t, Config{})
			h.poll()
			enable(h)
			require.NoError(t, h.s.InsertNote(1000))
			c.steps(h, clk)
			h.s.PowerCut()
			assert.Nil(t, h.send(essp.CmdPoll), "off: silent")
			h.s.PowerOn()
			h.send(essp.CmdSync)
			assert.Equal(t, []essp.Event{ev(essp.EvSlaveReset), c.want, ev(essp.EvDisabled)}, h.poll())
			assert.Equal(t, c.stacked, h.s.Counts().Stacked)
			assert.Equal(t, []byte{essp.RespOK}, h.send(essp.CmdEventAck))
			assert.Equal(t, []essp.Event{ev(essp.EvDisabled)}, h.poll())
		})
	}
}

func TestSimUnitFaults(t *testing.T) {
	h, clk := newUnit(t, Config{Capacity: 1})
	h.poll()
	enable(h)
	require.NoError(t, h.s.InsertFraud(500))
	clk.Advance(UnitTiming.Read)
	assert.Equal(t, []essp.Event{ev(essp.EvFraudAttempt, 1)}, h.poll())
	h.send(essp.CmdEventAck)
	// A jam while stacking stops the note; staff takes it out; nothing is credited.
	require.NoError(t, h.s.InsertNote(500))
	clk.Advance(UnitTiming.Read)
	h.poll()
	h.poll()
	require.NoError(t, h.s.Inject(SafeJam, 0))
	clk.Advance(time.Minute)
	assert.Equal(t, []essp.Event{ev(essp.EvSafeJam)}, h.poll())
	h.s.Clear()
	assert.Empty(t, h.poll())
	assert.Equal(t, 1, h.s.Counts().Removed)
	assert.Zero(t, h.s.Counts().Credits)
	require.NoError(t, h.s.Inject(CashBoxRemoved, 0))
	assert.Equal(t, []essp.Event{ev(essp.EvCashBoxRemoved)}, h.poll())
	assert.ErrorIs(t, h.s.InsertNote(500), ErrDisabled)
	h.s.Clear()
	assert.Equal(t, []essp.Event{ev(essp.EvCashBoxReplaced)}, h.poll())
	// Capacity 1: the first note stacked fills it.
	require.NoError(t, h.s.InsertNote(500))
	clk.Advance(UnitTiming.Read)
	h.poll()
	h.poll()
	clk.Advance(UnitTiming.Stack + UnitTiming.Stacked)
	h.poll()
	h.send(essp.CmdEventAck)
	assert.Equal(t, []essp.Event{ev(essp.EvStackerFull)}, h.poll())
	assert.ErrorIs(t, h.s.Inject("smoke", 1), ErrFault)
}
