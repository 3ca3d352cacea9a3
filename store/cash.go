package store

import (
	"errors"
	"fmt"
)

// The cash part of the store: bank notes in through durable bill
// intents, and cash-out vouchers.
//
// Bank notes. The bill validator's driver asks the kiosk before it stacks a
// note; the kiosk records a bill intent (RecordBillIntent) and only then lets
// the note go. When the validator reports the note irrevocably accepted
// (ID-003 VEND VALID) the kiosk credits that intent (CreditBillIntent): the
// ledger's bill_in row, its meters and the intent marked credited are one
// transaction, and the row's reference "intent:<id>" makes a second credit of
// the same intent impossible. So a kiosk killed between any two bytes finds
// at restart either an open intent (credit it when the validator still
// reports VEND VALID) or a credited one (credit nothing, acknowledge).
// Before STACK is sent the intent is marked stacking (MarkBillIntentStacking):
// from then on it is never voided without the unit saying the note came
// back. When the note may be in the cash box without VEND VALID and the unit
// cannot say (a power cut with the note in the acceptor after STACK, a jam
// cleared), the intent is held (HoldBillIntent) until staff count the cash
// box and credit it (CreditHeldIntent) or close it (CloseHeldIntent);
// HeldIntents lists them.
//
// Vouchers. A cash-out is two transactions around the print: IssueVoucher
// writes the voucher (its number, amount and validation number) without
// moving money; once the printer confirmed the print, ConfirmVoucher debits
// the credit (ledger voucher_out row whose reference is the validation
// number), counts the meters and marks the voucher printed, in one commit.
// A voucher issued and never confirmed (print failed, kiosk killed) is voided
// (VoidVoucher) and the credit stays: the player ends with the credit or
// one payable voucher, never both, never neither.

// Errors of the cash operations, besides the store's general ones
// (ErrBadAmount, ErrBadRequest, ErrNotFound, ErrDuplicateRef,
// ErrInsufficientCredit, ErrPlayInProgress).
var (
	// ErrIntentState: the bill intent is not pending (already credited or
	// void); nothing was written.
	ErrIntentState = errors.New("bill intent is not pending")
	// ErrVoucherPending: a voucher is issued and not yet confirmed or
	// voided; the kiosk prints one voucher at a time.
	ErrVoucherPending = errors.New("a voucher is being printed")
	// ErrVoucherState: the voucher's state does not allow the operation
	// (confirm a void voucher, pay one never printed, …).
	ErrVoucherState = errors.New("voucher state does not allow this")
	// ErrVoucherPaid: the voucher was already paid.
	ErrVoucherPaid = errors.New("voucher already paid")
	// ErrVoucherExpired: the voucher is past its expiry date.
	ErrVoucherExpired = errors.New("voucher expired")
	// ErrVoucherTest: the voucher is a test voucher, void from the
	// moment it was written, of no value (cash_testvoucher.go). It
	// wraps ErrVoucherState.
	ErrVoucherTest = fmt.Errorf("test voucher, void, of no value: %w", ErrVoucherState)
)

// Meters of vouchers after they left the kiosk: derived from the vouchers
// table (the money meters of a voucher printed are MeterVouchersOut and
// MeterVouchersOutCount, from the ledger).
const (
	MeterVouchersPaid         = "vouchers_paid"          // amount of vouchers paid by staff
	MeterVouchersPaidCount    = "vouchers_paid.count"    // vouchers paid by staff
	MeterVouchersExpired      = "vouchers_expired"       // amount of vouchers that expired unpaid
	MeterVouchersExpiredCount = "vouchers_expired.count" // vouchers that expired unpaid
	MeterVouchersVoidCount    = "vouchers_void.count"    // vouchers voided (print not confirmed)
	MeterVoucherReprints      = "vouchers.reprints"      // duplicates printed
)

// ValidationDigits is the length of a voucher's validation number.
const ValidationDigits = 18

// validValidation reports an 18-digit ASCII validation number. The store
// checks the form only: the check digits are the kiosk's (kiosk.Validation).
func validValidation(v string) bool {
	if len(v) != ValidationDigits {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return true
}
