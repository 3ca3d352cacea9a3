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
	"pharaon/kiosk/ui"
	"pharaon/kiosk/ui/art"
	"pharaon/store"
)

// appID is the Fyne application id (its preferences directory).
const appID = "fr.pharaon.kiosk"

// parts are the kiosk's store and machine, started.
type parts struct {
	st *store.Store
	m  *kiosk.Machine
}

// Close stops the machine, then closes the store.
func (p *parts) Close() error {
	return errors.Join(p.m.Close(), p.st.Close())
}

// openKiosk opens the store, provisions a development kiosk with -dev,
// and starts the machine (its boot checks and the recovery of an
// interrupted play, DESIGN.md §7).
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
	m, err := kiosk.New(st, clk, kiosk.Config{Dev: cfg.Dev, Keys: keys, KioskID: cfg.KioskID,
		Cash: kiosk.CashConfig{ValidatorPath: cfg.Validator, PrinterPath: cfg.Printer}})
	if err != nil {
		st.Close()
		return nil, err
	}
	if err := m.Start(ctx); err != nil {
		m.Close()
		st.Close()
		return nil, fmt.Errorf("start kiosk: %w", err)
	}
	return &parts{st: st, m: m}, nil
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
	logger := log.New(stderr, "pharaon: ", log.LstdFlags|log.Lmicroseconds)
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

	var once sync.Once
	opt := ui.Options{
		Lang: cfg.Lang,
		OnHome: func() {
			once.Do(func() { firstFrame(stdout, logger, started) })
		},
	}
	if cfg.FPS {
		opt.OnFrameStats = func(s ui.FrameStats) { logger.Print(s) }
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
	return nil
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
