package kiosk

import (
	"context"
	"errors"
	"fmt"
	"time"

	"pharaon/game"
)

// The fleet's voucher registry (DESIGN.md §11): a kiosk joined to a centre
// pays a voucher at its counter only once the centre recorded the payment,
// so that the same voucher cannot also be paid at the centre or at another
// kiosk. The core does not know how the centre is reached: cmd/pharaon sets
// a VoucherRegistry (kiosk/fleet.Registry) on the machine.

// FleetVoucher is a voucher as the fleet's registry knows it.
type FleetVoucher struct {
	Kiosk   string // the kiosk that printed it
	ID      int64  // its number at that kiosk
	Amount  game.Money
	Expires time.Time
	State   string // issued, printed, paid, void, expired
	// PaidKiosk is the kiosk whose counter paid it ("" when the centre
	// paid it); PaidBy the counter as it named itself; PaidAt when.
	PaidKiosk, PaidBy string
	PaidAt            time.Time
}

// Test reports whether the voucher is a kiosk's test voucher, void and of
// no value (the only voucher of amount 0: store.Voucher.Test).
func (v FleetVoucher) Test() bool { return v.Amount == 0 }

// Payable reports whether the fleet would let the voucher be paid at now.
func (v FleetVoucher) Payable(now time.Time) bool {
	return v.State == "printed" && now.Before(v.Expires)
}

// VoucherClaim is this kiosk's own voucher its counter is about to pay.
type VoucherClaim struct {
	Validation string
	ID         int64
	Amount     game.Money
	Issued     time.Time
	Expires    time.Time
	At         time.Time // the kiosk's now
	By         string    // the role at the maintenance screen
}

// VoucherRegistry is the fleet's record of which vouchers are paid.
type VoucherRegistry interface {
	// Claim records, once across the fleet, that this kiosk pays its
	// voucher c (a compare-and-set: of two counters only one succeeds).
	// A voucher paid elsewhere is a *FleetRefusal wrapping
	// ErrPaidElsewhere; a centre that cannot be reached is ErrFleetOffline.
	// release undoes the claim when the kiosk could not record the
	// payment after all.
	Claim(ctx context.Context, c VoucherClaim) (release func(context.Context) error, err error)
	// Lookup reads a voucher of any kiosk: ErrFleetOffline, or an error
	// wrapping store.ErrNotFound for a number the fleet does not know.
	Lookup(ctx context.Context, validation string) (FleetVoucher, error)
}

// Errors of the fleet's voucher check.
var (
	// ErrFleetOffline: the centre is configured but does not answer.
	ErrFleetOffline = errors.New("the fleet's centre does not answer")
	// ErrPaidElsewhere: the fleet says the voucher was already paid, at
	// the centre or at another kiosk.
	ErrPaidElsewhere = errors.New("voucher already paid elsewhere in the fleet")
	// ErrFleetRefused: the fleet does not let the voucher be paid (void,
	// expired, or a number the centre gives to another kiosk).
	ErrFleetRefused = errors.New("voucher refused by the fleet")
	// ErrForeignVoucher: the voucher was printed by another kiosk. A kiosk
	// pays only its own vouchers; another kiosk's is paid at its kiosk or
	// at the centre (pharaon-central pay).
	ErrForeignVoucher = errors.New("voucher of another kiosk")
	// ErrOfflineLimit: the centre does not answer and the voucher is above
	// what a kiosk pays without it.
	ErrOfflineLimit = errors.New("centre unreachable: voucher above the offline payout limit")
)

// FleetRefusal is a payment refused for what the fleet knows of the
// voucher: errors.As gives it to the screen (who paid it and when, which
// kiosk printed it).
type FleetRefusal struct {
	Voucher FleetVoucher
	Err     error
}

func (e *FleetRefusal) Error() string { return e.Err.Error() }
func (e *FleetRefusal) Unwrap() error { return e.Err }

// OfflineRefusal is ErrOfflineLimit with the voucher's amount and the limit.
type OfflineRefusal struct {
	ID            int64
	Amount, Limit game.Money
}

func (e *OfflineRefusal) Error() string {
	return fmt.Sprintf("voucher %d of %s: %v of %s", e.ID, e.Amount.Plain(), ErrOfflineLimit, e.Limit.Plain())
}
func (e *OfflineRefusal) Unwrap() error { return ErrOfflineLimit }

// DefaultOfflinePayLimit is the largest of its own vouchers a kiosk joined
// to a fleet pays while its centre does not answer: its payment is sent
// when the centre answers again, and a voucher the centre paid meanwhile is
// then reported as paid twice (DESIGN.md §11).
const DefaultOfflinePayLimit = 100 * game.Euro

// SetVoucherRegistry joins the machine's counter to the fleet's voucher
// registry r: from then on a staff payout is recorded in r first, and
// while r's centre does not answer only the kiosk's own vouchers up to
// offlineLimit (DefaultOfflinePayLimit if 0) are paid. A nil r leaves the
// kiosk alone.
func (m *Machine) SetVoucherRegistry(r VoucherRegistry, offlineLimit game.Money) {
	if offlineLimit <= 0 {
		offlineLimit = DefaultOfflinePayLimit
	}
	m.mu.Lock()
	m.registry, m.offlineLimit = r, offlineLimit
	m.mu.Unlock()
}

func (m *Machine) voucherRegistry() (VoucherRegistry, game.Money) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.registry, m.offlineLimit
}
