package kiosk

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"pharaon/game"
	"pharaon/hw"
	"pharaon/hw/escpos"
	"pharaon/hw/validator"
	"pharaon/store"
)

// The money flow (DESIGN.md §7): bank notes in through the bill
// validator, cash-out through a printed voucher. Credit comes only from a
// note the validator reports irrevocably accepted (ID-003's VEND VALID,
// an eSSP unit's note credit; validator.StateVendValid), exactly
// once (cash_in.go); the credit is zeroed only once the printer confirmed
// the voucher (cash_out.go); at start, a voucher whose print was never
// confirmed is voided and the credit kept, so the player ends with the
// credit or one payable voucher, never both, never neither.

// Defaults of CashConfig.
const (
	// DefaultMaxCredit bounds the credit notes can build: 200 €. It keeps
	// what a walk-away or a broken-into kiosk holds small, keeps cash-in →
	// voucher cycles (a laundering pattern) small, and stays far below the
	// payout limit, so a voucher made of notes alone is always paid at the
	// counter. Wins may take the credit above it; only notes are refused.
	DefaultMaxCredit = 200 * game.Euro
	// DefaultPayoutLimit is the largest voucher a shop pays at its counter:
	// 1 500 €, the retail payout limit of French lottery retailers; above
	// it the voucher says to go to a payment centre.
	DefaultPayoutLimit = 1500 * game.Euro
	// MaxCreditBound is the largest maximum credit the kiosk's
	// configuration (cmd/pharaon) or a store setting may give: the default payout limit. More is a typing mistake
	// (a zero too many) that would let notes build a credit no shop pays.
	MaxCreditBound = 1500 * game.Euro
	// PayoutLimitBound is the largest payout limit: 15 000 €, the top
	// prize of the 2 € table (Art. 4.3); no shop pays more at its counter.
	PayoutLimitBound = 15_000 * game.Euro
	// DefaultVoucherValidity is how long a voucher is payable: 60 days,
	// the claim period of French lottery prizes.
	DefaultVoucherValidity = 60 * 24 * time.Hour
	// DefaultPrinterCheck is how often the printer's status is read
	// between vouchers; every second while it is faulty, so cash-out comes
	// back as soon as the paper is replaced.
	DefaultPrinterCheck = 5 * time.Second
)

// DefaultPrinterMode is the voucher printer's line setting: 38 400 baud,
// 8 data bits, no parity, 1 stop bit (set the printer's switches to match,
// or CashConfig.PrinterMode).
var DefaultPrinterMode = hw.Mode{BaudRate: 38400, DataBits: 8, Parity: hw.NoParity, StopBits: 1}

// Settings in the store that override CashConfig (the maintenance screen
// changes them; they apply at the next start).
const (
	SettingMaxCredit       = "cash.max_credit"       // an amount: "200", "150,00"
	SettingPayoutLimit     = "voucher.payout_limit"  // an amount
	SettingVoucherValidity = "voucher.validity_days" // whole days
	// SettingKioskID is the kiosk's name on its vouchers, set at the first
	// start's setup (Machine.SetKioskID); it overrides Config.KioskID.
	SettingKioskID = "kiosk.id"
)

// CashConfig is the money flow's settings and devices. Zero fields take
// the defaults; no device path means no such device (cash-in or cash-out
// unavailable, shown as such).
type CashConfig struct {
	MaxCredit       game.Money    // DefaultMaxCredit
	PayoutLimit     game.Money    // DefaultPayoutLimit
	HandPayLimit    game.Money    // DefaultHandPayLimit (handpay.go)
	VoucherValidity time.Duration // DefaultVoucherValidity

	// ValidatorPath and PrinterPath are the devices' stable paths
	// (/dev/serial/by-id/..., a udev link, a simulator's pty link).
	ValidatorPath string
	PrinterPath   string
	PrinterMode   hw.Mode // DefaultPrinterMode
	// Validator is the bill validator's family (validator = id003 | essp
	// in the configuration) and its driver's settings (notes accepted,
	// poll interval, timeouts, eSSP's key). The core reads only its
	// family-neutral words; Drivers turns it into a family's driver.
	Validator validator.Settings
	// Drivers builds the validator's driver and probes the unit at boot
	// (hw/validator/drivers.Opener): the wiring's, the one place that
	// knows the families. Required with a ValidatorPath.
	Drivers validator.Opener
	// PrinterTiming tunes the ESC/POS driver.
	PrinterTiming escpos.Config
	PrinterCheck  time.Duration // DefaultPrinterCheck
	// Printer, if set, is used instead of a printer at PrinterPath.
	Printer VoucherPrinter
}

func (c *CashConfig) fill() error {
	if c.MaxCredit == 0 {
		c.MaxCredit = DefaultMaxCredit
	}
	if c.PayoutLimit == 0 {
		c.PayoutLimit = DefaultPayoutLimit
	}
	if c.HandPayLimit == 0 {
		c.HandPayLimit = DefaultHandPayLimit
	}
	if c.VoucherValidity == 0 {
		c.VoucherValidity = DefaultVoucherValidity
	}
	if c.PrinterMode == (hw.Mode{}) {
		c.PrinterMode = DefaultPrinterMode
	}
	if c.PrinterCheck <= 0 {
		c.PrinterCheck = DefaultPrinterCheck
	}
	if c.Validator.Family == "" {
		c.Validator.Family = validator.FamilyID003
	}
	if _, err := validator.ParseFamily(string(c.Validator.Family)); err != nil {
		return fmt.Errorf("cash: %w: %w", err, ErrBadSetting)
	}
	switch {
	case c.ValidatorPath != "" && c.Drivers == nil:
		return fmt.Errorf("cash: bill validator %s without its drivers: %w", c.ValidatorPath, ErrBadSetting)
	case c.MaxCredit < 0 || c.PayoutLimit < 0 || c.HandPayLimit < 0:
		return fmt.Errorf("cash: negative limit: %w", ErrBadSetting)
	case c.VoucherValidity < time.Hour:
		return fmt.Errorf("cash: voucher validity %v: %w", c.VoucherValidity, ErrBadSetting)
	}
	return c.PrinterMode.Validate()
}

// ErrBadSetting: a cash setting that cannot be used.
var ErrBadSetting = errors.New("bad cash setting")

// Errors of the money flow, besides ErrBusy and ErrOutOfService.
var (
	// ErrNoCredit: nothing to cash out.
	ErrNoCredit = errors.New("no credit to cash out")
	// ErrCashOutUnavailable: there is no printer, or it is faulty
	// (Snapshot.Cash.Printer says why).
	ErrCashOutUnavailable = errors.New("cash-out unavailable")
	// ErrPrintFailed: the voucher was not printed; it is void and the
	// credit stays. The error is a *PrintFailure.
	ErrPrintFailed = errors.New("voucher not printed")
	// ErrNoVoucher: no voucher can be reprinted (none printed, or the last
	// one is paid, expired or void).
	ErrNoVoucher = errors.New("no voucher to reprint")
)

// DeviceStatus is a cash device as the screens show it.
type DeviceStatus struct {
	Configured bool   // the kiosk has such a device
	Connected  bool   // it answers
	OK         bool   // it can be used now
	Code       string // when not OK: the device's own code ("45" jam in acceptor, "paper_out", "offline", …)
	Message    Message
	// Warning is something staff should see while the device still works
	// (paper near end, a note awaiting staff).
	Warning Message
}

// CashInKind is what a note is doing.
type CashInKind uint8

const (
	CashInNone   CashInKind = iota
	NoteReading             // the validator is reading a note
	NoteEscrow              // the note is recognised (Amount) and being taken
	NoteCredited            // the note is credited (Amount; Credit is the credit after it)
	NoteReturned            // the note was given back (Reason says why)
)

var cashInNames = [...]string{"none", "reading", "escrow", "credited", "returned"}

func (k CashInKind) String() string {
	if int(k) < len(cashInNames) {
		return cashInNames[k]
	}
	return fmt.Sprintf("CashInKind(%d)", uint8(k))
}

// CashInEvent is the latest thing a note did, for the screens' feedback.
// Seq grows by one at every new event, so a screen knows when to show it.
type CashInEvent struct {
	Seq    uint64
	Kind   CashInKind
	Amount game.Money // the note's value, once known
	Credit game.Money // NoteCredited: the credit after the note
	Code   string     // NoteReturned: "max_credit", "not_accepted", "off", "kiosk_error", or the unit's status ("17 77")
	Reason Message    // NoteReturned: why, as a code the screens put in words
	At     time.Time
}

// CashSnapshot is the money flow as the screens show it.
type CashSnapshot struct {
	// CanCashIn: notes are taken now (the validator works and the kiosk is
	// at home or on a result, not printing, below the maximum credit).
	CanCashIn bool
	// CanCashOut: the cash-out button works now (credit, a working printer,
	// no game, no note on its way, no voucher printing).
	CanCashOut bool
	// CashInOff says why notes are not taken now, before a note goes in
	// (zero when they are, or when the kiosk has no validator).
	CashInOff  Message
	CashingOut bool // a voucher is being printed
	NoteInPath bool // a note is on its way to the cash box: Play and CashOut wait for it
	MaxCredit  game.Money
	// Notes are the values of the notes the kiosk takes (the home screen
	// shows them).
	Notes     NoteValues
	CashIn    CashInEvent
	Validator DeviceStatus
	Printer   DeviceStatus
}

// VoucherPrinter is what the kiosk needs of a receipt printer
// (*escpos.Printer).
type VoucherPrinter interface {
	Print(ctx context.Context, doc *escpos.Doc) (escpos.Status, error)
	Status(ctx context.Context) (escpos.Status, error)
}

// billValidator is what the kiosk needs of the bill validator's driver,
// whatever its family.
type billValidator = validator.Driver

// cashState is the machine's money flow; guarded by Machine.mu unless said.
type cashState struct {
	maxCredit, payoutLimit game.Money
	validity               time.Duration
	minNote                game.Money // the smallest note accepted
	notes                  NoteValues // the notes accepted

	// Set by startCash, read-only afterwards.
	validator billValidator
	printer   VoucherPrinter
	log       *eventLog
	stop      context.CancelFunc
	loops     sync.WaitGroup // the cash loop
	ops       sync.WaitGroup // cash-outs and reprints in progress
	started   bool
	stopped   atomic.Bool

	vStatus, pStatus DeviceStatus
	// unit is what the bill validator said it is at the boot self-test
	// (its family, model, serial number, version).
	unit       validator.Identity
	activity   CashInEvent
	noteInPath bool
	cashingOut bool
	// restUnseen: the unit has not been seen at rest since the kiosk
	// started or the validator's line was lost (settleAtRest).
	restUnseen bool
	// held counts the notes held for staff (store.HeldIntents) known to
	// this run; heldMsg describes the one held last.
	held    int
	heldMsg Message
	// test is the technician's test mode (testmode.go).
	test testMode

	// hook, in tests only, is called at each step of a note's and a
	// voucher's path (cashPoint…), from the goroutine taking that step.
	hook func(point string)
}

// Points of the money's path where the exactly-once tests kill the kiosk.
const (
	pointAccepting       = "accepting"         // the validator reads a note
	pointEscrow          = "escrow"            // the intent is recorded; STACK not sent yet
	pointStackMarked     = "stack-marked"      // the intent is marked stacking; STACK not sent yet
	pointStacking        = "stacking"          // STACK sent, the note is moving
	pointVendValid       = "vend-valid"        // VEND VALID seen, before the credit commit
	pointCredited        = "credited"          // credit committed, before the ACK
	pointAcked           = "acked"             // ACK sent
	pointVoucherIssued   = "voucher-issued"    // voucher written, before the print
	pointVoucherPrinted  = "voucher-printed"   // print confirmed, before the debit commit
	pointVoucherConfirmd = "voucher-confirmed" // debit committed
)

func (m *Machine) cashPoint(p string) {
	if h := m.cash.hook; h != nil {
		h(p)
	}
}

func (m *Machine) initCash() {
	c := m.cfg.Cash
	m.cash.maxCredit, m.cash.payoutLimit, m.cash.validity = c.MaxCredit, c.PayoutLimit, c.VoucherValidity
	m.cash.restUnseen = true // the validator's first status is at the kiosk's start
	accept := c.Validator.Accept
	if accept == nil {
		accept = validator.DefaultAccept
	}
	for i, v := range accept {
		if i == 0 || game.Money(v) < m.cash.minNote {
			m.cash.minNote = game.Money(v)
		}
	}
	m.cash.notes = noteValues(accept)
	m.cash.vStatus = DeviceStatus{Configured: c.ValidatorPath != ""}
	m.cash.pStatus = DeviceStatus{Configured: c.PrinterPath != "" || c.Printer != nil}
	for _, s := range []*DeviceStatus{&m.cash.vStatus, &m.cash.pStatus} {
		if s.Configured {
			s.Code, s.Message = "connecting", Message{Code: MsgConnecting}
		} else {
			s.Code, s.Message = "absent", Message{Code: MsgAbsent}
		}
	}
	m.listeners = append(m.listeners, m.applyAccepting)
}

// startCash reads the cash settings, settles what a crash left (a voucher
// never confirmed is voided, old vouchers expire), then starts the devices.
func (m *Machine) startCash(ctx context.Context) error {
	m.readCashSettings(ctx)
	m.cash.log = newEventLog(m.st)
	// From here stopCash has something to stop: a start failing below
	// leaves the event log's goroutine (and the validator's) to Close,
	// which writes the events already queued (the void of a voucher).
	m.mu.Lock()
	m.cash.started = true
	m.mu.Unlock()
	if v, err := m.st.PendingVoucher(ctx); err == nil {
		// The paper may or may not have come out; a void voucher is never
		// payable, and the credit was never debited: the player keeps it.
		if _, err := m.st.VoidVoucher(ctx, v.ID, "kiosk restarted before the printer confirmed the print"); err != nil {
			return fmt.Errorf("void unconfirmed voucher %d: %w", v.ID, err)
		}
		m.logCash(store.LevelWarning, "printer", "voucher_void", "voucher %d of %s voided at start: print never confirmed; credit kept",
			v.ID, v.Amount.Plain())
	} else if !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("read unconfirmed voucher: %w", err)
	}
	if err := m.expireVouchers(ctx); err != nil {
		return err
	}
	if in, err := m.st.PendingBillIntent(ctx); err == nil {
		m.logCash(store.LevelInfo, "validator", "intent_pending",
			"intent %d (%s) %s at start: settled by the validator's next report (VEND VALID, power up with a note, escrow), or when the unit is first seen at rest", in.ID, in.Denom.Plain(), in.State)
	}
	if n := m.refreshHeld(ctx); n > 0 {
		m.logCash(store.LevelWarning, "validator", "intents_held", "%d notes held for staff at start", n)
	}
	// The devices are set before the cash loop and the listeners run, and
	// under the machine's lock: the poll loop (Start) already reads them
	// for its snapshots. stopCash cleans up whatever was started.
	c := m.cfg.Cash
	printer := c.Printer
	if printer == nil && c.PrinterPath != "" {
		printer = openPrinter(c)
	}
	var h billValidator
	if c.ValidatorPath != "" {
		var err error
		if h, err = openValidator(c, wallet{m}, m.onValidatorEvent); err != nil {
			return err
		}
	}
	m.mu.Lock()
	if printer != nil {
		m.cash.printer = printer
	}
	if h != nil {
		m.cash.validator = h
	}
	m.mu.Unlock()
	cctx, cancel := context.WithCancel(context.Background())
	m.cash.stop = cancel
	m.cash.loops.Add(1)
	go func() { defer m.cash.loops.Done(); m.cashLoop(cctx) }()
	if h != nil {
		m.applyAccepting(Snapshot{}) // before the first poll: a note left in escrow is decided at once
		if err := h.Start(); err != nil {
			return fmt.Errorf("start validator: %w", err)
		}
	}
	return nil
}

// stopCash stops the devices, waits for a voucher being printed and writes
// the events still queued. Safe to call more than once.
func (m *Machine) stopCash() {
	m.mu.Lock()
	done := !m.cash.started || m.cash.stopped.Swap(true)
	m.mu.Unlock()
	if done {
		return
	}
	if m.cash.validator != nil {
		_ = m.cash.validator.Close()
	}
	m.cash.ops.Wait()
	if m.cash.stop != nil {
		m.cash.stop()
	}
	m.cash.loops.Wait()
	if p, ok := m.cash.printer.(interface{ Close() error }); ok && m.cfg.Cash.Printer == nil {
		_ = p.Close()
	}
	m.cash.log.close()
}

// amountSetting reads an amount setting kept in the store: false when there
// is none, or when it is not an amount from 0,01 € to bound (warn then says
// so, and the configuration's value stands).
func (m *Machine) amountSetting(ctx context.Context, key string, bound game.Money, warn func(format string, args ...any)) (game.Money, bool) {
	v, ok, err := m.st.Setting(ctx, key)
	if err != nil || !ok {
		return 0, false
	}
	a, err := game.ParseMoney(v)
	if err != nil || a <= 0 || a > bound {
		warn("%s = %q ignored: not an amount from 0,01 to %s", key, v, bound.Plain())
		return 0, false
	}
	return a, true
}

// readCashSettings applies the store's cash settings over the configuration;
// a bad value is logged and ignored.
func (m *Machine) readCashSettings(ctx context.Context) {
	warn := func(format string, args ...any) {
		m.logCash(store.LevelWarning, "kiosk", "bad_setting", format, args...)
	}
	// The machine's poll loop already runs, and its snapshots read these
	// under the machine's lock: they are written under it.
	money := func(key string, dst *game.Money, bound game.Money) {
		if a, ok := m.amountSetting(ctx, key, bound, warn); ok {
			m.mu.Lock()
			*dst = a
			m.mu.Unlock()
		}
	}
	if v, ok, err := m.st.Setting(ctx, SettingKioskID); err == nil && ok && ValidKioskID(v) {
		m.mu.Lock()
		m.kioskID = v
		m.mu.Unlock()
	}
	money(SettingMaxCredit, &m.cash.maxCredit, MaxCreditBound)
	money(SettingPayoutLimit, &m.cash.payoutLimit, PayoutLimitBound)
	if v, ok, err := m.st.Setting(ctx, SettingVoucherValidity); err == nil && ok {
		days, err := strconv.Atoi(v)
		if err != nil || days < 1 || days > 3660 {
			m.logCash(store.LevelWarning, "kiosk", "bad_setting", "%s = %q ignored: not a number of days", SettingVoucherValidity, v)
		} else {
			m.mu.Lock()
			m.cash.validity = time.Duration(days) * 24 * time.Hour
			m.mu.Unlock()
		}
	}
}

// expireVouchers marks expired the printed vouchers past their date.
func (m *Machine) expireVouchers(ctx context.Context) error {
	vs, err := m.st.ExpireVouchers(ctx, m.clk.Now())
	if err != nil {
		return fmt.Errorf("expire vouchers: %w", err)
	}
	for _, v := range vs {
		m.logCash(store.LevelInfo, "printer", "voucher_expired", "voucher %d of %s expired unpaid", v.ID, v.Amount.Plain())
	}
	return nil
}

// acceptPolicyLocked: may the kiosk take a note now, the devices aside?
// Notes are taken at home and on a result screen only: not during a game
// (the credit shown during a game is the one its stake left), not while a
// voucher prints, not out of service, and not when the smallest note would
// take the credit over the maximum. Under the maintenance screen only in
// test mode, whose notes are all given back (testmode.go).
func (m *Machine) acceptPolicyLocked() bool {
	return (m.state == Home || m.state == Result) && !m.starting && !m.gameOnLocked() && (!m.maintenance || m.cash.test.on) &&
		!m.cash.cashingOut && m.credit+m.cash.minNote <= m.cash.maxCredit && !m.payoutDownLocked() &&
		!m.handPayLockedLocked() && m.limitReachedLocked(0) == ""
}

// payoutDownLocked: the kiosk has a voucher printer and it cannot print now
// (no paper, cover open, offline, not yet answering). A note taken then
// could not be cashed out: the validator is inhibited until the printer is
// back (a kiosk built without a printer, a test bench, takes notes).
func (m *Machine) payoutDownLocked() bool {
	return m.cash.pStatus.Configured && !m.cash.pStatus.OK
}

// cashInOffLocked says why notes are not taken now; zero when they are or
// the kiosk has no validator.
func (m *Machine) cashInOffLocked() Message {
	c := &m.cash
	switch {
	case c.validator == nil:
		return Message{}
	case !c.vStatus.OK:
		return Message{Code: MsgCashInValidatorDown}
	case m.maintenance && !c.test.on:
		return Message{Code: MsgCashInMaintenance}
	case m.payoutDownLocked():
		return Message{Code: MsgCashInPrinterDown}
	case m.handPayLockedLocked():
		return Message{Code: MsgCashInHandPay}
	case m.acceptPolicyLocked():
		return Message{}
	case m.credit+c.minNote > c.maxCredit:
		return Message{Code: MsgCashInNearMax, Amount: m.credit, Limit: c.maxCredit}
	case m.limitReachedLocked(0) != "":
		return m.limitMessageLocked(false)
	}
	return Message{Code: MsgCashInOff}
}

func (m *Machine) gameOnLocked() bool { return m.game != nil && m.game.stage != StageDone }

func (m *Machine) cashSnapshotLocked() CashSnapshot {
	c := &m.cash
	in := c.validator != nil && c.vStatus.OK && m.acceptPolicyLocked()
	out := c.printer != nil && c.pStatus.OK && m.credit > 0 && (m.state == Home || m.state == Result) &&
		!m.starting && !m.gameOnLocked() && !c.cashingOut && !c.noteInPath && !m.handPayLockedLocked() && !m.maintenance
	v := c.vStatus
	if c.held > 0 && v.Warning == (Message{}) {
		v.Warning = c.heldMsg
		if c.held > 1 {
			v.Warning = msgHeld
		}
	}
	return CashSnapshot{CanCashIn: in, CashInOff: m.cashInOffLocked(), CanCashOut: out, CashingOut: c.cashingOut, NoteInPath: c.noteInPath,
		MaxCredit: c.maxCredit, Notes: c.notes, CashIn: c.activity, Validator: v, Printer: c.pStatus}
}

// applyAccepting tells the validator whether to take notes: called after
// every change of the machine (it is one of its listeners).
func (m *Machine) applyAccepting(Snapshot) {
	// The validator is set by startCash under the lock while the listeners
	// may already be told of changes (the clock's ticks, the session's
	// reads): it is read under the lock too.
	m.mu.Lock()
	v := m.cash.validator
	want := v != nil && m.acceptPolicyLocked()
	m.mu.Unlock()
	if v == nil {
		return
	}
	v.SetAccepting(want)
}

// cashBusyLocked: a note on its way or a voucher printing holds back a
// new game (Play) — the credit must settle first.
func (m *Machine) cashBusyLocked() bool { return m.cash.noteInPath || m.cash.cashingOut }

// resyncCredit reads the credit back from the store. The machine's own
// movements are shown in order as they commit (ledgerMu); this catches the
// ledger moved behind its back (a staff adjustment made on the database).
func (m *Machine) resyncCredit(ctx context.Context) {
	shown, credit, err := m.reloadCredit(ctx)
	if err != nil || credit == shown {
		return
	}
	m.notify()
	m.logCash(store.LevelWarning, "kiosk", "credit_resync", "credit shown %s, the ledger says %s", shown.Plain(), credit.Plain())
}

// ResetValidator asks the validator for a reset once staff cleared a jam
// or put the cash box back (sent when no note can be on its way).
func (m *Machine) ResetValidator() {
	if m.cash.validator != nil {
		m.cash.validator.Reset()
	}
}

// logCash queues an event for the store's log (written in order by one
// goroutine, so a device's poll never waits on the disk).
func (m *Machine) logCash(level store.Level, source, code, format string, args ...any) {
	e := store.Event{Level: level, Source: source, Code: code, Detail: fmt.Sprintf(format, args...)}
	if m.cash.log == nil || m.cash.stopped.Load() {
		_, _ = m.st.Log(context.Background(), e)
		return
	}
	m.cash.log.add(e)
}

// eventLog writes events to the store from its own goroutine, in order.
// When the queue is full (a disk stalling for seconds) ordinary events are
// dropped and the count is logged once the disk is back; a critical event
// is never dropped (a note credited without VEND VALID, a note held for
// staff, a store fault): it queues beyond the bound, so that neither it is
// lost nor a device's poll waits on the disk. The money itself is in the
// ledger, written by its own transactions.
type eventLog struct {
	st      eventWriter
	wake    chan struct{} // a new event or close, for the writer
	done    chan struct{}
	mu      sync.Mutex
	queue   []store.Event // guarded by mu
	dropped int64         // guarded by mu
	closed  bool          // guarded by mu
}

// eventQueueLen bounds the queue of ordinary events.
const eventQueueLen = 512

// eventWriter is what the event log needs of the store.
type eventWriter interface {
	Log(ctx context.Context, e store.Event) (store.Event, error)
}

func newEventLog(st eventWriter) *eventLog {
	l := &eventLog{st: st, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go l.run()
	return l
}

func (l *eventLog) add(e store.Event) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		_, _ = l.st.Log(context.Background(), e)
		return
	}
	if len(l.queue) >= eventQueueLen && e.Level != store.LevelCritical {
		l.dropped++
	} else {
		l.queue = append(l.queue, e)
	}
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func (l *eventLog) run() {
	defer close(l.done)
	ctx := context.Background()
	var batch []store.Event
	for {
		l.mu.Lock()
		batch, l.queue = l.queue, batch[:0]
		dropped, closed := l.dropped, l.closed
		l.dropped = 0
		l.mu.Unlock()
		for _, e := range batch {
			_, _ = l.st.Log(ctx, e)
		}
		if dropped > 0 {
			_, _ = l.st.Log(ctx, store.Event{Level: store.LevelWarning, Source: "kiosk", Code: "events_dropped",
				Detail: fmt.Sprintf("%d device events not logged: the disk was too slow", dropped)})
		}
		if closed && len(batch) == 0 && dropped == 0 {
			return
		}
		if !closed {
			<-l.wake
		}
	}
}

// close writes what is queued and stops.
func (l *eventLog) close() {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	<-l.done
}

// refreshHeld reads the notes held for staff again (at start, and after
// staff credited or closed one) and returns how many there are.
func (m *Machine) refreshHeld(ctx context.Context) int {
	held, err := m.st.HeldIntents(ctx)
	if err != nil {
		return 0
	}
	m.update(func() {
		m.cash.held = len(held)
		m.cash.heldMsg = Message{}
		if len(held) > 0 {
			last := held[len(held)-1]
			m.cash.heldMsg = Message{Code: MsgNoteHeld, Amount: last.Denom}
		}
	})
	return len(held)
}

// NoteValues are the values of the notes the kiosk takes, smallest first,
// zero after the last: an array, so that a snapshot stays comparable.
type NoteValues [8]game.Money

// List is the values, smallest first.
func (n NoteValues) List() []game.Money {
	var out []game.Money
	for _, v := range n {
		if v > 0 {
			out = append(out, v)
		}
	}
	return out
}

// noteValues sorts the values accepted (cents) into NoteValues; more than
// it holds are left out of what the screens show, never out of what the
// validator takes.
func noteValues(accept []int64) NoteValues {
	sorted := slices.Clone(accept)
	slices.Sort(sorted)
	var n NoteValues
	i := 0
	for _, v := range slices.Compact(sorted) {
		if v > 0 && i < len(n) {
			n[i] = game.Money(v)
			i++
		}
	}
	return n
}
