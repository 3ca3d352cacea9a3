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

// EventCashCollected is the event of a collection (source "maintenance").
const EventCashCollected = "cash_collected"

// CashBox is what the kiosk expects in its cash box: the notes accepted
// since the last collection (Since; zero before the first), by
// denomination; and, apart, the notes held for staff (HeldIntents), which
// may be in the box without a credit: staff count them before they credit
// or close them.
type CashBox struct {
	Since      time.Time
	Notes      map[game.Money]int64
	Count      int64
	Amount     game.Money
	Held       int64
	HeldAmount game.Money
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

// CashBox returns what the cash box should hold now.
func (s *Store) CashBox(ctx context.Context) (CashBox, error) {
	var b CashBox
	err := s.read(ctx, func(tx *rtx) error {
		m, err := readMeters(tx)
		if err != nil {
			return err
		}
		var at int64
		var meters string
		err = tx.queryRow(`SELECT at, meters FROM collections ORDER BY id DESC LIMIT 1`).Scan(&at, &meters)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if b, err = cashBox(m, at, meters); err != nil {
			return err
		}
		var heldAmount int64
		err = tx.queryRow(`SELECT count(*), coalesce(sum(denom), 0) FROM bill_intents WHERE state = 'held'`).Scan(&b.Held, &heldAmount)
		b.HeldAmount = game.Money(heldAmount)
		return err
	})
	if err != nil {
		return CashBox{}, fmt.Errorf("cash box: %w", err)
	}
	return b, nil
}

// Collect records that staff (by: the role) emptied the cash box, with what
// it held, and logs it; the next CashBox starts from zero.
func (s *Store) Collect(ctx context.Context, by string) (Collection, error) {
	if by == "" {
		return Collection{}, fmt.Errorf("collect: %w", ErrBadRequest)
	}
	var c Collection
	err := s.write(ctx, func(t *wtx) error {
		t.movesMoneyOut() // the cash box leaves the kiosk
		r, err := t.query(`SELECT name, value FROM meters`)
		if err != nil {
			return err
		}
		m := Meters{}
		for r.Next() {
			var name string
			var v int64
			if err := r.Scan(&name, &v); err != nil {
				r.Close()
				return err
			}
			m[name] = v
		}
		if err := r.Err(); err != nil {
			r.Close()
			return err
		}
		r.Close()
		var at int64
		var meters string
		err = t.rowQ(`SELECT at, meters FROM collections ORDER BY id DESC LIMIT 1`).Scan(&at, &meters)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		box, err := cashBox(m, at, meters)
		if err != nil {
			return err
		}
		res, err := t.execQ(`INSERT INTO collections(at, by, meters, count, amount) VALUES (?, ?, ?, ?, ?)`,
			t.now, by, encodeNotes(noteMeters(m)), box.Count, int64(box.Amount))
		if err != nil {
			return err
		}
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		c = Collection{ID: id, At: time.Unix(0, t.now).UTC(), By: by, CashBox: box}
		_, err = t.logEvent(LevelInfo, "maintenance", EventCashCollected,
			fmt.Sprintf("cash box collected by %s: %d notes, %s (%s)", by, box.Count, box.Amount.French(), encodeNotes(box.Notes)))
		return err
	})
	if err != nil {
		return Collection{}, fmt.Errorf("collect: %w", err)
	}
	return c, nil
}
