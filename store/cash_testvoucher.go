package store

import (
	"context"
	"fmt"
	"time"
)

// A test voucher is the paper the first start prints to show that the
// voucher printer prints a real voucher (kiosk/firststart.go): a voucher
// of the kiosk's numbering (the next number, a validation number of the
// normal form) whose amount is 0, written void in the commit that writes
// it. It is the only voucher with no amount (a cash-out's is positive),
// so its amount, which the voucher's hash covers, is what marks it: a row
// edited to give it an amount breaks its hash, a row edited to make it
// printed disagrees with its steps, and both are what Verify and every
// payment check already look at (checkVoucherSteps). It moves no money:
// no ledger row, no meter (the void count counts cash-outs' vouchers).

// TestVoucherReason is the void reason, and its void step's detail, of
// every test voucher.
const TestVoucherReason = "test voucher: no value"

// Test reports whether v is a test voucher.
func (v Voucher) Test() bool { return v.Amount == 0 }

// RecordTestVoucher writes a test voucher with this validation number
// (18 digits, never used: ErrDuplicateRef), void at once, and returns it.
// expires is the date its paper shows, after now. Refused while a
// cash-out's voucher is issued and unconfirmed (ErrVoucherPending): its
// number is the next one.
func (s *Store) RecordTestVoucher(ctx context.Context, validation string, expires time.Time) (Voucher, error) {
	if !validValidation(validation) {
		return Voucher{}, fmt.Errorf("record test voucher: validation number %q is not %d digits: %w", validation, ValidationDigits, ErrBadRequest)
	}
	var out Voucher
	err := s.write(ctx, func(t *wtx) error {
		if ids, err := t.voucherIDs(`WHERE state = 'issued'`); err != nil || len(ids) > 0 {
			if err == nil {
				err = fmt.Errorf("voucher %d: %w", ids[0], ErrVoucherPending)
			}
			return err
		}
		id, err := t.insertVoucher(validation, 0, expires)
		if err != nil {
			return err
		}
		if _, err := t.execQ(`UPDATE vouchers SET state = 'void', void_reason = ?, updated_at = ? WHERE id = ?`,
			TestVoucherReason, t.now, id); err != nil {
			return err
		}
		if err := t.voucherStep(id, string(VoucherVoid), 0, TestVoucherReason); err != nil {
			return err
		}
		out, err = t.voucher(`WHERE id = ?`, id)
		return err
	})
	if err != nil {
		return Voucher{}, fmt.Errorf("record test voucher: %w", err)
	}
	return out, nil
}

// LastTestVoucher returns the newest test voucher; ErrNotFound if there
// is none.
func (s *Store) LastTestVoucher(ctx context.Context) (Voucher, error) {
	return s.oneVoucher(ctx, `WHERE amount = 0 ORDER BY id DESC LIMIT 1`)
}
