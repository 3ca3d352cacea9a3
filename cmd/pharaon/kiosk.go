package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"

	"pharaon/game/block"
	"pharaon/kiosk"
	"pharaon/kiosk/devsim"
	"pharaon/kiosk/ui"
	"pharaon/kiosk/ui/art"
	"pharaon/kiosk/ui/maint"
	"pharaon/kiosk/ui/play"
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
	// demoPINs are the development run's PINs (staff, technician), shown
	// on the development panel.
	demoPINs [2]string
	// onSetup is called when the setup screen shows (the kiosk is up).
	onSetup func()
}

// The development run's PINs, seeded in a development database that has
// none and shown on the development panel.
const (
	devStaffPIN      = "1111"
	devTechnicianPIN = "2222"
)

// newBackOffice makes the maintenance screen's checker and actions on a
// started machine. A development database without PINs gets the demo
// PINs; a production one without PINs asks for the setup.
func newBackOffice(ctx context.Context, st *store.Store, m *kiosk.Machine, clk kiosk.Clock, dev bool, logger *log.Logger) (*backOffice, error) {
	a := kiosk.NewAccess(st, clk, kiosk.AccessConfig{})
	bo := &backOffice{m: m, clk: clk, access: a, office: kiosk.NewOffice(m, a, kiosk.DefaultOfficeIdle)}
	need, err := a.NeedsSetup(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the maintenance PINs: %w", err)
	}
	switch {
	case dev && need:
		t0 := time.Now()
		if err := a.SetPIN(ctx, "", kiosk.RoleStaff, devStaffPIN); err != nil {
			return nil, fmt.Errorf("demo PINs: %w", err)
		}
		if err := a.SetPIN(ctx, "", kiosk.RoleTechnician, devTechnicianPIN); err != nil {
			return nil, fmt.Errorf("demo PINs: %w", err)
		}
		logger.Printf("development kiosk: demo maintenance PINs set in %d ms", time.Since(t0).Milliseconds())
		fallthrough
	case dev:
		bo.demoPINs = [2]string{devStaffPIN, devTechnicianPIN}
	case need:
		bo.setup = true
		logger.Printf("no maintenance PINs yet: the first start's setup shows before the player's screens")
	}
	return bo, nil
}

// Close stops the machine (after a voucher being printed), then the
// simulated devices it was talking to, then closes the store.
func (p *parts) Close() error {
	err := p.m.Close()
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
// development run, for the devices the configuration gives no path to.
func startDevSim(cfg *Config, logger *log.Logger) (*devsim.Devices, error) {
	data := filepath.Dir(cfg.DB)
	devs, err := devsim.Start(devsim.Config{Dir: filepath.Join(data, devRunDir), Receipts: filepath.Join(data, devVouchersDir),
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
	logger.Printf("development kiosk: bill validator %s, voucher printer %s, vouchers in %s",
		cfg.Validator, cfg.Printer, filepath.Join(data, devVouchersDir))
	return devs, nil
}

// openKiosk reads the issuers' keys, opens the store (creating it only in a
// development run or on a first install, mayCreate), provisions a
// development kiosk with -dev (demo blocks, simulated cash devices), and
// starts the machine (its boot checks, the recovery of an interrupted play
// and of the cash, DESIGN.md §7). A failure is a *startError; nothing is
// left running or created by it.
func openKiosk(ctx context.Context, cfg Config, clk kiosk.Clock, logger *log.Logger) (*parts, error) {
	// The keys first: a bad key file is a configuration to fix, and must
	// not leave a new database behind.
	keys, err := trustedKeys(cfg.Keys)
	if err != nil {
		return nil, &startError{status: exitKeys, fault: kiosk.Fault{Code: kiosk.FaultKeys, Detail: err.Error()}, err: err}
	}
	st, create, err := openStore(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.FirstInstall && !create {
		logger.Printf("-first-install ignored: the database %s is there", cfg.DB)
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
			MaxCredit: cfg.MaxCredit, PayoutLimit: cfg.PayoutLimit, VoucherValidity: cfg.VoucherValidity}})
	if err != nil {
		if devs != nil {
			devs.Close()
		}
		st.Close()
		return nil, err
	}
	if err := p.m.Start(ctx); err != nil {
		p.Close()
		return nil, storeFailure(fmt.Errorf("start kiosk: %w", err))
	}
	if p.bo, err = newBackOffice(ctx, st, p.m, clk, cfg.Dev, logger); err != nil {
		p.Close()
		return nil, storeFailure(err)
	}
	if err := markInstalled(cfg); err != nil {
		// The kiosk runs; without the marker a lost database is still
		// refused (no -first-install), only with a vaguer reason.
		logger.Printf("%v", err)
	}
	return p, nil
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

// runKiosk runs the kiosk until its window closes or ctx ends. A failure
// to start is said on stderr at once, then shown on the out-of-service
// screen until the kiosk is stopped; it is returned for the exit status.
func runKiosk(ctx context.Context, cfg Config, stdout, stderr io.Writer, started time.Time) error {
	logger := newLogger(stderr, osEnv{})
	logger.Printf("database %s, kiosk %q, language %s, development %v", cfg.DB, cfg.KioskID, cfg.Lang, cfg.Dev)
	p, err := openKiosk(ctx, cfg, kiosk.SystemClock{}, logger)
	if err != nil {
		fmt.Fprintf(stderr, "pharaon: cannot start: %v\n", err)
		fault := kiosk.Fault{Code: kiosk.FaultStore, Detail: err.Error()}
		var se *startError
		if errors.As(err, &se) {
			fault = se.fault
		}
		// Up, out of service, and saying why: systemd keeps the session (and
		// its screen) instead of restarting it in a loop.
		sd := newSystemd(ctx, osEnv{}, logger, fyne.Do)
		var once sync.Once
		opt := ui.Options{Lang: cfg.Lang, OnOutOfService: func() {
			once.Do(func() { nextFrame(func() { sd.readyStatus("out of service: " + fault.Code) }) })
		}}
		display(ctx, cfg, downMachine{fault}, opt, nil, logger)
		sd.stop()
		return err
	}
	defer func() {
		if err := p.Close(); err != nil {
			logger.Printf("close: %v", err)
		}
	}()
	snap := p.m.Snapshot()
	logger.Printf("kiosk %s, credit %s, stakes open %v", snap.State, snap.Credit.Plain(), snap.Available)

	sd := newSystemd(ctx, osEnv{}, logger, fyne.Do)
	sd.health = p.m.Health
	defer sd.stop()
	var once sync.Once
	up := func() { once.Do(func() { firstFrame(stdout, logger, started); nextFrame(sd.ready) }) }
	opt := ui.Options{Lang: cfg.Lang, OnHome: up}
	p.bo.onSetup = up
	if cfg.FPS {
		opt.OnFrameStats = func(s play.FrameStats) { logger.Print(s) }
	}
	if p.devs != nil {
		opt.Dev = devPanel{p.devs}
		opt.OnNoteShown = noteTimer(p.m, logger)
	}
	display(ctx, cfg, ui.Kiosk(p.m), opt, p.bo, logger)
	return nil
}

// display shows the screens of m until the window closes or ctx ends. The
// tests of the binary replace it (main_test.go): they have no screen.
var display = showWindow

// showWindow is display on a real screen: the Fyne app and its window.
// With a back office (bo), the hidden corner opens the maintenance screen,
// and a kiosk without PINs shows the first start's setup before the
// player's screens.
func showWindow(ctx context.Context, cfg Config, m ui.Machine, opt ui.Options, bo *backOffice, logger *log.Logger) {
	a := app.NewWithID(appID)
	a.Settings().SetTheme(art.Theme())
	w := a.NewWindow("Pharaon")
	w.SetPadded(false)
	var screens *ui.Screens
	if bo != nil {
		opt.DevPINs = bo.demoPINs
		opt.OnMaintenance = func() {
			logger.Print("maintenance screen open")
			maint.Open(w, maint.Config{Office: bo.office, Lock: bo.m.SetMaintenance, Lang: screens.Lang(),
				Now: bo.clk.Now, Loc: bo.m.Location(), OnClose: func() { logger.Print("maintenance screen closed") }})
		}
	}
	screens = ui.New(m, opt)
	inSetup := bo != nil && bo.setup
	start := func() {
		if !inSetup {
			screens.Start()
		}
	}
	if inSetup {
		bo.m.SetMaintenance(true) // no player until the PINs are set
		maint.NewSetup(w, maint.SetupConfig{Access: bo.access, KioskID: bo.m.KioskID(), SetKioskID: bo.m.SetKioskID, Lang: cfg.Lang,
			Done: func() {
				logger.Printf("first start's setup done: maintenance PINs set, kiosk %s", bo.m.KioskID())
				inSetup = false
				bo.m.SetMaintenance(false)
				w.SetContent(screens.Content())
				screens.Start()
			}})
		if bo.onSetup != nil {
			bo.onSetup()
		}
	} else {
		w.SetContent(screens.Content())
	}
	if cfg.Fullscreen {
		w.SetFullScreen(true)
	} else {
		w.Resize(fyne.NewSize(1280, 800))
	}
	a.Lifecycle().SetOnStarted(start)
	a.Lifecycle().SetOnStopped(screens.Stop)
	go func() {
		<-ctx.Done()
		logger.Print("stopping")
		fyne.Do(a.Quit)
	}()
	w.ShowAndRun()
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

// firstFrame reports the start-up time once the home screen is on screen:
// the home is built when it is first shown; the next animation tick runs in
// the frame that draws it.
func firstFrame(stdout io.Writer, logger *log.Logger, started time.Time) {
	done := false
	a := fyne.NewAnimation(time.Millisecond, func(float32) {
		if done {
			return
		}
		done = true
		now := time.Now()
		fmt.Fprintf(stdout, "FIRST_FRAME %d\n", now.UnixNano())
		logger.Printf("home shown after %d ms", now.Sub(started).Milliseconds())
	})
	a.Start()
}
