package kiosk

import (
	"context"
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
	// empty: a development run, the self-test is skipped and the log says so.
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
		m.logf(store.LevelWarning, "selftest_skipped", "no installed manifest configured: the binary's self-test is skipped (a development run)")
		return nil
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

// refuseSoftware takes the kiosk out of service on a failed self-test of
// its software: nothing of the store is read by software that is not the
// one installed (the data stay as they are).
func (m *Machine) refuseSoftware(err error) {
	m.update(func() {
		m.rejected = true
		m.credit = 0
		clear(m.available)
		m.setFaultLocked(Fault{FaultSoftware, err.Error()})
	})
	m.logf(store.LevelCritical, FaultSoftware, "self-test of the software: %v", err)
}
