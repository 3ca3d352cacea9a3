package fleet

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"pharaon/game"
	"pharaon/store"
)

// Vouchers is the centre's side of the voucher bucket (pharaon-central
// voucher and pay): it finds a voucher from the number typed at its
// counter, whichever kiosk printed it, and pays it once across the fleet.
// It holds the fleet's voucher key, from which it computes each kiosk's
// key of that number; the bucket itself never tells a number.
type Vouchers struct {
	b       Bucket
	kv      jetstream.KeyValue // the entries' history: the centre's right
	records jetstream.Stream   // the kiosks' records, read by sequence: the centre's right
	master  []byte
	kiosks  []string
}

// NewVouchers is the centre's voucher bucket on js,
// for the kiosks of the fleet (every kiosk the centre issued credentials
// to, revoked ones included: their vouchers stay payable at the centre).
func NewVouchers(ctx context.Context, js jetstream.JetStream, master []byte, kiosks []string) (*Vouchers, error) {
	if len(master) != VoucherKeySize {
		return nil, fmt.Errorf("the fleet's voucher key: %d bytes, not %d", len(master), VoucherKeySize)
	}
	kv, err := js.KeyValue(ctx, VoucherBucket)
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", VoucherBucket, err)
	}
	records, err := js.Stream(ctx, RecordsStream)
	if err != nil {
		return nil, fmt.Errorf("stream %s: %w", RecordsStream, err)
	}
	return &Vouchers{b: NewBucket(js, VoucherBucket), kv: kv, records: records, master: master, kiosks: kiosks}, nil
}

// Find returns the entry of the voucher numbered validation:
// ErrVoucherUnknown when no kiosk of the fleet has one.
func (v *Vouchers) Find(ctx context.Context, validation string) (VoucherEntry, error) {
	var found []VoucherEntry
	for _, k := range v.kiosks {
		key, err := VoucherEntryKey(v.master, k, validation)
		if err != nil {
			return VoucherEntry{}, err
		}
		e, err := LookupVoucher(ctx, v.b, key)
		if errors.Is(err, ErrVoucherUnknown) {
			continue
		}
		if err != nil {
			return VoucherEntry{}, err
		}
		found = append(found, e)
	}
	switch len(found) {
	case 0:
		return VoucherEntry{}, fmt.Errorf("voucher: %w", ErrVoucherUnknown)
	case 1:
		return found[0], nil
	}
	// Two kiosks printed the same number: each key is its kiosk's, so
	// both entries are genuine as far as the bucket can say. The centre
	// pays neither; their kiosks' records say which is which.
	return VoucherEntry{}, fmt.Errorf("voucher numbered at kiosks %s and %s: %w", found[0].Kiosk, found[1].Kiosk, ErrVoucherNotPayable)
}

// Pay records the payment at counter by of the voucher numbered
// validation, once across the fleet (a compare-and-set on its entry). An
// entry whose history went back (paid, then payable again; its amount,
// expiry or number changed; deleted) is refused with ErrVoucherForged:
// only its kiosk's credentials can have written it, and the centre does
// not pay on their word. Nor does it pay an entry its kiosk's records do
// not hold (Reported): ErrVoucherUnreported.
func (v *Vouchers) Pay(ctx context.Context, validation, by string, now time.Time) (VoucherEntry, error) {
	e, err := v.Find(ctx, validation)
	if err != nil {
		return e, err
	}
	return payVoucher(ctx, v.b, e.Key, by, now, func(cur VoucherEntry) error {
		if err := v.checkHistory(ctx, cur); err != nil {
			return err
		}
		return v.Reported(ctx, cur, validation)
	})
}

// ErrVoucherUnreported: a voucher entry whose kiosk's published records do
// not hold the voucher it says: a voucher whose records have not come yet,
// or an entry its kiosk's credentials made up. The centre does not pay it.
var ErrVoucherUnreported = errors.New("not reported by its kiosk yet: pay it at the kiosk, or wait for its records")

// Reported checks e, the entry of the voucher numbered validation, against
// its kiosk's own published records, which only that kiosk's credentials
// can publish and the server keeps by their subject: the voucher's row
// (its `voucher` record: the hash-chained row, whose hash the store's own
// function gives from its content, the number among it) and the last
// record of it the entry names, which must say printed; each under the
// kiosk's subject at the sequence the entry names, carrying the number
// sealed under the kiosk's key, and the id, amount and expiry of the
// entry. The entry names those sequences (its kiosk's publisher writes
// them); the records are found by a binary search over the stream
// (kioskRecord), so a payment reads a few dozen messages whatever the
// kiosk's history. A record missing, of another voucher, or saying
// another state is ErrVoucherUnreported; one that its kiosk did not seal,
// that does not give its hash, or that names another kiosk,
// ErrVoucherForged.
func (v *Vouchers) Reported(ctx context.Context, e VoucherEntry, validation string) error {
	unreported := func(format string, args ...any) error {
		return fmt.Errorf("voucher %d of kiosk %s: %w (%s)", e.ID, e.Kiosk, ErrVoucherUnreported, fmt.Sprintf(format, args...))
	}
	if e.Record == 0 || e.StateRecord == 0 {
		return unreported("its entry names no record of it")
	}
	keys, err := newVoucherKeys(e.Kiosk, KioskVoucherKey(v.master, e.Kiosk))
	if err != nil {
		return err
	}
	for _, at := range []struct {
		seq    int64
		stored uint64
		kind   string
	}{{e.Record, e.RecordAt, "voucher"}, {e.StateRecord, e.StateAt, ""}} {
		m, r, err := kioskRecord(ctx, v.records, e.Kiosk, at.seq, at.stored)
		if errors.Is(err, errNoRecord) {
			return unreported("its kiosk published no record %d", at.seq)
		}
		if err != nil {
			return err
		}
		forged := func(format string, args ...any) error {
			return fmt.Errorf("voucher %d of kiosk %s: record %d (stream %d): %s: %w", e.ID, e.Kiosk, at.seq, m.Sequence,
				fmt.Sprintf(format, args...), ErrVoucherForged)
		}
		if c := claims(e.Kiosk, r, m.Header, m.Data); len(c) > 0 {
			return forged("it %s", c[0])
		}
		if r.Kind != "voucher" && r.Kind != "voucher_state" || at.kind != "" && r.Kind != at.kind {
			return unreported("its kiosk's record %d is a %s record", at.seq, r.Kind)
		}
		opened, err := keys.openRecord(r)
		if err != nil {
			return forged("%v", err)
		}
		var p struct {
			ID         int64  `json:"id"`
			Validation string `json:"validation"`
			Amount     int64  `json:"amount"`
			ExpiresAt  int64  `json:"expires_at"`
			State      string `json:"state"`
			PrevHash   string `json:"prev_hash"`
		}
		if err := json.Unmarshal(opened.Payload, &p); err != nil {
			return forged("%v", err)
		}
		if p.Validation != validation || p.ID != e.ID || r.RefID != e.ID {
			return unreported("its kiosk's record %d is of another voucher", at.seq)
		}
		if r.Kind == "voucher" {
			carried, computed, err := store.RecordHash(r.Kind, opened.Payload)
			if err != nil || len(carried) == 0 || !bytes.Equal(carried, computed) || len(p.PrevHash) != 2*sha256.Size {
				return forged("its row does not give its hash")
			}
		}
		if p.Amount != e.Amount || p.ExpiresAt != e.ExpiresAt {
			return unreported("its kiosk's record %d says %s expiring %s, its entry %s expiring %s", at.seq,
				game.Money(p.Amount).Plain(), time.Unix(0, p.ExpiresAt).UTC().Format(time.RFC3339),
				game.Money(e.Amount).Plain(), e.Expires().UTC().Format(time.RFC3339))
		}
		if at.kind == "" && p.State != string(store.VoucherPrinted) {
			return unreported("its kiosk's record %d says %s", at.seq, p.State)
		}
	}
	return nil
}

// errNoRecord: the kiosk published no record of that sequence.
var errNoRecord = errors.New("no such record")

// kioskRecord finds kiosk's record of sequence seq (its outbox's) in the
// records stream: first at stored, the stream sequence its publisher was
// told (when it is not 0), then by a binary search over the stream's
// sequence, each step the first message of the kiosk's subject from a
// point (a direct get, the centre's right), whose records come in the
// order of their sequence. Whatever else a kiosk's credentials published
// on its subject (out of order, twice) can hide a record from the search,
// never make another record pass for it: the caller checks the record
// found.
func kioskRecord(ctx context.Context, s jetstream.Stream, kiosk string, seq int64, stored uint64) (*jetstream.RawStreamMsg, store.OutboxRecord, error) {
	subject := RecordsSubject + kiosk
	// at is the kiosk's first message from stream sequence from, and its
	// record; nil at the stream's end.
	at := func(from uint64) (*jetstream.RawStreamMsg, store.OutboxRecord, error) {
		m, err := s.GetMsg(ctx, from, jetstream.WithGetMsgSubject(subject))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return nil, store.OutboxRecord{}, nil
		}
		if err != nil {
			return nil, store.OutboxRecord{}, fmt.Errorf("record %d of kiosk %s: %w", seq, kiosk, err)
		}
		var r store.OutboxRecord
		if err := json.Unmarshal(m.Data, &r); err != nil {
			return nil, store.OutboxRecord{}, fmt.Errorf("record %d of kiosk %s: message %d: %w", seq, kiosk, m.Sequence, errNoRecord)
		}
		return m, r, nil
	}
	if stored > 0 {
		m, r, err := at(stored)
		if err != nil || m != nil && r.Seq == seq {
			return m, r, err
		}
	}
	info, err := s.Info(ctx)
	if err != nil {
		return nil, store.OutboxRecord{}, fmt.Errorf("stream %s: %w", RecordsStream, err)
	}
	lo, hi := max(info.State.FirstSeq, 1), info.State.LastSeq
	for lo <= hi {
		mid := lo + (hi-lo)/2
		m, r, err := at(mid)
		switch {
		case err != nil:
			return nil, store.OutboxRecord{}, err
		case m == nil || r.Seq > seq:
			hi = mid - 1
		case r.Seq == seq:
			return m, r, nil
		default:
			lo = m.Sequence + 1
		}
	}
	return nil, store.OutboxRecord{}, fmt.Errorf("record %d of kiosk %s: %w", seq, kiosk, errNoRecord)
}

// History returns the entry's revisions the bucket keeps, oldest first
// (a deleted one as an entry of state "deleted").
func (v *Vouchers) History(ctx context.Context, key string) ([]VoucherEntry, error) {
	hist, err := v.kv.History(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("voucher %s: history: %w", key, err)
	}
	out := make([]VoucherEntry, 0, len(hist))
	for _, h := range hist {
		var e VoucherEntry
		if h.Operation() != jetstream.KeyValuePut {
			e.State = "deleted"
		} else if err := json.Unmarshal(h.Value(), &e); err != nil {
			return nil, fmt.Errorf("voucher %s revision %d: %w", key, h.Revision(), err)
		}
		e.Key, e.Revision = key, h.Revision()
		out = append(out, e)
	}
	return out, nil
}

// checkHistory refuses cur when the entry's history shows a rewrite.
func (v *Vouchers) checkHistory(ctx context.Context, cur VoucherEntry) error {
	hist, err := v.History(ctx, cur.Key)
	if err != nil {
		return err
	}
	if why := wentBack(hist); why != "" {
		return fmt.Errorf("voucher %d of kiosk %s: %s: %w", cur.ID, cur.Kiosk, why, ErrVoucherForged)
	}
	return nil
}

// wentBack says how an entry's history shows a rewrite, "" when it does
// not. A genuine entry is written a few times, each forward (issued,
// printed, claimed, paid, a conflict noted), but for a claim given back by
// its kiosk (claimed to printed: its store refused the payment). Paid,
// void or expired never goes back.
func wentBack(hist []VoucherEntry) string {
	if len(hist) >= VoucherHistory {
		return fmt.Sprintf("written %d times or more, its first revisions no longer kept", VoucherHistory)
	}
	for i, h := range hist {
		if h.State == "deleted" {
			return fmt.Sprintf("deleted at revision %d", h.Revision)
		}
		if i == 0 {
			continue
		}
		p := hist[i-1]
		switch {
		case h.ID != p.ID || h.Amount != p.Amount || h.ExpiresAt != p.ExpiresAt || h.Kiosk != p.Kiosk:
			return fmt.Sprintf("its number, amount or expiry changed at revision %d", h.Revision)
		case p.Record != 0 && h.Record != p.Record || h.StateRecord < p.StateRecord:
			return fmt.Sprintf("the records it names went back at revision %d", h.Revision)
		case rank(h.State) < rank(p.State) && (p.State != stateClaimed || h.State != "printed"):
			return fmt.Sprintf("went back from %s to %s at revision %d", p.State, h.State, h.Revision)
		}
	}
	return ""
}

// CheckVouchers compares the vouchers' entries with what the kiosks'
// records folded in f say of them: an entry whose number at its kiosk,
// amount or expiry is not its records', or whose state is behind theirs
// (paid at the kiosk, payable in the bucket), or whose content names
// another kiosk, is a problem of its kiosk; so is an entry of no voucher
// its records hold, under a number at the kiosk within those the records
// hold (the records come in order: the voucher's would be among them). Only
// its kiosk's credentials (and the centre's) can have written it. An entry
// of a number the records have not reached (a kiosk whose publisher is
// behind) is not judged.
func (f *Fleet) CheckVouchers(ctx context.Context, js jetstream.JetStream) error {
	kv, err := js.KeyValue(ctx, VoucherBucket)
	if err != nil {
		return fmt.Errorf("bucket %s: %w", VoucherBucket, err)
	}
	lister, err := kv.ListKeys(ctx)
	if err != nil {
		return fmt.Errorf("bucket %s: %w", VoucherBucket, err)
	}
	b := NewBucket(js, VoucherBucket)
	for key := range lister.Keys() {
		k := f.Kiosks[kioskOfKey(key)]
		if k == nil {
			continue
		}
		seen, ok := k.vouchers[key]
		e, err := LookupVoucher(ctx, b, key)
		switch {
		case errors.Is(err, ErrVoucherForged):
			k.Problems = append(k.Problems, err.Error())
			continue
		case errors.Is(err, ErrVoucherUnknown):
			continue
		case err != nil:
			return err
		case !ok && e.ID >= k.firstVoucher && e.ID <= k.lastVoucher && k.firstVoucher > 0:
			k.Problems = append(k.Problems, fmt.Sprintf("voucher %d: a fleet entry of %s under a number its records do not give it",
				e.ID, game.Money(e.Amount).Plain()))
			continue
		case !ok:
			continue
		}
		if e.ID != seen.id || e.Amount != seen.amount || e.ExpiresAt != seen.expires {
			k.Problems = append(k.Problems, fmt.Sprintf("voucher %d: its fleet entry says voucher %d of %s expiring %s, its records %s expiring %s",
				seen.id, e.ID, game.Money(e.Amount).Plain(), e.Expires().UTC().Format(time.RFC3339),
				game.Money(seen.amount).Plain(), time.Unix(0, seen.expires).UTC().Format(time.RFC3339)))
		}
		if rank(e.State) < rank(seen.state) {
			k.Problems = append(k.Problems, fmt.Sprintf("voucher %d: its fleet entry says %s, its records %s", seen.id, e.State, seen.state))
		}
		if e.Record != 0 && seen.record != 0 && e.Record != seen.record {
			k.Problems = append(k.Problems, fmt.Sprintf("voucher %d: its fleet entry names record %d, its row is record %d",
				seen.id, e.Record, seen.record))
		}
	}
	return nil
}
