package essp

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"pharaon/hw"
	"pharaon/hw/validator"
)

// Mode is the line setting of an SSP unit on its serial (TTL or RS-232) interface: 9600 baud,
// 8 data bits, no parity, 2 stop bits.
var Mode = hw.Mode{BaudRate: 9600, DataBits: 8, Parity: hw.NoParity, StopBits: 2}

// DefaultAccept is what the kiosk takes by default: 5, 10, 20 and 50 € notes.
var DefaultAccept = []int64{500, 1000, 2000, 5000}

// Config tunes a Host. The zero value is the kiosk's default: 5-50 € taken from a unit whose table
// is in euros, encrypted with the manufacturer's default fixed key, polled every 200 ms.
type Config struct {
	Accept  []int64 // values taken, in cents; default DefaultAccept
	Country string  // the currency of the notes taken; default "EUR"
	Address byte    // the unit's SSP address; 0 for a note validator

	// Plain talks plain SSP, without negotiating a key: only for a unit on a line nobody else
	// can reach. By default every command after the key exchange is encrypted.
	Plain    bool
	FixedKey uint64 // the fixed half of the key; default DefaultFixedKey
	// Protocol is the host protocol version asked for; default 6.
	Protocol byte

	PollInterval time.Duration // default 200 ms
	ReplyTimeout time.Duration // silence after which a command is sent again; default 300 ms
	Retries      int           // retries of a command before the line is declared lost; default 3
	Backoff      hw.Backoff    // re-open after a lost line; default hw.DefaultBackoff
	Clock        hw.Clock      // default hw.SystemClock
	Random       io.Reader     // the host's secrets and the packing; default crypto/rand

	// OnEvent receives every event, synchronously from the polling goroutine, in order. It must
	// not block for long and must not call Close.
	OnEvent func(validator.Event)
}

func (c *Config) fill() error {
	if c.Accept == nil {
		c.Accept = DefaultAccept
	}
	for _, v := range c.Accept {
		if v <= 0 {
			return fmt.Errorf("accepted value %d cents", v)
		}
	}
	if c.Country == "" {
		c.Country = "EUR"
	}
	if len(c.Country) != 3 {
		return fmt.Errorf("country %q is not three letters", c.Country)
	}
	if c.Address > 0x7F {
		return fmt.Errorf("address %d over 127", c.Address)
	}
	if c.FixedKey == 0 {
		c.FixedKey = DefaultFixedKey
	}
	if c.Protocol == 0 {
		c.Protocol = 6
	}
	if c.PollInterval <= 0 {
		c.PollInterval = 200 * time.Millisecond
	}
	if c.ReplyTimeout <= 0 {
		c.ReplyTimeout = 300 * time.Millisecond
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
	if c.Random == nil {
		c.Random = rand.Reader
	}
	return nil
}

// ErrRefused: the unit answered a command with a generic response other than OK.
var ErrRefused = fmt.Errorf("%w: unit refused the command", hw.ErrProtocol)

// RefusedError is the unit's refusal of a command; errors.Is(err, ErrRefused).
type RefusedError struct {
	Cmd, Resp byte
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("command %02X: %s", e.Cmd, respName(e.Resp))
}

func (e *RefusedError) Unwrap() error { return ErrRefused }

// errStale: an answer that cannot be this command's (encrypted, to a plain command): the host sends
// the command again.
var errStale = fmt.Errorf("%w: stale answer", hw.ErrProtocol)

// errRekey: the key must be negotiated again (the unit lost it, or a packet failed its checks).
var errRekey = errors.New("essp: key to renegotiate")

// Host drives one SSP or eSSP note validator; it implements validator.Driver. It owns its polling
// goroutine: Start launches it and Close stops it. Everything the unit does reaches the kiosk as
// Wallet calls and events.
type Host struct {
	cfg    Config
	dial   hw.Dial
	wallet validator.Wallet

	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	started atomic.Bool

	want     atomic.Bool // SetAccepting
	resetReq atomic.Bool

	mu   sync.Mutex
	snap validator.Snapshot

	// Owned by the polling goroutine.
	port       hw.Port
	dec        Decoder
	rbuf       []byte
	seq        bool     // the sequence flag of the last command sent
	sess       *Session // nil: plain
	setup      Setup
	configured bool
	polled     bool // a poll was answered since the last setup
	plainPoll  bool // the unit refused POLL WITH ACK: kept disabled
	configErr  error
	enabled    bool // what the unit was last told
	inhibits   [2]byte
	last       validator.Status
	note       noteTrack
	sessions   uint64
	failures   int // consecutive failed Wallet calls, for the event log's pacing
}

// noteTrack follows the note in the unit's path. It outlives a lost line (the unit keeps its
// note), not the host's process: after a restart the kiosk's intent log takes over.
type noteTrack struct {
	active    bool
	channel   byte
	cents     int64
	intent    string
	decided   bool
	accepted  bool
	stackSent bool // the poll that lets the unit stack was (maybe) sent: a credit may follow
	credited  bool
}

// New checks the configuration and builds a host that will open its device with dial.
func New(dial hw.Dial, w validator.Wallet, cfg Config) (*Host, error) {
	if dial == nil || w == nil {
		return nil, errors.New("essp: new host: dial and wallet are required")
	}
	if err := cfg.fill(); err != nil {
		return nil, fmt.Errorf("essp: new host: %w", err)
	}
	h := &Host{cfg: cfg, dial: dial, wallet: w, rbuf: make([]byte, 512)}
	h.snap.Identity.Family = validator.FamilyESSP
	h.ctx, h.cancel = context.WithCancel(context.Background())
	return h, nil
}

var _ validator.Driver = (*Host)(nil)

// Start launches the polling goroutine. It returns at once; the device may well be absent.
func (h *Host) Start() error {
	if !h.started.CompareAndSwap(false, true) {
		return errors.New("essp: host already started")
	}
	h.wg.Add(1)
	go h.run()
	return nil
}

// Close stops polling and closes the port. A note held in escrow goes back on the unit's own timer;
// a credit not yet acknowledged stays unacknowledged, for the next run.
func (h *Host) Close() error {
	h.cancel()
	h.wg.Wait()
	return nil
}

// SetAccepting asks the unit to take notes (true) or to refuse them (false, the default).
func (h *Host) SetAccepting(on bool) {
	h.want.Store(on)
	h.update(func(s *validator.Snapshot) { s.Accepting = on })
}

// Reset asks for a reset of the unit, sent at the next poll where no note can be on its way to the
// credit.
func (h *Host) Reset() { h.resetReq.Store(true) }

// Snapshot returns the host's current view.
func (h *Host) Snapshot() validator.Snapshot {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.snap
}

func (h *Host) update(f func(*validator.Snapshot)) {
	h.mu.Lock()
	f(&h.snap)
	h.mu.Unlock()
}

func (h *Host) emit(e validator.Event) {
	e.Time = h.cfg.Clock.Now()
	if e.Status == (validator.Status{}) {
		e.Status = h.last
	}
	if h.cfg.OnEvent != nil {
		h.cfg.OnEvent(e)
	}
}

func (h *Host) run() {
	defer h.wg.Done()
	fails := 0
	for {
		r := hw.Reconnector{Dial: h.dial, Backoff: h.cfg.Backoff, Clock: h.cfg.Clock,
			OnRetry: func(attempt int, err error, wait time.Duration) {
				if attempt == 0 {
					h.emit(validator.Event{Kind: validator.EventDisconnected, Err: err, Detail: "device absent, retrying"})
				}
			}}
		port, err := r.Connect(h.ctx)
		if err != nil {
			if h.ctx.Err() != nil {
				return
			}
			h.emit(validator.Event{Kind: validator.EventDisconnected, Err: err, Detail: "cannot open device"})
			if h.cfg.Clock.Sleep(h.ctx, h.cfg.Backoff.Max) != nil {
				return
			}
			continue
		}
		good, err := h.session(port)
		_ = port.Close()
		h.port = nil
		h.update(func(s *validator.Snapshot) { s.Connected = false })
		if h.ctx.Err() != nil {
			return
		}
		h.emit(validator.Event{Kind: validator.EventDisconnected, Err: err})
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

// maxRekeys bounds the key negotiations in a row without a good poll: a unit that fails every
// packet is a broken line, not a reason to negotiate forever.
const maxRekeys = 3

// session talks to the unit on one open port until the line fails. good reports whether the unit
// answered at all.
func (h *Host) session(port hw.Port) (good bool, err error) {
	h.port = port
	h.sessions++
	h.configured = false
	h.sess = nil
	h.last = validator.Status{}
	h.dec.Reset()
	if err := port.SetReadTimeout(h.cfg.ReplyTimeout); err != nil {
		return false, err
	}
	rekeys := 0
	for {
		if !h.configured {
			if err := h.configure(); err != nil {
				if !errors.Is(err, errRekey) || rekeys >= maxRekeys {
					return good, err
				}
				rekeys++
				h.emit(validator.Event{Kind: validator.EventLineError, Err: err, Detail: "key renegotiated"})
				continue
			}
			if !good {
				good = true
				h.update(func(s *validator.Snapshot) { s.Connected = true })
				h.emit(validator.Event{Kind: validator.EventConnected})
			}
		}
		err := h.step()
		if errors.Is(err, errRekey) && rekeys < maxRekeys {
			rekeys++
			h.configured = false
			h.emit(validator.Event{Kind: validator.EventLineError, Err: err, Detail: "key renegotiated"})
			continue
		}
		if err != nil {
			return good, err
		}
		rekeys = 0
		if err := h.cfg.Clock.Sleep(h.ctx, h.cfg.PollInterval); err != nil {
			return good, err
		}
	}
}

// step is one turn of the loop: a reset if one is asked and safe, the enable the kiosk wants, a
// poll and its events.
func (h *Host) step() error {
	if h.resetReq.Load() && h.resetSafe() {
		h.resetReq.Store(false)
		if _, err := h.command(CmdReset); err != nil && !errors.Is(err, ErrRefused) {
			return err
		}
		// The unit restarts: it forgets the key and its settings.
		h.configured = false
		h.sess = nil
		return nil
	}
	poll := byte(CmdPollWithAck)
	if h.plainPoll {
		poll = CmdPoll
	}
	resp, err := h.command(poll)
	var refused *RefusedError
	if errors.As(err, &refused) && refused.Resp == RespUnknown && poll == CmdPollWithAck {
		// A unit without POLL WITH ACK (older firmware) would lose a credit the kiosk died before
		// committing: it is kept disabled, polled plainly only to see its state.
		h.plainPoll = true
		h.configErr = ErrNoPollWithAck
		h.update(func(s *validator.Snapshot) { s.ConfigError = h.configErr })
		h.emit(validator.Event{Kind: validator.EventConfigError, Err: h.configErr})
		return h.applyEnable()
	}
	if err != nil {
		return err
	}
	evs, err := ParseEvents(resp)
	if err != nil {
		// Bad input changes nothing: the answer is not acted on and the unit repeats what needs
		// acknowledging at the next poll.
		h.emit(validator.Event{Kind: validator.EventAnomaly, Err: err, Detail: "poll answer not understood"})
		return nil
	}
	h.update(func(s *validator.Snapshot) { s.Polls++ })
	settled, err := h.handle(evs)
	if err != nil || !settled {
		// A credit or a power-up the kiosk has not resolved yet: the unit stays as it is (it takes
		// no note before the event is acknowledged anyway).
		return err
	}
	// After the poll, not before: the first poll of a setup tells whether the unit lost power
	// with a note, and the kiosk resolves that (Wallet.PowerUp) before the unit is enabled.
	return h.applyEnable()
}

// command sends one command and returns the answer's data after OK; another generic response is
// a *RefusedError. KEY NOT SET asks for a new key.
func (h *Host) command(data ...byte) ([]byte, error) {
	resp, err := h.transact(data)
	if err != nil {
		return nil, err
	}
	switch resp[0] {
	case RespOK:
		return resp[1:], nil
	case RespKeyNotSet:
		if h.sess != nil || !h.cfg.Plain {
			return nil, fmt.Errorf("command %02X: %w: unit answered key not set", data[0], errRekey)
		}
	}
	return nil, &RefusedError{Cmd: data[0], Resp: resp[0]}
}

// transact sends one new command (the sequence flag toggled) and returns its answer, sending the
// same frame again on silence or a bad frame: the unit answers a repeated flag with its last answer
// without acting twice.
func (h *Host) transact(data []byte) ([]byte, error) {
	h.seq = !h.seq
	if data[0] == CmdSync {
		// SYNC sets the flag: the unit expects the next command with the flag clear.
		h.seq = true
	}
	payload := data
	var sent uint32
	if h.sess != nil {
		sent = h.sess.Count
		var err error
		if payload, err = h.sess.Seal(sent, data, h.cfg.Random); err != nil {
			return nil, err
		}
	}
	wire, err := AppendFrame(nil, Frame{Seq: h.seq, Addr: h.cfg.Address, Data: payload})
	if err != nil {
		return nil, err
	}
	var last error
	for attempt := 0; attempt <= h.cfg.Retries; attempt++ {
		if err := h.ctx.Err(); err != nil {
			return nil, err
		}
		f, err := h.exchange(wire)
		if err == nil && (f.Addr != h.cfg.Address || f.Seq != h.seq) {
			err = hw.Errorf(hw.ErrProtocol, "read", "answer %v to a command with flag %v", f, h.seq)
		}
		if err == nil {
			resp, oerr := h.open(data[0], sent, f.Data)
			if !errors.Is(oerr, errStale) {
				return resp, oerr
			}
			// An answer of an earlier exchange the unit was still sending (retries it queued
			// while the line was slow): not this command's. Send it again.
			err = oerr
		}
		if errors.Is(err, hw.ErrIO) || errors.Is(err, hw.ErrClosed) {
			return nil, fmt.Errorf("command %02X: %w", data[0], err)
		}
		last = err
		h.update(func(s *validator.Snapshot) { s.Retries++ })
		h.emit(validator.Event{Kind: validator.EventLineError, Err: err,
			Detail: fmt.Sprintf("command %02X attempt %d", data[0], attempt+1)})
	}
	return nil, fmt.Errorf("command %02X: %w", data[0], last)
}

// open checks an answer: decrypted and its count checked when the command was encrypted.
func (h *Host) open(cmd byte, sent uint32, data []byte) ([]byte, error) {
	if h.sess == nil {
		if data[0] == STEX {
			return nil, fmt.Errorf("command %02X: %w: encrypted answer to a plain command", cmd, errStale)
		}
		return data, nil
	}
	if data[0] != STEX {
		if data[0] == RespKeyNotSet && len(data) == 1 {
			return data, nil
		}
		return nil, fmt.Errorf("command %02X: %w: plain answer % X to an encrypted command", cmd, errRekey, data)
	}
	count, plain, err := h.sess.Open(data)
	if err != nil {
		return nil, fmt.Errorf("command %02X: %w: %w", cmd, errRekey, err)
	}
	if count != sent+1 {
		return nil, fmt.Errorf("command %02X: %w: %w: count %d, want %d", cmd, errRekey, ErrCrypto, count, sent+1)
	}
	h.sess.Count = count
	return plain, nil
}

// maxNoise bounds the bytes read while waiting for one answer.
const maxNoise = 1024

func (h *Host) exchange(wire []byte) (Frame, error) {
	// SSP is question and answer: bytes before the question belong to an earlier exchange.
	h.dec.Reset()
	if err := h.port.ResetInputBuffer(); err != nil {
		return Frame{}, err
	}
	if _, err := h.port.Write(wire); err != nil {
		return Frame{}, err
	}
	total := 0
	for {
		n, err := h.port.Read(h.rbuf)
		if err != nil {
			return Frame{}, err
		}
		if n == 0 {
			return Frame{}, hw.Errorf(hw.ErrTimeout, "read", "no answer within %v", h.cfg.ReplyTimeout)
		}
		h.dec.Feed(h.rbuf[:n])
		f, ok, err := h.dec.Next()
		if err != nil {
			return Frame{}, hw.Errorf(hw.ErrProtocol, "read", "%v", err)
		}
		if ok {
			return f, nil
		}
		if total += n; total > maxNoise {
			return Frame{}, hw.Errorf(hw.ErrProtocol, "read", "%d bytes without a frame", total)
		}
	}
}

// negotiate runs the key exchange: generator and modulus (primes the host draws), the host's
// intermediate key, the unit's; the count starts at zero.
func (h *Host) negotiate() error {
	h.sess = nil
	g, p, err := drawPrimes(h.cfg.Random)
	if err != nil {
		return err
	}
	var secretB [8]byte
	if _, err := io.ReadFull(h.cfg.Random, secretB[:]); err != nil {
		return fmt.Errorf("essp: host secret: %w", err)
	}
	secret := binary.LittleEndian.Uint64(secretB[:])>>1 | 1
	le := func(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }
	if _, err := h.command(append([]byte{CmdSetGenerator}, le(g)...)...); err != nil {
		return err
	}
	if _, err := h.command(append([]byte{CmdSetModulus}, le(p)...)...); err != nil {
		return err
	}
	resp, err := h.command(append([]byte{CmdRequestKeyExchange}, le(PowMod(g, secret, p))...)...)
	if err != nil {
		return err
	}
	if len(resp) != 8 {
		return fmt.Errorf("%w: key exchange answer of %d bytes", ErrCrypto, len(resp))
	}
	unit := binary.LittleEndian.Uint64(resp)
	if unit == 0 || unit >= p {
		return fmt.Errorf("%w: unit's intermediate key out of range", ErrCrypto)
	}
	h.sess = NewSession(h.cfg.FixedKey, PowMod(unit, secret, p))
	return nil
}

// drawPrimes draws the generator and the modulus: two distinct primes below 2^31, the generator
// the smaller. (Below 2^31 because a unit's firmware may compute in 64-bit products; a guess.)
func drawPrimes(r io.Reader) (g, p uint64, err error) {
	draw := func() (uint64, error) {
		for {
			var b [4]byte
			if _, err := io.ReadFull(r, b[:]); err != nil {
				return 0, fmt.Errorf("essp: draw prime: %w", err)
			}
			n := uint64(binary.LittleEndian.Uint32(b[:]))&0x7FFFFFFF | 0x40000001
			for ; n < 1<<31; n += 2 {
				if IsPrime(n) {
					return n, nil
				}
			}
		}
	}
	for g == p {
		if g, err = draw(); err != nil {
			return 0, 0, err
		}
		if p, err = draw(); err != nil {
			return 0, 0, err
		}
	}
	if g > p {
		g, p = p, g
	}
	return g, p, nil
}

// configure brings the unit to the kiosk's settings after a connect, a reset or a lost key: SYNC,
// the protocol version, the key, its identity and table, the inhibits, and what to do with a note
// found in escrow. The enable the kiosk wants follows the first poll (step).
func (h *Host) configure() error {
	h.sess = nil
	if _, err := h.command(CmdSync); err != nil {
		return err
	}
	if _, err := h.command(CmdHostProtocol, h.cfg.Protocol); err != nil {
		if !errors.Is(err, ErrRefused) {
			return err
		}
		h.emit(validator.Event{Kind: validator.EventAnomaly, Err: err, Detail: "host protocol version refused"})
	}
	if !h.cfg.Plain {
		if err := h.negotiate(); err != nil {
			if errors.Is(err, ErrCrypto) {
				return fmt.Errorf("%w: %w", errRekey, err)
			}
			return err
		}
	}
	id := validator.Identity{Family: validator.FamilyESSP}
	if b, err := h.command(CmdSerialNumber); err == nil {
		if id.Serial, err = ParseSerial(b); err != nil {
			return err
		}
	} else if !errors.Is(err, ErrRefused) {
		return err
	}
	b, err := h.command(CmdSetupRequest)
	if err != nil {
		return err
	}
	if h.setup, err = ParseSetup(b); err != nil {
		return err
	}
	id.Model = UnitTypeName(h.setup.UnitType)
	id.Version = h.setup.Firmware
	if v, err := h.command(CmdFirmwareVersion); err == nil {
		id.Version = printable(v)
	} else if !errors.Is(err, ErrRefused) {
		return err
	}
	h.configErr = h.checkTable()
	if h.plainPoll {
		h.configErr = ErrNoPollWithAck
	}
	h.inhibits = h.inhibitMask()
	h.update(func(s *validator.Snapshot) { s.Identity = id; s.ConfigError = h.configErr })
	if h.configErr != nil {
		h.emit(validator.Event{Kind: validator.EventConfigError, Err: h.configErr})
	}
	if _, err := h.command(CmdSetInhibits, h.inhibits[0], h.inhibits[1]); err != nil {
		return err
	}
	if err := h.escrowAtStart(); err != nil {
		return err
	}
	// Enabled or not, the first poll says (DISABLED every poll while disabled); until then the
	// host assumes the unit may take notes.
	h.enabled = true
	h.configured = true
	h.polled = false
	h.emit(validator.Event{Kind: validator.EventConfigured, Detail: id.String()})
	return nil
}

// ErrNoPollWithAck: the unit does not know POLL WITH ACK, without which a credit can be lost; it
// stays disabled.
var ErrNoPollWithAck = errors.New("essp: unit does not support poll with ack")

// ErrTable: the unit's channel table does not hold a value the kiosk takes.
var ErrTable = errors.New("essp: unit's channel table does not match")

func (h *Host) checkTable() error {
	for _, v := range h.cfg.Accept {
		if h.setup.Channel(v, h.cfg.Country) == 0 {
			return fmt.Errorf("%w: no %s channel of %d cents", ErrTable, h.cfg.Country, v)
		}
	}
	return nil
}

// inhibitMask: bit n-1 set lets channel n take notes; only the kiosk's values in its currency.
func (h *Host) inhibitMask() [2]byte {
	var m [2]byte
	if h.configErr != nil {
		return m
	}
	for i := range min(len(h.setup.Channels), 16) {
		c, _ := h.setup.Cents(byte(i + 1))
		if h.setup.Channels[i].Country == h.cfg.Country && slices.Contains(h.cfg.Accept, c) {
			m[i/8] |= 1 << (i % 8)
		}
	}
	return m
}

// escrowAtStart: a note may wait in escrow from before this session (the line was lost, the host
// restarted). The first poll would let the unit stack it with no decision of the kiosk, so the host
// asks first: HOLD is taken only with a note in escrow, and that note is given back.
func (h *Host) escrowAtStart() error {
	_, err := h.command(CmdHold)
	if errors.Is(err, ErrRefused) {
		return nil // nothing in escrow
	}
	if err != nil {
		return err
	}
	if _, err := h.command(CmdReject); err != nil && !errors.Is(err, ErrRefused) {
		return err
	}
	n := h.noteOf()
	if h.note.active && h.note.accepted && !h.note.credited {
		h.emit(validator.Event{Kind: validator.EventNoteReturned, Note: n,
			Detail: "still in escrow when the line came back: given back"})
	} else {
		h.emit(validator.Event{Kind: validator.EventAnomaly, Detail: "a note waited in escrow at the start: given back"})
	}
	h.note = noteTrack{}
	return nil
}

func (h *Host) accepting() bool { return h.want.Load() && h.configErr == nil }

func (h *Host) setEnable(on bool) error {
	cmd := byte(CmdDisable)
	if on {
		cmd = CmdEnable
	}
	if _, err := h.command(cmd); err != nil {
		if errors.Is(err, ErrRefused) {
			h.emit(validator.Event{Kind: validator.EventAnomaly, Err: err, Detail: "enable or disable refused"})
			return nil
		}
		return err
	}
	h.enabled = on
	return nil
}

// applyEnable brings the unit to what the kiosk wants. A unit disables itself on its own (power,
// reset); the host notices it from the Disabled event (handle).
func (h *Host) applyEnable() error {
	if h.enabled == h.accepting() {
		return nil
	}
	if h.note.active && !h.note.credited && h.enabled {
		return nil // a note on its way: disabling now would change nothing for it; wait
	}
	return h.setEnable(h.accepting())
}

// resetSafe: never reset while a note may be on its way to its credit, or waiting in it.
func (h *Host) resetSafe() bool {
	return !h.note.active || h.note.credited
}
