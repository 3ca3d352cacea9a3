package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"pharaon/game"
)

// IntentState is where a bill intent stands.
type IntentState string

const (
	IntentPending  IntentState = "pending"  // recorded while the note waits in escrow; STACK not sent
	IntentStacking IntentState = "stacking" // STACK is being sent: the note may be in the cash box from here
	IntentHeld     IntentState = "held"     // the note may be in the cash box and the kiosk cannot tell: staff decide
	IntentCredited IntentState = "credited" // the note's credit is in the ledger
	IntentVoid     IntentState = "void"     // the note came back, or never left escrow, or staff found no note
)

// Open reports an intent the validator may still settle (pending or
// stacking); at most one is open.
func (st IntentState) Open() bool { return st == IntentPending || st == IntentStacking }

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

// RecordBillIntent records that a note of denom waits in escrow and the
// kiosk takes it (before MarkBillIntentStacking and STACK). An intent
// still pending is voided in the same transaction, with reason
// "superseded": its STACK was never sent, so its note never left escrow.
// An intent in stacking is never voided here: its note may be in the cash
// box, and the kiosk resolves it first (HoldBillIntent, CreditBillIntent);
// until then RecordBillIntent fails with ErrIntentState. denom must be a
// euro bank note (ErrBadAmount).
func (s *Store) RecordBillIntent(ctx context.Context, denom game.Money) (BillIntent, error) {
	if !isBanknote(denom) {
		return BillIntent{}, fmt.Errorf("bill intent %s: not a euro bank note: %w", denom, ErrBadAmount)
	}
	var out BillIntent
	err := s.write(ctx, func(t *wtx) error {
		var stacking int64
		err := t.rowQ(`SELECT id FROM bill_intents WHERE state = 'stacking'`).Scan(&stacking)
		switch {
		case err == nil:
			return fmt.Errorf("intent %d was sent to stack and is not resolved: %w", stacking, ErrIntentState)
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		var pending int64
		err = t.rowQ(`SELECT id FROM bill_intents WHERE state = 'pending'`).Scan(&pending)
		switch {
		case err == nil:
			if _, err := t.execQ(`UPDATE bill_intents SET state = 'void', resolved_at = ?, reason = 'superseded'
				WHERE id = ?`, t.now, pending); err != nil {
				return fmt.Errorf("void pending intent: %w", err)
			}
			if err := t.intentStep(pending, IntentVoid, 0, "superseded"); err != nil {
				return err
			}
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		var last int64
		if err := t.rowQ(`SELECT coalesce(max(id), 0) FROM bill_intents`).Scan(&last); err != nil {
			return err
		}
		out = BillIntent{ID: last + 1, At: time.Unix(0, t.now).UTC(), Denom: denom, State: IntentPending}
		return t.insertIntent(out.ID, int64(denom))
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
		case IntentHeld:
			return fmt.Errorf("held for staff (%s): %w", in.Reason, ErrIntentState)
		}
		out, err = t.creditIntent(in, in.Reason)
		return err
	})
	if err != nil {
		if errors.Is(err, ErrDuplicateRef) {
			return out, fmt.Errorf("credit bill intent %d: %w", id, err)
		}
		return Entry{}, fmt.Errorf("credit bill intent %d: %w", id, err)
	}
	return out, nil
}

// creditIntent writes the credit of an intent: the ledger's bill_in row of
// its value (reference IntentRef), the bill meters, the intent credited.
func (t *wtx) creditIntent(in BillIntent, reason string) (Entry, error) {
	e, err := t.move(KindBillIn, in.Denom, IntentRef(in.ID), "", false)
	if errors.Is(err, ErrDuplicateRef) {
		// An open intent whose reference is already in the ledger: a row
		// written around the intents. Never treated as its credit.
		return Entry{}, integrity("cash", "ledger", e.ID, "row holds %s, whose intent is %s", IntentRef(in.ID), in.State)
	}
	if err != nil {
		return Entry{}, err
	}
	res, err := t.execQ(`UPDATE bill_intents SET state = 'credited', resolved_at = ?, entry_id = ?, reason = ? WHERE id = ? AND state = ?`,
		t.now, e.ID, reason, in.ID, string(in.State))
	if err != nil {
		return Entry{}, fmt.Errorf("mark intent credited: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return Entry{}, fmt.Errorf("mark intent credited: %d rows (%v)", n, err)
	}
	if err := t.intentStep(in.ID, IntentCredited, e.ID, reason); err != nil {
		return Entry{}, err
	}
	return e, nil
}

// MarkBillIntentStacking records that STACK is about to be sent for the
// note of a pending intent: from this commit on the note may reach the
// cash box, so the intent is never voided without a reason the unit gave.
// The host sends STACK only after it returned nil. ErrIntentState if the
// intent is not pending, ErrNotFound if unknown.
func (s *Store) MarkBillIntentStacking(ctx context.Context, id int64) (BillIntent, error) {
	in, err := s.moveIntent(ctx, id, IntentStacking, "", IntentPending)
	if err != nil {
		return BillIntent{}, fmt.Errorf("mark bill intent %d stacking: %w", id, err)
	}
	return in, nil
}

// VoidBillIntent voids an open intent whose note the validator gave back
// (returned, rejected, or returned by a power cut) or never took (still in
// escrow); reason is required. ErrIntentState if it is not open,
// ErrNotFound if unknown.
func (s *Store) VoidBillIntent(ctx context.Context, id int64, reason string) (BillIntent, error) {
	in, err := s.moveIntent(ctx, id, IntentVoid, reason, IntentPending, IntentStacking)
	if err != nil {
		return BillIntent{}, fmt.Errorf("void bill intent %d: %w", id, err)
	}
	return in, nil
}

// HoldBillIntent holds an open intent for staff: its note may be in the
// cash box and the validator cannot say (a power cut with the note in the
// acceptor, where the unit returns or stacks it by its own rule; a new
// note in escrow while this one was stacking). Nothing is credited; a
// critical event, written in the same transaction, tells staff to count the
// cash box; HeldIntents lists it until CreditHeldIntent or CloseHeldIntent.
// reason is required. ErrIntentState if it is not open, ErrNotFound if
// unknown.
func (s *Store) HoldBillIntent(ctx context.Context, id int64, reason string) (BillIntent, error) {
	in, err := s.moveIntent(ctx, id, IntentHeld, reason, IntentPending, IntentStacking)
	if err != nil {
		return BillIntent{}, fmt.Errorf("hold bill intent %d: %w", id, err)
	}
	return in, nil
}

// CloseHeldIntent is staff's decision that the note of a held intent is
// not in the cash box: the intent is void with staff's reason, logged in
// the same transaction. ErrIntentState if it is not held.
func (s *Store) CloseHeldIntent(ctx context.Context, id int64, reason string) (BillIntent, error) {
	in, err := s.moveIntent(ctx, id, IntentVoid, reason, IntentHeld)
	if err != nil {
		return BillIntent{}, fmt.Errorf("close held bill intent %d: %w", id, err)
	}
	return in, nil
}

// CreditHeldIntent is staff's decision that the note of a held intent is
// in the cash box: it is credited at the intent's recorded value, with
// staff's reason, and logged, in one transaction (as CreditBillIntent).
// ErrIntentState if it is not held.
func (s *Store) CreditHeldIntent(ctx context.Context, id int64, reason string) (Entry, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return Entry{}, fmt.Errorf("credit held bill intent %d: no reason: %w", id, ErrBadRequest)
	}
	var out Entry
	err := s.write(ctx, func(t *wtx) error {
		in, err := t.intent(id)
		if err != nil {
			return err
		}
		if in.State != IntentHeld {
			return fmt.Errorf("intent is %s: %w", in.State, ErrIntentState)
		}
		if out, err = t.creditIntent(in, reason); err != nil {
			return err
		}
		_, err = t.logEvent(LevelWarning, "staff", "held_intent_credited", fmt.Sprintf(
			"intent %d: note of %s credited by staff (ledger row %d, balance %s): %s", id, in.Denom.Plain(), out.ID, out.Balance.Plain(), reason))
		return err
	})
	if err != nil {
		return Entry{}, fmt.Errorf("credit held bill intent %d: %w", id, err)
	}
	return out, nil
}

func (t *wtx) intent(id int64) (BillIntent, error) {
	in, err := scanIntent(t.rowQ(`SELECT `+intentColumns+` FROM bill_intents WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return BillIntent{}, ErrNotFound
	}
	return in, err
}

// moveIntent takes an intent from one of the states from to state to,
// with a reason (required except for stacking), and logs the holds and
// staff's closes in the same transaction.
func (s *Store) moveIntent(ctx context.Context, id int64, to IntentState, reason string, from ...IntentState) (BillIntent, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" && to != IntentStacking {
		return BillIntent{}, fmt.Errorf("no reason: %w", ErrBadRequest)
	}
	var out BillIntent
	err := s.write(ctx, func(t *wtx) error {
		in, err := t.intent(id)
		if err != nil {
			return err
		}
		if !slices.Contains(from, in.State) {
			return fmt.Errorf("intent is %s: %w", in.State, ErrIntentState)
		}
		var resolved any // NULL while the intent waits for someone
		if to == IntentVoid {
			resolved = t.now
		}
		if to == IntentStacking {
			reason = in.Reason
		}
		if _, err := t.execQ(`UPDATE bill_intents SET state = ?, resolved_at = ?, reason = ? WHERE id = ?`,
			string(to), resolved, reason, id); err != nil {
			return err
		}
		if err := t.intentStep(id, to, 0, reason); err != nil {
			return err
		}
		switch {
		case to == IntentHeld:
			_, err = t.logEvent(LevelCritical, "validator", "intent_held", fmt.Sprintf(
				"intent %d: note of %s, %s; held, not credited: staff count the cash box, then credit or close it", id, in.Denom.Plain(), reason))
		case in.State == IntentHeld:
			_, err = t.logEvent(LevelWarning, "staff", "held_intent_closed", fmt.Sprintf(
				"intent %d: note of %s not credited, closed by staff: %s", id, in.Denom.Plain(), reason))
		}
		if err != nil {
			return err
		}
		in.State, in.Reason = to, reason
		if to == IntentVoid {
			in.Resolved = time.Unix(0, t.now).UTC()
		}
		out = in
		return nil
	})
	return out, err
}

// BillIntent returns one intent; ErrNotFound if there is none.
func (s *Store) BillIntent(ctx context.Context, id int64) (BillIntent, error) {
	return s.oneIntent(ctx, "bill intent", `WHERE id = ?`, id)
}

// PendingBillIntent returns the open intent, pending or stacking (there is
// at most one); ErrNotFound when none is open.
func (s *Store) PendingBillIntent(ctx context.Context) (BillIntent, error) {
	return s.oneIntent(ctx, "pending bill intent", `WHERE state = 'pending' OR state = 'stacking'`)
}

// HeldIntents returns the intents held for staff, oldest first: notes that
// may be in the cash box without a credit (HoldBillIntent). The
// maintenance screen lists them; staff resolve each with CreditHeldIntent
// or CloseHeldIntent.
func (s *Store) HeldIntents(ctx context.Context) ([]BillIntent, error) {
	return s.intents(ctx, "held bill intents", `WHERE state = 'held' ORDER BY id`)
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
	return s.intents(ctx, "bill intents", `WHERE id < ? ORDER BY id DESC LIMIT ?`, beforeID, n)
}

func (s *Store) intents(ctx context.Context, what, where string, args ...any) ([]BillIntent, error) {
	var out []BillIntent
	err := s.read(ctx, func(tx *rtx) error {
		rows, err := tx.query(`SELECT `+intentColumns+` FROM bill_intents `+where, args...)
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
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}
