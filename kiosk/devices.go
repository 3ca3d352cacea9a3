package kiosk

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"pharaon/hw"
	"pharaon/hw/escpos"
	"pharaon/hw/id003"
)

// The cash devices are named by stable paths (DESIGN.md §9): on the kiosk
// /dev/serial/by-id/... or a udev link, in the development run and the
// tests a simulator's pseudo-terminal link (kiosk/devsim). The same drivers
// run against both.

// openValidator builds the bill validator's host on its path. The host
// re-opens the device with back-off (hw.Reconnector) whenever it goes
// away; Start launches its polling.
func openValidator(c CashConfig, w id003.Wallet, onEvent func(id003.Event)) (*id003.Host, error) {
	path := c.ValidatorPath
	cfg := c.Validator
	cfg.OnEvent = onEvent
	h, err := id003.New(func() (hw.Port, error) { return hw.Open(path, id003.Mode) }, w, cfg)
	if err != nil {
		return nil, fmt.Errorf("bill validator %s: %w", path, err)
	}
	return h, nil
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
	var wg sync.WaitGroup
	if c.ValidatorPath != "" {
		wg.Add(1)
		go func() {
			defer wg.Done()
			verr = checkValidator(ctx, c, m.cfg.DeviceCheck)
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
		m.bootStep(BootDevices, true)
		out <- df
	}()
	return out
}

// devicePause is the wait between two attempts of a device that is missing
// or silent, within the self-test's bound.
const devicePause = 50 * time.Millisecond

// checkValidator opens the bill validator and asks its status (ID-003
// STATUS REQUEST), again while its port is missing or it does not answer,
// until ctx ends. A valid status other than FAILURE passes (a jam, a full
// or open cash box are shown and refuse notes, as after the boot).
func checkValidator(ctx context.Context, c CashConfig, bound time.Duration) error {
	reply := c.Validator.ReplyTimeout
	if reply <= 0 {
		reply = 250 * time.Millisecond
	}
	var last error
	for {
		st, err := validatorStatus(ctx, c.ValidatorPath, reply)
		if err == nil {
			if st.State == id003.StateFailure {
				return fmt.Errorf("bill validator %s reports %s", c.ValidatorPath, st)
			}
			return nil
		}
		last = worse(last, err)
		if (hw.SystemClock{}).Sleep(ctx, devicePause) != nil {
			return fmt.Errorf("bill validator %s: no valid answer to a status request within %v: %w", c.ValidatorPath, bound, last)
		}
	}
}

// validatorStatus opens the validator's port, sends one STATUS REQUEST and
// reads its answer (within reply, and ctx's deadline).
func validatorStatus(ctx context.Context, path string, reply time.Duration) (id003.Status, error) {
	port, err := hw.Open(path, id003.Mode)
	if err != nil {
		return id003.Status{}, err
	}
	defer port.Close()
	if d, ok := ctx.Deadline(); ok {
		reply = min(reply, max(time.Until(d), time.Millisecond))
	}
	if err := port.SetReadTimeout(reply); err != nil {
		return id003.Status{}, err
	}
	if err := port.ResetInputBuffer(); err != nil {
		return id003.Status{}, err
	}
	frame, err := id003.Encode(id003.CmdStatusRequest)
	if err != nil {
		return id003.Status{}, err
	}
	if _, err := port.Write(frame); err != nil {
		return id003.Status{}, err
	}
	var dec id003.Decoder
	buf := make([]byte, 64)
	for total := 0; ; {
		n, err := port.Read(buf)
		if err != nil {
			return id003.Status{}, err
		}
		if n == 0 {
			if total > 0 {
				return id003.Status{}, hw.Errorf(hw.ErrProtocol, "read", "%d bytes without a valid frame within %v", total, reply)
			}
			return id003.Status{}, hw.Errorf(hw.ErrTimeout, "read", "no answer within %v", reply)
		}
		total += n
		dec.Feed(buf[:n])
		if f, ok := dec.Next(); ok {
			if f.Cmd == id003.StatusCommunicationError {
				// The unit did not understand the request: asked again.
				return id003.Status{}, hw.Errorf(hw.ErrProtocol, "read", "the unit reported COMMUNICATION ERROR")
			}
			return id003.ParseStatus(f)
		}
		if total > 1024 {
			return id003.Status{}, hw.Errorf(hw.ErrProtocol, "read", "%d bytes without a frame", total)
		}
	}
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
