package update

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"pharaon/game/block"
)

// DataDir is the data partition's mount point: an update never installs
// anything under it.
const DataDir = "/var/lib/pharaon"

// Kept packages, in the Updater's State directory (on the root file
// system, not the data partition).
const (
	// InstalledDeb is the package installed now, kept to be reinstalled
	// if the next update fails. The disk image puts the package it was
	// built with there (packaging/image/build.sh).
	InstalledDeb = "installed.deb"
	// PreviousDeb is the package the last update replaced.
	PreviousDeb = "previous.deb"
)

// DebInfo is what a package says of itself.
type DebInfo struct {
	Package, Version, Arch string
	Files                  []string // the paths it installs, absolute
}

// System is the machine's package manager: dpkg on a kiosk (Dpkg), a fake
// in the tests.
type System interface {
	// Installed is the version of the package installed ("" if none).
	Installed(ctx context.Context, pkg string) (string, error)
	// Inspect reads a package file's control fields and contents.
	Inspect(ctx context.Context, deb string) (DebInfo, error)
	// Install installs a package file.
	Install(ctx context.Context, deb string) error
	// Check is the installed system's self-test after an install (the
	// package's SHA-256 manifest).
	Check(ctx context.Context) error
}

// Updater applies verified bundles.
type Updater struct {
	Keys  block.Keys // the keys trusted for updates (not the block keys)
	Sys   System
	State string // the directory of the staging file and the kept packages
	Arch  string // the kiosk's Debian architecture (amd64)
	// ReadOnly says whether the system's files are read-only (nil: never):
	// a kiosk from the disk image, whose slots update as a whole
	// (SystemInstaller), never takes a package into its running system.
	ReadOnly func() (bool, error)
}

// Options are the technician's choices.
type Options struct {
	// Downgrade allows a version older than (or the same as) the one
	// installed.
	Downgrade bool
	// NoRollback allows an update when no package is kept to go back to.
	NoRollback bool
	// CheckOnly verifies the bundle and stops before installing.
	CheckOnly bool
}

// Errors of a refused or failed update.
var (
	ErrDowngrade  = errors.New("the bundle is not newer than the installed version")
	ErrMismatch   = errors.New("the bundle is not for this kiosk")
	ErrDataDir    = errors.New("the package would write on the data partition")
	ErrReadOnly   = errors.New("the system's files are read-only: this kiosk takes a whole system's update (a system bundle), not a package")
	ErrNoRollback = errors.New("no package is kept to go back to if the update fails")
	ErrBusy       = errors.New("another update is running")
	// ErrRolledBack: the new package failed and the previous one is
	// installed again.
	ErrRolledBack = errors.New("the update failed; the previous version is installed again")
	// ErrBroken: the new package failed and so did the reinstall of the
	// previous one. The technician must act (docs/technician.md).
	ErrBroken = errors.New("the update failed and the previous version could not be reinstalled")
)

// Result is what an update did.
type Result struct {
	Manifest Manifest
	Key      block.KeyID
	From     string // the version installed before
	Applied  bool   // false for a check only
}

// Apply verifies the bundle at path and, when every check passed, installs
// its package. Before installing it changes nothing but a staging file,
// removed on a refusal. The checks, in order: the signature by a trusted
// update key, the manifest, the payload's size and SHA-256, the kind,
// package and architecture, the version against the installed one, the
// system's files writable (ReadOnly), the package's own control fields and
// contents (nothing under DataDir), and a kept package to go back to.
func (u *Updater) Apply(ctx context.Context, bundle string, opt Options) (res Result, err error) {
	unlock, err := lockState(u.State)
	if err != nil {
		return res, err
	}
	defer unlock()
	f, err := os.Open(bundle)
	if err != nil {
		return res, err
	}
	v, err := Open(f, u.Keys, u.State)
	f.Close()
	if err != nil {
		return res, err
	}
	staged := v.Path
	defer func() {
		if staged != "" {
			os.Remove(staged)
		}
	}()
	m := v.Manifest
	res.Manifest, res.Key = m, v.Key
	switch {
	case m.Kind != KindDeb:
		return res, fmt.Errorf("payload kind %q: this kiosk applies %q only: %w", m.Kind, KindDeb, ErrMismatch)
	case m.Package != Package:
		return res, fmt.Errorf("package %q, not %q: %w", m.Package, Package, ErrMismatch)
	case u.Arch != "" && m.Arch != u.Arch:
		return res, fmt.Errorf("architecture %q, this kiosk is %q: %w", m.Arch, u.Arch, ErrMismatch)
	}
	from, err := u.Sys.Installed(ctx, Package)
	if err != nil {
		return res, fmt.Errorf("installed version: %w", err)
	}
	res.From = from
	if from != "" && CompareVersions(m.Version, from) <= 0 && !opt.Downgrade && !m.Rollback {
		return res, fmt.Errorf("version %s, installed %s: %w", m.Version, from, ErrDowngrade)
	}
	if u.ReadOnly != nil {
		ro, err := u.ReadOnly()
		if err != nil {
			return res, fmt.Errorf("whether the system is read-only: %w", err)
		}
		if ro {
			return res, fmt.Errorf("%s %s: %w", m.Package, m.Version, ErrReadOnly)
		}
	}
	info, err := u.Sys.Inspect(ctx, staged)
	if err != nil {
		return res, fmt.Errorf("%s: %w: %w", m.Payload, err, ErrPayload)
	}
	if info.Package != m.Package || info.Version != m.Version || info.Arch != m.Arch {
		return res, fmt.Errorf("the package says %s %s %s, the manifest %s %s %s: %w",
			info.Package, info.Version, info.Arch, m.Package, m.Version, m.Arch, ErrPayload)
	}
	for _, p := range info.Files {
		if c := filepath.Clean("/" + p); c == DataDir || strings.HasPrefix(c, DataDir+"/") {
			return res, fmt.Errorf("%s installs %s: %w", m.Payload, c, ErrDataDir)
		}
	}
	kept := filepath.Join(u.State, InstalledDeb)
	haveKept := false
	if from == "" && !opt.NoRollback {
		// Not a kiosk, or a kiosk whose package dpkg lost: nothing to go
		// back to, and nothing to update.
		return res, fmt.Errorf("package %s is not installed here: %w", Package, ErrNoRollback)
	}
	if from != "" {
		ki, err := u.Sys.Inspect(ctx, kept)
		switch {
		case err == nil && ki.Package == Package && ki.Version == from:
			haveKept = true
		case !opt.NoRollback && err != nil:
			return res, fmt.Errorf("%s: %v: %w", kept, err, ErrNoRollback)
		case !opt.NoRollback:
			return res, fmt.Errorf("%s is %s %s, the installed version is %s: %w", kept, ki.Package, ki.Version, from, ErrNoRollback)
		}
	}
	if opt.CheckOnly {
		return res, nil
	}

	// From here the system changes. The kept package becomes the previous
	// one, the new one is installed; on a failure the previous one is
	// installed again.
	prev := filepath.Join(u.State, PreviousDeb)
	if haveKept {
		if err := rename(kept, prev); err != nil {
			return res, err
		}
	}
	ierr := u.Sys.Install(ctx, staged)
	if ierr == nil {
		ierr = u.Sys.Check(ctx)
	}
	if ierr == nil {
		if now, err := u.Sys.Installed(ctx, Package); err != nil || now != m.Version {
			ierr = fmt.Errorf("installed version %q after the install, want %s (%v)", now, m.Version, err)
		}
	}
	if ierr != nil {
		if !haveKept {
			return res, fmt.Errorf("%w: %w (no previous package was kept)", ierr, ErrBroken)
		}
		rerr := u.Sys.Install(ctx, prev)
		if rerr == nil {
			rerr = u.Sys.Check(ctx)
		}
		if rerr != nil {
			return res, fmt.Errorf("%w: %w; reinstall of %s: %w", ierr, ErrBroken, prev, rerr)
		}
		if err := rename(prev, kept); err != nil {
			return res, fmt.Errorf("%w: %w (and %w)", ierr, ErrRolledBack, err)
		}
		return res, fmt.Errorf("%w: %w", ierr, ErrRolledBack)
	}
	if err := rename(staged, kept); err != nil {
		// Installed; only the package to go back to next time is missing.
		return res, fmt.Errorf("installed, but the package could not be kept: %w", err)
	}
	staged = ""
	res.Applied = true
	return res, nil
}

// rename moves a file and makes the move durable.
func rename(from, to string) error {
	if err := os.Rename(from, to); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(to))
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}

// lockState takes the update lock of the state directory dir (made if
// missing), without waiting: one update at a time, of either kind.
func lockState(dir string) (func(), error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	return lock(filepath.Join(dir, "lock"))
}

// lock takes the update lock, without waiting.
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrBusy
		}
		return nil, err
	}
	return func() { f.Close() }, nil
}

// ReadOnlyFS reports whether the file system holding path is mounted
// read-only (the kernel's ST_RDONLY): an Updater's ReadOnly on a kiosk
// asks it of /usr, where the package would go.
func ReadOnlyFS(path string) (bool, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return false, err
	}
	const stRdonly = 0x1 // statfs(2)'s ST_RDONLY
	return st.Flags&stRdonly != 0, nil
}
