package kiosk

import (
	"context"
	"time"
)

// CheckPrinter reads the voucher printer's status now instead of at the
// cash loop's next routine read (up to CashConfig.PrinterCheck later), so
// that a screen which has just changed the printer (the development panel
// causing or repairing a fault, staff reloading paper) shows the device's
// state at once. It blocks for the read (the driver's status timeout at
// most); it does nothing without a printer or while a voucher prints, whose
// print reads the status itself.
func (m *Machine) CheckPrinter(ctx context.Context) {
	if m.cash.printer == nil {
		return
	}
	m.mu.Lock()
	busy := m.cash.cashingOut
	m.mu.Unlock()
	if busy {
		return
	}
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	st, err := m.cash.printer.Status(sctx)
	cancel()
	if ctx.Err() != nil {
		return // the caller gave up: no news of the printer
	}
	m.setPrinterStatus(st, err)
}
