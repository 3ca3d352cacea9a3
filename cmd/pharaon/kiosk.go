package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"

	"pharaon/cmd/pharaon/internal/early"
	"pharaon/game/block"
	"pharaon/hw/jack"
	"pharaon/hw/sim/esspsim"
	"pharaon/hw/validator"
	"pharaon/hw/validator/drivers"
	"pharaon/kiosk"
	"pharaon/kiosk/devsim"
	"pharaon/kiosk/fleet"
	"pharaon/kiosk/helper"
	"pharaon/kiosk/speech"
	"pharaon/kiosk/ui"
	"pharaon/kiosk/ui/art"
	"pharaon/kiosk/ui/maint"
	"pharaon/kiosk/ui/play"
	"pharaon/kiosk/update"
	"pharaon/store"
)

// appID is empty: the kiosk keeps no Fyne preferences (cmd/pharaon/display.go).
const appID = ""

// parts are the kiosk's store and machine, started, and in a development
// run its simulated cash devices.
type parts struct {
	st   *store.Store
	m    *kiosk.Machine
	devs *devsim.Devices // -dev only
	bo   *backOffice
	// stopFleet stops the outbox publisher (with a NATS URL only).
	stopFleet func()
	// stopSticks stops the development run's USB sticks (-dev only).
	stopSticks func()
	// stopSwitch stops the wait for a system to restart into (not -dev).
	stopSwitch func()
}

// backOffice is the maintenance screen's part of a running kiosk: its PINs,
// its actions, and whether the first start's setup must run.
type backOffice struct {
	m      *kiosk.Machine
	clk    kiosk.Clock
	access *kiosk.Access
	office *kiosk.Office
	// setup: a production kiosk without PINs yet; the setup screen shows
	// before the player's screens.
	setup bool
	// firstStart: a production kiosk that began the first start's guided
	// sequence and has not finished it (a power cut): the sequence shows
	// again at the step reached, before the player's screens.
	firstStart bool
	// demoPINs are the development run's PINs (staff, technician), shown
	// on the development panel.
	demoPINs [2]string
	// onFirstStart is called when the first start's first screen shows
	// (the kiosk is up): what ("setup screen", or "guided sequence" when
	// a kiosk resumes it) names it; systemd's status says "first start:
	// <what> shown".
	onFirstStart func(what string)
}

// The development run's PINs, seeded in a development database that has
// none and shown on the development panel (6 digits, as every PIN).
const (
	devStaffPIN      = "111111"
	devTechnicianPIN = "222222"
)

// newBackOffice makes the maintenance screen's checker and actions on a
// started machine. A development database without PINs and without
// history gets the demo PINs; a production one asks for the setup. A
// kiosk that has been in service and has no PIN is a fault (its
// credentials were removed), never a setup.
func newBackOffice(ctx context.Context, st *store.Store, m *kiosk.Machine, clk kiosk.Clock, dev bool, logger *log.Logger) (*backOffice, error) {
	// The PINs are keyed with the trust root's pepper: a hash read off the
	// data disk gives nothing to guess a PIN offline.
	a := kiosk.NewAccess(st, clk, kiosk.AccessConfig{Logf: logger.Printf, Pepper: st.Pepper()})
	bo := &backOffice{m: m, clk: clk, access: a, office: kiosk.NewOffice(m, a, kiosk.DefaultOfficeIdle)}
	// The USB stick actions go through the root helper (kiosk/helper),
	// a development run's through its own (devstick.go).
	bo.office.UseHelper(&helper.Client{})
	need, err := a.NeedsSetup(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the maintenance PINs: %w", err)
	}
	switch {
	case dev && need:
		t0 := time.Now()
		s, err := a.SetupSession(ctx)
		if err != nil {
			return nil, fmt.Errorf("demo PINs: %w", err)
		}
		if err := a.Setup(ctx, s, devTechnicianPIN, devStaffPIN); err != nil {
			return nil, fmt.Errorf("demo PINs: %w", err)
		}
		logger.Printf("development kiosk: demo maintenance PINs set in %d ms", time.Since(t0).Milliseconds())
		fallthrough
	case dev:
		bo.demoPINs = [2]string{devStaffPIN, devTechnicianPIN}
	case need:
		bo.setup = true
		logger.Printf("no maintenance PINs yet: the first start's setup shows before the player's screens")
	default:
		if bo.firstStart, err = m.FirstStartPending(ctx); err != nil {
			return nil, fmt.Errorf("read the first start's step: %w", err)
		}
		if bo.firstStart {
			logger.Printf("the first start's sequence is not finished: it resumes before the player's screens")
		}
	}
	return bo, nil
}

// Close stops the machine (after a voucher being printed), then the
// simulated devices it was talking to, then closes the store.
func (p *parts) Close() error {
	if p.stopSwitch != nil {
		p.stopSwitch()
	}
	if p.stopFleet != nil {
		p.stopFleet()
	}
	err := p.m.Close()
	if p.stopSticks != nil {
		p.stopSticks()
	}
	if p.devs != nil {
		err = errors.Join(err, p.devs.Close())
	}
	return errors.Join(err, p.st.Close())
}

// Where a development run keeps its simulated devices, beside its database:
// the devices' links (run/validator, run/printer, to pseudo-terminals) and
// the vouchers the simulated printer printed (vouchers/NNNN.txt and .png).
const (
	devRunDir      = "run"
	devVouchersDir = "vouchers"
)

// startDevSim starts the simulated bill validator and voucher printer of a
// development run, for the devices the configuration gives no path to. The
// validator is of the family the configuration names (-validator essp: an
// eSSP unit, with the kiosk's fixed key and address).
func startDevSim(cfg *Config, logger *log.Logger) (*devsim.Devices, error) {
	data := filepath.Dir(cfg.DB)
	devs, err := devsim.Start(devsim.Config{Dir: filepath.Join(data, devRunDir), Receipts: filepath.Join(data, devVouchersDir),
		Family: cfg.ValidatorFamily, ESSP: esspsim.Config{FixedKey: cfg.ESSP.FixedKey, Address: cfg.ESSP.Address},
		Logf: logger.Printf})
	if err != nil {
		return nil, fmt.Errorf("start the simulated cash devices: %w", err)
	}
	if cfg.Validator == "" {
		cfg.Validator = devs.ValidatorPath
	}
	if cfg.Printer == "" {
		cfg.Printer = devs.PrinterPath
	}
	logger.Printf("development kiosk: bill validator %s (%s), voucher printer %s, vouchers in %s",
		cfg.Validator, devs.Unit.Family().Label(), cfg.Printer, filepath.Join(data, devVouchersDir))
	return devs, nil
}

// openKiosk reads the issuers' keys, opens the store (creating it only in a
// development run or on a first install, mayCreate), provisions a
// development kiosk with -dev (demo blocks, simulated cash devices), and
// starts the machine (its boot checks, the recovery of an interrupted play
// and of the cash, DESIGN.md §7). A failure is a *startError; nothing is
// left running or created by it.
func openKiosk(ctx context.Context, cfg Config, clk kiosk.Clock, logger *log.Logger) (*parts, error) {
	return openKioskReporting(ctx, cfg, clk, logger, nil)
}

// openKioskReporting is openKiosk telling report (if not nil) of the steps
// of the start as they begin and end, for the start-up screen: opening
// (kiosk.BootOpen), then the steps of kiosk.Machine.Start. It is called from
// the goroutine that opens and from the machine's boot check.
func openKioskReporting(ctx context.Context, cfg Config, clk kiosk.Clock, logger *log.Logger,
	report func(kiosk.BootStep, bool)) (*parts, error) {
	if report == nil {
		report = func(kiosk.BootStep, bool) {}
	}
	report = timeChecks(report, logger)
	report(kiosk.BootOpen, false)
	// The keys first: a bad key file is a configuration to fix, and must
	// not leave a new database behind.
	keys, err := trustedKeys(cfg.Keys)
	if err != nil {
		return nil, &startError{status: exitKeys, fault: kiosk.Fault{Code: kiosk.FaultKeys, Detail: err.Error()}, err: err}
	}
	var software kiosk.SoftwareCheck
	if manifest, skipped := softwareManifest(cfg.Manifest, packagedManifest, signedBuild == "yes"); manifest != "" {
		dir := cmp.Or(cfg.UpdateKeys, defaultUpdateKeys)
		uk, err := updateKeys(dir)
		if err != nil {
			err = fmt.Errorf("the binary's self-test: %w", err)
			return nil, &startError{status: exitKeys, fault: kiosk.Fault{Code: kiosk.FaultSoftware, Detail: err.Error()}, err: err}
		}
		software = kiosk.SoftwareCheck{Manifest: manifest, Keys: uk}
		logger.Printf("the binary's self-test: checked against %s", manifest)
	} else {
		logger.Print(skipped)
	}
	st, create, err := openStore(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.FirstInstall && !create {
		logger.Printf("-first-install ignored: the database %s is there", cfg.DB)
	}
	logger.Print(trustLine(st))
	if cfg.Dev && cfg.DevSeed != 0 {
		seeded, err := provisionSeeded(ctx, st, cfg.DevSeed, clk.Now())
		if err != nil {
			st.Close()
			return nil, fmt.Errorf("provision seeded demo blocks: %w", err)
		}
		for id, k := range seeded {
			keys[id] = k
		}
	}
	if cfg.Dev {
		t0 := time.Now()
		demo, err := kiosk.ProvisionDemo(ctx, st, filepath.Join(filepath.Dir(cfg.DB), "demo"), clk.Now())
		if err != nil {
			st.Close()
			return nil, fmt.Errorf("provision demo blocks: %w", err)
		}
		for id, k := range demo {
			keys[id] = k
		}
		logger.Printf("development kiosk: demo issuer key and blocks ready in %d ms", time.Since(t0).Milliseconds())
	}
	var devs *devsim.Devices
	if cfg.Dev {
		if devs, err = startDevSim(&cfg, logger); err != nil {
			st.Close()
			return nil, err
		}
	}
	p := &parts{st: st, devs: devs}
	p.m, err = kiosk.New(st, clk, kiosk.Config{Dev: cfg.Dev, Keys: keys, KioskID: cfg.KioskID, Venue: cfg.Venue,
		Cash: kiosk.CashConfig{ValidatorPath: cfg.Validator, PrinterPath: cfg.Printer,
			Validator: validator.Settings{Family: cfg.ValidatorFamily, ESSP: cfg.ESSP}, Drivers: drivers.Opener{},
			MaxCredit: cfg.MaxCredit, PayoutLimit: cfg.PayoutLimit, VoucherValidity: cfg.VoucherValidity},
		OnBootStep: report, Software: software, SystemStatus: update.StatusFile})
	if err != nil {
		if devs != nil {
			devs.Close()
		}
		st.Close()
		return nil, err
	}
	report(kiosk.BootOpen, true)
	if err := p.m.Start(ctx); err != nil {
		p.Close()
		return nil, storeFailure(fmt.Errorf("start kiosk: %w", err))
	}
	if p.bo, err = newBackOffice(ctx, st, p.m, clk, cfg.Dev, logger); err != nil {
		p.Close()
		return nil, storeFailure(err)
	}
	hc := &helper.Client{} // the root helper, which installs the fleet's updates too
	if !cfg.Dev {
		p.stopSwitch = startSystemSwitch(ctx, p.m)
	} else {
		// Sticks a developer makes as directories; without them the USB
		// stick view says there is no helper, as it would on a kiosk.
		sock, stop, err := startDevSticks(filepath.Dir(cfg.DB), logger)
		if err != nil {
			logger.Printf("%v", err)
		} else {
			p.stopSticks = stop
			hc = &helper.Client{Socket: sock}
			p.bo.office.UseHelper(hc)
		}
	}
	if cfg.Fleet.URL != "" {
		cfg.Fleet.OnAsyncError = func(err error) { logger.Printf("fleet: the connection to the centre: %v", err) }
		p.stopFleet, err = startFleet(ctx, cfg.Fleet, st, p.m, clk, logger)
		if err != nil {
			p.Close()
			return nil, err
		}
		p.stopFleet, err = startFleetBlocks(ctx, cfg.Fleet, st, p.m, clk, logger, p.stopFleet)
		if err != nil {
			p.Close()
			return nil, err
		}
		p.stopFleet, err = startFleetUpdates(ctx, cfg.Fleet, st, p.m, clk, logger, hc,
			filepath.Join(filepath.Dir(cfg.DB), fleetSpool), p.stopFleet)
		if err != nil {
			p.Close()
			return nil, err
		}
	}
	if err := markInstalled(cfg); err != nil {
		// The kiosk runs; without the marker a lost database is still
		// refused (no -first-install), only with a vaguer reason.
		logger.Printf("%v", err)
	}
	return p, nil
}

// startSystemSwitch waits, on its own goroutine, for a system that
// `pharaon update` wrote into the other A/B slot, and has the root helper
// restart the machine into it at the kiosk's first idle moment
// (kiosk.Machine.RunSystemSwitch). A kiosk without slots never has one.
func startSystemSwitch(ctx context.Context, m *kiosk.Machine) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.RunSystemSwitch(ctx, kiosk.SystemSwitch{Status: update.StatusFile, Ask: func(ctx context.Context) error {
			_, err := (&helper.Client{}).Switch(ctx)
			return err
		}})
	}()
	return func() { cancel(); <-done }
}

// startFleet starts the outbox publisher on its own goroutine: the kiosk
// plays whether or not the centre answers. Its failures are logged when
// they change (a server down is one line, not one a second).
func startFleet(ctx context.Context, cfg fleet.Config, st *store.Store, m *kiosk.Machine, clk kiosk.Clock, logger *log.Logger) (stop func(), err error) {
	p, err := fleet.NewPublisher(cfg, st)
	if err != nil {
		return nil, err
	}
	// The counter pays a voucher once across the fleet (DESIGN.md §11).
	reg, err := fleet.NewRegistry(cfg)
	if err != nil {
		return nil, err
	}
	m.SetVoucherRegistry(reg, 0)
	p.OnConflict = func(c fleet.VoucherConflict) { fleet.ReportConflict(ctx, st, c, logger.Printf) }
	p.Now = clk.Now // the outbox's retention, by the kiosk's clock
	var last string
	p.OnError = func(err error) {
		if err.Error() != last {
			last = err.Error()
			logger.Printf("fleet: %v (the kiosk keeps its records and sends them when the centre answers)", err)
		}
	}
	p.OnAck = func(int64) {
		if last != "" {
			last = ""
			logger.Printf("fleet: publishing to %s again", cfg.URL)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Run(ctx) //nolint:errcheck // ends with ctx
	}()
	logger.Printf("fleet: kiosk %s publishes its records to %s", cfg.KioskID, cfg.URL)
	return func() { cancel(); <-done; m.SetVoucherRegistry(nil, 0); reg.Close() }, nil
}

// timeChecks is report logging how long the checks run side by side at
// the start took: the store's, the blocks', and the cash devices'
// self-test (which must not make the start longer).
func timeChecks(report func(kiosk.BootStep, bool), logger *log.Logger) func(kiosk.BootStep, bool) {
	names := map[kiosk.BootStep]string{kiosk.BootStore: "the store's check", kiosk.BootBlocks: "the blocks' check",
		kiosk.BootDevices: "the cash devices' self-test"}
	var mu sync.Mutex
	began := map[kiosk.BootStep]time.Time{}
	return func(step kiosk.BootStep, done bool) {
		if name, ok := names[step]; ok {
			mu.Lock()
			if !done {
				began[step] = time.Now()
			} else if t0, ok := began[step]; ok {
				logger.Printf("%s took %d ms", name, time.Since(t0).Milliseconds())
			}
			mu.Unlock()
		}
		report(step, done)
	}
}

// packagedManifest is the manifest the package installs (packaging/deb.sh);
// a variable for the tests.
var packagedManifest = defaultManifest

// signedBuild is "yes" in the binary of a package whose manifest is signed
// (make deb UPDATE_KEY=…, -ldflags -X main.signedBuild=yes): that binary
// checks itself at every start, and a missing manifest is a fault. The
// stamp is in the binary the manifest covers: removing it is changing the
// binary, which is what the check finds.
var signedBuild string

// softwareManifest decides the binary's self-test (DESIGN.md §7): the
// manifest to check against, or why the check is skipped. Nothing of the
// configuration file decides it, since the manifest does not cover that
// file: the package's manifest is checked whenever it is installed signed
// (its .sig beside it), and always by the binary of a signed package
// (signed), even when the manifest was removed; flag (-manifest on the
// command line) names another one only when the package's is not there
// (a development run, the tests). An unsigned package (built without an
// update key) has nothing to check against.
func softwareManifest(flag, packaged string, signed bool) (manifest, skipped string) {
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	switch {
	case signed:
		return packaged, ""
	case exists(packaged) && exists(packaged+update.SignatureSuffix):
		return packaged, ""
	case flag != "":
		return flag, ""
	case exists(packaged):
		return "", fmt.Sprintf("the package's manifest %s is not signed (a package built without an update key): the binary's self-test is skipped", packaged)
	}
	return "", "no signed manifest installed: the binary's self-test is skipped (a development build)"
}

// trustedKeys reads the issuers' public key files.
func trustedKeys(paths []string) (block.KeySet, error) {
	keys := block.KeySet{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("issuer key: %w", err)
		}
		pub, err := block.ParsePublicKey(b)
		if err != nil {
			return nil, fmt.Errorf("issuer key %s: %w", p, err)
		}
		keys[block.KeyIDOf(pub)] = pub
	}
	return keys, nil
}

// runKiosk runs the kiosk until its window closes or ctx ends. The window
// opens first, on the start-up screen (ui.Startup); the kiosk starts once
// that screen is drawn, and its screens follow. A failure to start is said
// on stderr at once, then shown on the out-of-service screen until the
// kiosk is stopped; it is returned for the exit status.
func runKiosk(ctx context.Context, cfg Config, stdout, stderr io.Writer, started time.Time) error {
	logger := newLogger(stderr, osEnv{})
	logger.Printf("database %s, kiosk %q, language %s, development %v", cfg.DB, cfg.KioskID, cfg.Lang, cfg.Dev)
	if len(early.Applied) > 0 {
		logger.Printf("memory: %s", strings.Join(early.Applied, ", "))
	}
	// ctx ends on SIGTERM or SIGINT (main), or when the window is closed.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sd := newSystemd(ctx, osEnv{}, logger, fyne.Do)
	// One voice for the screens, whichever machine they show: a kiosk out
	// of service from its start says its screen too.
	voice := playerVoice(cfg, logger)
	var p *parts
	var startErr error
	boot := func(report func(kiosk.BootStep, bool)) (ui.Machine, ui.Options, *backOffice) {
		p, startErr = openKioskReporting(ctx, cfg, kiosk.SystemClock{}, logger, report)
		if startErr != nil {
			if ctx.Err() != nil {
				// Stopped while starting (systemctl stop, a reboot): not a
				// failure to start (showWindow shows nothing more).
				logger.Printf("stopped while starting: %v", startErr)
			} else {
				fmt.Fprintf(stderr, "pharaon: cannot start: %v\n", startErr)
			}
			fault := kiosk.Fault{Code: kiosk.FaultStore, Detail: startErr.Error()}
			var se *startError
			if errors.As(startErr, &se) {
				fault = se.fault
			}
			return downMachine{fault}, ui.Options{Lang: cfg.Lang, Voice: voice,
				OnOutOfService: outOfServiceReady(sd, func() string { return fault.Code })}, nil
		}
		snap := p.m.Snapshot()
		logger.Printf("kiosk %s, credit %s, stakes open %v", snap.State, snap.Credit.Plain(), snap.Available)
		if snap.State == kiosk.OutOfService {
			// A failed self-test: said at once, as a failure to start is.
			fmt.Fprintf(stderr, "pharaon: out of service: %s: %s\n", snap.Fault.Code, snap.Fault.Detail)
		}
		// The watchdog's pings follow the store too: a hung store stops them
		// (set before sd.ready, which the screens call once shown).
		sd.health = p.m.Health
		// READY=1 comes with the first screen a person can use: the home
		// screen, or on a first start the technician's setup before it.
		var home, setup sync.Once
		up := func() { home.Do(func() { shown(logger, "home", started); nextFrame(sd.ready) }) }
		// A kiosk out of service from its start (its data failed their
		// checks, a device its self-test) is up all the same.
		opt := ui.Options{Lang: startLang(cfg.Lang, p.m.Language(), logger), OnHome: up,
			OnOutOfService: outOfServiceReady(sd, func() string { return p.m.Snapshot().Fault.Code })}
		backdropOptions(cfg.Backdrop, &opt)
		opt.Voice = voice
		p.bo.onFirstStart = func(what string) {
			setup.Do(func() {
				shown(logger, what, started)
				nextFrame(func() { sd.readyStatus("first start: " + what + " shown") })
			})
		}
		if cfg.FPS {
			opt.OnFrameStats = func(s play.FrameStats) { logger.Print(s) }
			opt.OnShow = func(screen, overlay string) { logger.Printf("show %s %s", screen, overlay) }
		}
		if p.devs != nil {
			opt.Dev = devPanel{p.devs}
			opt.OnNoteShown = noteTimer(p.m, logger)
		}
		return ui.Kiosk(p.m), opt, p.bo
	}
	var closing sync.Once
	closeKiosk := func() {
		closing.Do(func() {
			sd.stop()
			if p != nil {
				if err := p.Close(); err != nil {
					logger.Printf("close: %v", err)
				}
			}
			closeVoice(voice) // a sentence being said stops with the kiosk
		})
	}
	display(windowRun{ctx: ctx, cancel: cancel, boot: boot, closeKiosk: closeKiosk, logger: logger, firstFrame: func() {
		now := time.Now()
		fmt.Fprintf(stdout, "FIRST_FRAME %d\n", now.UnixNano())
		logger.Printf("first frame (the start-up screen) after %d ms", now.Sub(started).Milliseconds())
	}}, cfg)
	closeKiosk()
	if startErr != nil && ctx.Err() != nil {
		return nil // stopped while starting
	}
	return startErr
}

// outOfServiceReady is the screens' OnOutOfService: the kiosk is up, out
// of service, and says why (code: the fault's code), so that systemd keeps
// the session and its screen for the technician instead of restarting it
// every TimeoutStartSec (each of those starts whose data pass their checks
// counting the trust root once).
// A kiosk that went out of service after its home screen was ready has
// nothing more to tell (readyStatus counts once).
func outOfServiceReady(sd *systemd, code func() string) func() {
	var once sync.Once
	return func() { once.Do(func() { nextFrame(func() { sd.readyStatus("out of service: " + code()) }) }) }
}

// bootFunc starts the kiosk, telling report of its steps, and returns the
// machine the screens show (a downMachine if it could not start) and the
// screens' options.
type bootFunc func(report func(step kiosk.BootStep, done bool)) (ui.Machine, ui.Options, *backOffice)

// windowRun is what display is given of the kiosk's run.
type windowRun struct {
	// ctx ends when the kiosk is to stop; cancel ends it (the window's
	// close button, the signals showWindow takes over from Fyne).
	ctx    context.Context
	cancel context.CancelFunc
	boot   bootFunc
	// firstFrame is called once the start-up screen is drawn.
	firstFrame func()
	// closeKiosk stops what calls into the screens from other goroutines
	// (the machine's changes, systemd's watchdog) and closes the store;
	// called once boot has returned. It may be called again.
	closeKiosk func()
	logger     *log.Logger
}

// display shows the start-up screen, calls firstFrame once it is drawn,
// runs boot (off the Fyne goroutine), then shows the screens of the machine
// boot returns, until the window closes or ctx ends; it returns once boot
// has returned. The tests of the binary replace it (main_test.go): they
// have no screen.
var display = showWindow

// showWindow is display on a real screen: the Fyne app and its window.
// With a back office (bo, nil when the kiosk could not start), the hidden
// corner opens the maintenance screen, and a kiosk without PINs shows the
// first start's setup before the player's screens.
//
// The kiosk stops before the window does. Once Fyne's loop has quit, a
// call into Fyne from another goroutine may panic ("send on closed
// channel") or never run, so the stop goes in order: the boot ends (it
// follows ctx), the screens stop on Fyne's goroutine, closeKiosk stops
// the machine and the watchdog, and only then does the app quit. For that
// order the window takes SIGTERM and SIGINT over from Fyne, which would
// quit at once (takeSignals), and Fyne runs no stop hook (quietStop).
func showWindow(r windowRun, cfg Config) {
	// The window's steps, timed for the log at its first frame: where a
	// slow start goes (docs/vm-test.md).
	opening := time.Now()
	a := app.NewWithID(appID)
	if !quietStop(a) {
		r.logger.Print("Fyne's stop hooks could not be cleared (a Fyne other than 2.7.1?): the window may panic as it quits")
	}
	a.Settings().SetTheme(art.Theme())
	w := a.NewWindow("Pharaon")
	connected := time.Now() // the display's connection and its GL driver
	w.SetPadded(false)
	w.SetCloseIntercept(r.cancel) // the close button stops the kiosk as SIGTERM does
	startup := ui.NewStartup(cfg.Lang)
	w.SetContent(startup.Content())
	if cfg.Fullscreen {
		w.SetFullScreen(true)
	} else {
		w.Resize(fyne.NewSize(1280, 800))
	}
	var (
		screens  *ui.Screens // on Fyne's goroutine only
		mu       sync.Mutex
		stopping bool
		booted   chan struct{} // closed when boot has returned; nil: boot not begun
	)
	a.Lifecycle().SetOnStarted(func() {
		made := time.Now() // the window, its GL context and painter
		takeSignals(r.cancel)
		// The start begins once the start-up screen is drawn: the boot
		// check reads the whole database, and the first frame must not
		// wait for it.
		nextFrame(func() {
			r.firstFrame()
			r.logger.Printf("the window's opening: the display and its GL driver %d ms, the window and its painter %d ms, the first frame %d ms",
				connected.Sub(opening).Milliseconds(), made.Sub(connected).Milliseconds(), time.Since(made).Milliseconds())
			mu.Lock()
			defer mu.Unlock()
			if stopping {
				return
			}
			booted = make(chan struct{})
			go ui.WarmHome(w.Canvas().Size())
			go func(done chan struct{}) {
				defer close(done)
				m, opt, bo := r.boot(func(step kiosk.BootStep, done bool) {
					fyne.Do(func() { startup.Step(step, done) })
				})
				if r.ctx.Err() == nil {
					fyne.Do(func() {
						screens = showScreens(w, cfg, m, opt, bo, r.logger)
						watchHeadphones(r.ctx, screens, opt, r.logger)
					})
				}
			}(booted)
		})
	})
	// bootEnded starts no boot from now on and waits for one begun.
	bootEnded := func() {
		mu.Lock()
		stopping = true
		done := booted
		mu.Unlock()
		if done != nil {
			<-done
		}
	}
	go func() {
		<-r.ctx.Done()
		r.logger.Print("stopping")
		bootEnded()
		fyne.DoAndWait(func() {
			if screens != nil {
				screens.Stop()
			}
		})
		r.closeKiosk()
		fyne.Do(a.Quit)
	}()
	w.ShowAndRun()
	r.cancel() // the window gone some other way: the kiosk stops all the same
	bootEnded()
}

// quietStop keeps Fyne from running its stop hooks as its loop quits:
// Fyne 2.7.1 hands them from a goroutine of its own to its loop's queue,
// which the loop closes meanwhile, and under load the process panics
// ("send on closed channel") before main closes the kiosk. The kiosk has
// nothing to do there: it stops before the app quits (showWindow), and
// keeps no Fyne preferences, which Fyne's own hook saves. It reports
// whether the hooks could be cleared (window_test.go checks they are).
func quietStop(a fyne.App) bool {
	l, ok := a.Lifecycle().(interface {
		SetOnStoppedHookExecuted(func())
		OnStopped() func()
	})
	if !ok {
		return false
	}
	a.Lifecycle().SetOnStopped(nil)
	l.SetOnStoppedHookExecuted(nil)
	return l.OnStopped() == nil
}

// takeSignals takes SIGTERM and SIGINT over from Fyne, which would quit
// its loop at once on them (while the kiosk still runs): from then on they
// call stop, and the window quits once the kiosk has stopped (showWindow).
// Fyne asks for them from a goroutine it starts as its loop starts, which
// a loaded machine runs late, after the window is drawn; a Reset before
// that would leave Fyne's request standing. So the signals are taken once
// that goroutine waits on them, seen in the goroutines' stacks (fyneCaught),
// or after fyneCatchWait at the latest. Until then, main's handler and
// Fyne's both act, as before.
func takeSignals(stop func()) {
	go func() {
		deadline := time.Now().Add(fyneCatchWait)
		for !fyneCaught() && time.Now().Before(deadline) {
			time.Sleep(2 * time.Millisecond)
		}
		c := make(chan os.Signal, 1)
		signal.Reset(os.Interrupt, syscall.SIGTERM)
		signal.Notify(c, os.Interrupt, syscall.SIGTERM)
		<-c
		stop()
	}()
}

// fyneCatchWait bounds the wait for Fyne's signal goroutine.
const fyneCatchWait = 10 * time.Second

// fyneCaught reports whether Fyne's GLFW driver waits for SIGTERM and
// SIGINT (its catchTerm goroutine, blocked on its channel).
func fyneCaught() bool {
	buf := make([]byte, 256<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "[chan receive") && strings.Contains(g, "glfw.(*gLDriver).catchTerm") {
			return true
		}
	}
	return false
}

// showScreens shows the screens of m in w, once the kiosk has started: the
// first start's setup first when a production kiosk has no PINs yet, and
// the hidden corner to the maintenance screen (bo nil: neither).
func showScreens(w fyne.Window, cfg Config, m ui.Machine, opt ui.Options, bo *backOffice, logger *log.Logger) *ui.Screens {
	var screens *ui.Screens
	if bo != nil {
		opt.DevPINs = bo.demoPINs
		opt.OnMaintenance = func() {
			logger.Print("maintenance screen open")
			maint.Open(w, maint.Config{Office: bo.office, Lock: bo.m.SetMaintenance, Lang: screens.Lang(),
				Now: bo.clk.Now, Loc: bo.m.Location(), BlockDir: cfg.BlockDir, Dev: opt.Dev,
				OnClose: func() { logger.Print("maintenance screen closed") }})
		}
	}
	screens = ui.New(m, opt)
	if bo == nil || !bo.setup && !bo.firstStart {
		showPlayer(w, screens)
		return screens
	}
	bo.m.SetMaintenance(true) // no player until the first start is done
	sequence := func() {
		maint.NewFirstStart(w, maint.FirstStartConfig{Steps: bo.office, Office: bo.office, BlockDir: cfg.BlockDir, Lang: cfg.Lang,
			Now: bo.clk.Now, Loc: bo.m.Location(),
			Shown: func(screen, found string) {
				if found == "" {
					found = "none"
				}
				logger.Printf("first start: %s screen shown (last check: %s)", screen, found)
			},
			Done: func() {
				logger.Printf("first start done: kiosk %s open to players", bo.m.KioskID())
				bo.m.SetMaintenance(false)
				showPlayer(w, screens)
			}})
	}
	if !bo.setup {
		sequence()
		if bo.onFirstStart != nil {
			bo.onFirstStart("guided sequence")
		}
		return screens
	}
	maint.NewSetup(w, maint.SetupConfig{Access: bo.access, KioskID: bo.m.KioskID(), SetKioskID: bo.m.SetKioskID,
		Begin: bo.m.BeginFirstStart, Lang: cfg.Lang,
		Done: func() {
			logger.Printf("first start's setup done: maintenance PINs set, kiosk %s", bo.m.KioskID())
			sequence()
		}})
	if bo.onFirstStart != nil {
		bo.onFirstStart("setup screen")
	}
	return screens
}

// watchHeadphones turns the player's voice on when headphones are plugged
// into the kiosk's jack (hw/jack), for as long as ctx runs. A kiosk
// without a voice, or without a jack the kernel reports, does nothing.
func watchHeadphones(ctx context.Context, screens *ui.Screens, opt ui.Options, logger *log.Logger) {
	if opt.Voice == nil {
		return
	}
	go func() {
		devs, err := jack.Watch(ctx, "/sys", "/dev", func(in bool) {
			if in {
				fyne.Do(screens.HeadphonesIn)
			}
		}, logger.Printf)
		switch {
		case err != nil:
			logger.Printf("headphones: %v (the voice comes on by a key or « Voix » only)", err)
		case len(devs) == 0:
			logger.Printf("headphones: the kernel reports no jack now (looked for again every %v: a USB sound card plugged in later is found; until then the voice comes on by a key or « Voix »)", jack.RescanEvery)
		}
	}()
}

// showPlayer puts the player's screens in the window, with the keypad's
// keys (kiosk/ui/keys.go), and starts them.
func showPlayer(w fyne.Window, screens *ui.Screens) {
	w.SetContent(screens.Content())
	w.Canvas().SetOnTypedKey(screens.TypedKey)
	w.Canvas().SetOnTypedRune(screens.TypedRune)
	screens.Start()
}

// noteTimer logs, for each note credited in a development run, how long
// the kiosk took from the note recognised in escrow to its credit (the
// simulated unit's stacking polls, VEND VALID, the commit), and from the
// credit to the first frame that shows it.
func noteTimer(m *kiosk.Machine, logger *log.Logger) func(kiosk.CashInEvent) {
	var mu sync.Mutex
	var escrow kiosk.CashInEvent
	m.OnChange(func(s kiosk.Snapshot) {
		if e := s.Cash.CashIn; e.Kind == kiosk.NoteEscrow {
			mu.Lock()
			escrow = e
			mu.Unlock()
		}
	})
	return func(ev kiosk.CashInEvent) {
		mu.Lock()
		esc := escrow
		mu.Unlock()
		done := false
		a := fyne.NewAnimation(time.Millisecond, func(float32) {
			if done {
				return
			}
			done = true
			shown := time.Since(ev.At)
			taken := "?"
			if esc.Seq+1 == ev.Seq {
				taken = fmt.Sprintf("%.1f ms", float64(ev.At.Sub(esc.At).Microseconds())/1000)
			}
			logger.Printf("note of %s: escrow → credited %s, credited → on screen %.1f ms",
				ev.Amount.Plain(), taken, float64(shown.Microseconds())/1000)
		})
		a.Start()
	}
}

// shown logs the start-up time once a screen (the home, or the first
// start's setup) is on screen: a screen is built when it is first shown; the
// next animation tick runs in the frame that draws it.
func shown(logger *log.Logger, what string, started time.Time) {
	nextFrame(func() {
		logger.Printf("%s shown after %d ms", what, time.Since(started).Milliseconds())
	})
}

// startLang is the language the screens start in: the technician's
// setting (kept in the store, read by the machine) over the
// configuration's.
func startLang(configured ui.Lang, setting string, logger *log.Logger) ui.Lang {
	if setting == "" {
		return configured
	}
	l, err := ui.ParseLang(setting)
	if err != nil {
		logger.Printf("language setting %q: %v; %s kept", setting, err, configured)
		return configured
	}
	return l
}

// backdropOptions sets how much of the playfield's backdrop the screens
// draw, from the configuration's backdrop ("" or "auto": the screens'
// default, by the field's size).
func backdropOptions(mode string, opt *ui.Options) {
	switch mode {
	case "full":
		opt.FullBackdropMaxPixels = -1
	case "plain":
		opt.PlainPlayfield = true
	}
}

// closeVoice stops the screens' voice, if it is one that stops.
func closeVoice(v ui.Voice) {
	if c, ok := v.(interface{ Close() }); ok {
		c.Close()
	}
}

// playerVoice is the screens' voice (kiosk/speech, espeak-ng), nil when
// the configuration turns it off. A development run logs what it says.
func playerVoice(cfg Config, logger *log.Logger) ui.Voice {
	if cfg.Voice == "off" {
		return nil
	}
	opt := speech.Options{Logf: logger.Printf, WAV: cfg.VoiceWAV}
	if cfg.Dev || cfg.FPS {
		opt.Spoken = func(u speech.Utterance) { logger.Printf("voice %s: %s", u.Lang, u.Text) }
	}
	return speech.New(opt)
}
