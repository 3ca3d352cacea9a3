package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Meter snapshots (DESIGN.md §4, §11): every meter as it stood, written
// as a chained row of meter_snapshots whose outbox record tells the
// centre what the kiosk's meters were; the centre compares it with its
// own derivation from the records before it. A snapshot is written
//   - at every start, once the boot check passed (SnapshotBoot);
//   - with every daily report (SnapshotReport): the figures printed are
//     those the centre receives;
//   - by the play that finishes every SnapshotEveryPlays-th play, or the
//     first play finished SnapshotEvery after the newest snapshot, in its
//     own transaction: a kiosk that is never restarted nor reported still
//     reports its meters, at a cost spread over that many plays, and a
//     quiet one at least hourly while it plays (a kiosk with no play has no
//     meter to report but those its starts and reports write).
//
// Each snapshot also writes an 'anchor' record: the chains' heads as the
// transaction leaves them (the snapshot included) and their HMAC under the
// kiosk's anchor secret, the seal the reports print.

// Reasons a snapshot is written.
const (
	SnapshotBoot   = "boot"
	SnapshotReport = "report"
	SnapshotPlays  = "plays"
)

// SnapshotEveryPlays is how many plays pass between two snapshots written
// by the plays themselves; SnapshotEvery the longest time a play waits
// for one.
const (
	SnapshotEveryPlays = 500
	SnapshotEvery      = time.Hour
)

// snapshotDue says whether the play id, finishing, writes a snapshot: the
// SnapshotEveryPlays-th, or the first SnapshotEvery after the newest
// snapshot (or after the clock went back before it). The newest
// snapshot's time is read once, then kept by the store.
func (t *wtx) snapshotDue(id int64) (bool, error) {
	if id%SnapshotEveryPlays == 0 {
		return true, nil
	}
	s := t.s
	if !s.snapRead {
		err := t.rowQ(`SELECT at FROM meter_snapshots ORDER BY id DESC LIMIT 1`).Scan(&s.snapAt)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			s.snapAt = t.now // none yet: the first an hour of play from now
		case err != nil:
			return false, err
		}
		s.snapRead = true
	}
	return t.now-s.snapAt >= int64(SnapshotEvery) || t.now < s.snapAt, nil
}

const domainMeterSnapshot = "pharaon/meter_snapshot/v1"

// MeterSnapshot is one row of meter_snapshots.
type MeterSnapshot struct {
	ID     int64
	At     time.Time
	Reason string
	// LedgerID and VoucherStepID are the last ledger row and voucher step
	// the meters count.
	LedgerID, VoucherStepID int64
	Meters                  Meters
}

type snapshotRow struct {
	id, at                  int64
	reason                  string
	ledgerID, voucherStepID int64
	meters                  string // the meters as JSON, as hashed
	prevHash, hash          []byte
}

func snapshotHash(prev []byte, r *snapshotRow) []byte {
	return newRowHash(domainMeterSnapshot, prev).int(r.id).int(r.at).str(r.reason).
		int(r.ledgerID).int(r.voucherStepID).str(r.meters).sum()
}

// SnapshotMeters writes a snapshot of every meter, and the anchor's
// record, in one transaction.
func (s *Store) SnapshotMeters(ctx context.Context, reason string) (MeterSnapshot, error) {
	switch reason {
	case SnapshotBoot, SnapshotReport, SnapshotPlays:
	default:
		return MeterSnapshot{}, fmt.Errorf("snapshot meters: reason %q: %w", reason, ErrBadRequest)
	}
	var out MeterSnapshot
	err := s.write(ctx, func(t *wtx) error {
		var err error
		out, err = t.snapshotMeters(reason)
		return err
	})
	if err != nil {
		return MeterSnapshot{}, fmt.Errorf("snapshot meters: %w", err)
	}
	return out, nil
}

// snapshotMeters writes the snapshot of the meters as this transaction
// has them so far, then the anchor's record.
func (t *wtx) snapshotMeters(reason string) (MeterSnapshot, error) {
	r := &rtx{ctx: t.ctx, wtx: *t}
	m, err := readMeters(r)
	if err != nil {
		return MeterSnapshot{}, err
	}
	body, err := json.Marshal(m) // keys sorted: the same meters, the same text
	if err != nil {
		return MeterSnapshot{}, err
	}
	row := snapshotRow{at: t.now, reason: reason, meters: string(body), prevHash: genesis}
	err = t.rowQ(`SELECT coalesce((SELECT max(id) FROM ledger), 0), coalesce((SELECT max(id) FROM voucher_steps), 0)`).
		Scan(&row.ledgerID, &row.voucherStepID)
	if err != nil {
		return MeterSnapshot{}, err
	}
	err = t.rowQ(`SELECT id, hash FROM meter_snapshots ORDER BY id DESC LIMIT 1`).Scan(&row.id, &row.prevHash)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return MeterSnapshot{}, err
	}
	row.id++
	row.hash = snapshotHash(row.prevHash, &row)
	if _, err := t.execQ(`INSERT INTO meter_snapshots(id, at, reason, ledger_id, voucher_step_id, meters, prev_hash, hash)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, row.id, row.at, row.reason, row.ledgerID, row.voucherStepID, row.meters, row.prevHash, row.hash); err != nil {
		return MeterSnapshot{}, fmt.Errorf("insert snapshot: %w", err)
	}
	t.heads.set(chMeterSnapshots, row.id, row.hash)
	// Kept before the commit: a transaction that then fails only delays
	// the next hourly snapshot.
	t.s.snapAt, t.s.snapRead = row.at, true
	if err := t.anchorRecord(); err != nil {
		return MeterSnapshot{}, err
	}
	return MeterSnapshot{ID: row.id, At: time.Unix(0, row.at).UTC(), Reason: reason,
		LedgerID: row.ledgerID, VoucherStepID: row.voucherStepID, Meters: m}, nil
}

// AnchorRecord is the payload of an outbox record of kind "anchor": the
// chains' heads as the transaction that wrote it leaves them, and their
// HMAC under the kiosk's anchor secret (AnchorHeads.MAC).
type AnchorRecord struct {
	// Counter is the trust root's counter the heads go with: it never goes
	// back from one record to the next (a kiosk put back to an earlier
	// copy shows at the centre too).
	Counter uint64             `json:"counter"`
	Heads   []AnchorRecordHead `json:"heads"`
	MAC     string             `json:"mac"` // hexadecimal
}

// AnchorRecordHead is one chain's head in an anchor record: the outbox
// kind of the chain's rows, its last id (0: empty) and that row's hash.
type AnchorRecordHead struct {
	Table string `json:"table"`
	Kind  string `json:"kind"`
	ID    int64  `json:"id"`
	Hash  string `json:"hash"` // hexadecimal, as the row's record carries it
}

// ChainKinds maps each chained table to the outbox kind of its rows.
var ChainKinds = map[string]string{
	"ledger": "ledger", "plays": "play", "play_steps": "play_step", "events": "event",
	"vouchers": "voucher", "voucher_steps": "voucher_step", "bill_intents": "bill_intent",
	"bill_intent_steps": "bill_intent_step", "meter_snapshots": "meters", "credentials": "credential",
	"pin_lock": "pin_lock", "settings": "setting", "collections": "collection",
}

// anchorRecord writes the outbox record of the heads this transaction
// leaves. A store without a usable anchor writes none: it has no secret
// to seal them with.
func (t *wtx) anchorRecord() error {
	a := t.s.anc
	if a == nil || a.err != nil {
		return nil
	}
	// The counter this transaction's commit goes with (write decides the
	// same way, at the same time).
	counter := a.counter
	if t.moneyOut && a.due(time.Unix(0, t.now)) {
		counter++
	}
	rec := AnchorRecord{Counter: counter, MAC: hex.EncodeToString(a.mac(counter, t.heads))}
	for c, table := range chainTables {
		h := ""
		if t.heads[c].id != 0 {
			h = strings.ToUpper(hex.EncodeToString(t.heads[c].hash[:]))
		}
		rec.Heads = append(rec.Heads, AnchorRecordHead{Table: table, Kind: ChainKinds[table], ID: t.heads[c].id, Hash: h})
	}
	body, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if _, err := t.execQ(`INSERT INTO outbox(at, kind, ref_id, payload) VALUES (?, 'anchor', ?, ?)`,
		t.now, t.heads[chMeterSnapshots].id, string(body)); err != nil {
		return fmt.Errorf("anchor record: %w", err)
	}
	return nil
}

// MeterSnapshots returns the snapshots after id, oldest first.
func (s *Store) MeterSnapshots(ctx context.Context, after int64) ([]MeterSnapshot, error) {
	var out []MeterSnapshot
	err := s.read(ctx, func(tx *rtx) error {
		rows, err := tx.query(`SELECT id, at, reason, ledger_id, voucher_step_id, meters FROM meter_snapshots WHERE id > ? ORDER BY id`, after)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var m MeterSnapshot
			var at int64
			var body string
			if err := rows.Scan(&m.ID, &at, &m.Reason, &m.LedgerID, &m.VoucherStepID, &body); err != nil {
				return err
			}
			m.At = time.Unix(0, at).UTC()
			if err := json.Unmarshal([]byte(body), &m.Meters); err != nil {
				return integrity("chain", "meter_snapshots", m.ID, "meters: %v", err)
			}
			out = append(out, m)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("meter snapshots: %w", err)
	}
	return out, nil
}

// verifySnapshots walks the meter snapshots' chain from the start.
func verifySnapshots(tx *rtx) error { return verifySnapshotsFrom(tx, head{}) }

// verifySnapshotsFrom walks the meter snapshots' chain from a checkpoint's
// head: the row it names is there with its hash, and every row after it
// follows and hashes to its hash.
func verifySnapshotsFrom(tx *rtx, from head) error {
	const cols = `SELECT id, at, reason, ledger_id, voucher_step_id, meters, prev_hash, hash FROM meter_snapshots `
	scan := func(sc scanner, r *snapshotRow) error {
		return sc.Scan(&r.id, &r.at, &r.reason, &r.ledgerID, &r.voucherStepID, &r.meters, &r.prevHash, &r.hash)
	}
	if from.id != 0 {
		var r snapshotRow
		if err := scan(tx.queryRow(cols+`WHERE id = ?`, from.id), &r); err != nil {
			return integrity("chain", "meter_snapshots", from.id, "the snapshot checkpointed is missing")
		}
		if err := checkpointRow("meter_snapshots", from, r.id, r.hash, snapshotHash(r.prevHash, &r)); err != nil {
			return err
		}
	}
	rows, err := tx.query(cols+`WHERE id > ? ORDER BY id`, from.id)
	if err != nil {
		return fmt.Errorf("verify meter snapshots chain: %w", err)
	}
	defer rows.Close()
	id, prev := from.id, hashOrGenesis(from)
	for rows.Next() {
		var r snapshotRow
		if err := scan(rows, &r); err != nil {
			return fmt.Errorf("verify meter snapshots chain: %w", err)
		}
		switch {
		case r.id != id+1:
			return integrity("chain", "meter_snapshots", r.id, "follows snapshot %d", id)
		case string(r.prevHash) != string(prev) || string(snapshotHash(prev, &r)) != string(r.hash):
			return integrity("chain", "meter_snapshots", r.id, "content or previous hash does not match its hash")
		}
		id, prev = r.id, r.hash
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("verify meter snapshots chain: %w", err)
	}
	return nil
}

// AnchorRecordMAC recomputes an anchor record's seal with the kiosk's
// anchor secret, for whoever holds it (the operator's centre): equal to
// the record's MAC when the kiosk wrote those heads. A record naming a
// table that is not a chain, or a hash that is not hexadecimal, is
// ErrBadRequest.
func AnchorRecordMAC(key []byte, a AnchorRecord) ([]byte, error) {
	var h heads
	for _, x := range a.Heads {
		c := -1
		for i, table := range chainTables {
			if table == x.Table {
				c = i
			}
		}
		if c < 0 {
			return nil, fmt.Errorf("anchor record: table %q is not a chain: %w", x.Table, ErrBadRequest)
		}
		var hash []byte
		if x.ID != 0 {
			var err error
			if hash, err = hex.DecodeString(x.Hash); err != nil || len(hash) != sha256.Size {
				return nil, fmt.Errorf("anchor record: hash of %s: %w", x.Table, ErrBadRequest)
			}
		}
		h.set(chainID(c), x.ID, hash)
	}
	return headsMAC(key, a.Counter, h), nil
}
