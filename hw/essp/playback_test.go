package essp

import (
	"context"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/hw"
	"pharaon/hw/essp/essptest"
	"pharaon/hw/hwtest"
	"pharaon/hw/validator"
)

type instantClock struct{}

func (instantClock) Now() time.Time { return time.Unix(0, 0) }
func (instantClock) Sleep(ctx context.Context, _ time.Duration) error {
	return ctx.Err()
}

// seeded is a deterministic stream of "random" bytes: two with the same seed give the same bytes,
// so a test can predict the host's primes, secret and packing.
func seeded(seed uint64) io.Reader { return rand.NewChaCha8([32]byte{byte(seed)}) }

// unitScript writes a conversation from the unit's side: it toggles the flag as the host must,
// and encrypts as the host must with the host's predicted random stream.
type unitScript struct {
	host, unit io.Reader
	seq        bool
	hs         *Session // the host's view of the key (its count)
	ops        []hwtest.Exchange
}

func newScript(seed uint64) *unitScript {
	return &unitScript{host: seeded(seed), unit: seeded(seed + 1000)}
}

// cmd adds one exchange: the host's command and the unit's answer (resp then data).
func (s *unitScript) cmd(t *testing.T, data []byte, answer ...byte) {
	t.Helper()
	s.seq = !s.seq
	if data[0] == CmdSync {
		s.seq = true
	}
	w, r := data, answer
	if s.hs != nil {
		var err error
		c := s.hs.Count
		w, err = s.hs.Seal(c, data, s.host)
		require.NoError(t, err)
		r, err = s.hs.Seal(c+1, answer, s.unit)
		require.NoError(t, err)
		s.hs.Count = c + 1
	}
	s.ops = append(s.ops, hwtest.Exchange{Write: Encode(Frame{Seq: s.seq, Data: w}), Read: Encode(Frame{Seq: s.seq, Data: r})})
}

// keyExchange scripts the three commands with the host's predicted primes and secret.
func (s *unitScript) keyExchange(t *testing.T) {
	g, p, err := drawPrimes(s.host)
	require.NoError(t, err)
	var sb [8]byte
	_, _ = io.ReadFull(s.host, sb[:])
	secret := binary.LittleEndian.Uint64(sb[:])>>1 | 1
	le := func(c byte, v uint64) []byte { return binary.LittleEndian.AppendUint64([]byte{c}, v) }
	s.cmd(t, le(CmdSetGenerator, g), RespOK)
	s.cmd(t, le(CmdSetModulus, p), RespOK)
	const unitSecret = 0x1234567
	unitInter := PowMod(g, unitSecret, p)
	s.cmd(t, le(CmdRequestKeyExchange, PowMod(g, secret, p)), le(RespOK, unitInter)...)
	s.hs = NewSession(DefaultFixedKey, PowMod(PowMod(g, secret, p), unitSecret, p))
}

var testSetup = Setup{UnitType: UnitValidator, Firmware: "0420", Country: "EUR", ValueMultiplier: 1,
	Channels:       []Channel{{5, "EUR", 2}, {10, "EUR", 2}, {20, "EUR", 2}, {50, "EUR", 2}, {100, "EUR", 2}},
	RealMultiplier: 100, Protocol: 6}

// startup scripts a session's start against an idle unit with nothing in escrow; 5-50 € taken.
func (s *unitScript) startup(t *testing.T, encrypted bool) {
	s.hs = nil
	s.cmd(t, []byte{CmdSync}, RespOK)
	s.cmd(t, []byte{CmdHostProtocol, 6}, RespOK)
	if encrypted {
		s.keyExchange(t)
	}
	s.cmd(t, []byte{CmdSerialNumber}, RespOK, 0x00, 0x01, 0xE2, 0x40)
	s.cmd(t, []byte{CmdSetupRequest}, AppendSetup([]byte{RespOK}, testSetup)...)
	s.cmd(t, []byte{CmdFirmwareVersion}, append([]byte{RespOK}, "NV0200420EUR0001"...)...)
	s.cmd(t, []byte{CmdSetInhibits, 0x0F, 0x00}, RespOK)
	s.cmd(t, []byte{CmdHold}, RespCannotProcess)
}

func (s *unitScript) poll(t *testing.T, evs ...Event) {
	t.Helper()
	s.cmd(t, []byte{CmdPollWithAck}, AppendEvents([]byte{RespOK}, evs...)...)
}

type events struct {
	mu  sync.Mutex
	all []validator.Event
}

func (e *events) on(ev validator.Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
}

func (e *events) count(k validator.EventKind) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, ev := range e.all {
		if ev.Kind == k {
			n++
		}
	}
	return n
}

// play runs a host against the conversation until it is over.
func play(t *testing.T, w validator.Wallet, seed uint64, plain bool, ops []hwtest.Exchange) *events {
	t.Helper()
	pb := hwtest.NewPlayback(ops...)
	var dials atomic.Int32
	rec := &events{}
	cfg := Config{Clock: instantClock{}, OnEvent: rec.on, Random: seeded(seed), Plain: plain}
	h, err := New(func() (hw.Port, error) {
		if dials.Add(1) == 1 {
			return pb, nil
		}
		return nil, &hw.Error{Op: "open", Kind: hw.ErrNotFound}
	}, w, cfg)
	require.NoError(t, err)
	h.SetAccepting(true)
	require.NoError(t, h.Start())
	select {
	case <-pb.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("conversation not finished")
	}
	require.NoError(t, h.Close())
	require.NoError(t, pb.Err(), "the host said something else than the unit expected")
	return rec
}

func TestPlaybackKeyExchangeAndWholeNote(t *testing.T) {
	w := &essptest.Wallet{}
	s := newScript(7)
	s.startup(t, true)
	s.poll(t, Event{Code: EvSlaveReset}, Event{Code: EvDisabled}) // as after power-up
	s.cmd(t, []byte{CmdEnable}, RespOK)
	s.poll(t, Event{Code: EvReadNote})
	s.poll(t, Event{Code: EvReadNote, Channel: 3})
	s.cmd(t, []byte{CmdHold}, RespOK)
	s.poll(t, Event{Code: EvNoteStacking}) // this poll let the unit stack
	s.poll(t, Event{Code: EvCreditNote, Channel: 3}, Event{Code: EvNoteStacking})
	s.cmd(t, []byte{CmdEventAck}, RespOK)
	s.poll(t, Event{Code: EvNoteStacked})
	s.poll(t)
	rec := play(t, w, 7, false, s.ops)
	bal, intents, credits := w.Snapshot()
	assert.Equal(t, int64(2000), bal)
	require.Len(t, credits, 1)
	assert.Equal(t, intents[0].ID, credits[0].IntentID)
	assert.Equal(t, 1, rec.count(validator.EventCredited))
}

func TestPlaybackCreditAcknowledgedOnlyAfterCommit(t *testing.T) {
	// The kiosk fails its commit twice: no EVENT ACK, the unit repeats the credit.
	w := &essptest.Wallet{}
	w.FailNext(2)
	s := newScript(8)
	s.startup(t, false)
	s.poll(t, Event{Code: EvReadNote, Channel: 1})
	s.cmd(t, []byte{CmdHold}, RespOK)
	s.poll(t, Event{Code: EvNoteStacking})
	s.poll(t, Event{Code: EvCreditNote, Channel: 1})
	s.poll(t, Event{Code: EvCreditNote, Channel: 1})
	s.poll(t, Event{Code: EvCreditNote, Channel: 1})
	s.cmd(t, []byte{CmdEventAck}, RespOK)
	s.poll(t, Event{Code: EvCreditNote, Channel: 1}) // the ack's answer was lost
	s.cmd(t, []byte{CmdEventAck}, RespOK)
	s.poll(t, Event{Code: EvNoteStacked})
	rec := play(t, w, 8, true, s.ops)
	bal, _, credits := w.Snapshot()
	assert.Equal(t, int64(500), bal)
	assert.Len(t, credits, 1)
	assert.Equal(t, 2, rec.count(validator.EventCreditFailed))
	assert.Equal(t, 1, rec.count(validator.EventAckRepeated))
}

func TestPlaybackNoteRefusedByKiosk(t *testing.T) {
	w := &essptest.Wallet{}
	w.SetRefuse(true)
	s := newScript(9)
	s.startup(t, true)
	s.poll(t, Event{Code: EvReadNote, Channel: 2})
	s.cmd(t, []byte{CmdHold}, RespOK)
	s.cmd(t, []byte{CmdReject}, RespOK)
	s.poll(t, Event{Code: EvNoteRejecting})
	s.poll(t, Event{Code: EvNoteRejected})
	s.cmd(t, []byte{CmdLastRejectCode}, RespOK, 0x08)
	s.poll(t)
	rec := play(t, w, 9, false, s.ops)
	bal, _, credits := w.Snapshot()
	assert.Zero(t, bal)
	assert.Empty(t, credits)
	assert.Equal(t, 1, rec.count(validator.EventEscrow))
}

func TestPlaybackNoteOfAValueNotTaken(t *testing.T) {
	// Channel 5 (100 €) is inhibited by the kiosk; if the unit reads it anyway, the host gives it
	// back without asking the kiosk.
	w := &essptest.Wallet{}
	s := newScript(10)
	s.startup(t, false)
	s.poll(t, Event{Code: EvReadNote, Channel: 5})
	s.cmd(t, []byte{CmdHold}, RespOK)
	s.cmd(t, []byte{CmdReject}, RespOK)
	s.poll(t, Event{Code: EvNoteRejected})
	s.cmd(t, []byte{CmdLastRejectCode}, RespOK, 0x08)
	play(t, w, 10, true, s.ops)
	_, intents, _ := w.Snapshot()
	assert.Empty(t, intents)
}

func TestPlaybackRejectReasonForTheScreens(t *testing.T) {
	w := &essptest.Wallet{}
	s := newScript(15)
	s.startup(t, false)
	s.poll(t, Event{Code: EvReadNote})
	s.poll(t, Event{Code: EvNoteRejecting})
	s.poll(t, Event{Code: EvNoteRejected})
	s.cmd(t, []byte{CmdLastRejectCode}, RespOK, 0x06)
	rec := play(t, w, 15, true, s.ops)
	var got validator.Status
	for _, e := range rec.all {
		if e.Kind == validator.EventState && e.Status.Code == "EC" {
			got = e.Status
		}
	}
	assert.Equal(t, validator.Status{State: validator.StateRejecting, Code: "EC", Text: "note rejected: channel inhibit",
		Reason: "inhibited_denomination"}, got)
}

func TestPlaybackPowerUpWithNote(t *testing.T) {
	// The unit lost power while stacking a note the kiosk accepted: the key is gone (KEY NOT SET),
	// the host negotiates again, and the unit reports the note cleared into the cash box.
	w := &essptest.Wallet{}
	s := newScript(11)
	s.startup(t, true)
	s.poll(t, Event{Code: EvReadNote, Channel: 2})
	s.cmd(t, []byte{CmdHold}, RespOK)
	// Power cut: the next encrypted poll is answered in plain, key not set.
	s.seq = !s.seq
	c := s.hs.Count
	wire, err := s.hs.Seal(c, []byte{CmdPollWithAck}, s.host)
	require.NoError(t, err)
	s.ops = append(s.ops, hwtest.Exchange{Write: Encode(Frame{Seq: s.seq, Data: wire}), Read: Encode(Frame{Seq: s.seq, Data: []byte{RespKeyNotSet}})})
	s.startup(t, true)
	s.poll(t, Event{Code: EvSlaveReset}, Event{Code: EvClearedToCashBox, Channel: 2}, Event{Code: EvDisabled})
	s.cmd(t, []byte{CmdEventAck}, RespOK)
	// The slave reset was before this setup: the host only enables the unit again.
	s.cmd(t, []byte{CmdEnable}, RespOK)
	s.poll(t)
	rec := play(t, w, 11, false, s.ops)
	bal, intents, _ := w.Snapshot()
	assert.Equal(t, int64(1000), bal)
	require.Len(t, intents, 1)
	assert.True(t, intents[0].Credited)
	assert.Equal(t, []validator.Place{validator.InStacker}, w.PowerUps())
	assert.GreaterOrEqual(t, rec.count(validator.EventLineError), 1)
}

func TestPlaybackPowerUpUnresolvedKeepsUnitDisabled(t *testing.T) {
	// The kiosk cannot resolve the power-up at first: no EVENT ACK and no ENABLE until it can.
	w := &essptest.Wallet{}
	w.FailNext(1)
	s := newScript(12)
	s.startup(t, false)
	s.poll(t, Event{Code: EvSlaveReset}, Event{Code: EvClearedFromFront, Channel: 1}, Event{Code: EvDisabled})
	s.poll(t, Event{Code: EvClearedFromFront, Channel: 1}, Event{Code: EvDisabled})
	s.cmd(t, []byte{CmdEventAck}, RespOK)
	s.cmd(t, []byte{CmdEnable}, RespOK)
	s.poll(t)
	rec := play(t, w, 12, true, s.ops)
	assert.Equal(t, []validator.Place{validator.InAcceptor}, w.PowerUps())
	assert.Equal(t, 1, rec.count(validator.EventCreditFailed))
}

func TestPlaybackWrongCountRenegotiates(t *testing.T) {
	// An answer whose count is not the one expected (a replayed or forged packet) is not acted
	// on: the host negotiates a new key and sets the unit up again.
	w := &essptest.Wallet{}
	s := newScript(13)
	s.startup(t, true)
	s.seq = !s.seq
	c := s.hs.Count
	wire, err := s.hs.Seal(c, []byte{CmdPollWithAck}, s.host)
	require.NoError(t, err)
	replay, err := s.hs.Seal(c, AppendEvents([]byte{RespOK}, Event{Code: EvCreditNote, Channel: 4}), s.unit)
	require.NoError(t, err)
	s.ops = append(s.ops, hwtest.Exchange{Write: Encode(Frame{Seq: s.seq, Data: wire}), Read: Encode(Frame{Seq: s.seq, Data: replay})})
	s.startup(t, true)
	s.poll(t)
	rec := play(t, w, 13, false, s.ops)
	bal, _, _ := w.Snapshot()
	assert.Zero(t, bal, "the replayed credit was not acted on")
	assert.Equal(t, 1, rec.count(validator.EventLineError))
}

func TestPlaybackUnknownEventChangesNothing(t *testing.T) {
	w := &essptest.Wallet{}
	s := newScript(14)
	s.startup(t, false)
	s.cmd(t, []byte{CmdPollWithAck}, RespOK, EvCreditNote, 0x02, 0x42) // 0x42: no such event
	s.poll(t, Event{Code: EvCreditNote, Channel: 2})
	s.cmd(t, []byte{CmdEventAck}, RespOK)
	rec := play(t, w, 14, true, s.ops)
	assert.Equal(t, 1, rec.count(validator.EventAnomaly))
	_, _, credits := w.Snapshot()
	assert.Empty(t, credits, "no open intent: a recovered credit credits nothing")
	assert.Equal(t, 1, rec.count(validator.EventCredited), "credited once, at the second answer")
}

func TestPlaybackStaleEncryptedAnswerToSyncIsRetried(t *testing.T) {
	// The unit was still sending an encrypted answer of the lost session when the new one began:
	// the host takes it for what it is, not this SYNC's answer, and sends SYNC again.
	w := &essptest.Wallet{}
	s := newScript(16)
	stale, err := NewSession(DefaultFixedKey, 99).Seal(7, []byte{RespOK}, seeded(1))
	require.NoError(t, err)
	sync := Encode(Frame{Seq: true, Data: []byte{CmdSync}})
	s.ops = append(s.ops, hwtest.Exchange{Write: sync, Read: Encode(Frame{Seq: true, Data: stale})})
	s.startup(t, false)
	s.poll(t)
	rec := play(t, w, 16, true, s.ops)
	assert.Equal(t, 1, rec.count(validator.EventLineError))
	assert.Equal(t, 1, rec.count(validator.EventConfigured))
}

func TestPlaybackHoldRefusedGivesTheNoteBack(t *testing.T) {
	// A unit that does not take HOLD for a note it reports in escrow: the next poll would stack a
	// note nobody decided on, so the host rejects it without asking the kiosk.
	w := &essptest.Wallet{}
	s := newScript(17)
	s.startup(t, false)
	s.poll(t, Event{Code: EvReadNote, Channel: 2})
	s.cmd(t, []byte{CmdHold}, RespCannotProcess)
	s.cmd(t, []byte{CmdReject}, RespOK)
	s.poll(t, Event{Code: EvNoteRejecting})
	play(t, w, 17, true, s.ops)
	_, intents, _ := w.Snapshot()
	assert.Empty(t, intents)
}
