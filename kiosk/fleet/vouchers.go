package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"pharaon/game"
	"pharaon/store"
)

// VoucherEntry is a voucher as the fleet knows it: one entry of the
// bucket VoucherBucket, keyed "<kiosk>.<keyed hash of its number>"
// (voucherkey.go). It holds no validation number. Its kiosk is its key's:
// only that kiosk's user may write under its name (permissions.go), and an
// entry whose content names another kiosk is refused (ErrVoucherForged).
type VoucherEntry struct {
	Kiosk     string `json:"kiosk"`  // the kiosk that issued it
	ID        int64  `json:"id"`     // its number at that kiosk
	Amount    int64  `json:"amount"` // cents
	ExpiresAt int64  `json:"expires_at"`
	// State is issued, printed, paid, void, expired (store.VoucherState),
	// or claimed: its kiosk's counter is paying it (Registry.Claim),
	// paid once the kiosk's record of the payment is published.
	State  string `json:"state"`
	PaidBy string `json:"paid_by,omitempty"`
	PaidAt int64  `json:"paid_at,omitempty"`
	// PaidKiosk is the kiosk whose counter claimed or paid it; "" when
	// the centre paid it (pharaon-central pay).
	PaidKiosk string `json:"paid_kiosk,omitempty"`
	// Conflict says, once found, that a kiosk paid the voucher while the
	// centre did not answer although it was already paid: paid twice.
	Conflict string `json:"conflict,omitempty"`
	// Record and StateRecord are where the kiosk's records tell of the
	// voucher: the sequence at its kiosk (its outbox's, the records'
	// de-duplication id) of its row's record, and of the last record of
	// it published (the one that gave its state). Its kiosk's publisher
	// writes them from the records themselves; the centre's counter reads
	// those records and pays only what they hold (Vouchers.Pay).
	Record      int64 `json:"record,omitempty"`
	StateRecord int64 `json:"state_record,omitempty"`
	// RecordAt and StateAt are those records' sequences in the stream as
	// the server acknowledged them to the publisher (0: not known, a
	// record whose acknowledgement was lost): where the centre looks
	// first, checking what it finds there.
	RecordAt uint64 `json:"record_at,omitempty"`
	StateAt  uint64 `json:"state_at,omitempty"`
	Key      string `json:"-"` // its key in the bucket
	Revision uint64 `json:"-"`
}

// Expires is when the voucher expires.
func (v VoucherEntry) Expires() time.Time { return time.Unix(0, v.ExpiresAt) }

// Test reports whether the entry is its kiosk's test voucher: the only
// voucher of amount 0, which its kiosk's records give (Vouchers.Reported
// compares the amount).
func (v VoucherEntry) Test() bool { return v.Amount == 0 }

// stateClaimed is an entry's state while its kiosk's counter pays it.
const stateClaimed = "claimed"

// rank orders a voucher's states: an entry only moves forward, but for a
// claim given back (claimed to printed).
func rank(state string) int {
	switch state {
	case "issued":
		return 0
	case "printed":
		return 1
	case stateClaimed:
		return 2
	default: // paid, void, expired: final
		return 3
	}
}

// Errors of the central voucher check.
var (
	ErrVoucherUnknown    = errors.New("voucher unknown to the fleet")
	ErrVoucherNotPayable = errors.New("voucher not payable")
	// ErrVoucherTest: a kiosk's test voucher, printed at its first start,
	// void and of no value (store.Voucher.Test). It wraps
	// ErrVoucherNotPayable.
	ErrVoucherTest = fmt.Errorf("test voucher, void, of no value: %w", ErrVoucherNotPayable)
	// ErrVoucherForged: an entry whose content is not what its key and
	// its history allow (another kiosk named in it, a state gone back).
	ErrVoucherForged = errors.New("voucher entry rewritten")
)

// VoucherConflict is a voucher paid twice: at kiosk Kiosk's counter while
// the centre did not answer, and elsewhere (Entry says where and when).
// The publisher finds it when it sends the kiosk's record of the payment
// (Publisher.OnConflict).
type VoucherConflict struct {
	Kiosk  string
	ID     int64 // the voucher's number at its kiosk
	PaidAt time.Time
	Entry  VoucherEntry
}

func (c *VoucherConflict) Error() string {
	where := "the centre (" + c.Entry.PaidBy + ")"
	if c.Entry.PaidKiosk != "" {
		where = "kiosk " + c.Entry.PaidKiosk
	}
	return fmt.Sprintf("voucher %d of %s paid twice: by kiosk %s at %s while the centre did not answer, and by %s at %s",
		c.ID, game.Money(c.Entry.Amount).Plain(), c.Kiosk, c.PaidAt.UTC().Format(time.RFC3339), where,
		time.Unix(0, c.Entry.PaidAt).UTC().Format(time.RFC3339))
}

// markConflict writes on the entry that kiosk paid it too, once, and
// returns the conflict; an entry that already says so returns it as well
// (a record sent again reports again rather than never).
func markConflict(ctx context.Context, b Bucket, cur VoucherEntry, kiosk string, id, at int64) error {
	c := &VoucherConflict{Kiosk: kiosk, ID: id, PaidAt: time.Unix(0, at), Entry: cur}
	for cur.Conflict == "" {
		cur.Conflict = fmt.Sprintf("also paid by kiosk %s at %s", kiosk, c.PaidAt.UTC().Format(time.RFC3339))
		data, _ := json.Marshal(cur)
		_, err := b.update(ctx, cur.Key, data, cur.Revision)
		if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			if cur, err = LookupVoucher(ctx, b, cur.Key); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
	}
	return c
}

// applyVoucherRecord brings the voucher's fleet entry up to a record of
// the kiosk's outbox (as the outbox wrote it, its number in clear: keys
// gives the entry's key); other records are ignored. It is idempotent: a
// state at or behind the entry's changes nothing, so a record sent again
// is harmless.
func applyVoucherRecord(ctx context.Context, b Bucket, keys voucherKeys, r store.OutboxRecord) error {
	return applyVoucherRecordAt(ctx, b, keys, r, 0)
}

// applyVoucherRecordAt is applyVoucherRecord for a record the server
// stored at stream sequence stored (0: not known).
func applyVoucherRecordAt(ctx context.Context, b Bucket, keys voucherKeys, r store.OutboxRecord, stored uint64) error {
	if r.Kind != "voucher" && r.Kind != "voucher_state" {
		return nil
	}
	var rec struct {
		ID         int64  `json:"id"`
		At         int64  `json:"at"`
		Validation string `json:"validation"`
		Amount     int64  `json:"amount"`
		ExpiresAt  int64  `json:"expires_at"`
		State      string `json:"state"`
	}
	if err := json.Unmarshal(r.Payload, &rec); err != nil {
		return fmt.Errorf("voucher record %d: %w", r.Seq, err)
	}
	kiosk := keys.kiosk
	key := keys.entryKey(rec.Validation)
	next := VoucherEntry{Kiosk: kiosk, ID: rec.ID, Amount: rec.Amount, ExpiresAt: rec.ExpiresAt, State: rec.State,
		StateRecord: r.Seq, StateAt: stored}
	if r.Kind == "voucher" {
		next.Record, next.RecordAt = r.Seq, stored
	}
	if rec.State == "paid" {
		next.PaidBy, next.PaidAt, next.PaidKiosk = kiosk, rec.At, kiosk
	}
	for {
		cur, err := LookupVoucher(ctx, b, key)
		if errors.Is(err, ErrVoucherUnknown) {
			data, _ := json.Marshal(next)
			_, err = b.create(ctx, key, data)
			if errors.Is(err, jetstream.ErrKeyExists) {
				continue // created meanwhile: merge with it
			}
			return err
		}
		if err != nil {
			return err
		}
		if rec.State == "paid" && cur.State == "paid" && cur.PaidKiosk != kiosk {
			// Paid here while the centre did not answer, and paid at the
			// centre too: the voucher was paid twice.
			return markConflict(ctx, b, cur, kiosk, rec.ID, rec.At)
		}
		write := next
		switch {
		case rank(next.State) > rank(cur.State):
			if rec.State == "paid" && cur.State == stateClaimed {
				// The payment this kiosk's counter claimed: by whom and
				// when as the claim said.
				write.PaidBy, write.PaidAt = cur.PaidBy, cur.PaidAt
			}
			if write.Record == 0 {
				write.Record, write.RecordAt = cur.Record, cur.RecordAt
			}
		case rank(cur.State) < rank("paid") && (r.Kind == "voucher" && cur.Record == 0 || r.Seq > cur.StateRecord):
			// The state does not move (an entry its kiosk's counter
			// claimed before its records came): the records say where
			// they are.
			write = cur
			if r.Kind == "voucher" && cur.Record == 0 {
				write.Record, write.RecordAt = r.Seq, stored
			}
			if r.Seq > cur.StateRecord {
				write.StateRecord, write.StateAt = r.Seq, stored
			}
		default:
			return nil
		}
		data, _ := json.Marshal(write)
		_, err = b.update(ctx, key, data, cur.Revision)
		if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			continue
		}
		return err
	}
}

// LookupVoucher reads the voucher entry of key. An entry whose content
// names a kiosk other than its key's is ErrVoucherForged: the kiosk of an
// entry is its key's, and never changes.
func LookupVoucher(ctx context.Context, b Bucket, key string) (VoucherEntry, error) {
	e, err := b.get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return VoucherEntry{}, fmt.Errorf("voucher %s: %w", key, ErrVoucherUnknown)
	}
	if err != nil {
		return VoucherEntry{}, fmt.Errorf("voucher %s: %w", key, err)
	}
	var v VoucherEntry
	if err := json.Unmarshal(e.value, &v); err != nil {
		return VoucherEntry{}, fmt.Errorf("voucher %s: %w", key, err)
	}
	if owner := kioskOfKey(key); v.Kiosk != owner {
		return VoucherEntry{}, fmt.Errorf("voucher %d (entry %s) says kiosk %q, its key kiosk %s: %w", v.ID, key, v.Kiosk, owner, ErrVoucherForged)
	}
	v.Key, v.Revision = key, e.revision
	return v, nil
}

// payVoucher records the payment of the voucher entry key at counter by,
// once across the fleet: it reads the entry, refuses a voucher that is not
// printed or has expired at now, and writes it paid only if no one wrote
// it since it was read (compare-and-set on the revision). Of two counters
// paying the same voucher at once, one gets the entry paid, the other
// ErrVoucherNotPayable. check, when set, judges each entry read before it
// is paid (the centre's look at its history).
func payVoucher(ctx context.Context, b Bucket, key, by string, now time.Time, check func(VoucherEntry) error) (VoucherEntry, error) {
	for {
		v, err := LookupVoucher(ctx, b, key)
		if err != nil {
			return VoucherEntry{}, err
		}
		if v.Test() {
			return v, fmt.Errorf("voucher %d of kiosk %s: %w", v.ID, v.Kiosk, ErrVoucherTest)
		}
		if v.State != "printed" {
			return v, fmt.Errorf("voucher %d of kiosk %s is %s: %w", v.ID, v.Kiosk, v.State, ErrVoucherNotPayable)
		}
		if !now.Before(v.Expires()) {
			return v, fmt.Errorf("voucher %d of kiosk %s expired: %w", v.ID, v.Kiosk, ErrVoucherNotPayable)
		}
		if check != nil {
			if err := check(v); err != nil {
				return v, err
			}
		}
		v.State, v.PaidBy, v.PaidAt = "paid", by, now.UnixNano()
		data, _ := json.Marshal(v)
		rev, err := b.update(ctx, key, data, v.Revision)
		if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			continue // someone wrote it since: read again and decide again
		}
		if err != nil {
			return VoucherEntry{}, fmt.Errorf("voucher %s: %w", key, err)
		}
		v.Revision = rev
		return v, nil
	}
}

// EventVoucherPaidTwice is the critical event (source "fleet") a kiosk
// logs for a VoucherConflict; its record tells the centre, whose status
// lists it among the kiosk's problems.
const EventVoucherPaidTwice = "voucher_paid_twice"

// Events is what ReportConflict needs of the store.
type Events interface {
	Log(ctx context.Context, e store.Event) (store.Event, error)
}

// ReportConflict logs c in the kiosk's event log as a critical event, and
// says it through logf (and that the log failed, if it did).
func ReportConflict(ctx context.Context, st Events, c VoucherConflict, logf func(format string, args ...any)) {
	_, err := st.Log(ctx, store.Event{Level: store.LevelCritical, Source: "fleet", Code: EventVoucherPaidTwice, Detail: c.Error()})
	if logf != nil {
		logf("fleet: %v", c.Error())
		if err != nil {
			logf("fleet: the event of voucher %d paid twice was not logged: %v", c.ID, err)
		}
	}
}
