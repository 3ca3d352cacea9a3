package store

import (
	"encoding/json"
	"fmt"
	"sort"

	"pharaon/game"
)

// MeterFold derives a kiosk's meters from its outbox records, given in
// order from the first, with the store's own definitions (deriveMeters,
// movementMeters): what the fleet's centre compares each meter snapshot
// with. A meter that never moved is absent, as in the derivation.
type MeterFold struct {
	Meters Meters
	// LedgerID and VoucherStepID are the last ledger row and voucher step
	// folded: a snapshot counting the same rows must show the same meters.
	LedgerID, VoucherStepID int64

	stakes   map[int64]game.Stake // play id → stake
	vouchers map[int64]int64      // voucher id → amount
}

// NewMeterFold returns a fold of no record.
func NewMeterFold() *MeterFold {
	return &MeterFold{Meters: Meters{}, stakes: map[int64]game.Stake{}, vouchers: map[int64]int64{}}
}

func (f *MeterFold) add(name string, v int64) {
	if v != 0 {
		f.Meters[name] += v
	}
}

// Apply folds one record. Kinds that move no meter are ignored; a payload
// that does not decode is an error and folds nothing.
func (f *MeterFold) Apply(r OutboxRecord) error {
	switch r.Kind {
	case "play", "ledger", "voucher", "voucher_step":
	default:
		return nil
	}
	var p struct {
		ID        int64  `json:"id"`
		Stake     int64  `json:"stake"`
		Kind      string `json:"kind"`
		Amount    int64  `json:"amount"`
		PlayID    int64  `json:"play_id"`
		VoucherID int64  `json:"voucher_id"`
		State     string `json:"state"`
	}
	if err := json.Unmarshal(r.Payload, &p); err != nil {
		return fmt.Errorf("record %d (%s): %w", r.Seq, r.Kind, err)
	}
	switch r.Kind {
	case "play":
		f.stakes[p.ID] = game.Stake(p.Stake)
	case "voucher":
		f.vouchers[p.ID] = p.Amount
	case "ledger":
		f.LedgerID = p.ID
		switch Kind(p.Kind) {
		case KindStake:
			s := f.stakes[p.PlayID]
			f.add(MeterPlays, 1)
			f.add(ByStake(MeterPlays, s), 1)
			f.add(MeterStaked, -p.Amount)
			f.add(ByStake(MeterStaked, s), -p.Amount)
		case KindWin:
			s := f.stakes[p.PlayID]
			f.add(MeterWins, 1)
			f.add(ByStake(MeterWins, s), 1)
			f.add(MeterWon, p.Amount)
			f.add(ByStake(MeterWon, s), p.Amount)
		default:
			for _, mv := range movementMeters(Kind(p.Kind), game.Money(p.Amount)) {
				f.add(mv.name, mv.delta)
			}
		}
	case "voucher_step":
		f.VoucherStepID = p.ID
		amount := f.vouchers[p.VoucherID]
		switch VoucherState(p.State) {
		case VoucherPaid:
			f.add(MeterVouchersPaid, amount)
			f.add(MeterVouchersPaidCount, 1)
		case VoucherExpired:
			f.add(MeterVouchersExpired, amount)
			f.add(MeterVouchersExpiredCount, 1)
		case VoucherVoid:
			if a, ok := f.vouchers[p.VoucherID]; !ok || a > 0 { // a test voucher counts nothing
				f.add(MeterVouchersVoidCount, 1)
			}
		case stepReprint:
			f.add(MeterVoucherReprints, 1)
		}
	}
	return nil
}

// DiffMeters lists, in name order, the meters whose values differ between
// got and want (a meter absent counts as 0).
func DiffMeters(got, want Meters) []string {
	return diffMeters(got, want, "the records give")
}

// diffMeters is DiffMeters, saying where want comes from.
func diffMeters(got, want Meters, source string) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range append(got.Names(), want.Names()...) {
		if seen[n] {
			continue
		}
		seen[n] = true
		if got[n] != want[n] {
			out = append(out, fmt.Sprintf("%s is %d, %s %d", n, got[n], source, want[n]))
		}
	}
	sort.Strings(out)
	return out
}
