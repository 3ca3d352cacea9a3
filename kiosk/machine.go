package kiosk

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"pharaon/game"
	"pharaon/game/block"
	"pharaon/game/breakout"
	"pharaon/game/reveal"
	"pharaon/store"
)

// State is where the player's session is (DESIGN.md §7).
type State uint8

const (
	OutOfService State = iota // a fault stops the sale; Snapshot.Fault says why
	Home                      // the home screen: rules, stakes, Jouer, Auto (Art. 4.1)
	Playing                   // a game is breaking its main wall
	Bonus                     // a game is on its bonus wall (Art. 4.7)
	Result                    // a game ended; a win shows its congratulations (Art. 4.8)
)

var stateNames = [...]string{"out_of_service", "home", "playing", "bonus", "result"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("state(%d)", uint8(s))
}

// Fault codes: why the kiosk is out of service. The screens translate them.
const (
	FaultIntegrity = "integrity"       // the boot check of the store failed
	FaultStore     = "store"           // the database refused a write (disk full, I/O)
	FaultMismatch  = "reveal_mismatch" // a wall did not reveal its unit's outcome
	FaultRecovery  = "recovery"        // an interrupted play could not be resumed
	// FaultAnchor: the database does not match the heads anchored outside
	// it (a history cut or rewritten, the anchor or its secret missing).
	FaultAnchor = "anchor"
	// FaultRollback: the database and its anchor are behind the trust
	// root's counter: the data partition was put back to an earlier copy
	// (store.ErrRollback).
	FaultRollback = "rollback"
	// FaultSoftware: the running binary is not the one the signed
	// manifest of the installed package lists (Config.Software).
	FaultSoftware = "software"
	// The start-up failures of the kiosk binary, before any machine runs.
	FaultNoDatabase   = "database_missing" // no database where the kiosk has run before: restore it
	FaultNotInstalled = "not_installed"    // no database on a new kiosk started without -first-install
	FaultKeys         = "issuer_keys"      // an issuer key file cannot be read
)

// Fault says why the kiosk is out of service.
type Fault struct {
	Code   string // one of the Fault… codes
	Detail string // for the technician
}

// Snapshot is what the screens show of the machine.
type Snapshot struct {
	State     State
	Credit    game.Money
	Available map[game.Stake]bool // a stake without an open block is unavailable
	Fault     Fault               // set when State is OutOfService
	Dev       bool                // a development build: the dev panel may show
	// Maintenance: the maintenance screen is open (SetMaintenance), or
	// the kiosk waits for its restart into a new system (Restarting); the
	// player can neither play nor put a note in nor cash out.
	Maintenance bool
	// Restarting: the players are locked out for the restart into a new
	// system that the idle kiosk asked for (RunSystemSwitch); the
	// player's screens say so.
	Restarting bool
	Cash       CashSnapshot // notes in, vouchers out, their devices (cash.go)
	// HandPay is the pending hand-pay: while it is, the kiosk is locked
	// for staff (handpay.go).
	HandPay HandPay
	// Game is the play in progress, or the last one played since the
	// machine started: its end, and the result the kiosk credited, reach
	// the screens here.
	Game GameSnapshot
	// Protection is the player's session as the protection rules see it
	// (protection.go).
	Protection ProtectionSnapshot
	// ResultUntil is when a result left untouched goes back home
	// (Config.ResultTimeout after the last Touch); zero out of Result.
	ResultUntil time.Time
}

// Config tunes a machine. The zero value is a production kiosk with the
// default settings.
type Config struct {
	// Dev marks a development build: the screens may show the
	// development panel, which drives the simulated cash devices (it
	// gives no credit of its own). Never set in a production
	// configuration.
	Dev bool
	// LayoutVersion is the reveal layout version of new plays (default
	// reveal.Latest).
	LayoutVersion reveal.Version
	// Engine are the game settings (default breakout.DefaultSettings()).
	Engine breakout.Settings
	// ResultTimeout is how long the result stays without a touch before
	// the kiosk returns home (default 30 s).
	ResultTimeout time.Duration
	// SaveTicks is how often, in engine ticks, a game in progress saves
	// its recording for crash recovery (default 60: every half second).
	SaveTicks int
	// Keys are the trusted issuer keys for block imports.
	Keys block.Keys
	// KioskID and Venue are printed on the vouchers.
	KioskID, Venue string
	// Language is the language the screens start in, "fr" or "en" (the
	// setting screen.language, kept in the store, overrides it); empty:
	// the caller's.
	Language string
	// Location is the time zone of the dates printed on vouchers (default
	// Europe/Paris).
	Location *time.Location
	// Cash are the money flow's settings and devices (cash.go).
	Cash CashConfig
	// PollEvery is the machine's clock: how often it does what time alone
	// does (Poll) and tells the listeners, whose own timers run on it
	// (default 1 s; negative: never, the tests call Poll).
	PollEvery time.Duration
	// OnBootStep, if set, is told of the steps of Start as they begin
	// (done false) and end (done true), from Start's goroutine and the
	// boot check's: the start-up screen shows them. It must not call the
	// machine.
	OnBootStep func(step BootStep, done bool)
	// Software is the binary's self-test at boot (selftest.go); its zero
	// value (no manifest) skips it.
	Software SoftwareCheck
	// DeviceCheck bounds the cash devices' self-test at boot (devices.go;
	// default DefaultDeviceCheck).
	DeviceCheck time.Duration
	// Protection are the player-protection rules (protection.go).
	Protection ProtectionConfig
	// SystemStatus is where the A/B slots' status is left at each boot
	// (update.StatusFile, by `pharaon boot-check`); "" or no such file: a
	// kiosk without slots.
	SystemStatus string
}

// BootStep is a step of a kiosk's start (Config.OnBootStep).
type BootStep uint8

const (
	// BootOpen is the store opened and the devices found, before Start:
	// the caller that opens them reports it.
	BootOpen     BootStep = iota
	BootStore             // the store's integrity, ledger, chains, plays and meters (store.Verify)
	BootBlocks            // the units to sell against their issuers' signatures (store.VerifyBlocks)
	BootDevices           // the cash devices answer a status request (checkDevices), beside the store's checks
	BootRecovery          // an interrupted play resumed
	BootCredit            // the credit and the open blocks read
	BootCash              // the cash left by a crash settled, the cash devices started
	// NumBootSteps is how many steps there are.
	NumBootSteps = int(BootCash) + 1
)

// bootStep reports a step of Start (Config.OnBootStep).
func (m *Machine) bootStep(step BootStep, done bool) {
	if f := m.cfg.OnBootStep; f != nil {
		f(step, done)
	}
}

func (c *Config) fill() error {
	if c.LayoutVersion == 0 {
		c.LayoutVersion = reveal.Latest
	}
	c.Protection.fill()
	if c.Engine == (breakout.Settings{}) {
		c.Engine = breakout.DefaultSettings()
	}
	if err := c.Engine.Validate(); err != nil {
		return err
	}
	if c.ResultTimeout <= 0 {
		c.ResultTimeout = 30 * time.Second
	}
	if c.PollEvery == 0 {
		c.PollEvery = time.Second
	}
	if c.DeviceCheck <= 0 {
		c.DeviceCheck = DefaultDeviceCheck
	}
	if c.SaveTicks <= 0 {
		c.SaveTicks = breakout.TicksPerSecond / 2
	}
	if c.Keys == nil {
		c.Keys = block.KeySet{}
	}
	if c.Location == nil {
		loc, err := time.LoadLocation(DefaultZone)
		if err != nil {
			return fmt.Errorf("time zone: %w", err)
		}
		c.Location = loc
	}
	return c.Cash.fill()
}

// DefaultZone is the kiosk's time zone when its configuration names none:
// the dates of its vouchers, its reports and its backups' manifests.
const DefaultZone = "Europe/Paris"

// Machine is the kiosk's session: one player at a time, one game at a time.
// Its methods are safe for concurrent use; a Game's stepping is not (the UI
// loop owns it).
type Machine struct {
	st  *store.Store
	clk Clock
	cfg Config

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// w makes the durable writes of the plays, in order, off the screens'
	// goroutine (writer.go).
	w *writer

	notifyMu sync.Mutex // one delivery to the listeners at a time (notify)
	// ledgerMu keeps the credit shown in the ledger's order: a store write
	// that moves the credit holds it from before its commit until the
	// balance it left is shown (showBalance), so two movements made at once
	// (a note credited while a game starts or ends) are shown in the order
	// the ledger has them, the later last. Taken before mu, never under it.
	ledgerMu  sync.Mutex
	mu        sync.Mutex
	state     State
	credit    game.Money
	available map[game.Stake]bool
	fault     Fault
	game      *Game
	starting  bool // a Play is between its checks and its commit
	// maintenance: the maintenance screen is open (SetMaintenance), or
	// restarting is.
	maintenance bool
	// restarting: locked for the restart into a new system (lockIdle);
	// cleared with maintenance.
	restarting bool
	// kioskID is the kiosk's name on its vouchers (Config.KioskID, or
	// SettingKioskID).
	kioskID   string
	lastTouch time.Time
	listeners []func(Snapshot)
	cash      cashState
	hp        handPayState
	prot      protState
	// rejected: the boot check failed; the store's credit and blocks are
	// never read again (refresh does nothing).
	rejected bool
	// fullDone is closed when the background full verification ended.
	fullDone chan struct{}
	// served: the start went past the checks (serve: the cash devices
	// run); clearMu makes one technician's clear at a time (ClearChecks).
	served  bool
	clearMu sync.Mutex
	// registry is the fleet's voucher registry (SetVoucherRegistry), nil
	// for a kiosk alone; offlineLimit what it pays while the centre is away.
	registry     VoucherRegistry
	offlineLimit game.Money
	// claims is the fleet's record of the blocks on sale (SetBlockClaims),
	// nil for a kiosk alone.
	claims BlockClaims

	// layoutHook, in tests only, replaces reveal.Layout to make a wall
	// that does not match its unit.
	layoutHook func(store.Play) (reveal.Walls, error)
}

// New makes a machine on an open store. Start it before use.
func New(st *store.Store, clk Clock, cfg Config) (*Machine, error) {
	applySettings(st, &cfg)
	if err := cfg.fill(); err != nil {
		return nil, fmt.Errorf("kiosk config: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Machine{st: st, clk: clk, cfg: cfg, ctx: ctx, cancel: cancel, state: Home, available: map[game.Stake]bool{},
		kioskID: cfg.KioskID, fullDone: make(chan struct{})}
	m.w = newWriter(st)
	m.hp.limit = cfg.Cash.HandPayLimit
	m.initCash()
	return m, nil
}

// Start runs the boot check of DESIGN.md §7 (bootCheck), resumes an
// interrupted play, settles the cash a crash left (a voucher whose print
// was never confirmed is voided, the credit kept) and starts the machine's
// background loops and its cash devices. A failed check does not return an
// error: the kiosk is out of service and says why (after a failed boot
// check the cash devices stay off, and nothing read from the rejected data
// is shown). Errors are for a store that cannot be read; a Start that fails
// leaves nothing running (it closes the machine).
func (m *Machine) Start(ctx context.Context) (err error) {
	if m.cfg.PollEvery > 0 {
		m.wg.Add(1)
		go func() { defer m.wg.Done(); m.pollLoop(m.cfg.PollEvery) }()
	}
	defer func() {
		if err != nil {
			_ = m.Close()
		}
	}()

	if err := m.checkSoftware(ctx); err != nil {
		m.refuse(FaultSoftware, "self-test of the software", err)
		return nil
	}
	// The devices' self-test runs beside the store's checks: it reads
	// nothing of the store, and a kiosk whose devices answer starts no
	// later for it. A failed check of the data is the fault shown first.
	devices := m.startDeviceCheck(ctx)
	if err := m.bootCheck(ctx); err != nil {
		<-devices
		m.reject(err)
		return nil
	}
	if df := <-devices; df != nil {
		m.refuse(df.Code, "self-test of the devices", df)
		return nil
	}
	return m.serve(ctx, true)
}

// serve is the start past the checks: the hand-pay lock, the recovery of
// an interrupted play, the credit and blocks, the cash; then, when
// background is set, the full verification while the kiosk serves.
func (m *Machine) serve(ctx context.Context, background bool) error {
	if err := m.loadHandPay(ctx); err != nil {
		return fmt.Errorf("read the hand-pay lock: %w", err)
	}
	m.bootStep(BootRecovery, false)
	if err := m.recover(ctx); err != nil {
		m.outOfService(Fault{FaultRecovery, err.Error()})
		m.logf(store.LevelCritical, FaultRecovery, "%v", err)
	}
	m.bootStep(BootRecovery, true)
	// The meters as the start found them, an interrupted play completed,
	// for the fleet's centre (store.SnapshotMeters): a failure to write
	// them is logged and stops nothing.
	if _, err := m.st.SnapshotMeters(ctx, store.SnapshotBoot); err != nil {
		m.logf(store.LevelWarning, "snapshot_failed", "meter snapshot at start: %v", err)
	}
	m.noteSystemReturn(ctx)
	m.bootStep(BootCredit, false)
	if err := m.refresh(ctx); err != nil {
		return err
	}
	m.refreshSession(ctx)
	m.bootStep(BootCredit, true)
	m.bootStep(BootCash, false)
	if err := m.startCash(ctx); err != nil {
		return err
	}
	m.bootStep(BootCash, true)
	m.update(func() { m.served = true })
	if !background {
		return nil
	}
	// The full verification, which the boot check leaves to run while the
	// kiosk serves: a failure takes it out of service like a boot failure.
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		defer close(m.fullDone)
		lowPriority(func() {
			if err := m.st.VerifyFull(m.ctx); err != nil && m.ctx.Err() == nil {
				m.reject(fmt.Errorf("full verification: %w", err))
			}
		})
	}()
	return nil
}

// FullCheckDone is closed when the full verification Start runs in the
// background has ended (never, after a failed boot check).
func (m *Machine) FullCheckDone() <-chan struct{} { return m.fullDone }

// VerifyFull runs the full verification of the store now (for
// maintenance): every row of the history re-hashed and re-derived,
// SQLite's integrity check, and a new checkpoint for the next boot
// checks. A failure takes the kiosk out of service.
func (m *Machine) VerifyFull(ctx context.Context) error {
	if err := m.st.VerifyFull(ctx); err != nil {
		if ctx.Err() == nil {
			m.reject(fmt.Errorf("full verification: %w", err))
		}
		return err
	}
	return nil
}

// bootCheck checks the store before anything of it is used: SQLite's
// integrity, the ledger, the chains, the plays and meters (store.Verify),
// then the units still to sell against the issuer's signature kept when
// their file was imported, verified with the trusted keys of the
// configuration, and their lots against the prize table
// (store.VerifyBlocks): a unit edited in the file would otherwise be sold
// and its prize paid (Art. 3), and any digest kept beside it can be
// recomputed by whoever edits it. BenchmarkBootCheck in store measures it.
//
// The store's part is its boot check (store.VerifyBoot): the schema, the
// chains' heads against their anchor, and the history written since the
// last full verification's checkpoint, so that its cost does not grow
// with the kiosk's history; the full verification runs in the background
// once the kiosk is started (Start, VerifyFull).
func (m *Machine) bootCheck(ctx context.Context) error {
	// Side by side: both read the database, each on its own reader
	// connection, and nothing writes until they are done.
	m.bootStep(BootStore, false)
	m.bootStep(BootBlocks, false)
	blocks := make(chan error, 1)
	go func() {
		err := m.st.VerifyBlocks(ctx, m.cfg.Keys)
		m.bootStep(BootBlocks, true)
		blocks <- err
	}()
	_, err := m.st.VerifyBoot(ctx)
	m.bootStep(BootStore, true)
	return errors.Join(err, <-blocks)
}

// FaultCode is the fault of a failed check of the data: rollback, anchor,
// or integrity.
func FaultCode(err error) string {
	switch {
	case errors.Is(err, store.ErrRollback):
		return FaultRollback
	case errors.Is(err, store.ErrAnchor):
		return FaultAnchor
	}
	return FaultIntegrity
}

// reject takes the kiosk out of service on a failed check of its data:
// the credit and the blocks are in the data that failed, and none of it is
// shown (refresh is not run, and never will be).
func (m *Machine) reject(err error) {
	m.refuse(FaultCode(err), "check of the data", err)
}

// refuse takes the kiosk out of service with the fault code on a failed
// check (what, for the log: the data, the software's or the devices'
// self-test): no credit and no block shown, and nothing of the store read
// again (the data stay as they are) until a technician's clear passes
// every check (clearChecks).
func (m *Machine) refuse(code, what string, err error) {
	m.update(func() {
		m.rejected = true
		m.credit = 0
		clear(m.available)
		m.setFaultLocked(Fault{code, err.Error()})
	})
	m.logf(store.LevelCritical, code, "%s: %v", what, err)
}

// Close stops the cash devices (after a voucher being printed), then the
// background loops, then the play writer (after the write under way; a
// play whose finish was still queued is resumed at the next start). The
// store stays open (its owner closes it).
func (m *Machine) Close() error {
	m.stopCash()
	m.cancel()
	m.wg.Wait()
	m.w.Close()
	return nil
}

// Language is the language the screens start in ("fr", "en"; empty: the
// caller's): the technician's setting, read at start.
func (m *Machine) Language() string { return m.cfg.Language }

// Snapshot returns the machine's state now.
func (m *Machine) Snapshot() Snapshot {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.snapshotLocked()
}

func (m *Machine) snapshotLocked() Snapshot {
	av := make(map[game.Stake]bool, len(m.available))
	for k, v := range m.available {
		av[k] = v
	}
	return Snapshot{State: m.state, Credit: m.credit, Available: av, Fault: m.fault, Dev: m.cfg.Dev,
		Maintenance: m.maintenance, Restarting: m.restarting, Cash: m.cashSnapshotLocked(), HandPay: m.hp.pending, Game: m.gameSnapshotLocked(),
		Protection: m.protectionSnapshotLocked(), ResultUntil: m.resultUntilLocked()}
}

// OnChange registers f to be called after every change of the snapshot,
// and at every tick of the machine's clock (Config.PollEvery), and returns
// the snapshot as it is now: f hears of every change after it, so a screen
// that starts from the returned snapshot and follows f never needs to ask
// again. f is called from whichever goroutine made the change, never with
// the machine's lock held: a UI hands it over to its own thread. Calls are
// one at a time and never go back in time: each is given a snapshot at
// least as new as the one before, so the last call always shows the
// machine as it is. f must not wait on a change of the machine (it would
// wait for itself).
func (m *Machine) OnChange(f func(Snapshot)) Snapshot {
	m.notifyMu.Lock() // no delivery between the snapshot returned and f's first
	defer m.notifyMu.Unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.listeners = append(m.listeners, f)
	return m.snapshotLocked()
}

// update changes the state under the lock, then tells the listeners.
func (m *Machine) update(f func()) {
	m.mu.Lock()
	f()
	m.mu.Unlock()
	m.notify()
}

// notify tells the listeners of the machine as it is now. Two changes made
// at once by two goroutines must not reach a listener in the wrong order
// (a screen would keep showing the older credit): deliveries go one at a
// time, and each takes its snapshot once it has its turn.
func (m *Machine) notify() {
	m.notifyMu.Lock()
	defer m.notifyMu.Unlock()
	m.mu.Lock()
	snap := m.snapshotLocked()
	ls := slices.Clone(m.listeners)
	m.mu.Unlock()
	for _, l := range ls {
		l(snap)
	}
}

// showBalance shows the balance a movement of the credit left. The caller
// holds ledgerMu from before the movement's commit; its next update tells
// the listeners.
func (m *Machine) showBalance(b game.Money) {
	r, ok := m.readSession(m.ctx) // the session the movement left, shown with its credit
	m.mu.Lock()
	m.credit = b
	if ok {
		m.applySessionLocked(r)
	}
	m.mu.Unlock()
}

// showCredited shows a note's credit and the end of its path at once: no
// snapshot has the new credit with the note still on its way, which Play
// and CashOut would refuse as busy.
func (m *Machine) showCredited(b game.Money) {
	r, ok := m.readSession(m.ctx)
	m.mu.Lock()
	m.credit = b
	m.cash.noteInPath = false
	if ok {
		m.applySessionLocked(r)
	}
	m.mu.Unlock()
}

// reloadCredit shows the ledger's credit, read under ledgerMu so that no
// movement of the machine's own falls between the read and the showing,
// and returns the credit shown before. The caller tells the listeners.
func (m *Machine) reloadCredit(ctx context.Context) (was, now game.Money, err error) {
	m.ledgerMu.Lock()
	defer m.ledgerMu.Unlock()
	m.mu.Lock()
	rejected := m.rejected
	m.mu.Unlock()
	if rejected {
		return 0, 0, nil // a ledger that failed the boot check is not shown
	}
	now, err = m.st.Credit(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("read credit: %w", err)
	}
	r, ok := m.readSession(ctx)
	m.mu.Lock()
	was, m.credit = m.credit, now
	if ok {
		m.applySessionLocked(r)
	}
	m.mu.Unlock()
	return was, now, nil
}

// refresh reads the credit and the stakes' availability from the store.
func (m *Machine) refresh(ctx context.Context) error {
	m.mu.Lock()
	rejected := m.rejected
	m.mu.Unlock()
	if rejected {
		return nil
	}
	if _, _, err := m.reloadCredit(ctx); err != nil {
		return err
	}
	av := make(map[game.Stake]bool, len(game.Stakes))
	for _, s := range game.Stakes {
		_, err := m.st.OpenBlock(ctx, s)
		switch {
		case err == nil:
			av[s] = true
		case errors.Is(err, store.ErrNoOpenBlock):
			av[s] = false
		default:
			return fmt.Errorf("read open block of %s: %w", s, err)
		}
	}
	m.update(func() { m.available = av })
	return nil
}

// Current returns the game in progress, a recovered one after a restart
// included, or nil.
func (m *Machine) Current() *Game {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.game != nil && m.game.stage != StageDone {
		return m.game
	}
	return nil
}

// Play sells one unit (Art. 4.1): the stake is debited, the unit drawn and
// the play recorded in one durable commit, and the returned game reveals it.
// The outcome is fixed from this moment; whatever the player does, the game
// pays exactly the unit's prize. Play waits for the commit: the screens
// call RequestPlay instead. A commit begun is not abandoned when ctx is
// cancelled.
func (m *Machine) Play(ctx context.Context, s game.Stake, mode breakout.Mode) (*Game, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("play: %w", err)
	}
	type answer struct {
		g   *Game
		err error
	}
	ch := make(chan answer, 1)
	m.RequestPlay(s, mode, func(g *Game, err error) { ch <- answer{g, err} })
	a := <-ch
	return a.g, a.err
}

// RequestPlay asks for one unit to be sold, as Play does, without waiting:
// the machine's play writer makes the commit on its goroutine and calls
// done there with the game, or with why none was sold (ErrBadStake,
// ErrOutOfService, ErrBusy, ErrInsufficientCredit, ErrUnavailable, a
// store error). A refusal known at once is given at once, on the caller's
// goroutine. done is called exactly once; it must not wait on the machine
// (a UI hands it over to its own goroutine).
func (m *Machine) RequestPlay(s game.Stake, mode breakout.Mode, done func(*Game, error)) {
	if !s.Valid() {
		done(nil, fmt.Errorf("play %d cents: %w", int64(s), ErrBadStake))
		return
	}
	smode := store.ModeJouer
	if mode == breakout.Auto {
		smode = store.ModeAuto
	} else if mode != breakout.Play {
		done(nil, fmt.Errorf("play: %w", breakout.ErrBadMode))
		return
	}
	m.mu.Lock()
	switch {
	case m.state == OutOfService:
		m.mu.Unlock()
		done(nil, fmt.Errorf("play: %w", ErrOutOfService))
		return
	case m.starting || m.gameOnLocked():
		m.mu.Unlock()
		done(nil, fmt.Errorf("play: %w", ErrBusy))
		return
	case m.handPayLockedLocked():
		m.mu.Unlock()
		done(nil, fmt.Errorf("play: %w", ErrHandPay))
		return
	case m.maintenance:
		m.mu.Unlock()
		done(nil, fmt.Errorf("play: %w", ErrMaintenance))
		return
	case m.cashBusyLocked():
		// A note on its way to the cash box, or a voucher printing: the
		// credit settles first.
		m.mu.Unlock()
		done(nil, fmt.Errorf("play: cash in progress: %w", ErrBusy))
		return
	case m.prot.due:
		m.mu.Unlock()
		done(nil, fmt.Errorf("play: %w", ErrRealityCheck))
		return
	}
	m.starting = true
	m.lastTouch = m.clk.Now()
	m.mu.Unlock()

	var p store.Play
	req := store.PlayRequest{Stake: s, Mode: smode, LayoutVersion: int(m.cfg.LayoutVersion)}
	m.w.submit(func(ctx context.Context, st playStore, _ int) error {
		// Any error of StartPlay wrote nothing: trying again is safe.
		m.ledgerMu.Lock()
		defer m.ledgerMu.Unlock()
		var err error
		p, err = st.StartPlay(ctx, req)
		if err == nil {
			m.showBalance(p.Balance) // the stake debited
		}
		return err
	}, func(err error) {
		g, err := m.playStarted(s, p, mode, err)
		m.mu.Lock()
		m.starting = false
		m.mu.Unlock()
		done(g, err)
	})
}

// playStarted puts the game of play p at stake s in progress once its
// stake debit committed (err nil), or says why no unit was sold.
func (m *Machine) playStarted(s game.Stake, p store.Play, mode breakout.Mode, err error) (*Game, error) {
	switch {
	case errors.Is(err, store.ErrInsufficientCredit):
		return nil, fmt.Errorf("play %s: %w", s, ErrInsufficientCredit)
	case errors.Is(err, store.ErrNoOpenBlock):
		m.update(func() { m.available[s] = false })
		return nil, fmt.Errorf("play %s: %w", s, ErrUnavailable)
	case errors.Is(err, store.ErrPlayInProgress):
		return nil, fmt.Errorf("play %s: %w", s, ErrBusy)
	case err != nil:
		return nil, fmt.Errorf("play %s: %w", s, err)
	}
	g, err := m.newGame(p, mode)
	if err != nil {
		// The stake is debited and the play recorded: it stays unfinished
		// and the next start resumes it. Until then, no more sales.
		m.logf(store.LevelCritical, FaultRecovery, "play %d: %v", p.ID, err)
		m.outOfService(Fault{FaultRecovery, err.Error()})
		return nil, fmt.Errorf("play %s: %w", s, err)
	}
	_, openErr := m.st.OpenBlock(m.ctx, s) // the last unit of the last block may just have been sold
	m.update(func() {
		m.game = g
		m.state = Playing
		m.available[s] = openErr == nil
	})
	return g, nil
}

// SetMaintenance locks the player out while the maintenance screen is open
// (on), and lets them back when it closes: no play is sold (ErrMaintenance),
// the bill validator is inhibited, no cash-out starts. A game in progress is
// not interrupted: the screens open maintenance only after its result. The
// reprint of a voucher, which staff ask for from the maintenance screen,
// still prints. Each change is in the event log.
func (m *Machine) SetMaintenance(on bool) {
	why := "maintenance screen closed"
	if on {
		why = "maintenance screen open"
	}
	m.setMaintenance(on, why, nil)
}

// setMaintenance locks the players out (on) or lets them back, when it
// changes anything and allow, under the machine's lock, says it may (nil:
// always); each change is in the event log with why. It reports whether
// it changed the lock.
func (m *Machine) setMaintenance(on bool, why string, allow func() bool) bool {
	m.mu.Lock()
	change := m.maintenance != on && (allow == nil || allow())
	if change {
		m.maintenance = on
		if !on {
			m.restarting = false
		}
	}
	m.mu.Unlock()
	if !change {
		return false
	}
	m.notify()
	if on {
		m.logf(store.LevelInfo, "maintenance_on", "%s: play and cash-in locked", why)
	} else {
		m.logf(store.LevelInfo, "maintenance_off", "%s: play and cash-in open again", why)
	}
	return true
}

// KioskID is the kiosk's name printed on its vouchers.
func (m *Machine) KioskID() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.kioskID
}

// SetKioskID names the kiosk on its vouchers from now on, kept in the store
// (SettingKioskID; the store logs the change with source, "setup" at the
// first start).
func (m *Machine) SetKioskID(ctx context.Context, source, id string) error {
	if err := CheckKioskID(id); err != nil {
		return err
	}
	if err := m.st.SetSetting(ctx, source, SettingKioskID, id); err != nil {
		return err
	}
	m.mu.Lock()
	m.kioskID = id
	m.mu.Unlock()
	return nil
}

// Touch records a player's interaction: the result screen stays while the
// player is there.
func (m *Machine) Touch() {
	now := m.clk.Now()
	m.mu.Lock()
	m.lastTouch = now
	m.mu.Unlock()
}

// EndResult returns home from the result screen.
func (m *Machine) EndResult() {
	m.mu.Lock()
	if m.state != Result {
		m.mu.Unlock()
		return
	}
	m.mu.Unlock()
	m.update(func() {
		if m.state == Result {
			m.state = Home
		}
	})
}

func (m *Machine) resultUntilLocked() time.Time {
	if m.state != Result {
		return time.Time{}
	}
	return m.lastTouch.Add(m.cfg.ResultTimeout)
}

// Poll does what time alone does: a result left untouched returns home;
// and it tells the listeners, whose timers run on the machine's clock. The
// machine calls it every Config.PollEvery; tests call it after moving the
// clock.
func (m *Machine) Poll() {
	now := m.clk.Now()
	m.mu.Lock()
	idle := m.state == Result && now.Sub(m.lastTouch) >= m.cfg.ResultTimeout
	m.mu.Unlock()
	if idle {
		m.EndResult()
	}
	m.refreshSession(m.ctx)
	m.notify()
}

func (m *Machine) pollLoop(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-m.ctx.Done():
			return
		case <-t.C:
			m.Poll()
		}
	}
}

// ImportBlockClaimed imports a signed block file verified against the
// trusted keys, without claiming it in the fleet: for the fleet's fetcher,
// which claimed it itself (kiosk/fleet/blocks.go), and through ImportBlock.
func (m *Machine) ImportBlockClaimed(ctx context.Context, r io.Reader) (store.BlockInfo, error) {
	info, err := m.st.ImportBlock(ctx, r, m.cfg.Keys)
	if err != nil {
		return info, err
	}
	return info, m.refresh(ctx)
}

func (m *Machine) outOfService(f Fault) {
	m.update(func() { m.setFaultLocked(f) })
}

func (m *Machine) setFaultLocked(f Fault) {
	m.state = OutOfService
	m.fault = f
}

// logf writes an event of source "kiosk". A failure to log is not a reason
// to fail what is being logged; it shows in the event it could not write.
func (m *Machine) logf(level store.Level, code, format string, args ...any) {
	_, _ = m.st.Log(m.ctx, store.Event{Level: level, Source: "kiosk", Code: code, Detail: fmt.Sprintf(format, args...)})
}
