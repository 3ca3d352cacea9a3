// Package drivers is the one place that names the bill validator's families: a table from
// validator.Family to the family's driver, line setting and probe. The kiosk's core is given
// Opener and never imports a family's package; the wiring (cmd/pharaon, the fault harness, the
// tests' helpers) imports this one.
//
// It must never hold a money rule: the families' drivers keep them, the kiosk decides.
package drivers

import (
	"context"
	"fmt"
	"slices"

	"pharaon/hw"
	"pharaon/hw/essp"
	"pharaon/hw/id003"
	"pharaon/hw/validator"
)

// family is how the kiosk drives one family.
type family struct {
	mode  hw.Mode
	new   func(dial hw.Dial, w validator.Wallet, s validator.Settings, onEvent func(validator.Event)) (validator.Driver, error)
	probe func(ctx context.Context, port hw.Port, s validator.Settings) (validator.Identity, validator.Status, error)
}

var families = map[validator.Family]family{
	validator.FamilyID003: {
		mode: id003.Mode,
		new: func(dial hw.Dial, w validator.Wallet, s validator.Settings, onEvent func(validator.Event)) (validator.Driver, error) {
			return id003.NewDriver(dial, w, id003Config(s), onEvent)
		},
		probe: func(ctx context.Context, port hw.Port, s validator.Settings) (validator.Identity, validator.Status, error) {
			return id003.Probe(ctx, port, id003Config(s))
		},
	},
	validator.FamilyESSP: {
		mode: essp.Mode,
		new: func(dial hw.Dial, w validator.Wallet, s validator.Settings, onEvent func(validator.Event)) (validator.Driver, error) {
			cfg := esspConfig(s)
			cfg.OnEvent = onEvent
			return essp.New(dial, w, cfg)
		},
		probe: func(ctx context.Context, port hw.Port, s validator.Settings) (validator.Identity, validator.Status, error) {
			return essp.Probe(ctx, port, esspConfig(s))
		},
	},
}

// esspConfig is the eSSP host's settings: the notes and timing the kiosk asks, the unit's address
// and fixed key, and plain SSP only where the configuration allows it.
func esspConfig(s validator.Settings) essp.Config {
	return essp.Config{Accept: slices.Clone(s.Accept), Address: s.ESSP.Address, FixedKey: s.ESSP.FixedKey,
		Plain: s.ESSP.Plain, PollInterval: s.PollInterval, ReplyTimeout: s.ReplyTimeout,
		Retries: s.Retries, Backoff: s.Backoff, Clock: s.Clock}
}

// id003Config is the ID-003 host's settings: the euro table, the notes and timing the kiosk asks.
func id003Config(s validator.Settings) id003.Config {
	return id003.Config{Accept: slices.Clone(s.Accept), PollInterval: s.PollInterval, ReplyTimeout: s.ReplyTimeout,
		Retries: s.Retries, Backoff: s.Backoff, Clock: s.Clock}
}

// Has reports whether this build drives the family.
func Has(f validator.Family) bool {
	_, ok := families[orDefault(f)]
	return ok
}

func orDefault(f validator.Family) validator.Family {
	if f == "" {
		return validator.FamilyID003
	}
	return f
}

func lookup(f validator.Family) (family, error) {
	fam, ok := families[orDefault(f)]
	if !ok {
		return family{}, fmt.Errorf("bill validator family %q: no driver in this build", f)
	}
	return fam, nil
}

// Mode is the family's line setting.
func Mode(f validator.Family) (hw.Mode, error) {
	fam, err := lookup(f)
	return fam.mode, err
}

// Opener opens units on serial devices with the family's line setting (validator.Opener).
type Opener struct{}

var _ validator.Opener = Opener{}

// Open builds the driver of s.Family for the device at path.
func (Opener) Open(path string, w validator.Wallet, s validator.Settings, onEvent func(validator.Event)) (validator.Driver, error) {
	fam, err := lookup(s.Family)
	if err != nil {
		return nil, err
	}
	d, err := fam.new(func() (hw.Port, error) { return hw.Open(path, fam.mode) }, w, s, onEvent)
	if err != nil {
		return nil, fmt.Errorf("bill validator %s: %w", path, err)
	}
	return d, nil
}

// Probe opens the device at path, asks the unit of s.Family its status and identity, and closes
// it.
func (Opener) Probe(ctx context.Context, path string, s validator.Settings) (validator.Identity, validator.Status, error) {
	fam, err := lookup(s.Family)
	if err != nil {
		return validator.Identity{}, validator.Status{}, err
	}
	port, err := hw.Open(path, fam.mode)
	if err != nil {
		return validator.Identity{}, validator.Status{}, err
	}
	defer port.Close()
	return fam.probe(ctx, port, s)
}
