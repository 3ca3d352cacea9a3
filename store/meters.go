package store

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"pharaon/game"
)

// Meters are the machine's counters: counts and amounts in cents, only
// ever counting up, updated in the transaction of the fact they count and
// re-derivable from the ledger and the plays (VerifyMeters). An int64 holds
// 18 digits of cents.
type Meters map[string]int64

// Meter names. The per-stake meters are ByStake(name, stake); bills in by
// denomination are NoteMeter(denomination).
const (
	MeterPlays            = "plays"              // games played
	MeterWins             = "wins"               // games won (a prize credited)
	MeterStaked           = "staked"             // amount staked
	MeterWon              = "won"                // amount won
	MeterBillsIn          = "bills_in"           // amount of bank notes accepted
	MeterBillsInCount     = "bills_in.count"     // bank notes accepted
	MeterVouchersOut      = "vouchers_out"       // amount paid out by voucher
	MeterVouchersOutCount = "vouchers_out.count" // vouchers printed
	MeterHandPays         = "hand_pays"          // amount paid by hand by staff
	MeterHandPaysCount    = "hand_pays.count"    // hand-pays
	MeterAdjustIn         = "adjustments.in"     // credit added by staff adjustments
	MeterAdjustOut        = "adjustments.out"    // credit removed by staff adjustments
	MeterAdjustCount      = "adjustments.count"  // adjustments
	MeterTestIn           = "test.in"            // credit added in test mode
	MeterTestOut          = "test.out"           // credit removed in test mode
	MeterTestCount        = "test.count"         // test movements
)

// ByStake is the meter name for one stake: "plays.50", "won.200".
func ByStake(name string, s game.Stake) string { return name + "." + strconv.FormatInt(int64(s), 10) }

// NoteMeter is the count of bank notes of one denomination accepted:
// "bills_in.note.2000" for 20 €.
func NoteMeter(denom game.Money) string {
	return MeterBillsIn + ".note." + strconv.FormatInt(int64(denom), 10)
}

// Get is the value of a meter, 0 if it never moved.
func (m Meters) Get(name string) int64 { return m[name] }

// Names lists the meters in a stable order.
func (m Meters) Names() []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Meters reads all the meters.
func (s *Store) Meters(ctx context.Context) (Meters, error) {
	var m Meters
	err := s.read(ctx, func(tx *rtx) error {
		var err error
		m, err = readMeters(tx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("meters: %w", err)
	}
	return m, nil
}

func readMeters(tx *rtx) (Meters, error) {
	rows, err := tx.query(`SELECT name, value FROM meters`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := Meters{}
	for rows.Next() {
		var name string
		var v int64
		if err := rows.Scan(&name, &v); err != nil {
			return nil, err
		}
		m[name] = v
	}
	return m, rows.Err()
}

// deriveMeters computes every meter from the ledger and the plays.
func deriveMeters(tx *rtx) (Meters, error) { return deriveMetersSince(tx, 0, 0) }

// deriveMetersSince computes what the ledger rows after sinceEntry and the
// voucher steps after sinceStep add to the meters (0, 0: every meter).
func deriveMetersSince(tx *rtx, sinceEntry, sinceStep int64) (Meters, error) {
	m := Meters{}
	add := func(name string, v int64) {
		if v != 0 {
			m[name] += v
		}
	}
	byStake := func(q, count, amount string) error {
		rows, err := tx.query(q, sinceEntry)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var st, n, sum int64
			if err := rows.Scan(&st, &n, &sum); err != nil {
				return err
			}
			s := game.Stake(st)
			add(count, n)
			add(ByStake(count, s), n)
			add(amount, sum)
			add(ByStake(amount, s), sum)
		}
		return rows.Err()
	}
	if err := byStake(`SELECT p.stake, count(*), coalesce(sum(-l.amount), 0) FROM ledger l JOIN plays p ON p.id = l.play_id
		WHERE l.id > ? AND l.kind = 'stake' GROUP BY p.stake`, MeterPlays, MeterStaked); err != nil {
		return nil, err
	}
	if err := byStake(`SELECT p.stake, count(*), coalesce(sum(l.amount), 0) FROM ledger l JOIN plays p ON p.id = l.play_id
		WHERE l.id > ? AND l.kind = 'win' GROUP BY p.stake`, MeterWins, MeterWon); err != nil {
		return nil, err
	}
	rows, err := tx.query(`SELECT kind, amount, count(*) FROM ledger
		WHERE id > ? AND kind NOT IN ('stake', 'win') GROUP BY kind, amount`, sinceEntry)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var kind string
		var amount, n int64
		if err := rows.Scan(&kind, &amount, &n); err != nil {
			return nil, err
		}
		for _, mv := range movementMeters(Kind(kind), game.Money(amount)) {
			add(mv.name, mv.delta*n)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return m, deriveCashMeters(tx, sinceStep, add)
}

type meterDelta struct {
	name  string
	delta int64
}

// movementMeters is what one cash movement adds to the meters: the single
// definition used both to update them and to re-derive them.
func movementMeters(k Kind, amount game.Money) []meterDelta {
	abs := int64(amount)
	if abs < 0 {
		abs = -abs
	}
	inOut := func(in, out string) string {
		if amount > 0 {
			return in
		}
		return out
	}
	switch k {
	case KindBillIn:
		return []meterDelta{{MeterBillsIn, abs}, {MeterBillsInCount, 1}, {NoteMeter(amount), 1}}
	case KindVoucherOut:
		return []meterDelta{{MeterVouchersOut, abs}, {MeterVouchersOutCount, 1}}
	case KindHandPay:
		return []meterDelta{{MeterHandPays, abs}, {MeterHandPaysCount, 1}}
	case KindAdjustment:
		return []meterDelta{{inOut(MeterAdjustIn, MeterAdjustOut), abs}, {MeterAdjustCount, 1}}
	case KindTest:
		return []meterDelta{{inOut(MeterTestIn, MeterTestOut), abs}, {MeterTestCount, 1}}
	}
	return nil
}

// VerifyMeters re-derives every meter from the ledger and the plays and
// compares: an IntegrityError (ErrIntegrity) lists the meters that differ.
func (s *Store) VerifyMeters(ctx context.Context) error {
	return s.read(ctx, func(tx *rtx) error { return verifyMeters(tx) })
}

func verifyMeters(tx *rtx) error { return verifyMetersFrom(tx, nil) }

// verifyMetersFrom compares the meters with a checkpoint's (nil: zero)
// plus what the ledger rows and voucher steps after it add.
func verifyMetersFrom(tx *rtx, cp *checkpoint) error {
	got, err := readMeters(tx)
	if err != nil {
		return fmt.Errorf("verify meters: %w", err)
	}
	var want Meters
	if cp == nil {
		want, err = deriveMeters(tx)
	} else {
		want, err = deriveMetersSince(tx, cp.Heads[chLedger].ID, cp.Heads[chVoucherSteps].ID)
	}
	if err != nil {
		return fmt.Errorf("verify meters: %w", err)
	}
	if cp != nil {
		for n, v := range cp.Meters {
			want[n] += v
		}
	}
	if diffs := diffMeters(got, want, "the ledger and plays give"); len(diffs) > 0 {
		return integrity("meters", "meters", 0, "%s", strings.Join(diffs, "; "))
	}
	return nil
}
