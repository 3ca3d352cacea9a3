// Package esspsim simulates an Innovative Technology note validator speaking SSP and eSSP on a
// pseudo-terminal, byte for byte, for the tests and the development run: any SSP host, not only
// hw/essp, can drive it.
//
// It answers every command a host may send to a note validator (reset, sync, host protocol
// version, setup request, unit data, channel value and security requests, serial number, firmware
// and dataset versions, set inhibits, enable, disable, poll, poll with ack, event ack, hold, reject,
// last reject code, display on and off, set generator, set modulus, request key exchange, and any
// of them wrapped in an encrypted packet) and answers COMMAND NOT KNOWN (F2) to anything else,
// WRONG NUMBER OF PARAMETERS (F3) to a command of the wrong length. A host that never negotiates a
// key talks plain SSP; a unit configured to require encryption answers KEY NOT SET (FA) to the
// commands that move notes when they come in plain.
//
// The unit's timing runs on Config.Clock: a note is read, held in escrow until the host decides
// (the next poll stacks it, HOLD keeps it, REJECT gives it back; without any of them it goes back
// after Timing.Escrow), stacked, and credited. Faults are scripted: on the line (silence, bad CRC,
// garbage, split and merged answers, unplug), in the unit (safe and unsafe jams, stacker full, cash
// box removed, note path open, a fraud attempt, a counterfeit), and power cuts at any moment, after
// which the unit reports a note that was in its path as cleared from the front or into the cash box.
//
// The simulator must never reach into a host: everything goes through the pty.
package esspsim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"time"

	"pharaon/hw/essp"
	"pharaon/hw/sim"
)

// EURSetup is the simulated unit's table: a euro NV9 with 5 to 500 € notes on channels 1 to 7.
var EURSetup = essp.Setup{UnitType: essp.UnitValidator, Firmware: "0420", Country: "EUR", ValueMultiplier: 1,
	Channels: []essp.Channel{{Value: 5, Country: "EUR", Security: 2}, {Value: 10, Country: "EUR", Security: 2},
		{Value: 20, Country: "EUR", Security: 2}, {Value: 50, Country: "EUR", Security: 2},
		{Value: 100, Country: "EUR", Security: 2}, {Value: 200, Country: "EUR", Security: 2},
		{Value: 500, Country: "EUR", Security: 2}},
	RealMultiplier: 100, Protocol: 7}

// Config describes the simulated unit. Zero values take the defaults.
type Config struct {
	Setup    essp.Setup // its table and identity; default EURSetup
	Serial   uint32     // default 10203040
	Firmware string     // answer to FIRMWARE VERSION (16 characters); default "NV0200420EUR0SIM"
	Dataset  string     // answer to DATASET VERSION (8 characters); default "EUR01610"
	Address  byte
	FixedKey uint64 // default essp.DefaultFixedKey
	// RequireEncryption: the commands that move notes are refused (FA) unless encrypted.
	RequireEncryption bool
	// NoPollWithAck: an older firmware that answers COMMAND NOT KNOWN to POLL WITH ACK and EVENT ACK.
	NoPollWithAck bool
	Timing        Durations // a zero field takes QuickTiming's
	Clock         Clock     // default: the system clock
	Capacity      int       // notes the cash box holds before STACKER FULL; default 1000
	Seed          uint64    // for garbage bytes, the unit's secret and packing
}

func (c *Config) fill() {
	if c.Setup.Channels == nil {
		c.Setup = EURSetup
	}
	if c.Serial == 0 {
		c.Serial = 10203040
	}
	if c.Firmware == "" {
		c.Firmware = "NV0200420EUR0SIM"
	}
	if c.Dataset == "" {
		c.Dataset = "EUR01610"
	}
	if c.FixedKey == 0 {
		c.FixedKey = essp.DefaultFixedKey
	}
	t, q := &c.Timing, QuickTiming
	for _, p := range []struct{ v, d *time.Duration }{{&t.Read, &q.Read}, {&t.Stack, &q.Stack},
		{&t.Stacked, &q.Stacked}, {&t.Reject, &q.Reject}, {&t.Escrow, &q.Escrow}} {
		if *p.v <= 0 {
			*p.v = *p.d
		}
	}
	if c.Clock == nil {
		c.Clock = systemClock{}
	}
	if c.Capacity <= 0 {
		c.Capacity = 1000
	}
}

// Fault is something that can go wrong, on the line or in the unit.
type Fault string

// Line faults, applied to the next n answers.
const (
	BadCRC  Fault = "bad-crc" // the answer's CRC is corrupted
	Split   Fault = "split"   // the answer is written one byte at a time, with pauses
	Merged  Fault = "merged"  // the answer is written twice, glued
	Garbage Fault = "garbage" // random bytes (a false STX among them) come before the answer
	Silence Fault = "silence" // no answer at all
	Deaf    Fault = "deaf"    // the unit does not hear the next n frames: it neither acts nor answers
)

// Unit faults: conditions that hold until Clear (staff).
const (
	SafeJam        Fault = "safe-jam"   // a note stuck past the bezel; the note being stacked stops there
	UnsafeJam      Fault = "unsafe-jam" // a note stuck where it could be pulled out from the front
	StackerFull    Fault = "stacker-full"
	CashBoxRemoved Fault = "cash-box-removed"
	NotePathOpen   Fault = "note-path-open"
)

var conditions = map[Fault]byte{SafeJam: essp.EvSafeJam, UnsafeJam: essp.EvUnsafeJam,
	StackerFull: essp.EvStackerFull, CashBoxRemoved: essp.EvCashBoxRemoved, NotePathOpen: essp.EvNotePathOpen}

var (
	ErrBusy     = errors.New("simulator: the unit is busy (a note in the path, or an event waiting for its ack)")
	ErrDisabled = errors.New("simulator: the unit does not take notes now")
	ErrUnknown  = errors.New("simulator: no such note")
	ErrFault    = errors.New("simulator: unknown fault")
	ErrOff      = errors.New("simulator: the unit is off")
	ErrClosed   = errors.New("simulator: closed")
)

// Reject codes (LAST REJECT CODE), as public hosts name them.
const (
	RejectAccepted      = 0x00
	RejectAverage       = 0x02 // a counterfeit's
	RejectInhibited     = 0x06
	RejectByHost        = 0x08
	RejectDisabled      = 0x0C
	RejectFraudChannel  = 0x0F
	RejectEscrowTimeout = 0x13
)

type phase int

const (
	idle      phase = iota
	reading         // drawn in and read
	escrow          // held, waiting for the host
	stacking        // accepted, on its way to the point of no return
	finishing       // past it (credited), on its way into the cash box
	rejecting       // going back to the bezel
)

var phaseNames = []string{"idle", "reading", "escrow", "stacking", "finishing", "rejecting"}

func (p phase) String() string { return phaseNames[p] }

type note struct {
	ch     byte
	cents  int64
	reason byte // a counterfeit: rejected with this code
	fraud  bool
}

// Counts is the truth of the simulated cash box and of the conversation.
type Counts struct {
	Stacked    int     // notes in the cash box
	StackedSum int64   // their value, cents
	Values     []int64 // each stacked note's value, in order
	Returned   int     // notes given back to the player
	Removed    int     // notes staff took out of a jam
	Credits    int     // CREDIT NOTE events raised (one per note past the point of no return)
	Acked      int     // EVENT ACKs that took a credit
	BadFrames  int     // frames ignored: bad CRC, or an encrypted packet that failed its checks
	PowerUps   int
}

// Sim is one simulated unit.
type Sim struct {
	cfg Config

	mu        sync.Mutex
	on        bool
	enabled   bool
	inhibits  [2]byte
	protocol  byte
	display   bool
	phase     phase
	note      *note
	seen      bool // the note in escrow was reported by a poll: the next poll stacks it
	credited  bool // the note being finished had its credit raised
	rejected  byte // last reject code
	gen       uint64
	timer     Timer
	queue     []queued
	condition map[Fault]bool

	generator, modulus uint64
	key                *essp.Session
	count              uint32 // the count the next encrypted packet from the host must carry

	seqValid   bool
	lastSeq    bool
	lastAnswer []byte

	line   map[Fault]int
	counts Counts
	cmds   map[byte]int
	rng    *rand.Rand
	rngSrc *rand.ChaCha8

	link    string
	pty     *sim.PTY
	serving sync.WaitGroup
	closed  bool
}

// queued is an event waiting for a poll; reported says a POLL WITH ACK gave it (one needing an
// ack then waits for EVENT ACK).
type queued struct {
	ev       essp.Event
	reported bool
}

// New builds a unit that has just been powered on; Start puts it on a pty.
func New(cfg Config) *Sim {
	cfg.fill()
	var seed [32]byte
	for i := range 8 {
		seed[i] = byte(cfg.Seed >> (8 * i))
	}
	src := rand.NewChaCha8(seed)
	s := &Sim{cfg: cfg, line: map[Fault]int{}, cmds: map[byte]int{}, condition: map[Fault]bool{},
		rng: rand.New(src), rngSrc: src}
	s.powerOnLocked()
	return s
}

// Start opens the pty (with a stable symlink at link, if not "") and serves the host.
func (s *Sim) Start(link string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.link = link
	return s.plugLocked()
}

func (s *Sim) plugLocked() error {
	if s.closed {
		return ErrClosed
	}
	if s.pty != nil {
		return nil
	}
	p, err := sim.OpenPTY(s.link)
	if err != nil {
		return fmt.Errorf("simulator: %w", err)
	}
	s.pty = p
	s.serving.Add(1)
	go s.serve(p)
	return nil
}

// Path is what the host opens.
func (s *Sim) Path() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pty == nil {
		return s.link
	}
	return s.pty.Path
}

// Unplug pulls the cable: the host's reads fail and the path vanishes. The unit keeps its state.
func (s *Sim) Unplug() error {
	s.mu.Lock()
	p := s.pty
	s.pty = nil
	s.mu.Unlock()
	if p == nil {
		return nil
	}
	err := p.Close()
	s.serving.Wait()
	return err
}

// Replug puts the cable back, at the same stable path.
func (s *Sim) Replug() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.plugLocked()
}

// Close unplugs for good and stops the unit's clock.
func (s *Sim) Close() error {
	s.mu.Lock()
	s.closed = true
	s.stopTimer()
	s.mu.Unlock()
	return s.Unplug()
}

// serve reads the host's bytes and answers. A frame left incomplete for more than 100 ms is
// dropped (the unit's inter-byte timeout); a frame with a bad CRC is ignored, so the host, hearing
// nothing, sends it again.
func (s *Sim) serve(p *sim.PTY) {
	defer s.serving.Done()
	var dec essp.Decoder
	rd := make([]byte, 512)
	var lastByte time.Time
	for {
		n, err := p.Master.Read(rd)
		if err != nil {
			if errors.Is(err, os.ErrClosed) {
				return
			}
			// EIO: no host holds the line. Wait for one.
			time.Sleep(10 * time.Millisecond)
			s.mu.Lock()
			gone := s.pty != p
			s.mu.Unlock()
			if gone {
				return
			}
			continue
		}
		now := time.Now()
		if now.Sub(lastByte) > 100*time.Millisecond {
			dec.Reset()
		}
		lastByte = now
		dec.Feed(rd[:n])
		for {
			f, ok, derr := dec.Next()
			if derr != nil {
				s.mu.Lock()
				s.counts.BadFrames++
				s.mu.Unlock()
				continue
			}
			if !ok {
				break
			}
			if b, fault := s.Handle(f); b != nil {
				write(p, b, fault)
			}
		}
	}
}

func write(p *sim.PTY, b []byte, fault Fault) {
	if fault == Split {
		for _, c := range b {
			if _, err := p.Master.Write([]byte{c}); err != nil {
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
		return
	}
	_, _ = p.Master.Write(b)
}

// Handle answers one frame as the unit does (exported for tests of hosts without a pty). It returns
// the encoded answer (nil: none) and the line fault applied to it.
func (s *Sim) Handle(f essp.Frame) ([]byte, Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.handleLocked(f)
	if a == nil {
		return nil, ""
	}
	return s.faultLocked(a)
}

func (s *Sim) faultLocked(b []byte) ([]byte, Fault) {
	take := func(f Fault) bool {
		if s.line[f] > 0 {
			s.line[f]--
			return true
		}
		return false
	}
	if take(Silence) {
		return nil, Silence
	}
	var fault Fault
	if take(BadCRC) {
		b = slices.Clone(b)
		b[len(b)-1] ^= 0x5A
		if b[len(b)-1] == essp.STX || b[len(b)-2] == essp.STX {
			b[len(b)-1] ^= 0x01
		}
		fault = BadCRC
	}
	if take(Garbage) {
		g := make([]byte, 3+s.rng.IntN(10))
		for i := range g {
			g[i] = byte(s.rng.IntN(256))
		}
		g[0] = essp.STX // a false start
		b = append(g, b...)
		fault = Garbage
	}
	if take(Merged) {
		b = append(slices.Clone(b), b...)
		fault = Merged
	}
	if take(Split) {
		fault = Split
	}
	return b, fault
}

// moneyCommands move notes or change what the unit takes: refused in plain when the unit requires
// encryption (a guess at the set: public documents list the payout commands; these are a
// validator's equivalent).
var moneyCommands = map[byte]bool{essp.CmdEnable: true, essp.CmdDisable: true, essp.CmdSetInhibits: true,
	essp.CmdPoll: true, essp.CmdPollWithAck: true, essp.CmdEventAck: true, essp.CmdHold: true, essp.CmdReject: true}

func (s *Sim) handleLocked(f essp.Frame) []byte {
	if !s.on || f.Addr != s.cfg.Address {
		return nil
	}
	if s.line[Deaf] > 0 {
		s.line[Deaf]--
		return nil
	}
	// The same flag as the last command: the host did not hear the answer. Answer it again
	// without acting twice. SYNC is always acted on: it is how a host that lost track of the flag
	// (a restart) finds it again, and acting on it twice changes nothing.
	isSync := len(f.Data) == 1 && f.Data[0] == essp.CmdSync
	if s.seqValid && f.Seq == s.lastSeq && s.lastAnswer != nil && !isSync {
		return s.lastAnswer
	}
	data := f.Data
	encrypted := data[0] == essp.STEX
	var resp []byte
	var restart bool
	var newKey *essp.Session
	switch {
	case encrypted && s.key == nil:
		resp = []byte{essp.RespKeyNotSet}
		encrypted = false
	case encrypted:
		count, inner, err := s.key.Open(data)
		if err != nil || count != s.count {
			// A packet that fails its checks, or of the wrong count (replayed, or forged), is
			// ignored as noise.
			s.counts.BadFrames++
			return nil
		}
		s.count++
		s.cmds[inner[0]]++
		resp, restart, newKey = s.exec(inner)
	case s.cfg.RequireEncryption && moneyCommands[data[0]]:
		s.cmds[data[0]]++
		resp = []byte{essp.RespKeyNotSet}
	default:
		s.cmds[data[0]]++
		resp, restart, newKey = s.exec(data)
	}
	if encrypted {
		sealed, err := s.key.Seal(s.count, resp, s.rngSrc)
		if err != nil {
			resp = []byte{essp.RespSoftwareError}
		} else {
			resp = sealed
		}
	}
	if newKey != nil {
		s.key, s.count = newKey, 0
	}
	ans := essp.Encode(essp.Frame{Seq: f.Seq, Addr: s.cfg.Address, Data: resp})
	s.seqValid, s.lastSeq, s.lastAnswer = true, f.Seq, ans
	if !encrypted && data[0] == essp.CmdSync {
		// After SYNC the next command is a new one whatever its flag (hosts differ on the flag
		// they send SYNC and the next command with).
		s.seqValid = false
	}
	if restart {
		s.powerCutLocked()
		s.powerOnLocked()
		// The answer was sent before the restart; a retry of RESET is a new RESET.
	}
	return ans
}

func ok(data ...byte) []byte { return append([]byte{essp.RespOK}, data...) }

// exec runs one command and returns the answer's data.
func (s *Sim) exec(d []byte) (resp []byte, restart bool, newKey *essp.Session) {
	cmd, p := d[0], d[1:]
	want := func(n int) bool { return len(p) == n }
	switch cmd {
	case essp.CmdReset:
		if !want(0) {
			return []byte{essp.RespWrongParams}, false, nil
		}
		return ok(), true, nil
	case essp.CmdSync, essp.CmdDisplayOn, essp.CmdDisplayOff, essp.CmdEnable, essp.CmdDisable:
		if !want(0) {
			return []byte{essp.RespWrongParams}, false, nil
		}
		switch cmd {
		case essp.CmdDisplayOn, essp.CmdDisplayOff:
			s.display = cmd == essp.CmdDisplayOn
		case essp.CmdEnable:
			s.enabled = true
		case essp.CmdDisable:
			s.enabled = false
		}
		return ok(), false, nil
	case essp.CmdSetInhibits:
		if len(p) < 2 {
			return []byte{essp.RespWrongParams}, false, nil
		}
		copy(s.inhibits[:], p)
		return ok(), false, nil
	case essp.CmdHostProtocol:
		if !want(1) {
			return []byte{essp.RespWrongParams}, false, nil
		}
		if p[0] == 0 || p[0] > s.cfg.Setup.Protocol {
			return []byte{essp.RespFail}, false, nil
		}
		s.protocol = p[0]
		return ok(), false, nil
	case essp.CmdSetupRequest:
		if !want(0) {
			return []byte{essp.RespWrongParams}, false, nil
		}
		st := s.cfg.Setup
		st.Protocol = s.protocol
		return essp.AppendSetup(ok(), st), false, nil
	case essp.CmdUnitData:
		st := s.cfg.Setup
		b := ok(st.UnitType)
		b = append(b, pad(st.Firmware, 4)...)
		b = append(b, pad(st.Country, 3)...)
		b = append(b, byte(st.ValueMultiplier>>16), byte(st.ValueMultiplier>>8), byte(st.ValueMultiplier))
		return append(b, s.protocol), false, nil
	case essp.CmdChannelValues:
		ch := s.cfg.Setup.Channels
		b := ok(byte(len(ch)))
		for _, c := range ch {
			b = append(b, byte(min(c.Value, 255)))
		}
		if s.protocol >= 6 {
			for _, c := range ch {
				b = append(b, pad(c.Country, 3)...)
			}
			for _, c := range ch {
				b = append(b, byte(c.Value), byte(c.Value>>8), byte(c.Value>>16), byte(c.Value>>24))
			}
		}
		return b, false, nil
	case essp.CmdChannelSecurity:
		ch := s.cfg.Setup.Channels
		b := ok(byte(len(ch)))
		for _, c := range ch {
			b = append(b, c.Security)
		}
		return b, false, nil
	case essp.CmdSerialNumber:
		v := s.cfg.Serial
		return ok(byte(v>>24), byte(v>>16), byte(v>>8), byte(v)), false, nil
	case essp.CmdFirmwareVersion:
		return ok(pad(s.cfg.Firmware, 16)...), false, nil
	case essp.CmdDatasetVersion:
		return ok(pad(s.cfg.Dataset, 8)...), false, nil
	case essp.CmdLastRejectCode:
		return ok(s.rejected), false, nil
	case essp.CmdPoll, essp.CmdPollWithAck:
		if cmd == essp.CmdPollWithAck && s.cfg.NoPollWithAck {
			return []byte{essp.RespUnknown}, false, nil
		}
		if !want(0) {
			return []byte{essp.RespWrongParams}, false, nil
		}
		return s.poll(cmd == essp.CmdPollWithAck), false, nil
	case essp.CmdEventAck:
		if s.cfg.NoPollWithAck {
			return []byte{essp.RespUnknown}, false, nil
		}
		n := 0
		s.queue = slices.DeleteFunc(s.queue, func(q queued) bool {
			if q.reported && essp.NeedsAck(q.ev.Code) {
				n++
				if q.ev.Code == essp.EvCreditNote {
					s.counts.Acked++
				}
				return true
			}
			return false
		})
		if n == 0 {
			return []byte{essp.RespCannotProcess}, false, nil
		}
		return ok(), false, nil
	case essp.CmdHold:
		if s.phase != escrow {
			return []byte{essp.RespCannotProcess}, false, nil
		}
		s.setPhase(escrow) // the escrow timer starts again
		return ok(), false, nil
	case essp.CmdReject:
		if s.phase != escrow {
			return []byte{essp.RespCannotProcess}, false, nil
		}
		s.rejected = RejectByHost
		s.setPhase(rejecting)
		return ok(), false, nil
	case essp.CmdSetGenerator, essp.CmdSetModulus:
		if !want(8) {
			return []byte{essp.RespWrongParams}, false, nil
		}
		v := le64(p)
		if !essp.IsPrime(v) {
			return []byte{essp.RespOutOfRange}, false, nil
		}
		if cmd == essp.CmdSetGenerator {
			s.generator = v
		} else {
			s.modulus = v
		}
		return ok(), false, nil
	case essp.CmdRequestKeyExchange:
		if !want(8) {
			return []byte{essp.RespWrongParams}, false, nil
		}
		if s.generator == 0 || s.modulus == 0 {
			return []byte{essp.RespCannotProcess}, false, nil
		}
		secret := s.rng.Uint64()>>2 | 1
		inter := essp.PowMod(s.generator, secret, s.modulus)
		key := essp.PowMod(le64(p), secret, s.modulus)
		b := ok()
		for i := range 8 {
			b = append(b, byte(inter>>(8*i)))
		}
		return b, false, essp.NewSession(s.cfg.FixedKey, key)
	}
	return []byte{essp.RespUnknown}, false, nil
}

func le64(b []byte) uint64 {
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

func pad(s string, n int) []byte {
	b := []byte(s)
	for len(b) < n {
		b = append(b, ' ')
	}
	return b[:n]
}

// poll answers a poll: the events that happened once since the last poll, then the states that
// last. A poll with a note in escrow already reported lets the unit stack it.
func (s *Sim) poll(withAck bool) []byte {
	if s.phase == escrow && s.seen {
		s.setPhase(stacking)
	}
	var evs []essp.Event
	for i := range s.queue {
		evs = append(evs, s.queue[i].ev)
		s.queue[i].reported = s.queue[i].reported || withAck
	}
	if withAck {
		s.queue = slices.DeleteFunc(s.queue, func(q queued) bool { return !essp.NeedsAck(q.ev.Code) })
	} else {
		s.queue = nil
	}
	for _, f := range []Fault{SafeJam, UnsafeJam, NotePathOpen, CashBoxRemoved, StackerFull} {
		if s.condition[f] {
			evs = append(evs, essp.Event{Code: conditions[f]})
		}
	}
	switch s.phase {
	case reading:
		evs = append(evs, essp.Event{Code: essp.EvReadNote})
	case escrow:
		evs = append(evs, essp.Event{Code: essp.EvReadNote, Channel: s.note.ch})
		s.seen = true
	case stacking, finishing:
		if !s.condition[SafeJam] && !s.condition[UnsafeJam] {
			evs = append(evs, essp.Event{Code: essp.EvNoteStacking})
		}
	case rejecting:
		evs = append(evs, essp.Event{Code: essp.EvNoteRejecting})
	case idle:
		switch {
		case !s.enabled:
			evs = append(evs, essp.Event{Code: essp.EvDisabled})
		case s.inhibits == [2]byte{}:
			evs = append(evs, essp.Event{Code: essp.EvChannelDisable})
		}
	}
	return essp.AppendEvents(ok(), evs...)
}

func (s *Sim) push(e essp.Event) { s.queue = append(s.queue, queued{ev: e}) }

func (s *Sim) stopTimer() {
	s.gen++
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
}

// setPhase enters a phase and starts the timer of the ones the unit leaves on its own (again when
// it is the same: HOLD restarts the escrow timer).
func (s *Sim) setPhase(p phase) {
	s.phase = p
	s.stopTimer()
	var d time.Duration
	switch p {
	case reading:
		d = s.cfg.Timing.Read
	case escrow:
		d = s.cfg.Timing.Escrow
	case stacking:
		d = s.cfg.Timing.Stack
	case finishing:
		d = s.cfg.Timing.Stacked
	case rejecting:
		d = s.cfg.Timing.Reject
	}
	if d > 0 && !s.closed && s.on && !s.jammed() {
		gen := s.gen
		s.timer = s.cfg.Clock.AfterFunc(d, func() { s.expire(gen) })
	}
}

func (s *Sim) jammed() bool { return s.condition[SafeJam] || s.condition[UnsafeJam] }

func (s *Sim) expire(gen uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen != s.gen {
		return
	}
	s.timer = nil
	s.moveOn()
}

// moveOn is the unit ending, by itself, the phase whose time is up.
func (s *Sim) moveOn() {
	n := s.note
	switch s.phase {
	case reading:
		switch {
		case n.fraud:
			s.push(essp.Event{Code: essp.EvFraudAttempt, Channel: n.ch})
			s.rejected = RejectFraudChannel
			s.note = nil
			s.counts.Returned++
			s.phase = idle
		case n.reason != 0:
			s.rejected = n.reason
			s.setPhase(rejecting)
		case !s.enabled:
			s.rejected = RejectDisabled
			s.setPhase(rejecting)
		case s.inhibits[(n.ch-1)/8]&(1<<((n.ch-1)%8)) == 0:
			s.rejected = RejectInhibited
			s.setPhase(rejecting)
		default:
			s.seen = false
			s.setPhase(escrow)
		}
	case escrow:
		s.rejected = RejectEscrowTimeout
		s.setPhase(rejecting)
	case stacking:
		// The point of no return: the note is the host's to credit.
		s.stack(n)
		s.credited = true
		s.counts.Credits++
		s.push(essp.Event{Code: essp.EvCreditNote, Channel: n.ch})
		s.setPhase(finishing)
	case finishing:
		s.push(essp.Event{Code: essp.EvNoteStacked})
		s.note, s.credited = nil, false
		s.phase = idle
		if s.counts.Stacked >= s.cfg.Capacity {
			s.condition[StackerFull] = true
		}
	case rejecting:
		s.push(essp.Event{Code: essp.EvNoteRejected})
		s.note = nil
		s.counts.Returned++
		s.phase = idle
	}
}

func (s *Sim) stack(n *note) {
	s.counts.Stacked++
	s.counts.StackedSum += n.cents
	s.counts.Values = append(s.counts.Values, n.cents)
}

// powerCutLocked: the unit stops dead; what it had in RAM (events, key, settings) is lost.
func (s *Sim) powerCutLocked() {
	s.stopTimer()
	s.on = false
}

// powerOnLocked: the unit starts disabled, every channel inhibited, without a key, and reports
// SLAVE RESET; a note that was in its path is settled as it starts and reported: given back
// (NOTE CLEARED FROM FRONT, with its channel if it was read) or pushed into the cash box (NOTE
// CLEARED INTO CASH BOX) when it was accepted. A note past the point of no return whose credit
// the host had not acknowledged is reported cleared into the cash box too, so that the host learns
// of it (a guess: the documents do not say what a unit does with an event lost to a power cut).
func (s *Sim) powerOnLocked() {
	unacked := slices.ContainsFunc(s.queue, func(q queued) bool { return q.ev.Code == essp.EvCreditNote })
	s.on, s.enabled, s.inhibits = true, false, [2]byte{}
	s.protocol = min(6, s.cfg.Setup.Protocol)
	s.key, s.count, s.generator, s.modulus = nil, 0, 0, 0
	s.seqValid, s.lastAnswer = false, nil
	s.queue = []queued{{ev: essp.Event{Code: essp.EvSlaveReset}}}
	s.counts.PowerUps++
	n := s.note
	switch {
	case n == nil:
	case s.phase == stacking:
		s.stack(n)
		s.push(essp.Event{Code: essp.EvClearedToCashBox, Channel: n.ch})
	case s.phase == finishing || s.credited:
		if unacked {
			s.push(essp.Event{Code: essp.EvClearedToCashBox, Channel: n.ch})
		}
	default:
		ch := n.ch
		if s.phase == reading {
			ch = 0 // not read yet
		}
		s.counts.Returned++
		s.push(essp.Event{Code: essp.EvClearedFromFront, Channel: ch})
	}
	s.note, s.credited, s.seen = nil, false, false
	s.condition[SafeJam], s.condition[UnsafeJam] = false, false
	s.phase = idle
}

// InsertNote inserts a genuine note of the given value (it must be in the unit's table).
func (s *Sim) InsertNote(cents int64) error {
	ch := s.cfg.Setup.Channel(cents, "")
	if ch == 0 {
		return fmt.Errorf("%w: %d cents", ErrUnknown, cents)
	}
	return s.insert(&note{ch: ch, cents: cents})
}

// InsertCounterfeit inserts a note the unit rejects with the given reject code (0: average fail).
func (s *Sim) InsertCounterfeit(reason byte) error {
	if reason == 0 {
		reason = RejectAverage
	}
	return s.insert(&note{reason: reason})
}

// InsertFraud inserts a note of the given value on a string: the unit detects the attempt while
// reading it, reports FRAUD ATTEMPT with the channel and gives nothing.
func (s *Sim) InsertFraud(cents int64) error {
	ch := s.cfg.Setup.Channel(cents, "")
	if ch == 0 {
		return fmt.Errorf("%w: %d cents", ErrUnknown, cents)
	}
	return s.insert(&note{ch: ch, cents: cents, fraud: true})
}

func (s *Sim) insert(n *note) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case !s.on:
		return ErrOff
	case s.note != nil || slices.ContainsFunc(s.queue, func(q queued) bool { return essp.NeedsAck(q.ev.Code) && q.reported }):
		return ErrBusy
	case !s.enabled || len(s.conditionsOn()) > 0:
		return ErrDisabled
	}
	s.note = n
	s.setPhase(reading)
	return nil
}

func (s *Sim) conditionsOn() []Fault {
	var out []Fault
	for f, on := range s.condition {
		if on {
			out = append(out, f)
		}
	}
	return out
}

// Inject arms a line fault for the next n answers (n ≤ 0: one), or sets a unit fault.
func (s *Sim) Inject(f Fault, n int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch f {
	case BadCRC, Split, Merged, Garbage, Silence, Deaf:
		s.line[f] += max(n, 1)
		return nil
	}
	if _, ok := conditions[f]; !ok {
		return fmt.Errorf("%w: %q", ErrFault, f)
	}
	s.condition[f] = true
	if f == SafeJam || f == UnsafeJam {
		s.stopTimer() // the note stops where it is
	}
	return nil
}

// ClearLine drops the line faults still armed.
func (s *Sim) ClearLine() {
	s.mu.Lock()
	s.line = map[Fault]int{}
	s.mu.Unlock()
}

// Clear is staff at the unit: jams cleared (a jammed note taken out by hand, never credited), the
// cash box put back (CASH BOX REPLACED), emptied when it was full, the note path closed.
func (s *Sim) Clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.jammed() && s.note != nil {
		if !s.credited {
			s.counts.Removed++
		}
		s.note, s.credited = nil, false
		s.phase = idle
		s.stopTimer()
	}
	if s.condition[CashBoxRemoved] {
		s.push(essp.Event{Code: essp.EvCashBoxReplaced})
	}
	if s.condition[StackerFull] {
		s.counts.Stacked, s.counts.StackedSum = 0, 0
	}
	s.condition = map[Fault]bool{}
}

// PowerCut switches the unit off: it answers nothing until PowerOn.
func (s *Sim) PowerCut() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.powerCutLocked()
}

// PowerOn switches it on again.
func (s *Sim) PowerOn() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.on {
		s.powerOnLocked()
	}
}

// PowerCycle is a power cut and the power back at once.
func (s *Sim) PowerCycle() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.powerCutLocked()
	s.powerOnLocked()
}

// State names the unit's phase: idle, reading, escrow, stacking, finishing, rejecting, or off.
func (s *Sim) State() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.on {
		return "off"
	}
	return s.phase.String()
}

// Enabled reports what the host last asked (ENABLE, DISABLE) and the inhibit register.
func (s *Sim) Enabled() (enabled bool, inhibits [2]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.enabled, s.inhibits
}

// Encrypted reports whether a key is negotiated.
func (s *Sim) Encrypted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.key != nil
}

// Counts returns the cash box's truth.
func (s *Sim) Counts() Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.counts
	c.Values = slices.Clone(c.Values)
	return c
}

// Commands counts the commands the unit acted on, by code (encrypted ones by their inner code).
func (s *Sim) Commands() map[byte]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[byte]int, len(s.cmds))
	for k, v := range s.cmds {
		out[k] = v
	}
	return out
}
