package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"pharaon/game"
)

// The cash box (DESIGN.md §1): staff empty it and count what they took
// against what the kiosk expects. A collection records the note meters at
// that moment; what the box holds is the note meters' growth since the last
// collection. The meters themselves are never reset.
//
// A note whose fate the kiosk could not settle (a bill intent held for
// staff, or still stacking: cash_intents.go) may be in the box without a
// credit. A note belongs to the box in place when its intent's first step
// was written (STACK about to be sent, or the hold, or the credit): the
// one the next collection takes. That collection lists the box's notes
// held for staff or unsettled, with their state then (held or stacking:
// maybe in the box, to count apart; credited by staff, in the total; or
// closed), and counts only those credited. Staff count the box and settle
// them after: a credit after the collection moves the note meters, but the
// note left with the earlier box, so no later box expects it. Which box a
// step falls in is told by the bill intents' chain of steps, whose newest
// step each collection records (intent_step), not by the clock.

// EventCashCollected is the event of a collection (source "maintenance").
const EventCashCollected = "cash_collected"

// CashBox is what the kiosk expects in its cash box: the notes accepted
// since the last collection (Since; zero before the first), by
// denomination, less those that belong to earlier boxes (credited late);
// and, apart, the notes of this box held for staff or unsettled.
type CashBox struct {
	Since  time.Time
	Notes  map[game.Money]int64
	Count  int64
	Amount game.Money
	// Held are the notes of this box that were held for staff, or are
	// still stacking, in the order the validator took them, each in its
	// state now (for a Collection: at the collection). A held or stacking
	// one may be in the box and is not in Notes: staff count it apart,
	// then credit or close it; a credited one is in Notes; a void one
	// (closed by staff) is not in the box.
	Held []HeldNote
}

// HeldNote is a note of the box whose fate the kiosk could not settle.
type HeldNote struct {
	Intent int64 // its bill intent
	Denom  game.Money
	At     time.Time   // when the validator took it
	State  IntentState // held or stacking (unsettled), credited or void
}

// Unsettled is the number and value of the box's notes that may be in it
// without a credit: held for staff, or still stacking.
func (b CashBox) Unsettled() (int64, game.Money) {
	var n int64
	var sum game.Money
	for _, h := range b.Held {
		if h.State == IntentHeld || h.State == IntentStacking {
			n++
			sum += h.Denom
		}
	}
	return n, sum
}

// Collection is a cash box emptied: who, when, and what it held.
type Collection struct {
	ID int64
	At time.Time
	By string
	CashBox
}

// noteMeters picks the per-denomination note meters out of m.
func noteMeters(m Meters) map[game.Money]int64 {
	out := map[game.Money]int64{}
	prefix := MeterBillsIn + ".note."
	for name, v := range m {
		if d, ok := strings.CutPrefix(name, prefix); ok {
			if cents, err := strconv.ParseInt(d, 10, 64); err == nil && v > 0 {
				out[game.Money(cents)] = v
			}
		}
	}
	return out
}

// encodeNotes writes note meters as "500=3;1000=2", smallest first.
func encodeNotes(n map[game.Money]int64) string {
	denoms := make([]game.Money, 0, len(n))
	for d := range n {
		denoms = append(denoms, d)
	}
	sort.Slice(denoms, func(i, j int) bool { return denoms[i] < denoms[j] })
	parts := make([]string, len(denoms))
	for i, d := range denoms {
		parts[i] = fmt.Sprintf("%d=%d", d, n[d])
	}
	return strings.Join(parts, ";")
}

func decodeNotes(s string) (map[game.Money]int64, error) {
	out := map[game.Money]int64{}
	if s == "" {
		return out, nil
	}
	for _, p := range strings.Split(s, ";") {
		d, c, ok := strings.Cut(p, "=")
		denom, err1 := strconv.ParseInt(d, 10, 64)
		count, err2 := strconv.ParseInt(c, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("collection meters %q", s)
		}
		out[game.Money(denom)] = count
	}
	return out, nil
}

// cashBox computes the box's content from the note meters now and at the
// last collection.
func cashBox(now Meters, lastAt int64, lastMeters string) (CashBox, error) {
	was, err := decodeNotes(lastMeters)
	if err != nil {
		return CashBox{}, integrity("collections", "collections", 0, "%v", err)
	}
	b := CashBox{Notes: map[game.Money]int64{}}
	if lastAt != 0 {
		b.Since = time.Unix(0, lastAt).UTC()
	}
	for d, n := range noteMeters(now) {
		if k := n - was[d]; k > 0 {
			b.Notes[d] = k
			b.Count += k
			b.Amount += d * game.Money(k)
		} else if k < 0 {
			return CashBox{}, integrity("collections", "meters", 0, "note meter of %d went back from %d to %d", d, was[d], n)
		}
	}
	return b, nil
}

// boxEnd is where the box ends if it is collected now: the note meters
// (encodeNotes) and the newest step of the bill intents' chain.
type boxEnd struct {
	notes string
	step  int64
}

// cashBoxNow computes the box in tx: the note meters' growth since the
// last collection (cashBox), less the late credits, and the box's held or
// unsettled notes.
func cashBoxNow(tx *rtx) (CashBox, boxEnd, error) {
	m, err := readMeters(tx)
	if err != nil {
		return CashBox{}, boxEnd{}, err
	}
	var at, from int64
	var meters string
	err = tx.queryRow(`SELECT at, meters, intent_step FROM collections ORDER BY id DESC LIMIT 1`).Scan(&at, &meters, &from)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return CashBox{}, boxEnd{}, err
	}
	b, err := cashBox(m, at, meters)
	if err != nil {
		return CashBox{}, boxEnd{}, err
	}
	end := boxEnd{notes: encodeNotes(noteMeters(m))}
	if err := tx.queryRow(`SELECT coalesce(max(id), 0) FROM bill_intent_steps`).Scan(&end.step); err != nil {
		return CashBox{}, boxEnd{}, err
	}
	if err := lessLateCredits(tx, &b, from); err != nil {
		return CashBox{}, boxEnd{}, err
	}
	if b.Held, err = heldNotes(tx, from, end.step); err != nil {
		return CashBox{}, boxEnd{}, err
	}
	return b, end, nil
}

// firstStep is the id of an intent's first step (the note's way to the box
// began), for the intent i.id of the enclosing query.
const firstStep = `(SELECT min(f.id) FROM bill_intent_steps f WHERE f.intent_id = i.id)`

// lessLateCredits takes out of b the notes credited after the step from
// (the last collection's) whose first step is at or before it: they left
// with an earlier box.
func lessLateCredits(tx *rtx, b *CashBox, from int64) error {
	rows, err := tx.query(`SELECT i.id, i.denom FROM bill_intent_steps c JOIN bill_intents i ON i.id = c.intent_id
		WHERE c.state = 'credited' AND c.id > ? AND `+firstStep+` <= ?`, from, from)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, denom int64
		if err := rows.Scan(&id, &denom); err != nil {
			return err
		}
		d := game.Money(denom)
		if b.Notes[d] <= 0 {
			return integrity("collections", "bill_intents", id, "note of %d credited after the collection of its box, and no such note counted since", d)
		}
		if b.Notes[d]--; b.Notes[d] == 0 {
			delete(b.Notes, d)
		}
		b.Count--
		b.Amount -= d
	}
	return rows.Err()
}

// heldNotes are the notes of the box between the steps from and to (their
// first step in it) that were held for staff at or before to, or are
// stacking at to, each in its state at to.
func heldNotes(tx *rtx, from, to int64) ([]HeldNote, error) {
	rows, err := tx.query(`SELECT id, denom, at, state FROM (
			SELECT i.id, i.denom, i.at,
				(SELECT s.state FROM bill_intent_steps s WHERE s.intent_id = i.id AND s.id <= ? ORDER BY s.id DESC LIMIT 1) AS state,
				EXISTS (SELECT 1 FROM bill_intent_steps h WHERE h.intent_id = i.id AND h.state = 'held' AND h.id <= ?) AS held
			FROM bill_intents i
			WHERE i.id IN (SELECT intent_id FROM bill_intent_steps WHERE id > ? AND id <= ?) AND `+firstStep+` > ?)
		WHERE held OR state = 'stacking' ORDER BY id`, to, to, from, to, from)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []HeldNote
	for rows.Next() {
		var h HeldNote
		var denom, at int64
		var state string
		if err := rows.Scan(&h.Intent, &denom, &at, &state); err != nil {
			return nil, err
		}
		h.Denom, h.At, h.State = game.Money(denom), time.Unix(0, at).UTC(), IntentState(state)
		out = append(out, h)
	}
	return out, rows.Err()
}

// CashBox returns what the cash box should hold now.
func (s *Store) CashBox(ctx context.Context) (CashBox, error) {
	var b CashBox
	err := s.read(ctx, func(tx *rtx) error {
		var err error
		b, _, err = cashBoxNow(tx)
		return err
	})
	if err != nil {
		return CashBox{}, fmt.Errorf("cash box: %w", err)
	}
	return b, nil
}

// Collect records that staff (by: the role) emptied the cash box, with what
// it held and its held notes, and logs it; the next CashBox starts from
// zero.
func (s *Store) Collect(ctx context.Context, by string) (Collection, error) {
	if by == "" {
		return Collection{}, fmt.Errorf("collect: %w", ErrBadRequest)
	}
	var c Collection
	err := s.write(ctx, func(t *wtx) error {
		t.movesMoneyOut() // the cash box leaves the kiosk
		box, end, err := cashBoxNow(&rtx{ctx: t.ctx, wtx: *t})
		if err != nil {
			return err
		}
		r := collectionRow{at: t.now, by: by, meters: end.notes, count: box.Count, amount: int64(box.Amount), intentStep: end.step}
		if r.id, r.prevHash, err = t.chainTail(chCollections); err != nil {
			return err
		}
		r.id++
		r.hash = collectionHash(r.prevHash, &r)
		if _, err := t.execQ(`INSERT INTO collections(id, at, by, meters, count, amount, intent_step, prev_hash, hash)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.id, r.at, r.by, r.meters, r.count, r.amount, r.intentStep, r.prevHash, r.hash); err != nil {
			return err
		}
		t.heads.set(chCollections, r.id, r.hash)
		c = Collection{ID: r.id, At: time.Unix(0, t.now).UTC(), By: by, CashBox: box}
		detail := fmt.Sprintf("cash box collected by %s: %d notes, %s (%s)", by, box.Count, box.Amount.French(), encodeNotes(box.Notes))
		if n, sum := box.Unsettled(); n > 0 {
			detail += fmt.Sprintf("; held notes to settle: %d, %s", n, sum.French())
		}
		_, err = t.logEvent(LevelInfo, "maintenance", EventCashCollected, detail)
		return err
	})
	if err != nil {
		return Collection{}, fmt.Errorf("collect: %w", err)
	}
	return c, nil
}

// A collection as its chain hashes it: what the next box is counted from.
type collectionRow struct {
	id, at         int64
	by, meters     string
	count, amount  int64
	intentStep     int64
	prevHash, hash []byte
}

const domainCollection = "pharaon/collection/v1"

func collectionHash(prev []byte, r *collectionRow) []byte {
	return newRowHash(domainCollection, prev).int(r.id).int(r.at).str(r.by).str(r.meters).int(r.count).
		int(r.amount).int(r.intentStep).sum()
}

// verifyCollections is Verify's walk of the collections' chain (a few
// rows a week: the boot check walks it whole too).
func verifyCollections(tx *rtx) error {
	rows, err := tx.query(`SELECT id, at, by, meters, count, amount, intent_step, prev_hash, hash FROM collections ORDER BY id`)
	if err != nil {
		return fmt.Errorf("verify collections: %w", err)
	}
	defer rows.Close()
	var id int64
	prev := genesis
	for rows.Next() {
		var r collectionRow
		if err := rows.Scan(&r.id, &r.at, &r.by, &r.meters, &r.count, &r.amount, &r.intentStep, &r.prevHash, &r.hash); err != nil {
			return fmt.Errorf("verify collections: %w", err)
		}
		switch {
		case r.id != id+1:
			return integrity("chain", "collections", r.id, "follows row %d", id)
		case string(r.prevHash) != string(prev) || string(collectionHash(prev, &r)) != string(r.hash):
			return integrity("chain", "collections", r.id, "content or previous hash does not match its hash")
		}
		id, prev = r.id, r.hash
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("verify collections: %w", err)
	}
	return nil
}
