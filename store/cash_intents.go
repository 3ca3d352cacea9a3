package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"pharaon/game"
)

// IntentState is where a bill intent stands.
type IntentState string

const (
	IntentPending  IntentState = "pending"  // recorded before the note was stacked; not credited yet
	IntentCredited IntentState = "credited" // the note reached VEND VALID and its credit is in the ledger
	IntentVoid     IntentState = "void"     // the note came back, or a later escrow proved it never reached VEND VALID
)

// BillIntent is the durable record, written before the validator is told
// to stack a note, that this note of this value is on its way to the cash
// box.
type BillIntent struct {
	ID       int64
	At       time.Time
	Denom    game.Money
	State    IntentState
	Resolved time.Time // when it was credited or voided; zero while pending
	EntryID  int64     // the ledger row that credited it, 0 otherwise
	Reason   string    // why it was voided
}

// IntentRef is the ledger reference of the credit of intent id: "intent:7".
func IntentRef(id int64) string { return intentRefPrefix + strconv.FormatInt(id, 10) }

const intentRefPrefix = "intent:"

// isIntentRef reports a reference in the space of the intents' credits, in
// any case, as Verify reads it (SQLite's LIKE 'intent:%'): only
// CreditBillIntent writes a bill_in row there.
func isIntentRef(ref string) bool {
	return len(ref) >= len(intentRefPrefix) && strings.EqualFold(ref[:len(intentRefPrefix)], intentRefPrefix)
}

const intentColumns = `id, at, denom, state, coalesce(resolved_at, 0), coalesce(entry_id, 0), reason`

func scanIntent(sc interface{ Scan(...any) error }) (BillIntent, error) {
	var in BillIntent
	var at, denom, resolved int64
	var state string
	if err := sc.Scan(&in.ID, &at, &denom, &state, &resolved, &in.EntryID, &in.Reason); err != nil {
		return BillIntent{}, err
	}
	in.At, in.Denom, in.State = time.Unix(0, at).UTC(), game.Money(denom), IntentState(state)
	if resolved != 0 {
		in.Resolved = time.Unix(0, resolved).UTC()
	}
	return in, nil
}

// RecordBillIntent records that a note of denom is about to be stacked
// (the kiosk calls it when the validator holds the note in escrow, before
// it sends STACK). Any intent still pending is voided in the same
// transaction, with reason "superseded": the validator takes one note at
// a time and holds a note at VEND VALID until it is acknowledged, so an
// earlier note that is still pending when a new one waits in escrow never
// reached VEND VALID. denom must be a euro bank note (ErrBadAmount).
func (s *Store) RecordBillIntent(ctx context.Context, denom game.Money) (BillIntent, error) {
	if !isBanknote(denom) {
		return BillIntent{}, fmt.Errorf("bill intent %s: not a euro bank note: %w", denom, ErrBadAmount)
	}
	var out BillIntent
	err := s.write(ctx, func(t *wtx) error {
		if _, err := t.execQ(`UPDATE bill_intents SET state = 'void', resolved_at = ?, reason = 'superseded'
			WHERE state = 'pending'`, t.now); err != nil {
			return fmt.Errorf("void pending intent: %w", err)
		}
		var last int64
		if err := t.rowQ(`SELECT coalesce(max(id), 0) FROM bill_intents`).Scan(&last); err != nil {
			return err
		}
		out = BillIntent{ID: last + 1, At: time.Unix(0, t.now).UTC(), Denom: denom, State: IntentPending}
		if _, err := t.execQ(`INSERT INTO bill_intents(id, at, denom) VALUES (?, ?, ?)`, out.ID, t.now, int64(denom)); err != nil {
			return fmt.Errorf("insert intent: %w", err)
		}
		return nil
	})
	if err != nil {
		return BillIntent{}, fmt.Errorf("record bill intent %s: %w", denom, err)
	}
	return out, nil
}

// CreditBillIntent is the credit point of a bank note (DESIGN.md §7): in
// one transaction, the ledger's bill_in row of the intent's value (its
// reference IntentRef(id)), the bill meters, and the intent marked
// credited. It is exactly-once: asked again for an intent already
// credited, it writes nothing and returns the entry of the first credit
// with an error wrapping ErrDuplicateRef (the kiosk then acknowledges the
// note without crediting it again). A void intent is ErrIntentState; an
// unknown one ErrNotFound.
func (s *Store) CreditBillIntent(ctx context.Context, id int64) (Entry, error) {
	var out Entry
	err := s.write(ctx, func(t *wtx) error {
		in, err := scanIntent(t.rowQ(`SELECT `+intentColumns+` FROM bill_intents WHERE id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		switch in.State {
		case IntentCredited:
			first, err := scanEntry(t.rowQ(`SELECT `+entryColumns+` FROM ledger WHERE id = ?`, in.EntryID))
			if err != nil {
				return fmt.Errorf("read its credit, ledger row %d: %w", in.EntryID, err)
			}
			out = first.entry()
			return fmt.Errorf("credited by ledger row %d of %s: %w", in.EntryID, out.At.Format(time.RFC3339), ErrDuplicateRef)
		case IntentVoid:
			return fmt.Errorf("voided (%s): %w", in.Reason, ErrIntentState)
		}
		e, err := t.move(KindBillIn, in.Denom, IntentRef(id), "", false)
		if errors.Is(err, ErrDuplicateRef) {
			// A pending intent whose reference is already in the ledger: a
			// row written around the intents. Never treated as its credit.
			return integrity("cash", "ledger", e.ID, "row holds %s, whose intent is pending", IntentRef(id))
		}
		if err != nil {
			return err
		}
		res, err := t.execQ(`UPDATE bill_intents SET state = 'credited', resolved_at = ?, entry_id = ? WHERE id = ? AND state = 'pending'`,
			t.now, e.ID, id)
		if err != nil {
			return fmt.Errorf("mark intent credited: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return fmt.Errorf("mark intent credited: %d rows (%v)", n, err)
		}
		out = e
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrDuplicateRef) {
			return out, fmt.Errorf("credit bill intent %d: %w", id, err)
		}
		return Entry{}, fmt.Errorf("credit bill intent %d: %w", id, err)
	}
	return out, nil
}

// VoidBillIntent voids a pending intent whose note the validator gave back
// (returned, rejected, or returned by a power cut); reason is required.
// ErrIntentState if it is not pending, ErrNotFound if unknown.
func (s *Store) VoidBillIntent(ctx context.Context, id int64, reason string) (BillIntent, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return BillIntent{}, fmt.Errorf("void bill intent %d: no reason: %w", id, ErrBadRequest)
	}
	var out BillIntent
	err := s.write(ctx, func(t *wtx) error {
		in, err := scanIntent(t.rowQ(`SELECT `+intentColumns+` FROM bill_intents WHERE id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if in.State != IntentPending {
			return fmt.Errorf("intent is %s: %w", in.State, ErrIntentState)
		}
		if _, err := t.execQ(`UPDATE bill_intents SET state = 'void', resolved_at = ?, reason = ? WHERE id = ?`, t.now, reason, id); err != nil {
			return err
		}
		in.State, in.Resolved, in.Reason = IntentVoid, time.Unix(0, t.now).UTC(), reason
		out = in
		return nil
	})
	if err != nil {
		return BillIntent{}, fmt.Errorf("void bill intent %d: %w", id, err)
	}
	return out, nil
}

// BillIntent returns one intent; ErrNotFound if there is none.
func (s *Store) BillIntent(ctx context.Context, id int64) (BillIntent, error) {
	return s.oneIntent(ctx, "bill intent", `WHERE id = ?`, id)
}

// PendingBillIntent returns the pending intent (there is at most one);
// ErrNotFound when none is pending.
func (s *Store) PendingBillIntent(ctx context.Context) (BillIntent, error) {
	return s.oneIntent(ctx, "pending bill intent", `WHERE state = 'pending'`)
}

// LatestBillIntent returns the newest intent, whatever its state;
// ErrNotFound when no note was ever taken.
func (s *Store) LatestBillIntent(ctx context.Context) (BillIntent, error) {
	return s.oneIntent(ctx, "latest bill intent", `ORDER BY id DESC LIMIT 1`)
}

func (s *Store) oneIntent(ctx context.Context, what, where string, args ...any) (BillIntent, error) {
	var in BillIntent
	err := s.read(ctx, func(tx *rtx) error {
		var err error
		in, err = scanIntent(tx.queryRow(`SELECT `+intentColumns+` FROM bill_intents `+where, args...))
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		return err
	})
	if err != nil {
		return BillIntent{}, fmt.Errorf("%s: %w", what, err)
	}
	return in, nil
}

// BillIntents returns up to n intents, newest first, older than beforeID
// (0: from the newest).
func (s *Store) BillIntents(ctx context.Context, n int, beforeID int64) ([]BillIntent, error) {
	if beforeID <= 0 {
		beforeID = 1<<63 - 1
	}
	var out []BillIntent
	err := s.read(ctx, func(tx *rtx) error {
		rows, err := tx.query(`SELECT `+intentColumns+` FROM bill_intents WHERE id < ? ORDER BY id DESC LIMIT ?`, beforeID, n)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			in, err := scanIntent(rows)
			if err != nil {
				return err
			}
			out = append(out, in)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("bill intents: %w", err)
	}
	return out, nil
}
