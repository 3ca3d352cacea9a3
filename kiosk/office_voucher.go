package kiosk

import (
	"context"
	"strings"

	"pharaon/game"
)

// VoucherCheck is what staff learn of a voucher before paying it: its
// number and amount, whether it is still payable, and the counter's payout
// limit it is measured against.
type VoucherCheck struct {
	ID          int64
	Amount      game.Money
	Payable     bool       // printed, neither paid, void nor expired
	PayoutLimit game.Money // the most a shop pays at its counter
}

// AboveLimit reports whether the voucher is payable and above the
// counter's payout limit: its paper sends the player to a payment centre,
// and staff confirm before paying it at the counter all the same.
func (c VoucherCheck) AboveLimit() bool { return c.Payable && c.Amount > c.PayoutLimit }

// typedValidation is the validation number staff typed or scanned, with
// the spaces and dashes a scanner or a hand may add dropped.
func typedValidation(typed string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' || r == '\u00a0' {
			return -1
		}
		return r
	}, typed)
}

// CheckVoucher looks up the voucher whose number staff typed or scanned,
// without paying it and without logging its number. A voucher the kiosk
// does not know is ErrNotFound; PayVoucher says why any other is refused.
func (o *Office) CheckVoucher(ctx context.Context, s *Session, typed string) (VoucherCheck, error) {
	if err := o.begin(ctx, s, RoleStaff, "check a voucher"); err != nil {
		return VoucherCheck{}, err
	}
	v, err := o.m.st.VoucherByValidation(ctx, typedValidation(typed))
	if err != nil {
		return VoucherCheck{}, err
	}
	return VoucherCheck{ID: v.ID, Amount: v.Amount, Payable: v.Payable(o.m.clk.Now()), PayoutLimit: o.payoutLimit()}, nil
}

// payoutLimit is the counter's payout limit the kiosk runs with.
func (o *Office) payoutLimit() game.Money {
	o.m.mu.Lock()
	defer o.m.mu.Unlock()
	return o.m.cash.payoutLimit
}
