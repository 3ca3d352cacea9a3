package kiosk

import (
	"context"
	"errors"
	"fmt"
	"time"

	"pharaon/hw"
	"pharaon/hw/escpos"
	"pharaon/store"
)

// Cash-out (DESIGN.md §7): the whole credit leaves the kiosk on a printed
// voucher. The voucher is written first (store.IssueVoucher, no money
// moves), then printed, and the credit is debited only once the printer
// confirmed the print (store.ConfirmVoucher, one commit). A print that
// fails voids the voucher and keeps the credit; a kiosk killed before the
// debit voids it at the next start. So the player holds the credit or one
// payable voucher, never both, never neither.

// PrintFailure is a cash-out or a reprint whose print the printer did not
// confirm. It matches ErrPrintFailed, and the printer's condition with
// errors.Is (escpos.ErrPaperOut, escpos.ErrCoverOpen, hw.ErrTimeout, …).
type PrintFailure struct {
	// Voucher is the voucher's number (void after a failed cash-out).
	Voucher int64
	// Stage says how far the print went: before anything was sent, while
	// printing (a partial voucher may hang out), or after (the paper may
	// look whole: it is void all the same).
	Stage escpos.Stage
	// Code and Message say why, for the screen ("paper_out", "Plus de papier").
	Code    string
	Message Message
	Err     error
}

func (e *PrintFailure) Error() string {
	return fmt.Sprintf("voucher %d not printed (%s): %v", e.Voucher, e.Code, e.Err)
}

func (e *PrintFailure) Unwrap() []error { return []error{ErrPrintFailed, e.Err} }

// CashOut pays the whole credit out on a voucher. It returns once the
// voucher is printed and the credit zeroed, or with the reason it is not:
// ErrNoCredit, ErrBusy (a game, a note on its way, a print in progress),
// ErrOutOfService, ErrHandPay (a credit above the hand-pay limit: the
// kiosk is locked for staff, handpay.go), ErrCashOutUnavailable (no printer or a faulty one:
// Snapshot.Cash.Printer says why), or a *PrintFailure (the voucher is void,
// the credit stays, and cash-out stays off until the printer is fixed).
// The returned VoucherInfo never holds the full validation number. The
// print is not abandoned when ctx is cancelled: a voucher half printed is
// worse than a wait (the printer's own timeouts bound it).
func (m *Machine) CashOut(ctx context.Context) (VoucherInfo, error) {
	if locked, err := m.cashOutHandPay(context.WithoutCancel(ctx)); locked {
		return VoucherInfo{}, err
	}
	if err := m.beginPrint(true); err != nil {
		return VoucherInfo{}, fmt.Errorf("cash out: %w", err)
	}
	defer m.endPrint()
	ctx = context.WithoutCancel(ctx)

	v, err := m.issueVoucher(ctx)
	if err != nil {
		return VoucherInfo{}, fmt.Errorf("cash out: %w", err)
	}
	m.cashPoint(pointVoucherIssued)
	if err := m.printVoucher(ctx, v, false); err != nil {
		// Nothing was debited. The voucher is void, so the paper (if any
		// came out) is never payable; the player keeps the credit.
		if _, verr := m.st.VoidVoucher(ctx, v.ID, "not printed: "+err.Error()); verr != nil {
			// It stays issued and the next start voids it; until then the
			// kiosk sells nothing.
			m.storeFault(fmt.Errorf("void voucher %d: %w", v.ID, verr))
		}
		return VoucherInfo{}, fmt.Errorf("cash out: %w", err)
	}
	m.cashPoint(pointVoucherPrinted)
	// A new name, not v: ConfirmVoucher returns a zero voucher with its
	// error, and the failure must still void and name v.
	m.ledgerMu.Lock()
	printed, e, err := m.st.ConfirmVoucher(ctx, v.ID)
	if err == nil {
		m.showBalance(e.Balance)
	}
	m.ledgerMu.Unlock()
	if err != nil {
		// The paper is out and looks good, but the debit was refused: the
		// voucher must not be payable, the credit stays.
		m.logCash(store.LevelCritical, "printer", "voucher_unconfirmed",
			"voucher %d printed but its debit failed: %v; voiding it", v.ID, err)
		if _, verr := m.st.VoidVoucher(ctx, v.ID, "printed, debit refused: "+err.Error()); verr != nil {
			m.storeFault(fmt.Errorf("void voucher %d: %w", v.ID, verr))
		} else {
			m.storeFault(fmt.Errorf("confirm voucher %d: %w", v.ID, err))
		}
		return VoucherInfo{}, fmt.Errorf("cash out: voucher %d: %w", v.ID, err)
	}
	m.cashPoint(pointVoucherConfirmd)
	m.logCash(store.LevelInfo, "printer", "voucher_printed", "voucher %d of %s printed, ledger row %d",
		printed.ID, printed.Amount.Plain(), e.ID)
	m.notify()
	return m.voucherInfo(printed, false), nil
}

// issueVoucher writes the voucher of the whole credit with a fresh
// validation number.
func (m *Machine) issueVoucher(ctx context.Context) (store.Voucher, error) {
	v, err := recordWithValidation(func(val string) (store.Voucher, error) {
		credit, err := m.st.Credit(ctx)
		if err != nil {
			return store.Voucher{}, err
		}
		if credit <= 0 {
			return store.Voucher{}, ErrNoCredit
		}
		return m.st.IssueVoucher(ctx, store.VoucherRequest{Amount: credit, Validation: val,
			Expires: m.clk.Now().Add(m.cash.validity)})
	}, func(err error) bool {
		// A credit moved by a note recovered at that very moment: the
		// credit is read again.
		return errors.Is(err, store.ErrBadAmount)
	})
	if errors.Is(err, store.ErrPlayInProgress) {
		return store.Voucher{}, ErrBusy
	}
	return v, err
}

// printVoucher prints v (or its duplicate) and turns a failure into a
// *PrintFailure, with the printer marked faulty until its status is good.
func (m *Machine) printVoucher(ctx context.Context, v store.Voucher, duplicate bool) error {
	loc := m.cfg.Location
	now := m.clk.Now().In(loc)
	m.mu.Lock()
	kioskID := m.kioskID
	m.mu.Unlock()
	doc := voucherDoc(voucherText{
		KioskID: kioskID, Venue: m.cfg.Venue, Number: v.ID, Issued: v.Issued.In(loc), Amount: v.Amount,
		Validation: v.Validation, Expires: v.Expires.In(loc), AtCounter: v.Amount <= m.cash.payoutLimit,
		Duplicate: duplicate, PrintedAt: now, Test: v.Test(),
	})
	st, err := m.cash.printer.Print(ctx, doc)
	if err == nil {
		m.setPrinterStatus(st, nil)
		return nil
	}
	f := &PrintFailure{Voucher: v.ID, Err: err}
	var pe *escpos.PrintError
	if errors.As(err, &pe) {
		f.Stage = pe.Stage
	}
	f.Code, f.Message = printerProblem(err)
	m.setPrinterStatus(escpos.Status{}, err)
	what := "voucher"
	if duplicate {
		what = "duplicate of voucher"
	}
	m.logCash(store.LevelError, "printer", "print_failed", "%s %d of %s not printed (%s): %v",
		what, v.ID, v.Amount.Plain(), f.Stage, err)
	return f
}

// ReprintLast prints the last voucher again, marked DUPLICATA, and counts
// it; no money moves. Only a voucher still payable is reprinted
// (ErrNoVoucher otherwise). A staff operation: the duplicate carries the
// full validation number of an unpaid voucher, so the player's screens must
// not offer it (the next player at the kiosk could take it).
func (m *Machine) ReprintLast(ctx context.Context) (VoucherInfo, error) {
	if err := m.beginPrint(false); err != nil {
		return VoucherInfo{}, fmt.Errorf("reprint: %w", err)
	}
	defer m.endPrint()
	ctx = context.WithoutCancel(ctx)
	v, err := m.st.LastVoucher(ctx)
	if errors.Is(err, store.ErrNotFound) {
		return VoucherInfo{}, fmt.Errorf("reprint: %w", ErrNoVoucher)
	}
	if err != nil {
		return VoucherInfo{}, fmt.Errorf("reprint: %w", err)
	}
	if !v.Payable(m.clk.Now()) {
		return VoucherInfo{}, fmt.Errorf("reprint: %w", &ReprintRefusal{Voucher: m.voucherInfo(v, false)})
	}
	if err := m.printVoucher(ctx, v, true); err != nil {
		return VoucherInfo{}, fmt.Errorf("reprint: %w", err)
	}
	counted, err := m.st.RecordReprint(ctx, v.ID)
	if err != nil {
		return VoucherInfo{}, fmt.Errorf("reprint: voucher %d printed, not counted: %w", v.ID, err)
	}
	m.logCash(store.LevelInfo, "printer", "voucher_reprinted", "duplicate %d of voucher %d printed", counted.Reprints, counted.ID)
	return m.voucherInfo(counted, true), nil
}

// LastVoucher is the last voucher printed, as the screens may show it.
func (m *Machine) LastVoucher(ctx context.Context) (VoucherInfo, error) {
	v, err := m.st.LastVoucher(ctx)
	if errors.Is(err, store.ErrNotFound) {
		return VoucherInfo{}, ErrNoVoucher
	}
	if err != nil {
		return VoucherInfo{}, fmt.Errorf("last voucher: %w", err)
	}
	return m.voucherInfo(v, false), nil
}

// beginPrint checks a print may start and marks it under way: nothing else
// sells, takes notes or prints meanwhile.
func (m *Machine) beginPrint(cashOut bool) error {
	m.mu.Lock()
	err := m.printRefusalLocked(cashOut)
	if err == nil {
		m.cash.cashingOut = true
		m.cash.ops.Add(1) // under the lock, as stopCash's check of stopped: Close waits for this print
	}
	m.mu.Unlock()
	if err == nil {
		m.update(func() {}) // tell the screens (and the validator: no notes while printing)
	}
	return err
}

func (m *Machine) printRefusalLocked(cashOut bool) error {
	switch {
	case m.cash.stopped.Load():
		return ErrOutOfService
	case m.cash.printer == nil:
		return ErrCashOutUnavailable
	case cashOut && m.state == OutOfService:
		return ErrOutOfService
	case cashOut && m.maintenance:
		return ErrMaintenance
	case m.starting || m.gameOnLocked() || m.cash.cashingOut:
		return ErrBusy
	case cashOut && m.cash.noteInPath:
		return fmt.Errorf("a bank note is on its way: %w", ErrBusy)
	case cashOut && m.credit <= 0:
		return ErrNoCredit
	case !m.cash.pStatus.OK:
		return fmt.Errorf("printer %s: %w", m.cash.pStatus.Code, ErrCashOutUnavailable)
	}
	return nil
}

func (m *Machine) endPrint() {
	m.update(func() { m.cash.cashingOut = false })
	m.cash.ops.Done()
}

// cashLoop reads the printer's status between vouchers (every
// PrinterCheck, every second while it is faulty), expires old vouchers and
// checks the credit shown against the ledger.
func (m *Machine) cashLoop(ctx context.Context) {
	lastExpiry := m.clk.Now()
	for {
		bad := false
		if m.cash.printer != nil {
			m.mu.Lock()
			busy := m.cash.cashingOut
			bad = !m.cash.pStatus.OK
			m.mu.Unlock()
			if !busy {
				sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				st, err := m.cash.printer.Status(sctx)
				cancel()
				if ctx.Err() != nil {
					return
				}
				m.setPrinterStatus(st, err)
				bad = err != nil || !st.Ready()
			}
		}
		if now := m.clk.Now(); now.Sub(lastExpiry) >= 10*time.Minute || now.Before(lastExpiry) {
			lastExpiry = now
			if err := m.expireVouchers(ctx); err != nil && ctx.Err() == nil {
				m.logCash(store.LevelError, "kiosk", "expiry_failed", "%v", err)
			}
		}
		m.resyncCredit(ctx)
		wait := m.cfg.Cash.PrinterCheck
		if bad && wait > time.Second {
			wait = time.Second
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// setPrinterStatus records the printer's state from a status read or a
// print's outcome, and logs the changes.
func (m *Machine) setPrinterStatus(st escpos.Status, err error) {
	if err == nil {
		err = st.Err()
	}
	s := DeviceStatus{Configured: true, Connected: true, OK: true, Code: "ok", Message: Message{Code: MsgWorking}}
	if err != nil {
		s.OK = false
		s.Code, s.Message = printerProblem(err)
		s.Connected = s.Code != "offline"
	} else if st.PaperNearEnd {
		s.Warning = Message{Code: MsgPaperLow}
	}
	m.mu.Lock()
	old := m.cash.pStatus
	changed := old.Code != s.Code || old.Warning != s.Warning
	m.mu.Unlock()
	if !changed {
		return
	}
	level := store.LevelInfo
	switch {
	case !s.OK:
		level = store.LevelError
	case !s.Warning.IsZero():
		level = store.LevelWarning
	}
	detail := string(s.Message.Code)
	if !s.Warning.IsZero() {
		detail += "; " + string(s.Warning.Code)
	}
	if err != nil {
		detail += ": " + err.Error()
	}
	m.logCash(level, "printer", "status", "%s [%02x %02x %02x %02x]", detail, st.Raw[0], st.Raw[1], st.Raw[2], st.Raw[3])
	m.update(func() { m.cash.pStatus = s })
}

// printerProblem names what keeps the printer from printing.
func printerProblem(err error) (string, Message) {
	code, msg := "error", MsgPrinterError
	switch {
	case errors.Is(err, escpos.ErrPaperOut):
		code, msg = "paper_out", MsgPaperOut
	case errors.Is(err, escpos.ErrCoverOpen):
		code, msg = "cover_open", MsgPrinterCoverOpen
	case errors.Is(err, escpos.ErrCutter):
		code, msg = "cutter", MsgPrinterCutter
	case errors.Is(err, escpos.ErrUnrecoverable):
		code, msg = "failure", MsgPrinterFailure
	case errors.Is(err, escpos.ErrPaused):
		code, msg = "paused", MsgPrinterPaused
	case errors.Is(err, escpos.ErrOffline):
		code, msg = "printer_offline", MsgPrinterOffline
	case errors.Is(err, hw.ErrTimeout), errors.Is(err, hw.ErrNotFound), errors.Is(err, hw.ErrIO),
		errors.Is(err, hw.ErrClosed), errors.Is(err, hw.ErrBusy):
		code, msg = "offline", MsgPrinterDisconnected
	case errors.Is(err, hw.ErrProtocol):
		code, msg = "protocol", MsgPrinterProtocol
	case errors.Is(err, escpos.ErrDoc):
		code, msg = "document", MsgPrinterDocument
	}
	return code, Message{Code: msg}
}
