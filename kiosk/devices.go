package kiosk

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"pharaon/hw"
	"pharaon/hw/escpos"
	"pharaon/hw/validator"
	"pharaon/store"
)

// The cash devices are named by stable paths (DESIGN.md §9): on the kiosk
// /dev/serial/by-id/... or a udev link, in the development run and the
// tests a simulator's pseudo-terminal link (kiosk/devsim). The same drivers
// run against both.

// openValidator builds the bill validator's driver on its path, of the
// family the configuration names (c.Drivers knows them, the core does
// not). The driver re-opens the device with back-off whenever it goes
// away; Start launches its polling.
func openValidator(c CashConfig, w validator.Wallet, onEvent func(validator.Event)) (validator.Driver, error) {
	d, err := c.Drivers.Open(c.ValidatorPath, w, c.Validator, onEvent)
	if err != nil {
		return nil, fmt.Errorf("bill validator %s: %w", c.ValidatorPath, err)
	}
	return d, nil
}

// openPrinter builds the voucher printer's driver on its path. The driver
// opens the device on first use and again after it went away.
func openPrinter(c CashConfig) *escpos.Printer {
	path, mode := c.PrinterPath, c.PrinterMode
	return escpos.New(func() (hw.Port, error) { return hw.Open(path, mode) }, c.PrinterTiming)
}

// DefaultDeviceCheck bounds the cash devices' self-test at boot
// (Config.DeviceCheck): a device that has not answered a status request
// within it fails. Devices that answer do so in milliseconds; the bound
// leaves a unit still enumerating on its USB adapter after power-on time to
// appear, and is what a missing device adds to the start.
const DefaultDeviceCheck = 3 * time.Second

// Fault codes of the devices' self-test at boot (checkDevices).
const (
	// FaultValidator: the bill validator is configured and at boot its
	// port is missing, it does not answer a status request, answers
	// garbage, or reports a failure.
	FaultValidator = "validator_check"
	// FaultPrinter: the voucher printer is configured and at boot its
	// port is missing, it does not answer a status request, answers
	// garbage, or reports that it cannot print (paper out, cover open,
	// cutter or unrecoverable error, offline).
	FaultPrinter = "printer_check"
)

// DeviceFault is a device that failed the self-test at boot: its fault
// code (FaultValidator, FaultPrinter) and why.
type DeviceFault struct {
	Code string
	Err  error
}

func (e *DeviceFault) Error() string { return e.Err.Error() }
func (e *DeviceFault) Unwrap() error { return e.Err }

// checkDevices is the cash devices' self-test at boot (DESIGN.md §7): each
// device configured by its path is opened and asked for its status, both at
// once, within Config.DeviceCheck; nothing else is sent (a status request
// changes nothing in either device: a note the validator holds stays for
// its host's first poll). Its own port is closed before the drivers start.
// A device absent from the configuration is not checked (the kiosk runs
// without it, cash-in or cash-out shown unavailable), nor a printer given
// as a driver (CashConfig.Printer: a test's). A device lost after the boot
// is not a fault: its status is shown and cash-in or cash-out refused
// (cash.go). The fault is the validator's first when both fail (the
// detail then says both); nil: both answer.
func (m *Machine) checkDevices(ctx context.Context) *DeviceFault {
	c := m.cfg.Cash
	ctx, cancel := context.WithTimeout(ctx, m.cfg.DeviceCheck)
	defer cancel()
	var verr, perr error
	var unit validator.Identity
	var wg sync.WaitGroup
	if c.ValidatorPath != "" {
		wg.Add(1)
		go func() {
			defer wg.Done()
			unit, verr = checkValidator(ctx, c, m.cfg.DeviceCheck)
		}()
	}
	if c.PrinterPath != "" && c.Printer == nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			perr = checkPrinter(ctx, c, m.cfg.DeviceCheck)
		}()
	}
	wg.Wait()
	if c.ValidatorPath != "" {
		// What the unit says it is (nothing when it did not answer), for
		// the devices view until its driver has asked, and for the log
		// (logUnit).
		m.mu.Lock()
		m.cash.unit = unit
		m.mu.Unlock()
	}
	switch {
	case verr != nil && perr != nil:
		return &DeviceFault{FaultValidator, fmt.Errorf("%w; %w", verr, perr)}
	case verr != nil:
		return &DeviceFault{FaultValidator, verr}
	case perr != nil:
		return &DeviceFault{FaultPrinter, perr}
	}
	return nil
}

// startDeviceCheck runs checkDevices on its own goroutine, reporting it as
// the boot step BootDevices; its result comes on the channel.
func (m *Machine) startDeviceCheck(ctx context.Context) <-chan *DeviceFault {
	out := make(chan *DeviceFault, 1)
	m.bootStep(BootDevices, false)
	go func() {
		df := m.checkDevices(ctx)
		m.logUnit()
		m.bootStep(BootDevices, true)
		out <- df
	}()
	return out
}

// devicePause is the wait between two attempts of a device that is missing
// or silent, within the self-test's bound.
const devicePause = 50 * time.Millisecond

// checkValidator probes the bill validator (its family's status request
// and identification, validator.Opener.Probe), again while its port is
// missing or it does not answer, until ctx ends. A valid status other than
// a failure passes (a jam, a full or open cash box are shown and refuse
// notes, as after the boot). It returns what the unit says it is.
func checkValidator(ctx context.Context, c CashConfig, bound time.Duration) (validator.Identity, error) {
	var last error
	for {
		id, st, err := c.Drivers.Probe(ctx, c.ValidatorPath, c.Validator)
		if err == nil {
			if st.State == validator.StateFailure {
				return id, fmt.Errorf("bill validator %s (%s) reports %s", c.ValidatorPath, unitText(id), st)
			}
			return id, nil
		}
		last = worse(last, err)
		if (hw.SystemClock{}).Sleep(ctx, devicePause) != nil {
			return validator.Identity{}, fmt.Errorf("bill validator %s: no valid answer to a status request within %v: %w", c.ValidatorPath, bound, last)
		}
	}
}

// logUnit logs what the bill validator said it is at the self-test: a unit
// swapped while the kiosk was off shows in the log, beside the devices view.
func (m *Machine) logUnit() {
	m.mu.Lock()
	unit := m.cash.unit
	m.mu.Unlock()
	if unit.Family != "" {
		m.logf(store.LevelInfo, "validator_identity", "self-test of the devices: bill validator %s is %s", m.cfg.Cash.ValidatorPath, unitText(unit))
	}
}

// unitText is what a unit says it is, in the words of the log and the
// self-test's result: "ID-003 i(EUR)100-SS …", "eSSP NV200 4.10 n° 123".
func unitText(id validator.Identity) string {
	if id.Model == "" && id.Version == "" && id.Serial == "" {
		return id.Family.Label() + ", which did not say what it is"
	}
	return id.String()
}

// checkPrinter opens the voucher printer and reads its status (DLE EOT 1
// to 4), again while its port is missing or it does not answer, until ctx
// ends. A status that forbids printing fails at once.
func checkPrinter(ctx context.Context, c CashConfig, bound time.Duration) error {
	p := openPrinter(c)
	defer p.Close()
	var last error
	for {
		st, err := p.Status(ctx)
		if err == nil {
			if err := st.Err(); err != nil {
				return fmt.Errorf("voucher printer %s: %w (%s)", c.PrinterPath, err, st)
			}
			return nil
		}
		last = worse(last, err)
		_ = p.Close()
		if (hw.SystemClock{}).Sleep(ctx, devicePause) != nil {
			return fmt.Errorf("voucher printer %s: no valid answer to a status request within %v: %w", c.PrinterPath, bound, last)
		}
	}
}

// worse is the error that says more of a device's failure: an answer that
// made no sense over silence (the last attempt, cut short by the bound, may
// have heard nothing), else the newer.
func worse(old, new error) error {
	if old != nil && errors.Is(old, hw.ErrProtocol) && !errors.Is(new, hw.ErrProtocol) {
		return old
	}
	return new
}
