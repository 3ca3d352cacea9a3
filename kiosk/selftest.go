package kiosk

import (
	"context"
	"errors"
	"fmt"
	"os"

	"pharaon/game/block"
	"pharaon/kiosk/update"
	"pharaon/store"
)

// SoftwareCheck is the binary's self-test at boot (DESIGN.md §7): the
// running binary's SHA-256 against the manifest the package installed
// (packaging/deb.sh), the manifest itself signed by an update key
// (kiosk/update.CheckBinary).
type SoftwareCheck struct {
	// Manifest is the installed manifest (/usr/share/pharaon/MANIFEST.sha256);
	// empty: a development run, the self-test is skipped (the kiosk's
	// start says so in its log).
	Manifest string
	// Keys are the update keys trusted to sign it.
	Keys block.Keys
	// Executable is the running binary (default os.Executable), and
	// Installed the path the manifest lists it under (default
	// /usr/bin/pharaon).
	Executable, Installed string
}

// checkSoftware runs the binary's self-test.
func (m *Machine) checkSoftware(ctx context.Context) error {
	c := m.cfg.Software
	if c.Manifest == "" {
		return nil // a development run: its start says so in its log (cmd/pharaon)
	}
	exe := c.Executable
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return fmt.Errorf("the running binary: %w", err)
		}
	}
	installed := c.Installed
	if installed == "" {
		installed = "/usr/bin/pharaon"
	}
	return update.CheckBinary(c.Manifest, c.Keys, exe, installed)
}

// ErrNotClearable: the fault is not one a technician clears from the
// maintenance screen (a store write refused, a wall that did not reveal
// its unit, a play that could not be resumed): the kiosk is restarted once
// the cause is repaired, and its boot check decides.
var ErrNotClearable = errors.New("this fault is cleared by a restart once repaired, not from the maintenance screen")

// ErrNoFault: the kiosk is in service; there is nothing to clear.
var ErrNoFault = errors.New("the kiosk is in service: no fault to clear")

// clearChecks is the technician's clear of a fault found by the boot's
// self-test or the full verification. It is never a reset: it runs the
// checks again — the software's self-test, the boot check, the cash
// devices' self-test and the full verification of every row — and returns the kiosk to service only if
// they all pass; a failure keeps it out of service with the new reason.
// An anchor that does not match the database fails them again until the
// database that matches it is restored (docs/technician.md).
func (m *Machine) clearChecks(ctx context.Context) (Fault, error) {
	m.clearMu.Lock()
	defer m.clearMu.Unlock()
	m.mu.Lock()
	rejected, served, fault, state := m.rejected, m.served, m.fault, m.state
	m.mu.Unlock()
	switch {
	case state == OutOfService && !rejected:
		return fault, fmt.Errorf("fault %s: %w", fault.Code, ErrNotClearable)
	case !rejected:
		return fault, ErrNoFault
	}
	if err := m.checkSoftware(ctx); err != nil {
		m.refuse(FaultSoftware, "self-test of the software", err)
		return fault, err
	}
	if err := m.bootCheck(ctx); err != nil {
		m.reject(err)
		return fault, err
	}
	// The devices are asked only while their drivers are not running (a
	// kiosk that has not served yet): a running driver owns its port.
	if !served {
		df := m.checkDevices(ctx)
		m.logUnit()
		if df != nil {
			m.refuse(df.Code, "self-test of the devices", df)
			return fault, df
		}
	}
	if err := m.st.VerifyFull(ctx); err != nil {
		m.reject(fmt.Errorf("full verification: %w", err))
		return fault, err
	}
	m.update(func() {
		m.rejected = false
		m.fault = Fault{}
		m.state = Home
	})
	if served {
		return fault, m.refresh(ctx)
	}
	return fault, m.serve(ctx, false)
}

// Fault is the fault the kiosk is out of service for (zero in service).
func (o *Office) Fault(ctx context.Context, s *Session) (Fault, error) {
	if err := o.begin(ctx, s, RoleTechnician, "read the fault"); err != nil {
		return Fault{}, err
	}
	snap := o.m.Snapshot()
	if snap.State != OutOfService {
		return Fault{}, nil
	}
	return snap.Fault, nil
}

// ClearFault is the technician's clear (Machine.clearChecks), logged with
// the role: asked, then cleared or refused with the reason.
func (o *Office) ClearFault(ctx context.Context, s *Session) error {
	if err := o.begin(ctx, s, RoleTechnician, "clear the fault"); err != nil {
		return err
	}
	o.audit(store.LevelInfo, "fault_clear", "the %s asks to clear the fault: the checks run again", s.role)
	fault, err := o.m.clearChecks(ctx)
	if err != nil {
		o.audit(store.LevelWarning, "fault_not_cleared", "fault %s not cleared by the %s: %v", fault.Code, s.role, err)
		return err
	}
	o.audit(store.LevelInfo, "fault_cleared", "fault %s cleared by the %s: the checks passed, the kiosk is back in service", fault.Code, s.role)
	// The store takes writes: the PIN attempts it refused are recorded.
	if err := o.a.Flush(ctx); err != nil {
		o.m.logf(store.LevelWarning, "pin_attempts_waiting", "PIN attempts still wait to be recorded: %v", err)
	}
	return nil
}
