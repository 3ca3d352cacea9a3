package id003

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"pharaon/hw"
	"pharaon/hw/validator"
)

// Mode is the line setting of an ID-003 unit.
var Mode = hw.Mode{BaudRate: BaudRate, DataBits: DataBits, Parity: hw.EvenParity, StopBits: StopBits}

// Note is a bank note on its way through the unit, as the host tells the kiosk about it: the
// note of any family's driver (hw/validator), its Code the unit's escrow code. IntentID is empty and
// Recovered set for a VEND VALID this run of the host did not stack; StackSent says STACK was sent
// and not refused.
type Note = validator.Note

// Wallet is what the host needs of the kiosk's money flow. The host calls it from its polling
// goroutine, one call at a time, and polls nothing meanwhile (the unit waits), so calls should
// return within a few seconds: a real unit gives back a note left in escrow after about 10 s.
// ctx is cancelled when the host is closed; Close waits for a call in progress to return.
type Wallet interface {
	// Escrow is called when a note of a value the kiosk takes waits in escrow. To take it, the
	// kiosk durably records an intent (this note, this value) and returns accept=true and the
	// intent's id; the host sends STACK only after Escrow has returned, so every VEND VALID the host
	// will ever see is preceded by a durable intent. accept=false or an error returns the note to
	// the player (e.g. the credit would exceed the kiosk's maximum).
	//
	// A note that reaches VEND VALID stays there until the host acknowledges it, before the unit
	// can take another note; so when Escrow is called while an earlier intent is still open, that
	// earlier note never reached VEND VALID: its intent is void if STACK was never sent for it
	// (or n.Previous names it), and held for staff if it was (the note may have been stacked
	// without VEND VALID, e.g. a jam cleared while the kiosk was down).
	Escrow(ctx context.Context, n Note) (accept bool, intentID string, err error)

	// Stacking is called after Escrow accepted a note and before STACK is sent: the kiosk durably
	// records that its intent is being stacked, so that a kiosk restarted after a power cut knows
	// the note may be in the cash box. An error returns the note instead (STACK is not sent).
	Stacking(ctx context.Context, n Note) error

	// PowerUp is called when the unit reports it lost power with a note in its path (st is
	// StatePowerUpBillInStacker or StatePowerUpBillInAcceptor), before the host resets it. At
	// the reset the unit settles the note without VEND VALID: a note in the stacker is stacked; a
	// note in the acceptor is returned, or stacked if the unit's own rule says it went too far.
	// n is the note this run of the host knows (IntentID, StackSent), or a Recovered note with
	// no code when the kiosk restarted. The kiosk resolves its open intent by a stated policy
	// (credit it, hold it for staff, void it) durably, and returns nil: only then is RESET sent.
	// An error leaves the unit waiting in its power-up state; PowerUp is asked again at the next
	// poll.
	PowerUp(ctx context.Context, st State, n Note) error

	// Credit is called on VEND VALID: the note is irrevocably accepted (the credit point of the
	// regulation's money rule). The kiosk credits n in one durable transaction that also resolves
	// the intent, and returns nil only once that is committed: the host sends the ACK only then.
	// An error leaves VEND VALID unacknowledged; the unit keeps reporting it and the host calls
	// Credit again at the next poll.
	//
	// Credit must be idempotent on the intent. It is called again for a note already credited
	// when the kiosk died after the commit and before the ACK: then n.Recovered is true and
	// n.IntentID is "". The resolution, exact because of the Escrow rule above: if an intent is
	// pending, credit it (n.Cents should equal its value; a difference is an anomaly for staff);
	// otherwise, if the latest intent is credited, credit nothing and return nil so the host ACKs.
	Credit(ctx context.Context, n Note) error
}

// EventKind says what an Event reports.
type EventKind int

const (
	EventConnected     EventKind = iota + 1 // the unit answered on a newly opened port
	EventDisconnected                       // the line was lost or the device is absent (Err); re-opening with back-off
	EventState                              // the unit's status changed (Status holds its own bytes)
	EventConfigured                         // settings sent after a connect or reset (Detail: version)
	EventConfigError                        // the unit's currency assignment differs: it stays inhibited (Err)
	EventEscrow                             // a note waited in escrow and was stacked (Accepted) or returned
	EventCredited                           // Credit returned nil and the ACK was sent
	EventCreditFailed                       // Credit returned Err; VEND VALID stays unacknowledged
	EventAckRepeated                        // VEND VALID again for a note already credited: ACK sent again, nothing credited
	EventNoteReturned                       // a note the kiosk accepted came back or was rejected: its intent is void
	EventLineError                          // a command had to be retried: no answer, bad frame, COMMUNICATION ERROR
	EventAnomaly                            // something the protocol should not do (Detail); logged for staff
	EventNoteUncertain                      // a note sent to stack left the path without VEND VALID (a jam cleared): it may be in the cash box; its intent is held for staff
	EventCalled                             // the unit called the host by ENQ, in a form not seen before in this serial session (Detail: which)
)

var eventNames = map[EventKind]string{
	EventConnected: "connected", EventDisconnected: "disconnected", EventState: "state",
	EventConfigured: "configured", EventConfigError: "config error", EventEscrow: "escrow",
	EventCredited: "credited", EventCreditFailed: "credit failed", EventAckRepeated: "ack repeated",
	EventNoteReturned: "note returned", EventLineError: "line error", EventAnomaly: "anomaly",
	EventNoteUncertain: "note uncertain", EventCalled: "called",
}

func (k EventKind) String() string {
	if n, ok := eventNames[k]; ok {
		return n
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Event is one thing the kiosk writes to its event log. Status is the unit's latest status, with
// its own codes (Status.DeviceCode()).
type Event struct {
	Time     time.Time
	Kind     EventKind
	Status   Status
	Note     Note
	Accepted bool
	Err      error
	Detail   string
}

func (e Event) String() string {
	s := e.Kind.String()
	if e.Status.Code != 0 {
		s += " " + e.Status.String()
	}
	if e.Note.Code != 0 {
		s += " " + e.Note.String()
	}
	if e.Kind == EventEscrow {
		s += fmt.Sprintf(" accepted=%v", e.Accepted)
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Config tunes a Host. The zero value is the kiosk's default: euro table, 5/10/20/50 € accepted,
// poll every 150 ms.
type Config struct {
	Denominations DenomTable // default EURTable
	// Country the unit's currency assignment must report; default CountryEUR with the default
	// table, none (0) with a custom table unless set.
	Country      byte
	Accept       []int64 // values taken, in cents; default DefaultEnabled
	HighSecurity []int64 // values checked with the unit's high security level
	StackCommand byte    // CmdStack1 (default) or CmdStack2
	Direction    byte    // SET DIRECTION data; 0 = every direction
	OptionalFunc [2]byte // SET OPTIONAL FUNCTION data

	PollInterval time.Duration // default 150 ms (the unit expects 100-200 ms)
	// CommMode is what SET COMM MODE asks of the unit: CommPolling (the default: the host asks for
	// the status every PollInterval), CommInterrupt1 or CommInterrupt2 (the unit calls by ENQ, and
	// the host asks then, and at least every InterruptPoll, measured on Clock). In any mode the
	// host takes ENQ in both its forms (ENQForm) wherever it comes, and logs each form once per
	// serial session (EventCalled): a unit left in an interrupt mode by an earlier host calls until
	// configured.
	CommMode      byte
	InterruptPoll time.Duration // default 1 s
	ReplyTimeout  time.Duration // silence after which a command is retried; default 250 ms
	Retries       int           // retries of a command before the line is declared lost; default 3
	Backoff       hw.Backoff    // re-open after a lost line; default hw.DefaultBackoff
	Clock         hw.Clock      // default hw.SystemClock

	// OnEvent receives every event, synchronously from the polling goroutine, in order. It must
	// not block for long and must not call Close.
	OnEvent func(Event)
}

func (c *Config) fill() error {
	if c.Denominations == nil {
		c.Denominations = EURTable
		if c.Country == 0 {
			c.Country = CountryEUR
		}
	}
	if err := c.Denominations.Validate(); err != nil {
		return err
	}
	if c.Accept == nil {
		c.Accept = DefaultEnabled
	}
	for _, v := range append(slices.Clone(c.Accept), c.HighSecurity...) {
		if _, ok := c.Denominations.Code(v); !ok {
			return fmt.Errorf("%w: no note of %d cents", ErrDenomTable, v)
		}
	}
	switch c.StackCommand {
	case 0:
		c.StackCommand = CmdStack1
	case CmdStack1, CmdStack2:
	default:
		return fmt.Errorf("stack command 0x%02X is neither stack-1 nor stack-2", c.StackCommand)
	}
	if c.PollInterval <= 0 {
		c.PollInterval = 150 * time.Millisecond
	}
	if c.ReplyTimeout <= 0 {
		c.ReplyTimeout = 250 * time.Millisecond
	}
	if c.CommMode > CommInterrupt2 {
		return fmt.Errorf("comm mode 0x%02X is none of polling (0), interrupt 1 or interrupt 2", c.CommMode)
	}
	if c.InterruptPoll <= 0 {
		c.InterruptPoll = time.Second
	}
	if c.Retries <= 0 {
		c.Retries = 3
	}
	if c.Backoff == (hw.Backoff{}) {
		c.Backoff = hw.DefaultBackoff
	}
	if c.Clock == nil {
		c.Clock = hw.SystemClock{}
	}
	return nil
}

// ErrRefused: the unit answered INVALID COMMAND.
var ErrRefused = fmt.Errorf("%w: unit answered INVALID COMMAND", hw.ErrProtocol)

// Snapshot is the host's view of the unit for screens and diagnostics.
type Snapshot struct {
	Connected   bool
	Status      Status
	Version     string
	Accepting   bool  // what the kiosk asked for (SetAccepting)
	ConfigError error // non-nil: the unit is kept inhibited
	Polls       uint64
	Retries     uint64
}

// Host drives one ID-003 unit. It owns its polling goroutine: Start launches it and Close stops
// it. Everything the unit does reaches the kiosk as Wallet calls and Events.
type Host struct {
	cfg    Config
	dial   hw.Dial
	wallet Wallet

	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	started atomic.Bool

	want     atomic.Bool // SetAccepting
	resetReq atomic.Bool

	mu   sync.Mutex
	snap Snapshot

	// Owned by the polling goroutine.
	port       hw.Port
	dec        Decoder
	wbuf, rbuf []byte
	last       Status
	configured bool
	configErr  error
	note       noteTrack
	sessions   uint64 // serial sessions opened: an escrow decision lives for one
	// creditFailures counts consecutive failed Credit calls (for the event log's pacing).
	creditFailures int
	enableMask     [2]byte
	secMask        [2]byte
	// called: an ENQ came since the last status request; enqForms: the forms seen in this serial
	// session (logged once each); enqBytes: the decoder's ENQBytes already taken.
	called   bool
	enqForms [2]bool
	enqBytes int
}

// noteTrack follows the note in the unit's path. It outlives a lost line (the unit keeps its
// note), not the host's process: after a restart the kiosk's intent log takes over.
type noteTrack struct {
	active       bool
	code         byte
	cents        int64
	intent       string
	decided      bool
	session      uint64 // the serial session the decision was taken in
	accepted     bool
	stackSent    bool // STACK was (maybe) delivered: a VEND VALID may follow
	stackRefused bool // the unit answered STACK with INVALID COMMAND: it did not take it
	credited     bool // Credit returned nil for this note
}

// New checks the configuration and builds a host that will open its device with dial.
func New(dial hw.Dial, w Wallet, cfg Config) (*Host, error) {
	if dial == nil || w == nil {
		return nil, errors.New("id003: new host: dial and wallet are required")
	}
	if err := cfg.fill(); err != nil {
		return nil, fmt.Errorf("id003: new host: %w", err)
	}
	em, err := cfg.Denominations.Mask(cfg.Accept, true)
	if err != nil {
		return nil, fmt.Errorf("id003: new host: %w", err)
	}
	sm, err := cfg.Denominations.Mask(cfg.HighSecurity, false)
	if err != nil {
		return nil, fmt.Errorf("id003: new host: %w", err)
	}
	h := &Host{cfg: cfg, dial: dial, wallet: w, enableMask: em, secMask: sm,
		wbuf: make([]byte, 0, MaxFrameLen), rbuf: make([]byte, 256)}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	return h, nil
}

// Start launches the polling goroutine. It returns at once; the device may well be absent.
func (h *Host) Start() error {
	if !h.started.CompareAndSwap(false, true) {
		return errors.New("id003: host already started")
	}
	h.wg.Add(1)
	go h.run()
	return nil
}

// Close stops polling and closes the port. A note in escrow stays there (the unit returns it on
// its own timer); a VEND VALID not yet acknowledged stays unacknowledged, for the next run.
func (h *Host) Close() error {
	h.cancel()
	h.wg.Wait()
	return nil
}

// SetAccepting asks the unit to take notes (true) or to refuse them (false, the default). It
// returns at once; the host applies it before its next poll when the unit is idle or disabled.
func (h *Host) SetAccepting(on bool) {
	h.want.Store(on)
	h.mu.Lock()
	h.snap.Accepting = on
	h.mu.Unlock()
}

// Reset asks for a RESET of the unit (after staff cleared a jam or a failure). The host sends it
// at the next poll where no note can be on its way to VEND VALID, never before.
func (h *Host) Reset() { h.resetReq.Store(true) }

// Snapshot returns the host's current view.
func (h *Host) Snapshot() Snapshot {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.snap
	s.Status.Data = slices.Clone(s.Status.Data)
	return s
}

func (h *Host) emit(e Event) {
	e.Time = h.cfg.Clock.Now()
	if e.Status.Code == 0 {
		e.Status = h.last
	}
	if h.cfg.OnEvent != nil {
		h.cfg.OnEvent(e)
	}
}

func (h *Host) update(f func(*Snapshot)) {
	h.mu.Lock()
	f(&h.snap)
	h.mu.Unlock()
}

func (h *Host) run() {
	defer h.wg.Done()
	fails := 0
	for {
		r := hw.Reconnector{Dial: h.dial, Backoff: h.cfg.Backoff, Clock: h.cfg.Clock,
			OnRetry: func(attempt int, err error, wait time.Duration) {
				if attempt == 0 {
					h.emit(Event{Kind: EventDisconnected, Err: err, Detail: "device absent, retrying"})
				}
			}}
		port, err := r.Connect(h.ctx)
		if err != nil {
			if h.ctx.Err() != nil {
				return
			}
			// A configuration error (not a serial device): keep trying slowly, staff will see it.
			h.emit(Event{Kind: EventDisconnected, Err: err, Detail: "cannot open device"})
			if h.cfg.Clock.Sleep(h.ctx, h.cfg.Backoff.Max) != nil {
				return
			}
			continue
		}
		good, err := h.session(port)
		_ = port.Close()
		h.port = nil
		h.update(func(s *Snapshot) { s.Connected = false })
		if h.ctx.Err() != nil {
			return
		}
		h.emit(Event{Kind: EventDisconnected, Err: err})
		if good {
			fails = 0
		} else {
			fails++
		}
		if h.cfg.Clock.Sleep(h.ctx, h.cfg.Backoff.Delay(fails)) != nil {
			return
		}
	}
}

// session talks to the unit on one open port until the line fails. good reports whether the unit
// answered at all.
func (h *Host) session(port hw.Port) (good bool, err error) {
	h.port = port
	h.configured = false
	h.sessions++
	// The unit may have changed while the line was down: its first status is reported as new.
	h.last = Status{}
	h.called, h.enqForms = false, [2]bool{}
	if err := port.SetReadTimeout(h.cfg.ReplyTimeout); err != nil {
		return false, err
	}
	st, err := h.poll()
	if err != nil {
		return false, err
	}
	h.update(func(s *Snapshot) { s.Connected = true })
	h.emit(Event{Kind: EventConnected})
	for {
		if err := h.handle(st); err != nil {
			return true, err
		}
		if err := h.wait(); err != nil {
			return true, err
		}
		if st, err = h.poll(); err != nil {
			return true, err
		}
	}
}

// poll asks for the status and reports a change.
func (h *Host) poll() (Status, error) {
	var st Status
	_, err := h.transact(CmdStatusRequest, nil, func(f Frame) error {
		var err error
		st, err = ParseStatus(f)
		return err
	})
	if err != nil {
		return Status{}, err
	}
	changed := !st.Same(h.last)
	h.last = st
	h.update(func(s *Snapshot) { s.Status = st; s.Polls++ })
	if changed {
		h.emit(Event{Kind: EventState, Status: st})
	}
	return st, nil
}

var errCommError = fmt.Errorf("%w: unit reported COMMUNICATION ERROR", hw.ErrProtocol)

// transact sends a command and returns the first answer check accepts, retrying on silence,
// noise, a bad frame and COMMUNICATION ERROR. It gives up at once on a dead line and on INVALID
// COMMAND (an answer, not noise).
func (h *Host) transact(cmd byte, data []byte, check func(Frame) error) (Frame, error) {
	var last error
	for attempt := 0; attempt <= h.cfg.Retries; attempt++ {
		if err := h.ctx.Err(); err != nil {
			return Frame{}, err
		}
		f, err := h.exchange(cmd, data)
		if err == nil {
			switch f.Cmd {
			case StatusCommunicationError:
				err = errCommError
			case RespInvalidCommand:
				return f, fmt.Errorf("command %02X: %w", cmd, ErrRefused)
			default:
				if err = check(f); err == nil {
					return f, nil
				}
			}
		}
		if errors.Is(err, hw.ErrIO) || errors.Is(err, hw.ErrClosed) {
			return Frame{}, fmt.Errorf("command %02X: %w", cmd, err)
		}
		last = err
		h.update(func(s *Snapshot) { s.Retries++ })
		h.emit(Event{Kind: EventLineError, Err: err, Detail: fmt.Sprintf("command %02X attempt %d", cmd, attempt+1)})
	}
	return Frame{}, fmt.Errorf("command %02X: %w", cmd, last)
}

// maxNoise bounds the bytes read while waiting for one answer: a line spewing garbage is a
// protocol error, not a reason to wait forever.
const maxNoise = 1024

func (h *Host) exchange(cmd byte, data []byte) (Frame, error) {
	if err := h.send(cmd, data); err != nil {
		return Frame{}, err
	}
	total := 0
	for {
		n, err := h.port.Read(h.rbuf)
		if err != nil {
			return Frame{}, err
		}
		if n == 0 {
			return Frame{}, hw.Errorf(hw.ErrTimeout, "read", "no answer to %02X within %v", cmd, h.cfg.ReplyTimeout)
		}
		h.dec.Feed(h.rbuf[:n])
		if f, ok := h.next(); ok {
			return f, nil
		}
		if total += n; total > maxNoise {
			return Frame{}, hw.Errorf(hw.ErrProtocol, "read", "%d bytes without a frame", total)
		}
	}
}

// next returns the next frame that is not an ENQ, taking the ENQs before it in both forms.
func (h *Host) next() (Frame, bool) {
	defer h.takeENQBytes()
	for {
		f, ok := h.dec.Next()
		if !ok {
			return Frame{}, false
		}
		if !IsENQ(f) {
			return f, true
		}
		h.sawENQ(ENQFramed)
	}
}

// takeENQBytes takes the single-byte ENQs the decoder dropped since the last call.
func (h *Host) takeENQBytes() {
	if h.dec.ENQBytes > h.enqBytes {
		h.sawENQ(ENQByte)
	}
	h.enqBytes = h.dec.ENQBytes
}

// sawENQ notes the unit's call, and logs its form the first time this serial session sees it.
func (h *Host) sawENQ(form ENQForm) {
	h.called = true
	if int(form) >= len(h.enqForms) || h.enqForms[form] {
		return
	}
	h.enqForms[form] = true
	h.emit(Event{Kind: EventCalled, Detail: fmt.Sprintf("the unit calls by %s; comm mode asked: %d", form, h.cfg.CommMode)})
}

// wait is the pause between two status requests: PollInterval in polling mode; in an interrupt
// mode, until the unit calls (at once if it called during the last exchange) or InterruptPoll has
// passed. Before the unit is configured it polls, whatever the mode.
func (h *Host) wait() error {
	if h.cfg.CommMode == CommPolling || !h.configured {
		h.called = false
		return h.cfg.Clock.Sleep(h.ctx, h.cfg.PollInterval)
	}
	deadline := h.cfg.Clock.Now().Add(h.cfg.InterruptPoll)
	for !h.called {
		if err := h.ctx.Err(); err != nil {
			return err
		}
		if !h.cfg.Clock.Now().Before(deadline) {
			break
		}
		n, err := h.port.Read(h.rbuf) // (0, nil) after ReplyTimeout
		if err != nil {
			return err
		}
		h.dec.Feed(h.rbuf[:n])
		if f, ok := h.next(); ok {
			// Nothing was asked: a stale answer, dropped as send would drop it.
			h.emit(Event{Kind: EventAnomaly, Detail: fmt.Sprintf("frame %s while no command was sent", f)})
		}
	}
	h.called = false
	return nil
}

// send writes one frame after dropping anything stale: ID-003 is strictly question and answer,
// so bytes that arrived before the question belong to an earlier exchange.
func (h *Host) send(cmd byte, data []byte) error {
	h.dec.Reset()
	if err := h.port.ResetInputBuffer(); err != nil {
		return err
	}
	var err error
	h.wbuf, err = AppendFrame(h.wbuf[:0], cmd, data)
	if err != nil {
		return err
	}
	_, err = h.port.Write(h.wbuf)
	return err
}

// operation sends an operation command (answered ACK).
func (h *Host) operation(cmd byte) error {
	_, err := h.transact(cmd, nil, func(f Frame) error {
		if f.Cmd != RespAck {
			return fmt.Errorf("%w: answer %s to %02X, want ACK", hw.ErrProtocol, f, cmd)
		}
		return nil
	})
	return err
}

// setting sends a setting command (answered by its echo).
func (h *Host) setting(cmd byte, data []byte) error {
	_, err := h.transact(cmd, data, func(f Frame) error {
		if f.Cmd != cmd || string(f.Data) != string(data) {
			return fmt.Errorf("%w: answer %s to %02X, want its echo", hw.ErrProtocol, f, cmd)
		}
		return nil
	})
	return err
}

// request sends a request and returns the data of its answer.
func (h *Host) request(cmd byte) ([]byte, error) {
	f, err := h.transact(cmd, nil, func(f Frame) error {
		if f.Cmd != cmd {
			return fmt.Errorf("%w: answer %s to %02X", hw.ErrProtocol, f, cmd)
		}
		return nil
	})
	return f.Data, err
}
