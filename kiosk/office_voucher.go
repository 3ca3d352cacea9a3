package kiosk

import (
	"context"
	"errors"
	"fmt"

	"pharaon/game"
	"pharaon/store"
)

// VoucherCheck is what staff learn of a voucher before paying it: its
// number and amount, whether it is still payable, and the counter's payout
// limit it is measured against.
type VoucherCheck struct {
	ID          int64
	Amount      game.Money
	Payable     bool       // printed, neither paid, void nor expired
	PayoutLimit game.Money // the most a shop pays at its counter
	// Test: the first start's test voucher, void and of no value
	// (testvoucher.go).
	Test bool
}

// AboveLimit reports whether the voucher is payable and above the
// counter's payout limit: its paper sends the player to a payment centre,
// and staff confirm before paying it at the counter all the same.
func (c VoucherCheck) AboveLimit() bool { return c.Payable && c.Amount > c.PayoutLimit }

// CheckVoucher looks up the voucher whose number staff typed or scanned,
// without paying it and without logging its number. A number whose check
// digits fail is a *MistypedError (ErrBadValidation): a typing mistake,
// looked up nowhere; a voucher the kiosk does not know is ErrNotFound;
// PayVoucher says why any other is refused.
func (o *Office) CheckVoucher(ctx context.Context, s *Session, typed string) (VoucherCheck, error) {
	if err := o.begin(ctx, s, RoleStaff, "check a voucher"); err != nil {
		return VoucherCheck{}, err
	}
	validation, err := ParseValidation(typed)
	if err != nil {
		return VoucherCheck{}, fmt.Errorf("check voucher: %w", err)
	}
	v, err := o.m.st.VoucherByValidation(ctx, validation)
	if err != nil {
		return VoucherCheck{}, err
	}
	return VoucherCheck{ID: v.ID, Amount: v.Amount, Payable: v.Payable(o.m.clk.Now()), PayoutLimit: o.payoutLimit(), Test: v.Test()}, nil
}

// payoutLimit is the counter's payout limit the kiosk runs with.
func (o *Office) payoutLimit() game.Money {
	o.m.mu.Lock()
	defer o.m.mu.Unlock()
	return o.m.cash.payoutLimit
}

// claimVoucher records in the fleet's registry, when the kiosk is joined
// to one, the payment staff are about to make of the voucher validation,
// before the store records it. It returns how to undo that record should
// the store then refuse the payment, and whether the centre did not answer
// (the payment is then made without it: only of the kiosk's own vouchers up
// to the offline limit). Its refusals change nothing anywhere:
//   - a voucher printed by another kiosk: a *FleetRefusal wrapping
//     ErrForeignVoucher, with what the fleet knows of it (the kiosk's
//     ledger has no movement for a payout of another kiosk's voucher; it
//     is paid at its kiosk or at the centre);
//   - a voucher the fleet says was paid elsewhere: a *FleetRefusal
//     wrapping ErrPaidElsewhere;
//   - the centre not answering and the voucher above the offline limit:
//     an *OfflineRefusal.
//
// A voucher the store itself would refuse (unknown, paid here, expired,
// void) is left to the store's refusal, which says why.
func (o *Office) claimVoucher(ctx context.Context, s *Session, validation string) (release func(context.Context) error, offline bool, err error) {
	reg, limit := o.m.voucherRegistry()
	if reg == nil {
		return nil, false, nil
	}
	v, err := o.m.st.VoucherByValidation(ctx, validation)
	if errors.Is(err, store.ErrNotFound) {
		fv, ferr := reg.Lookup(ctx, validation)
		switch {
		case ferr == nil:
			return nil, false, &FleetRefusal{Voucher: fv, Err: fmt.Errorf("voucher %d of kiosk %s, %s: %w", fv.ID, fv.Kiosk, fv.State, ErrForeignVoucher)}
		case errors.Is(ferr, ErrFleetOffline):
			// Unknown here, and the centre cannot say whose it is.
			return nil, false, fmt.Errorf("voucher: %w; %w", store.ErrNotFound, ferr)
		}
		return nil, false, nil
	}
	if err != nil || !v.Payable(o.m.clk.Now()) {
		return nil, false, nil
	}
	release, err = reg.Claim(ctx, VoucherClaim{Validation: v.Validation, ID: v.ID, Amount: v.Amount, Issued: v.Issued,
		Expires: v.Expires, At: o.m.clk.Now(), By: string(s.role)})
	switch {
	case err == nil:
		return release, false, nil
	case errors.Is(err, ErrFleetOffline):
		if v.Amount > limit {
			return nil, false, &OfflineRefusal{ID: v.ID, Amount: v.Amount, Limit: limit}
		}
		return nil, true, nil
	}
	return nil, false, err
}
