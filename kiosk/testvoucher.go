package kiosk

import (
	"context"
	"errors"
	"fmt"

	"pharaon/store"
)

// The first start's test voucher (firststart.go, store/cash_testvoucher.go):
// a real voucher of the kiosk's numbering, printed through the cash-out's
// own print path, that can never be paid. It is recorded void before it
// is printed, so no power cut leaves a payable paper; a test voucher
// already recorded (a cut or a failed print before) is printed again
// under its own number rather than a second one being drawn, and the step
// says so.

// TestVoucherPrint is what printing the test voucher did.
type TestVoucherPrint struct {
	Number int64 // the voucher's number, printed on it
	// Validation is its whole validation number: it pays nothing, so the
	// technician's screen shows it in full to be compared with the paper.
	Validation string
	// Again: the test voucher was recorded before (a power cut or a failed
	// print since) and this is its number printed again.
	Again bool
}

// PrintTestVoucher records the test voucher if the kiosk has none, and
// prints it. A print that fails is a *PrintFailure (the test voucher
// stays recorded, void: printing it again prints the same number); no
// printer or a faulty one is ErrCashOutUnavailable. No money moves.
func (m *Machine) PrintTestVoucher(ctx context.Context) (TestVoucherPrint, error) {
	if err := m.beginPrint(false); err != nil {
		return TestVoucherPrint{}, fmt.Errorf("test voucher: %w", err)
	}
	defer m.endPrint()
	ctx = context.WithoutCancel(ctx)
	v, err := m.st.LastTestVoucher(ctx)
	again := err == nil
	if errors.Is(err, store.ErrNotFound) {
		v, err = m.recordTestVoucher(ctx)
	}
	if err != nil {
		return TestVoucherPrint{}, fmt.Errorf("test voucher: %w", err)
	}
	p := TestVoucherPrint{Number: v.ID, Validation: v.Validation, Again: again}
	if err := m.printVoucher(ctx, v, false); err != nil {
		return p, fmt.Errorf("test voucher: %w", err)
	}
	what := "printed"
	if again {
		what = "printed again, under the number recorded before"
	}
	m.logCash(store.LevelInfo, "printer", "test_voucher_printed", "test voucher %d (%s) %s", v.ID, FormatValidation(v.Validation), what)
	return p, nil
}

// recordTestVoucher records a test voucher with a fresh validation number.
func (m *Machine) recordTestVoucher(ctx context.Context) (store.Voucher, error) {
	v, err := recordWithValidation(func(val string) (store.Voucher, error) {
		return m.st.RecordTestVoucher(ctx, val, m.clk.Now().Add(m.cash.validity))
	}, nil)
	if err == nil {
		m.logCash(store.LevelInfo, "printer", "test_voucher", "test voucher %d (%s) recorded, void, of no value", v.ID, FormatValidation(v.Validation))
	}
	return v, err
}
