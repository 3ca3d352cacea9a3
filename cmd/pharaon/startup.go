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
	// Only a kiosk that has run before has something to restore; a new one
	// is told how it is installed.
	var reason error
	code := kiosk.FaultNoDatabase
	if _, serr := os.Stat(cfg.Installed); serr == nil {
		reason = fmt.Errorf("database %s is missing, and this kiosk has run before (%s): its credit and history are not there; "+
			"restore the database, or for a new installation remove %s and start once with -first-install: %w",
			cfg.DB, cfg.Installed, cfg.Installed, err)
	} else {
		code = kiosk.FaultNotInstalled
		reason = fmt.Errorf("no database at %s: a new kiosk is started once with -first-install: %w", cfg.DB, err)
	}
	return &startError{status: exitNoDatabase, fault: kiosk.Fault{Code: code, Detail: reason.Error()}, err: reason}
}

// inUse is the refusal of a database another process holds (store.ErrLocked):
// the kiosk, or one of its commands. Nothing was read or written; the
// sentence says what to do, in the kiosk's language.
func inUse(cfg Config, err error) *startError {
	w := blockWords{cfg.Lang}
	var le *store.LockedError
	errors.As(err, &le)
	var who, do string
	switch {
	case le == nil || le.PID == 0:
		who = w.pick("un autre processus", "another process")
		do = w.pick("si c’est la borne, arrêtez-la d’abord avec «\u00a0systemctl stop pharaon\u00a0»",
			"if it is the kiosk, stop it with `systemctl stop pharaon` first")
	case le.Command == "pharaon" || le.Command == "":
		who = w.pick(fmt.Sprintf("la borne est en marche (processus %d) et", le.PID),
			fmt.Sprintf("the kiosk is running (process %d) and", le.PID))
		do = w.pick("arrêtez-la d’abord avec «\u00a0systemctl stop pharaon\u00a0»", "stop it with `systemctl stop pharaon` first")
	default:
		who = w.pick(fmt.Sprintf("la commande «\u00a0%s\u00a0» (processus %d)", le.Command, le.PID),
			fmt.Sprintf("the command `%s` (process %d)", le.Command, le.PID))
		do = w.pick("attendez qu’elle finisse", "wait for it to finish")
	}
	msg := w.pick(fmt.Sprintf("%s tient la base %s\u00a0: %s, puis recommencez\u00a0; rien n’a été modifié", who, cfg.DB, do),
		fmt.Sprintf("%s holds the database %s: %s, then try again; nothing was changed", who, cfg.DB, do))
	return &startError{status: exitStore, fault: kiosk.Fault{Code: kiosk.FaultStore, Detail: msg}, err: sentence{msg, err}}
}

// sentence is an error said to a person in words of its own, its cause
// kept for errors.Is.
type sentence struct {
	msg   string
	cause error
}

func (s sentence) Error() string { return s.msg }
func (s sentence) Unwrap() error { return s.cause }

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
func (downMachine) ResetValidator()                                  {}
func (downMachine) CheckPrinter(context.Context)                     {}
func (downMachine) SetPlayerLimit(context.Context, game.Money) error { return kiosk.ErrOutOfService }
func (downMachine) DismissRealityCheck()                             {}
