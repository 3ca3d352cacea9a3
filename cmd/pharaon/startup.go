package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/kiosk"
	"pharaon/kiosk/ui"
	"pharaon/store"
)

// startError is a failure to start the kiosk: its exit status, and the
// fault the out-of-service screen shows for it.
type startError struct {
	status int
	fault  kiosk.Fault
	err    error
}

func (e *startError) Error() string { return e.err.Error() }
func (e *startError) Unwrap() error { return e.err }

// storeFailure classifies a failure to open or start on the store: a file
// that is not the kiosk's database (or one this software cannot run) is
// an integrity fault, anything else (a read-only or full disk, an I/O
// error) a store fault.
func storeFailure(err error) *startError {
	code := kiosk.FaultStore
	for _, e := range []error{store.ErrNotSQLite, store.ErrNotPharaon, store.ErrNewerSchema, store.ErrOldSchema, store.ErrMigration,
		store.ErrPragma, store.ErrIntegrity, store.ErrAnchor, store.ErrTrust} {
		if errors.Is(err, e) {
			code = kiosk.FaultCode(err)
		}
	}
	return &startError{status: exitStore, fault: kiosk.Fault{Code: code, Detail: err.Error()}, err: err}
}

// installedMarker is the name of the file a production kiosk writes after
// its first successful start (Config.Installed).
const installedMarker = "pharaon.installed"

// mayCreate decides whether the kiosk may create its database. A
// development run always may. A production kiosk only when told it is a
// first install, and never when its marker says it has run before: its
// database, credit and history, is then lost, not new.
func mayCreate(cfg Config) (bool, error) {
	if cfg.Dev {
		return true, nil
	}
	if !cfg.FirstInstall {
		return false, nil
	}
	_, err := os.Stat(cfg.Installed)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return true, nil
	case err != nil:
		return false, &startError{status: exitStore, fault: kiosk.Fault{Code: kiosk.FaultStore, Detail: err.Error()},
			err: fmt.Errorf("first-install marker: %w", err)}
	}
	return false, nil
}

// noDatabase is the failure of a production kiosk that finds no database.
func noDatabase(cfg Config, err error) *startError {
	var reason error
	if _, serr := os.Stat(cfg.Installed); serr == nil {
		reason = fmt.Errorf("database %s is missing, and this kiosk has run before (%s): its credit and history are not there; "+
			"restore the database, or for a new installation remove %s and start once with -first-install: %w",
			cfg.DB, cfg.Installed, cfg.Installed, err)
	} else {
		reason = fmt.Errorf("no database at %s: a new kiosk is started once with -first-install: %w", cfg.DB, err)
	}
	return &startError{status: exitNoDatabase, fault: kiosk.Fault{Code: kiosk.FaultNoDatabase, Detail: reason.Error()}, err: reason}
}

// markInstalled writes the marker after the first successful start of a
// production kiosk (written whole, then renamed into place).
func markInstalled(cfg Config) error {
	if cfg.Dev {
		return nil
	}
	if _, err := os.Stat(cfg.Installed); err == nil {
		return nil
	}
	tmp := cfg.Installed + ".tmp"
	text := fmt.Sprintf("Pharaon kiosk first started %s with the database %s.\n"+
		"Without that database it refuses to start: see docs/kiosk-config.md.\n", time.Now().UTC().Format(time.RFC3339), cfg.DB)
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		return fmt.Errorf("first-install marker: %w", err)
	}
	if err := os.Rename(tmp, cfg.Installed); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("first-install marker: %w", err)
	}
	if d, err := os.Open(filepath.Dir(cfg.Installed)); err == nil {
		_ = d.Sync() // the rename survives a power cut
		d.Close()
	}
	return nil
}

// downMachine is what the screens show of a kiosk that could not start:
// out of service with the reason, and nothing else: no credit, no stake,
// no device, since nothing of the store was read or could be trusted.
type downMachine struct{ fault kiosk.Fault }

var _ ui.Machine = downMachine{}

func (d downMachine) Snapshot() kiosk.Snapshot {
	return kiosk.Snapshot{State: kiosk.OutOfService, Fault: d.fault, Available: map[game.Stake]bool{}}
}
func (d downMachine) OnChange(func(kiosk.Snapshot)) kiosk.Snapshot { return d.Snapshot() }
func (downMachine) RequestPlay(_ game.Stake, _ breakout.Mode, done func(ui.Game, error)) {
	done(nil, kiosk.ErrOutOfService)
}
func (downMachine) Current() ui.Game { return nil }
func (downMachine) PlayerHistory(context.Context, int) (kiosk.PlayerHistory, error) {
	return kiosk.PlayerHistory{}, kiosk.ErrOutOfService
}
func (downMachine) Touch()     {}
func (downMachine) EndResult() {}
func (downMachine) CashOut(context.Context) (kiosk.VoucherInfo, error) {
	return kiosk.VoucherInfo{}, kiosk.ErrOutOfService
}
func (downMachine) ResetValidator()              {}
func (downMachine) CheckPrinter(context.Context) {}
