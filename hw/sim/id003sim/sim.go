// Package id003sim simulates a JCM ID-003 bill validator on a pseudo-terminal, byte for byte, for
// the tests and the development run: any ID-003 host, not only ours, can drive it.
//
// It answers every command a host may send as the unit does (status, ACK, reset, stack-1/2,
// return, hold, wait, the six setting commands and their status requests, version, boot version,
// currency assignment) and answers INVALID COMMAND to anything else. Notes are scripted
// (InsertNote, InsertCounterfeit), and so are the faults of the line (bad CRC, split and merged
// frames, garbage, silence, lost ACKs, unplug and replug) and of the unit (jams, stacker full or
// open, cheated, failure, pause, power cycles with a note in the path).
//
// Time in the simulator is the unit's own, as on the real one: a note moves on when the mechanism
// has done its part (Config.Timing, on Config.Clock), whatever the host's polling period. A note
// left in escrow goes back to the player after about 10 s; VEND VALID waits for the host's ACK as
// long as it takes, a RESET included (the note stays in the cash box and the unit reports VEND VALID
// again once initialised); POWER UP waits for a RESET. Tests pass a fake Clock rather than wait for the
// unit's seconds. The default timing is quicker than a unit's, so by default a polling host is
// shown every state once before the unit leaves it (Config.MoveOnUnseen).
//
// The communication mode a host sets (SET COMM MODE) is honoured: in interrupt mode 1 the unit sends
// ENQ at every change of its status, in interrupt mode 2 only when it needs the host; a host in either
// mode polls when it gets one. Any other mode is refused (INVALID COMMAND). The ENQ goes out as a
// frame of its own, FC 05 05 and its CRC, as the field-proven hosts read it (Config.ENQ: the single
// byte 05 of some descriptions on request).
//
// The simulator must never reach into a host: everything goes through the pty.
package id003sim

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"time"

	"pharaon/hw/id003"
	"pharaon/hw/sim"
)

// Config describes the simulated unit. Zero values take the defaults.
type Config struct {
	Table       id003.DenomTable // default id003.EURTable
	Country     byte             // default id003.CountryEUR
	Version     string           // answer to 0x88
	BootVersion string           // answer to 0x89

	// Timing is how long the unit stays in each state it leaves on its own: ACCEPTING (the note is
	// drawn in and read, then ESCROW or REJECTING), STACKING (from STACK to the stacker's point of
	// no return, VEND VALID), STACKED (the stacker finishes), REJECTING or RETURNING (the note
	// travels back to the bezel), INITIALIZE (the check of the mechanism after a RESET), and ESCROW
	// or HOLDING since the last HOLD (then the unit gives the note back). A zero field takes
	// QuickTiming's; UnitTiming has the real unit's.
	// ENQ is the form of the unit's ENQ in the interrupt modes: id003.ENQFramed (the default) or
	// id003.ENQByte.
	ENQ    id003.ENQForm
	Timing Durations
	Clock  Clock // what Timing is measured on (default: the system clock)
	// MoveOnUnseen lets the unit leave a state on time even if no status request has reported it,
	// as a real unit does. By default, in polling mode, a state waits once its time is up for one
	// status request to report it: at QuickTiming's pace a busy host could otherwise miss states a
	// real unit shows it for a second (and a test waiting for one would hang). A host that polls
	// sees no difference; a unit nobody polls holds its note where it is. In the interrupt modes
	// the unit calls the host when it needs it and moves on on time.
	MoveOnUnseen bool

	// Deprecated: Timing replaces these counts of status requests. A count set while its
	// duration is zero is taken as that many polls of pollPeriod each, so an old configuration
	// keeps its intent (StackPolls: 1 << 20, a note that never leaves STACKING).
	AcceptPolls, StackPolls, StackedPolls, RejectPolls, InitPolls, EscrowTimeout int

	Capacity int // notes the stacker holds before STACKER FULL (default 1000)

	Seed uint64 // for garbage bytes
	// Start idle (as if a host had already reset and configured the unit) instead of POWER UP.
	StartIdle bool
}

func (c *Config) fill() {
	if c.Table == nil {
		c.Table = id003.EURTable
		if c.Country == 0 {
			c.Country = id003.CountryEUR
		}
	}
	if c.Version == "" {
		c.Version = "PHARAON-SIM ID003 EUR V1.00 2025-01-01"
	}
	if c.BootVersion == "" {
		c.BootVersion = "PHARAON-SIM BOOT V1.00"
	}
	def := func(v *time.Duration, polls int, d time.Duration) {
		switch {
		case *v > 0:
		case polls > 0:
			*v = time.Duration(polls) * pollPeriod
		default:
			*v = d
		}
	}
	t := &c.Timing
	def(&t.Accept, c.AcceptPolls, QuickTiming.Accept)
	def(&t.Stack, c.StackPolls, QuickTiming.Stack)
	def(&t.Stacked, c.StackedPolls, QuickTiming.Stacked)
	def(&t.Reject, c.RejectPolls, QuickTiming.Reject)
	def(&t.Init, c.InitPolls, QuickTiming.Init)
	def(&t.Escrow, c.EscrowTimeout, QuickTiming.Escrow)
	if c.Clock == nil {
		c.Clock = systemClock{}
	}
	if c.Capacity <= 0 {
		c.Capacity = 1000
	}
}

// Fault is something that can go wrong, on the line or in the unit.
type Fault string

// Line faults, applied to the next n answers (or host ACKs for DropAck).
const (
	BadCRC  Fault = "bad-crc" // the answer's CRC is corrupted
	Split   Fault = "split"   // the answer is written one byte at a time, with pauses
	Merged  Fault = "merged"  // the answer is written glued to a second copy of itself
	Garbage Fault = "garbage" // random bytes (0xFC among them) come before the answer
	Silence Fault = "silence" // no answer at all
	DropAck Fault = "drop-ack"
)

// Unit faults: conditions that hold until Clear (staff) or, for Cheated, a reset.
const (
	StackerFull   Fault = "stacker-full"
	StackerOpen   Fault = "stacker-open"
	JamInAcceptor Fault = "jam-acceptor"
	JamInStacker  Fault = "jam-stacker"
	Cheated       Fault = "cheated"
	Failure       Fault = "failure" // n is the failure code (0: 0xA2 stack motor)
	Pause         Fault = "pause"
)

var conditions = map[Fault]byte{
	StackerFull: id003.StatusStackerFull, StackerOpen: id003.StatusStackerOpen,
	JamInAcceptor: id003.StatusJamInAcceptor, JamInStacker: id003.StatusJamInStacker,
	Cheated: id003.StatusCheated, Failure: id003.StatusFailure, Pause: id003.StatusPause,
}

var (
	ErrBusy      = errors.New("simulator: a note is already in the path")
	ErrDisabled  = errors.New("simulator: unit is inhibited or not idle")
	ErrUnknown   = errors.New("simulator: no such note")
	ErrUnplugged = errors.New("simulator: unplugged")
	ErrFault     = errors.New("simulator: unknown fault")
)

type note struct {
	code    byte
	cents   int64
	dir     Direction
	reason  id003.RejectReason // counterfeit: rejected with this reason
	counted bool               // reached VEND VALID: it is in the stacker for good
}

// Counts is the truth of the simulated cash box.
type Counts struct {
	Stacked     int     // notes in the stacker
	StackedSum  int64   // their value, cents
	Values      []int64 // each stacked note's value, in order
	Returned    int     // notes given back (returned, rejected)
	Removed     int     // notes staff took out of a jam
	VendValid   int     // VEND VALID episodes (one per note reaching it)
	Acked       int     // host ACKs of VEND VALID that the unit took
	BadCommands int     // frames the unit could not read (answered COMMUNICATION ERROR)
}

// Sim is one simulated unit.
type Sim struct {
	cfg Config

	// wmu orders what goes out on the line: an answer and the ENQs it causes, or ENQs on their
	// own; never one inside the other. Taken before mu.
	wmu sync.Mutex

	mu        sync.Mutex
	status    byte
	data      []byte
	gen       uint64 // counts the changes of state; a timer set for an earlier one does nothing
	timer     Timer  // ends the current state, nil if it lasts until something happens
	seen      bool   // a status request has reported the current state
	due       bool   // its time is up; it waits to be seen (Config.MoveOnUnseen)
	enq       int    // ENQs owed to the host for changes of status, in an interrupt mode
	note      *note
	condition byte // a unit fault status, 0 if none
	failCode  byte
	powerNote byte // status of the power-up with a note in the path, 0 if none
	// vendOwed: a RESET found the note past STACK without the host's ACK; the unit stacks it
	// during its initialisation and then reports its VEND VALID again, for the host to credit.
	vendOwed bool

	enable, security [2]byte
	commMode         byte
	inhibit          byte
	direction        byte
	optional         [2]byte

	line   map[Fault]int
	counts Counts
	cmds   map[byte]int
	rng    *rand.Rand

	link    string
	pty     *sim.PTY
	serving sync.WaitGroup
	closed  bool
}

// New builds a unit in POWER UP (or idle with StartIdle); Start puts it on a pty.
func New(cfg Config) *Sim {
	cfg.fill()
	s := &Sim{cfg: cfg, line: map[Fault]int{}, cmds: map[byte]int{},
		rng: rand.New(rand.NewPCG(cfg.Seed, 0x1d003))}
	s.powerOn(0)
	if cfg.StartIdle {
		s.inhibit = 0
		s.set(id003.StatusIdle)
	}
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
	if s.pty != nil {
		return nil
	}
	p, err := sim.OpenPTY(s.link)
	if err != nil {
		return fmt.Errorf("simulator: %w", err)
	}
	s.pty = p
	s.enq = 0 // ENQs of changes while no cable was in are lost, as on a real line
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
	if s.closed {
		return ErrUnplugged
	}
	return s.plugLocked()
}

// Close unplugs for good and stops the unit's clock.
func (s *Sim) Close() error {
	s.mu.Lock()
	s.closed = true
	s.gen++
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	s.mu.Unlock()
	return s.Unplug()
}

// serve reads the host's bytes and answers. The unit's own framing: bytes before a 0xFC are
// dropped; a frame whose CRC fails is answered COMMUNICATION ERROR; a frame left incomplete for
// more than 100 ms is dropped (the inter-character timeout of a real unit). The line's timings are
// the pty's real time, not Config.Clock: the bytes themselves travel in real time.
func (s *Sim) serve(p *sim.PTY) {
	defer s.serving.Done()
	buf := make([]byte, 0, 512)
	rd := make([]byte, 256)
	var lastByte time.Time
	for {
		n, err := p.Master.Read(rd)
		if err != nil {
			if errors.Is(err, os.ErrClosed) {
				return // unplugged
			}
			// EIO: no host holds the line (none yet, or it died). Wait for one.
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
		if len(buf) > 0 && now.Sub(lastByte) > 100*time.Millisecond {
			buf = buf[:0]
		}
		lastByte = now
		buf = append(buf, rd[:n]...)
		for {
			i := slices.Index(buf, id003.Sync)
			if i < 0 {
				buf = buf[:0]
				break
			}
			buf = buf[:copy(buf, buf[i:])]
			if len(buf) < 2 {
				break
			}
			l := int(buf[1])
			if l < id003.MinFrameLen {
				buf = buf[:copy(buf, buf[1:])]
				continue
			}
			if len(buf) < l {
				break
			}
			f, derr := id003.DecodeFrame(buf[:l])
			buf = buf[:copy(buf, buf[l:])]
			s.answer(p, f, derr)
		}
	}
}

// answer handles one frame and writes the answer, then the ENQs the command caused (a change of
// status it made, reported after its own answer).
func (s *Sim) answer(p *sim.PTY, f id003.Frame, derr error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	var answer []byte
	var fault Fault
	if derr != nil {
		answer, fault = s.commError()
	} else {
		answer, fault = s.Handle(f)
	}
	if answer != nil {
		s.write(p, answer, fault)
	}
	s.sendENQLocked()
}

// notify sends the ENQs owed for changes of status that the host did not cause (the unit's clock,
// a note inserted, a fault). Called without s.mu held.
func (s *Sim) notify() {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.sendENQLocked()
}

// sendENQLocked writes the ENQs owed; s.wmu is held.
func (s *Sim) sendENQLocked() {
	s.mu.Lock()
	n, p := s.enq, s.pty
	s.enq = 0
	s.mu.Unlock()
	if n > 0 && p != nil {
		// One ENQ per change: a host polls once for each, which costs nothing and loses none.
		_, _ = p.Master.Write(bytes.Repeat(s.cfg.ENQ.Bytes(), n))
	}
}

func (s *Sim) commError() ([]byte, Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts.BadCommands++
	return s.answerLocked(id003.MustEncode(id003.StatusCommunicationError))
}

// write sends an answer with the line fault drawn for it.
func (s *Sim) write(p *sim.PTY, b []byte, fault Fault) {
	switch fault {
	case Split:
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

// answerLocked applies the pending line faults to an encoded answer. nil means silence.
func (s *Sim) answerLocked(b []byte) ([]byte, Fault) {
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
		fault = BadCRC
	}
	if take(Garbage) {
		g := make([]byte, 3+s.rng.IntN(10))
		for i := range g {
			g[i] = byte(s.rng.IntN(256))
		}
		g[0] = id003.Sync // a false start with a random length byte
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

// Handle answers one command frame as the unit does (exported for tests of hosts without a pty).
// It returns the encoded answer (nil: no answer) and the line fault applied to it.
func (s *Sim) Handle(f id003.Frame) ([]byte, Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cmds[f.Cmd]++
	a := s.handleLocked(f)
	if a == nil {
		return nil, ""
	}
	b, fault := s.answerLocked(a)
	if f.Cmd == id003.CmdStatusRequest && fault != Silence && fault != BadCRC {
		// The host has the status now; a state whose time was up can end.
		s.seen = true
		if s.due {
			s.moveOn()
		}
	}
	return b, fault
}

func invalid() []byte { return id003.MustEncode(id003.RespInvalidCommand) }
func ack() []byte     { return id003.MustEncode(id003.RespAck) }

var settingLen = map[byte]int{
	id003.CmdSetEnable: 2, id003.CmdSetSecurity: 2, id003.CmdSetCommMode: 1,
	id003.CmdSetInhibit: 1, id003.CmdSetDirection: 1, id003.CmdSetOptionalFun: 2,
}

func (s *Sim) handleLocked(f id003.Frame) []byte {
	powerUp := id003.StateOf(s.status).PowerUp()
	switch f.Cmd {
	case id003.CmdStatusRequest:
		if len(f.Data) != 0 {
			return invalid()
		}
		return id003.MustEncode(s.status, s.data...)
	case id003.CmdAck:
		// The unit answers nothing to the host's ACK.
		if s.status == id003.StatusVendValid {
			if s.line[DropAck] > 0 {
				s.line[DropAck]--
				return nil
			}
			s.counts.Acked++
			s.set(id003.StatusStacked)
		}
		return nil
	case id003.CmdReset:
		if len(f.Data) != 0 {
			return invalid()
		}
		s.reset()
		return ack()
	case id003.CmdStack1, id003.CmdStack2, id003.CmdReturn, id003.CmdHold, id003.CmdWait:
		if len(f.Data) != 0 || powerUp || (s.status != id003.StatusEscrow && s.status != id003.StatusHolding) {
			return invalid()
		}
		switch f.Cmd {
		case id003.CmdStack1, id003.CmdStack2:
			s.set(id003.StatusStacking)
		case id003.CmdReturn:
			s.set(id003.StatusReturning)
		default:
			s.set(id003.StatusHolding)
		}
		return ack()
	case id003.CmdSetEnable, id003.CmdSetSecurity, id003.CmdSetCommMode, id003.CmdSetInhibit,
		id003.CmdSetDirection, id003.CmdSetOptionalFun:
		if len(f.Data) != settingLen[f.Cmd] {
			return invalid()
		}
		if f.Cmd == id003.CmdSetCommMode && f.Data[0] > id003.CommInterrupt2 {
			return invalid() // a mode the unit does not have
		}
		s.storeSetting(f.Cmd, f.Data)
		return id003.MustEncode(f.Cmd, f.Data...)
	case id003.CmdGetEnable, id003.CmdGetSecurity, id003.CmdGetCommMode, id003.CmdGetInhibit,
		id003.CmdGetDirection, id003.CmdGetOptionalFun:
		if len(f.Data) != 0 {
			return invalid()
		}
		return id003.MustEncode(f.Cmd, s.setting(f.Cmd+0x40)...)
	case id003.CmdGetVersion:
		return id003.MustEncode(f.Cmd, []byte(s.cfg.Version)...)
	case id003.CmdGetBootVersion:
		return id003.MustEncode(f.Cmd, []byte(s.cfg.BootVersion)...)
	case id003.CmdGetCurrency:
		return id003.MustEncode(f.Cmd, id003.EncodeCurrencyAssignment(s.cfg.Table.Entries(s.cfg.Country))...)
	}
	return invalid()
}

func (s *Sim) setting(cmd byte) []byte {
	switch cmd {
	case id003.CmdSetEnable:
		return s.enable[:]
	case id003.CmdSetSecurity:
		return s.security[:]
	case id003.CmdSetCommMode:
		return []byte{s.commMode}
	case id003.CmdSetInhibit:
		return []byte{s.inhibit}
	case id003.CmdSetDirection:
		return []byte{s.direction}
	}
	return s.optional[:]
}

func (s *Sim) storeSetting(cmd byte, d []byte) {
	switch cmd {
	case id003.CmdSetEnable:
		copy(s.enable[:], d)
	case id003.CmdSetSecurity:
		copy(s.security[:], d)
	case id003.CmdSetCommMode:
		s.commMode = d[0]
		if s.due && s.commMode != id003.CommPolling {
			s.moveOn() // waiting to be seen is for polling hosts only
		}
	case id003.CmdSetInhibit:
		s.inhibit = d[0]
		switch {
		case s.status == id003.StatusIdle && s.inhibit != 0:
			s.set(id003.StatusDisabled)
		case s.status == id003.StatusDisabled && s.inhibit == 0:
			s.set(id003.StatusIdle)
		}
	case id003.CmdSetDirection:
		s.direction = d[0]
	case id003.CmdSetOptionalFun:
		copy(s.optional[:], d)
	}
}

// set puts the unit in a status, starts the timer of the states it leaves on its own (restarting
// it when the status is the same: a HOLD restarts the escrow timer) and owes the host an ENQ for a
// change of status when the communication mode asks for one.
func (s *Sim) set(status byte, data ...byte) {
	changed := status != s.status || !bytes.Equal(data, s.data)
	s.status, s.data = status, data
	s.seen, s.due = false, false
	s.gen++
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	if d := s.lasts(status); d > 0 && !s.closed {
		gen := s.gen
		s.timer = s.cfg.Clock.AfterFunc(d, func() { s.expire(gen) })
	}
	if changed && s.enqFor(status) {
		s.enq++
	}
}

// lasts is how long the unit stays in a status before it moves on by itself; 0 for a status that
// lasts until the host, staff or a note does something.
func (s *Sim) lasts(status byte) time.Duration {
	switch status {
	case id003.StatusAccepting:
		return s.cfg.Timing.Accept
	case id003.StatusEscrow, id003.StatusHolding:
		return s.cfg.Timing.Escrow
	case id003.StatusStacking:
		return s.cfg.Timing.Stack
	case id003.StatusStacked:
		return s.cfg.Timing.Stacked
	case id003.StatusRejecting, id003.StatusReturning:
		return s.cfg.Timing.Reject
	case id003.StatusInitialize:
		return s.cfg.Timing.Init
	}
	return 0
}

// enqFor reports whether entering status calls the host in the current communication mode.
func (s *Sim) enqFor(status byte) bool {
	switch s.commMode {
	case id003.CommInterrupt1:
		return true
	case id003.CommInterrupt2:
		// The statuses that wait on the host: a decision, an ACK, a RESET, or staff told of a fault.
		// Uncertain: no public host documents which statuses a unit in mode 2 calls for.
		st := id003.StateOf(status)
		return st == id003.StateEscrow || st == id003.StateVendValid || st.PowerUp() || st.Fault()
	}
	return false
}

// expire ends the state the timer of generation gen was set for, if the unit is still in it.
func (s *Sim) expire(gen uint64) {
	s.mu.Lock()
	if gen != s.gen {
		s.mu.Unlock()
		return
	}
	s.timer = nil
	if !s.seen && !s.cfg.MoveOnUnseen && s.commMode == id003.CommPolling {
		s.due = true
		s.mu.Unlock()
		return
	}
	s.moveOn()
	s.mu.Unlock()
	s.notify()
}

func (s *Sim) idle() {
	if s.condition != 0 {
		s.showCondition()
		return
	}
	if s.inhibit != 0 {
		s.set(id003.StatusDisabled)
	} else {
		s.set(id003.StatusIdle)
	}
}

func (s *Sim) showCondition() {
	if s.condition == id003.StatusFailure {
		s.set(s.condition, s.failCode)
	} else {
		s.set(s.condition)
	}
}

// powerOn is the state after power comes back: POWER UP (with the note's position), every
// setting at its default, notes inhibited until the host resets and enables.
func (s *Sim) powerOn(withNote byte) {
	s.enable, s.security, s.optional = [2]byte{}, [2]byte{}, [2]byte{}
	s.commMode, s.direction, s.inhibit = 0, 0, 1
	s.powerNote = withNote
	s.vendOwed = false // the power-up status tells the host instead
	switch withNote {
	case id003.StatusPowerUpBillInAcceptor, id003.StatusPowerUpBillInStacker:
		s.set(withNote)
	default:
		s.set(id003.StatusPowerUp)
	}
}

func (s *Sim) reset() {
	if s.condition == id003.StatusCheated {
		s.condition = 0
	}
	if s.note != nil && s.powerNote == 0 {
		// A reset with a note in the path settles it during the initialisation: a note in the
		// acceptor is given back; a note being stacked, or past the stacker's point of no return,
		// stays in the cash box. A reset does not discharge the VEND VALID the host has not
		// acknowledged: the unit reports it again once initialised (moveOn), never silently.
		s.powerNote = id003.StatusPowerUpBillInAcceptor
		switch s.status {
		case id003.StatusStacking, id003.StatusVendValid:
			s.powerNote = id003.StatusPowerUpBillInStacker
			s.vendOwed = true
		case id003.StatusStacked:
			s.powerNote = id003.StatusPowerUpBillInStacker
		}
	}
	s.inhibit = 1
	s.set(id003.StatusInitialize)
}

// finishNote removes the note from the path, into the stacker or back to the player.
func (s *Sim) finishNote(stacked bool) {
	n := s.note
	s.note = nil
	if n == nil {
		return
	}
	if stacked {
		if !n.counted {
			s.stack(n)
		}
		return
	}
	if n.counted {
		return // past VEND VALID the note is in the cash box: it never comes back
	}
	s.counts.Returned++
}

func (s *Sim) stack(n *note) {
	n.counted = true
	s.counts.Stacked++
	s.counts.StackedSum += n.cents
	s.counts.Values = append(s.counts.Values, n.cents)
}

// moveOn is the unit ending, by itself, the state its time in is up for.
func (s *Sim) moveOn() {
	switch s.status {
	case id003.StatusAccepting:
		n := s.note
		switch {
		case n.reason != 0:
			s.set(id003.StatusRejecting, byte(n.reason))
		case s.inhibited(n.code) || s.direction&(1<<n.dir) != 0:
			// A refused denomination or way in: both are INHIBIT returns on the units observed.
			s.set(id003.StatusRejecting, byte(id003.RejectInhibited))
		default:
			s.set(id003.StatusEscrow, n.code)
		}
	case id003.StatusEscrow, id003.StatusHolding:
		s.set(id003.StatusRejecting, byte(id003.RejectInhibited)) // as observed on hardware
	case id003.StatusStacking:
		// The point of no return: from here the note is the host's to credit.
		s.stack(s.note)
		s.counts.VendValid++
		s.set(id003.StatusVendValid, s.note.code)
	case id003.StatusStacked:
		s.finishNote(true)
		if s.counts.Stacked >= s.cfg.Capacity {
			s.condition = id003.StatusStackerFull
		}
		s.idle()
	case id003.StatusRejecting, id003.StatusReturning:
		s.finishNote(false)
		s.idle()
	case id003.StatusInitialize:
		owed := s.vendOwed && s.note != nil
		s.vendOwed = false
		switch {
		case owed:
			// Stacked during the initialisation a RESET started, and said: VEND VALID again,
			// waiting for the host's ACK like any other.
			s.powerNote = 0
			if !s.note.counted {
				s.stack(s.note)
				s.counts.VendValid++
			}
			s.set(id003.StatusVendValid, s.note.code)
			return
		case s.powerNote == id003.StatusPowerUpBillInAcceptor:
			s.finishNote(false)
		case s.powerNote == id003.StatusPowerUpBillInStacker:
			s.finishNote(true) // stacked during initialisation, without VEND VALID
		}
		s.powerNote = 0
		s.idle()
	}
}

func (s *Sim) inhibited(code byte) bool {
	if code < id003.FirstCode || code > id003.LastCode {
		return true
	}
	bit := uint16(1) << (code - id003.FirstCode)
	return (uint16(s.enable[0])|uint16(s.enable[1])<<8)&bit != 0
}

// Direction is the way a note goes in, as SET DIRECTION's bits name them (bit 0 for A to bit 3
// for D): face up or down, one end or the other first.
type Direction byte

const (
	DirectionA Direction = iota
	DirectionB
	DirectionC
	DirectionD
)

// InsertNote inserts a genuine note of the given value (it must be in the unit's table), the A way.
func (s *Sim) InsertNote(cents int64) error { return s.InsertNoteFacing(cents, DirectionA) }

// InsertNoteFacing inserts a genuine note the given way; a way the host refused (SET DIRECTION)
// gets the note rejected.
func (s *Sim) InsertNoteFacing(cents int64, d Direction) error {
	code, ok := s.cfg.Table.Code(cents)
	if !ok {
		return fmt.Errorf("%w: %d cents", ErrUnknown, cents)
	}
	if d > DirectionD {
		return fmt.Errorf("%w: direction %d", ErrUnknown, d)
	}
	return s.insert(&note{code: code, cents: cents, dir: d})
}

// InsertCounterfeit inserts a note the unit rejects with the given reason.
func (s *Sim) InsertCounterfeit(reason id003.RejectReason) error {
	if reason == 0 {
		reason = id003.RejectPhotoPattern
	}
	return s.insert(&note{reason: reason})
}

func (s *Sim) insert(n *note) error {
	defer s.notify()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.note != nil {
		return ErrBusy
	}
	if s.status != id003.StatusIdle {
		return fmt.Errorf("%w (%s)", ErrDisabled, id003.StateOf(s.status))
	}
	s.note = n
	s.set(id003.StatusAccepting)
	return nil
}

// Inject starts a fault: a line fault for the next n answers (n ACKs for DropAck), or a unit
// condition (n is the failure code for Failure). A jam or an open stacker while a note is in the
// path keeps the note there until Clear.
func (s *Sim) Inject(f Fault, n int) error {
	defer s.notify()
	s.mu.Lock()
	defer s.mu.Unlock()
	switch f {
	case BadCRC, Split, Merged, Garbage, Silence, DropAck:
		s.line[f] += max(n, 1)
		return nil
	}
	st, ok := conditions[f]
	if !ok {
		return fmt.Errorf("%w %q", ErrFault, f)
	}
	s.condition = st
	s.failCode = 0xA2
	if f == Failure && n > 0 {
		s.failCode = byte(n)
	}
	s.showCondition()
	return nil
}

// ClearLine ends every pending line fault.
func (s *Sim) ClearLine() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.line)
}

// Clear is staff fixing the unit: the condition goes, a note stuck in the path is taken out
// (unless it already reached VEND VALID, then it is in the stacker), and the unit initialises.
func (s *Sim) Clear() {
	defer s.notify()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.condition == id003.StatusStackerFull {
		// Emptied.
		s.counts.Stacked, s.counts.StackedSum, s.counts.Values = 0, 0, nil
	}
	s.condition = 0
	if s.note != nil && !s.note.counted {
		s.counts.Removed++
	}
	s.note = nil
	s.vendOwed = false
	s.set(id003.StatusInitialize)
}

// PowerCycle cuts and restores the unit's power. A note in the acceptor comes back at the next
// reset; a note being stacked (or waiting for its ACK, or being stacked by the initialisation of a
// RESET) is stacked during the reset, with no VEND VALID: POWER UP WITH BILL IN ACCEPTOR / IN
// STACKER tells the host.
func (s *Sim) PowerCycle() {
	s.mu.Lock()
	defer s.mu.Unlock()
	where := byte(0)
	if s.note != nil {
		switch {
		case s.status == id003.StatusStacking, s.status == id003.StatusVendValid, s.status == id003.StatusStacked,
			s.note.counted, s.powerNote == id003.StatusPowerUpBillInStacker:
			// Being stacked, in the cash box, or being stacked by the initialisation a RESET
			// started.
			where = id003.StatusPowerUpBillInStacker
		default:
			where = id003.StatusPowerUpBillInAcceptor
		}
	}
	s.powerOn(where)
}

// State is the unit's current status byte as a state.
func (s *Sim) State() id003.State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return id003.StateOf(s.status)
}

// Counts returns the cash box truth.
func (s *Sim) Counts() Counts {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.counts
	c.Values = slices.Clone(c.Values)
	return c
}

// Commands returns how many times the unit received each command byte.
func (s *Sim) Commands() map[byte]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := make(map[byte]int, len(s.cmds))
	for k, v := range s.cmds {
		m[k] = v
	}
	return m
}

// Settings returns the enable and security masks and the inhibit byte the unit holds.
func (s *Sim) Settings() (enable, security [2]byte, inhibit byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.enable, s.security, s.inhibit
}
