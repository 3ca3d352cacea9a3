package kiosk

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"slices"

	"pharaon/game"
	"pharaon/hw/validator"
	"pharaon/kiosk/update"
	"pharaon/store"
)

// Version is the kiosk's version, set at build time (make deb:
// -ldflags "-X pharaon/kiosk.Version=…"); "dev" otherwise.
var Version = "dev"

// Identity is what the software is, for the technician and the regulator:
// its version, the build it came from and the SHA-256 of the binary that
// runs, read from the file itself.
type Identity struct {
	Version   string
	Revision  string // the commit it was built from ("" unknown)
	BuildTime string // the commit's time
	Modified  bool   // built from a tree with uncommitted changes
	GoVersion string
	Path      string // the running binary
	SHA256    string // hex
	// TPM says the trust root is a TPM's (DESIGN.md §4): false, the
	// kiosk has none, and the whole disk put back is not seen by the kiosk
	// itself. Trust is what it is, for the technician.
	TPM   bool
	Trust string
	// LastUpdate is the last update asked from the maintenance screen and
	// its outcome (zero: none among the newest maintenance events).
	LastUpdate UpdateRecord
	// System is what the A/B slots say of the running system (Slots
	// false: the kiosk runs from no slot).
	System update.BootStatus
	Slots  bool
}

// SoftwareIdentity reads the running binary (os.Executable) and hashes it.
func SoftwareIdentity() (Identity, error) {
	id := Identity{Version: Version}
	if bi, ok := debug.ReadBuildInfo(); ok {
		id.GoVersion = bi.GoVersion
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				id.Revision = s.Value
			case "vcs.time":
				id.BuildTime = s.Value
			case "vcs.modified":
				id.Modified = s.Value == "true"
			}
		}
	}
	path, err := os.Executable()
	if err != nil {
		return id, fmt.Errorf("software identity: %w", err)
	}
	id.Path = path
	sum, err := update.FileSum(path)
	if err != nil {
		return id, fmt.Errorf("software identity: %w", err)
	}
	id.SHA256 = sum
	return id, nil
}

// Identity is the software's identity; reading it is logged (a regulator's
// check).
func (o *Office) Identity(ctx context.Context, s *Session) (Identity, error) {
	if err := o.begin(ctx, s, RoleTechnician, "read the software identity"); err != nil {
		return Identity{}, err
	}
	id, err := SoftwareIdentity()
	id.Trust, id.TPM = o.m.st.Trust()
	last, lerr := o.lastUpdate(ctx)
	id.LastUpdate = last
	var serr error
	if o.m.cfg.SystemStatus != "" {
		id.System, id.Slots, serr = update.ReadBootStatus(o.m.cfg.SystemStatus)
	}
	if err = errors.Join(err, lerr, serr); err != nil {
		return id, err
	}
	o.audit(store.LevelInfo, "identity", "software identity read by %s: %s %s sha256 %s", s.role, id.Version, id.Revision, id.SHA256)
	return id, nil
}

// Devices is what the technician sees of the cash devices.
type Devices struct {
	Validator, Printer         DeviceStatus
	ValidatorPath, PrinterPath string // "" : no such device
	// Accepted are the notes the validator takes, smallest first.
	Accepted []game.Money
	// ValidatorFamily is the family the kiosk drives its validator as
	// (the configuration's validator key); ValidatorUnit is what the unit
	// says it is: its family, and its model, serial number and version as
	// far as it reports them (empty until it answered). Polls counts the
	// status requests it answered.
	ValidatorFamily validator.Family
	ValidatorUnit   validator.Identity
	Polls           uint64
}

// Devices reads the devices' state and configuration.
func (o *Office) Devices(ctx context.Context, s *Session) (Devices, error) {
	if err := o.begin(ctx, s, RoleTechnician, "read the devices"); err != nil {
		return Devices{}, err
	}
	return o.m.devices(), nil
}

func (m *Machine) devices() Devices {
	snap := m.Snapshot().Cash
	d := Devices{Validator: snap.Validator, Printer: snap.Printer,
		ValidatorPath: m.cfg.Cash.ValidatorPath, PrinterPath: m.cfg.Cash.PrinterPath}
	acc := m.cfg.Cash.Validator.Accept
	if len(acc) == 0 {
		acc = []int64{500, 1000, 2000, 5000}
	}
	for _, c := range acc {
		d.Accepted = append(d.Accepted, game.Money(c))
	}
	slices.Sort(d.Accepted)
	d.ValidatorFamily = cmp.Or(m.cfg.Cash.Validator.Family, validator.FamilyID003)
	m.mu.Lock()
	d.ValidatorUnit = m.cash.unit
	m.mu.Unlock()
	if m.cash.validator != nil {
		v := m.cash.validator.Snapshot()
		if v.Identity != (validator.Identity{Family: v.Identity.Family}) {
			d.ValidatorUnit = v.Identity // the driver's, newer than the self-test's
		}
		d.Polls = v.Polls
	}
	if d.ValidatorUnit.Family == "" {
		d.ValidatorUnit.Family = d.ValidatorFamily
	}
	return d
}

// TestValidator checks that the bill validator answers: its state as the
// host last read it, its version, the polls it answered. The outcome is
// logged with the role.
func (o *Office) TestValidator(ctx context.Context, s *Session) (Devices, error) {
	if err := o.begin(ctx, s, RoleTechnician, "test the bill validator"); err != nil {
		return Devices{}, err
	}
	d := o.m.devices()
	if o.m.cash.validator == nil {
		o.audit(store.LevelWarning, "validator_test", "validator test by %s: no validator configured", s.role)
		return d, fmt.Errorf("validator test: no validator: %w", ErrNotConfigured)
	}
	if !d.Validator.Connected {
		o.audit(store.LevelWarning, "validator_test", "validator test by %s: %s", s.role, d.Validator.Message)
		return d, fmt.Errorf("validator test: %s: %w", d.Validator.Message, ErrDeviceDown)
	}
	o.audit(store.LevelInfo, "validator_test", "validator test by %s: %s, %s, %d polls answered",
		s.role, d.Validator.Message, unitText(d.ValidatorUnit), d.Polls)
	return d, nil
}

// Errors of the device tests.
var (
	ErrNotConfigured = errors.New("device not configured")
	ErrDeviceDown    = errors.New("device does not answer")
)
