package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"pharaon/game"
)

// Kind is the kind of a ledger movement.
type Kind string

// The movements of money. Stake and win rows are written by the plays;
// the others by the cash operations below.
const (
	KindBillIn     Kind = "bill_in"     // a bank note accepted (credit)
	KindStake      Kind = "stake"       // a play's stake (debit, Art. 4.1)
	KindWin        Kind = "win"         // a play's prize (credit, Art. 4.8)
	KindVoucherOut Kind = "voucher_out" // cash-out by printed voucher (debit)
	KindHandPay    Kind = "hand_pay"    // staff paid the player by hand (debit)
	KindAdjustment Kind = "adjustment"  // staff correction (either sign)
	KindTest       Kind = "test"        // technician's test movement (either sign)
)

// Entry is one row of the ledger: append-only, each with the credit after
// it. The current credit is the balance of the last row.
type Entry struct {
	ID      int64
	At      time.Time
	Kind    Kind
	Amount  game.Money // credit positive, debit negative
	Balance game.Money // the credit after this movement
	PlayID  int64      // the play of a stake or win row, 0 otherwise
	Ref     string     // idempotency key: note sequence, voucher number, …
	Note    string
}

// banknotes are the euro bank notes a bill validator can report.
var banknotes = [...]game.Money{5 * game.Euro, 10 * game.Euro, 20 * game.Euro, 50 * game.Euro,
	100 * game.Euro, 200 * game.Euro, 500 * game.Euro}

// Banknotes lists the euro bank notes BillIn accepts, smallest first.
func Banknotes() []game.Money { return append([]game.Money(nil), banknotes[:]...) }

func isBanknote(m game.Money) bool {
	for _, b := range banknotes {
		if m == b {
			return true
		}
	}
	return false
}

const entryColumns = `id, at, kind, amount, balance_after, coalesce(play_id, 0), coalesce(ref, ''), note, prev_hash, hash`

func scanEntry(sc interface{ Scan(...any) error }) (entryRow, error) {
	var e entryRow
	err := sc.Scan(&e.id, &e.at, &e.kind, &e.amount, &e.balance, &e.playID, &e.ref, &e.note, &e.prevHash, &e.hash)
	return e, err
}

func (e entryRow) entry() Entry {
	return Entry{ID: e.id, At: time.Unix(0, e.at).UTC(), Kind: Kind(e.kind), Amount: game.Money(e.amount),
		Balance: game.Money(e.balance), PlayID: e.playID, Ref: e.ref, Note: e.note}
}

// lastEntry is the id, balance and hash of the last ledger row.
func (t *wtx) lastEntry() (id, balance int64, hash []byte, err error) {
	err = t.row(stLastEntry).Scan(&id, &balance, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, genesis, nil
	}
	return id, balance, hash, err
}

// appendEntry writes the next ledger row. A debit below zero is
// ErrInsufficientCredit (the schema would refuse it too).
func (t *wtx) appendEntry(kind Kind, amount, playID int64, ref, note string) (entryRow, error) {
	last, balance, prev, err := t.lastEntry()
	if err != nil {
		return entryRow{}, fmt.Errorf("read credit: %w", err)
	}
	if balance+amount < 0 {
		return entryRow{}, fmt.Errorf("credit %s, debit %s: %w", game.Money(balance), game.Money(-amount), ErrInsufficientCredit)
	}
	e := entryRow{id: last + 1, at: t.now, kind: string(kind), amount: amount, balance: balance + amount,
		playID: playID, ref: ref, note: note, prevHash: prev}
	if err := t.insertEntry(&e); err != nil {
		return entryRow{}, err
	}
	return e, nil
}

func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

func nullText(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Credit is the player's current credit: the balance of the last ledger row.
func (s *Store) Credit(ctx context.Context) (game.Money, error) {
	var bal int64
	err := s.read(ctx, func(tx *rtx) error {
		err := tx.queryRow(`SELECT balance_after FROM ledger ORDER BY id DESC LIMIT 1`).Scan(&bal)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("credit: %w", err)
	}
	return game.Money(bal), nil
}

// BillIn credits a bank note the validator reported irrevocably accepted
// (DESIGN.md §7). ref identifies that acceptance (the validator's note
// sequence, say) and makes the credit exactly-once: a second BillIn with the
// same ref writes nothing and returns the first entry with an error
// wrapping ErrDuplicateRef. A reference of a bill intent's credit
// ("intent:…", see IntentRef) is CreditBillIntent's alone: ErrBadRequest.
func (s *Store) BillIn(ctx context.Context, denom game.Money, ref string) (Entry, error) {
	if !isBanknote(denom) {
		return Entry{}, fmt.Errorf("bill in %s: not a euro bank note: %w", denom, ErrBadAmount)
	}
	if isIntentRef(ref) {
		return Entry{}, fmt.Errorf("bill in %s: reference %q is a bill intent's (CreditBillIntent credits it): %w", denom, ref, ErrBadRequest)
	}
	e, err := s.move(ctx, KindBillIn, denom, ref, "", false)
	if err != nil {
		return e, fmt.Errorf("bill in %s (%s): %w", denom, ref, err)
	}
	return e, nil
}

// VoucherOut debits amount (> 0) paid out by a printed voucher numbered
// ref. The kiosk calls it once the printer confirmed the print (DESIGN.md
// §7); a second call with the same ref is ErrDuplicateRef and writes
// nothing. Refused while a play is unfinished. A reference with the form
// of a validation number (ValidationDigits digits) is a voucher's debit,
// ConfirmVoucher's alone: ErrBadRequest.
func (s *Store) VoucherOut(ctx context.Context, amount game.Money, ref string) (Entry, error) {
	if amount <= 0 {
		return Entry{}, fmt.Errorf("voucher out %s: %w", amount, ErrBadAmount)
	}
	if validValidation(ref) {
		return Entry{}, fmt.Errorf("voucher out %s: reference %q is a validation number (ConfirmVoucher debits it): %w", amount, ref, ErrBadRequest)
	}
	e, err := s.move(ctx, KindVoucherOut, -amount, ref, "", true)
	if err != nil {
		return e, fmt.Errorf("voucher out %s (%s): %w", amount, ref, err)
	}
	return e, nil
}

// HandPay debits amount (> 0) that staff paid the player by hand (a win
// above the kiosk's limit); ref is the hand-pay's reference, used once.
// The hand-pay lock of that reference (SettingHandPayLock), if pending,
// ends in the same commit. Refused while a play is unfinished.
func (s *Store) HandPay(ctx context.Context, amount game.Money, ref string) (Entry, error) {
	if amount <= 0 {
		return Entry{}, fmt.Errorf("hand pay %s: %w", amount, ErrBadAmount)
	}
	var e Entry
	err := s.write(ctx, func(t *wtx) error {
		t.movesMoneyOut() // cash handed out by staff
		var err error
		if e, err = t.move(KindHandPay, -amount, ref, "", true); err != nil {
			return err
		}
		// The lock this payment settles ends in the same commit.
		lock, err := t.handPayLock()
		if err != nil || !lock.Pending() || lock.Ref != ref {
			return err
		}
		return t.setSetting(sourceKiosk, SettingHandPayLock, "")
	})
	if err != nil {
		return e, fmt.Errorf("hand pay %s (%s): %w", amount, ref, err)
	}
	return e, nil
}

// Adjust is a staff correction of the credit by amount (either sign, not
// zero), with the reason in note (required). ref, if not empty, is used once.
func (s *Store) Adjust(ctx context.Context, amount game.Money, ref, note string) (Entry, error) {
	if amount == 0 {
		return Entry{}, fmt.Errorf("adjust: zero: %w", ErrBadAmount)
	}
	if note == "" {
		return Entry{}, fmt.Errorf("adjust %s: no reason given: %w", amount, ErrBadRequest)
	}
	e, err := s.move(ctx, KindAdjustment, amount, ref, note, false)
	if err != nil {
		return e, fmt.Errorf("adjust %s: %w", amount, err)
	}
	return e, nil
}

// TestModeMovement is a technician's test movement of amount (either sign, not
// zero), counted on the test meters, apart from the money meters.
func (s *Store) TestModeMovement(ctx context.Context, amount game.Money, ref, note string) (Entry, error) {
	if amount == 0 {
		return Entry{}, fmt.Errorf("test movement: zero: %w", ErrBadAmount)
	}
	e, err := s.move(ctx, KindTest, amount, ref, note, false)
	if err != nil {
		return e, fmt.Errorf("test movement %s: %w", amount, err)
	}
	return e, nil
}

// move writes a cash movement and its meters in one transaction.
func (s *Store) move(ctx context.Context, kind Kind, amount game.Money, ref, note string, idle bool) (Entry, error) {
	var out Entry
	err := s.write(ctx, func(t *wtx) error {
		var err error
		out, err = t.move(kind, amount, ref, note, idle)
		return err
	})
	return out, err
}

func (t *wtx) move(kind Kind, amount game.Money, ref, note string, idle bool) (Entry, error) {
	if (kind == KindBillIn || kind == KindVoucherOut || kind == KindHandPay) && ref == "" {
		return Entry{}, fmt.Errorf("no reference: %w", ErrBadRequest)
	}
	if ref != "" {
		prev, err := scanEntry(t.row(stEntryByRef, string(kind), ref))
		switch {
		case err == nil:
			first := prev.entry()
			return first, fmt.Errorf("%s %q is ledger row %d of %s: %w", kind, ref, prev.id,
				first.At.Format(time.RFC3339), ErrDuplicateRef)
		case !errors.Is(err, sql.ErrNoRows):
			return Entry{}, err
		}
	}
	if idle {
		if err := t.noUnfinishedPlay(); err != nil {
			return Entry{}, err
		}
	}
	e, err := t.appendEntry(kind, int64(amount), 0, ref, note)
	if err != nil {
		return Entry{}, err
	}
	kv := make([]any, 0, 6)
	for _, d := range movementMeters(kind, amount) {
		kv = append(kv, d.name, d.delta)
	}
	if err := t.meters(kv...); err != nil {
		return Entry{}, err
	}
	return e.entry(), nil
}

// Entries returns up to n ledger rows, newest first, older than beforeID
// (0: from the newest).
func (s *Store) Entries(ctx context.Context, n int, beforeID int64) ([]Entry, error) {
	if beforeID <= 0 {
		beforeID = 1<<63 - 1
	}
	var out []Entry
	err := s.read(ctx, func(tx *rtx) error {
		rows, err := tx.query(`SELECT `+entryColumns+` FROM ledger WHERE id < ? ORDER BY id DESC LIMIT ?`, beforeID, n)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			e, err := scanEntry(rows)
			if err != nil {
				return err
			}
			out = append(out, e.entry())
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("ledger entries: %w", err)
	}
	return out, nil
}

// VerifyLedger checks every ledger row: ids follow each other, each
// balance is the previous one plus the amount, never negative, and the
// hash chain holds.
func (s *Store) VerifyLedger(ctx context.Context) error {
	return s.read(ctx, func(tx *rtx) error { return verifyLedger(tx) })
}

func verifyLedger(tx *rtx) error { return verifyLedgerFrom(tx, head{}) }

// verifyLedgerFrom checks the ledger from the row of a checkpoint (from;
// the zero head: from the first row): that row is the one checkpointed,
// and every row after it follows.
func verifyLedgerFrom(tx *rtx, from head) error {
	rows, err := tx.query(`SELECT `+entryColumns+` FROM ledger WHERE id >= ? ORDER BY id`, from.id)
	if err != nil {
		return fmt.Errorf("verify ledger: %w", err)
	}
	defer rows.Close()
	var id, balance int64
	prev := genesis
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return fmt.Errorf("verify ledger: %w", err)
		}
		if from.id != 0 && id == 0 {
			if err := checkpointRow("ledger", from, e.id, e.hash, entryHash(e.prevHash, &e)); err != nil {
				return err
			}
			id, balance, prev = e.id, e.balance, e.hash
			continue
		}
		switch {
		case e.id != id+1:
			return integrity("ledger", "ledger", e.id, "follows row %d", id)
		case e.balance != balance+e.amount:
			return integrity("ledger", "ledger", e.id, "balance %d after %d%+d", e.balance, balance, e.amount)
		case e.balance < 0:
			return integrity("ledger", "ledger", e.id, "negative balance %d", e.balance)
		case string(e.prevHash) != string(prev):
			return integrity("chain", "ledger", e.id, "previous hash does not match row %d", id)
		case string(entryHash(prev, &e)) != string(e.hash):
			return integrity("chain", "ledger", e.id, "content does not match its hash")
		}
		id, balance, prev = e.id, e.balance, e.hash
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("verify ledger: %w", err)
	}
	if from.id != 0 && id == 0 {
		return integrity("chain", "ledger", from.id, "the row checkpointed is missing")
	}
	return nil
}
