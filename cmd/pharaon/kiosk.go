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
	"pharaon/store"
)

// appID is the Fyne application id (its preferences directory).
const appID = "fr.pharaon.kiosk"

// parts are the kiosk's store and machine, started, and in a development
// run its simulated cash devices.
type parts struct {
	st   *store.Store
	m    *kiosk.Machine
	devs *devsim.Devices // -dev only
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

// openKiosk opens the store, provisions a development kiosk with -dev (demo
// blocks, simulated cash devices), and starts the machine (its boot checks,
// the recovery of an interrupted play and of the cash, DESIGN.md §7).
func openKiosk(ctx context.Context, cfg Config, clk kiosk.Clock, logger *log.Logger) (*parts, error) {
	if err := os.MkdirAll(filepath.Dir(cfg.DB), 0o700); err != nil {
		return nil, fmt.Errorf("database directory: %w", err)
	}
	st, err := store.Open(cfg.DB)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", cfg.DB, err)
	}
	keys, err := trustedKeys(cfg.Keys)
	if err != nil {
		st.Close()
		return nil, err
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
		return nil, fmt.Errorf("start kiosk: %w", err)
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

// runKiosk runs the kiosk until its window closes or ctx ends.
func runKiosk(ctx context.Context, cfg Config, stdout, stderr io.Writer, started time.Time) error {
	logger := newLogger(stderr, osEnv{})
	logger.Printf("database %s, kiosk %q, language %s, development %v", cfg.DB, cfg.KioskID, cfg.Lang, cfg.Dev)
	p, err := openKiosk(ctx, cfg, kiosk.SystemClock{}, logger)
	if err != nil {
		return err
	}
	defer func() {
		if err := p.Close(); err != nil {
			logger.Printf("close: %v", err)
		}
	}()
	snap := p.m.Snapshot()
	logger.Printf("kiosk %s, credit %s, stakes open %v", snap.State, snap.Credit.Plain(), snap.Available)

	a := app.NewWithID(appID)
	a.Settings().SetTheme(art.Theme())
	w := a.NewWindow("Pharaon")
	w.SetPadded(false)

	sd := newSystemd(ctx, osEnv{}, logger, fyne.Do)
	var once sync.Once
	opt := ui.Options{
		Lang: cfg.Lang,
		OnHome: func() {
			once.Do(func() { firstFrame(stdout, logger, started); nextFrame(sd.ready) })
		},
	}
	if cfg.FPS {
		opt.OnFrameStats = func(s ui.FrameStats) { logger.Print(s) }
	}
	if p.devs != nil {
		opt.Dev = devPanel{p.devs}
		opt.OnNoteShown = noteTimer(p.m, logger)
	}
	screens := ui.New(p.m, opt)
	w.SetContent(screens.Content())
	if cfg.Fullscreen {
		w.SetFullScreen(true)
	} else {
		w.Resize(fyne.NewSize(1280, 800))
	}
	a.Lifecycle().SetOnStarted(screens.Start)
	a.Lifecycle().SetOnStopped(screens.Stop)
	go func() {
		<-ctx.Done()
		logger.Print("stopping")
		fyne.Do(a.Quit)
	}()
	w.ShowAndRun()
	sd.stop()
	return nil
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
