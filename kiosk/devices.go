package kiosk

import (
	"fmt"

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
