package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"pharaon/game"
)

// VoucherState is where a cash-out voucher stands.
type VoucherState string

const (
	// VoucherIssued: written before the print; no money moved. It becomes
	// printed when the printer confirms, or void.
	VoucherIssued VoucherState = "issued"
	// VoucherPrinted: the printer confirmed it and the credit was debited:
	// payable until it expires.
	VoucherPrinted VoucherState = "printed"
	// VoucherPaid: staff paid it.
	VoucherPaid VoucherState = "paid"
	// VoucherExpired: not paid before its expiry date.
	VoucherExpired VoucherState = "expired"
	// VoucherVoid: its print was not confirmed; never payable, the credit
	// stayed with the player.
	VoucherVoid VoucherState = "void"
)

// Voucher is a cash-out voucher.
type Voucher struct {
	// ID is also the voucher's sequence number, printed on it: 1, 2, 3…
	// per kiosk, without a gap (a void voucher keeps its number).
	ID int64
	// Validation is the 18-digit number that pays the voucher. Screens
	// never show it in full while the voucher is payable.
	Validation string
	Amount     game.Money
	Issued     time.Time
	Expires    time.Time
	State      VoucherState
	Updated    time.Time
	Printed    time.Time // zero until printed
	Paid       time.Time // zero until paid
	PaidBy     string    // who paid it (the role at the maintenance screen), "" until paid
	EntryID    int64     // the ledger row that debited the credit, 0 until printed
	Reprints   int       // duplicates printed
	VoidReason string
}

// Payable reports whether staff may pay the voucher at time now: printed,
// not paid, not expired.
func (v Voucher) Payable(now time.Time) bool {
	return v.State == VoucherPrinted && now.Before(v.Expires)
}

// VoucherRequest is a cash-out about to be printed.
type VoucherRequest struct {
	// Amount must be the whole credit: a cash-out pays everything out.
	Amount game.Money
	// Validation is the voucher's 18-digit number, made by the kiosk from
	// crypto/rand with its check digits; never used before.
	Validation string
	// Expires is when the voucher stops being payable (after the store's now).
	Expires time.Time
}

const voucherColumns = `id, validation, amount, at, expires_at, state, updated_at, coalesce(printed_at, 0),
	coalesce(paid_at, 0), coalesce(entry_id, 0), reprints, void_reason,
	coalesce((SELECT detail FROM voucher_steps WHERE voucher_id = vouchers.id AND state = 'paid'), '')`

func scanVoucher(sc interface{ Scan(...any) error }) (Voucher, error) {
	var v Voucher
	var amount, at, expires, updated, printed, paid int64
	var state string
	if err := sc.Scan(&v.ID, &v.Validation, &amount, &at, &expires, &state, &updated, &printed, &paid,
		&v.EntryID, &v.Reprints, &v.VoidReason, &v.PaidBy); err != nil {
		return Voucher{}, err
	}
	v.Amount, v.State = game.Money(amount), VoucherState(state)
	v.Issued, v.Expires, v.Updated = time.Unix(0, at).UTC(), time.Unix(0, expires).UTC(), time.Unix(0, updated).UTC()
	if printed != 0 {
		v.Printed = time.Unix(0, printed).UTC()
	}
	if paid != 0 {
		v.Paid = time.Unix(0, paid).UTC()
	}
	return v, nil
}

// voucherRow is the immutable part of a voucher, as the chain hashes it.
type voucherRow struct {
	id, at         int64
	validation     string
	amount         int64
	expires        int64
	prevHash, hash []byte
}

// voucherStepRow is one state change of a voucher, chained.
type voucherStepRow struct {
	id, voucherID, at int64
	state             string
	entryID           int64
	detail            string
	prevHash, hash    []byte
}

const (
	domainVoucher     = "pharaon/voucher/v1"
	domainVoucherStep = "pharaon/voucher_step/v1"
	stepReprint       = "reprint" // a voucher_steps state that is not a voucher state
)

func voucherHash(prev []byte, v *voucherRow) []byte {
	return newRowHash(domainVoucher, prev).int(v.id).int(v.at).str(v.validation).int(v.amount).int(v.expires).sum()
}

func voucherStepHash(prev []byte, s *voucherStepRow) []byte {
	return newRowHash(domainVoucherStep, prev).int(s.id).int(s.voucherID).int(s.at).str(s.state).
		int(s.entryID).str(s.detail).sum()
}

// IssueVoucher writes a voucher about to be printed, in state issued: the
// durable intent of a cash-out. It moves no money. Refused when the credit
// is not exactly req.Amount (ErrBadAmount: a cash-out pays the whole
// credit), when a play is unfinished (ErrPlayInProgress), when another
// voucher is issued and unconfirmed (ErrVoucherPending), when the
// validation number is not 18 digits or the expiry not in the future
// (ErrBadRequest), or when the validation number was used before
// (ErrDuplicateRef).
func (s *Store) IssueVoucher(ctx context.Context, req VoucherRequest) (Voucher, error) {
	switch {
	case req.Amount <= 0:
		return Voucher{}, fmt.Errorf("issue voucher of %s: %w", req.Amount, ErrBadAmount)
	case !validValidation(req.Validation):
		return Voucher{}, fmt.Errorf("issue voucher: validation number %q is not %d digits: %w", req.Validation, ValidationDigits, ErrBadRequest)
	}
	var out Voucher
	err := s.write(ctx, func(t *wtx) error {
		t.movesMoneyOut() // the voucher is printed next: its paper is money out
		if err := t.noUnfinishedPlay(); err != nil {
			return err
		}
		var pending int64
		err := t.rowQ(`SELECT id FROM vouchers WHERE state = 'issued'`).Scan(&pending)
		switch {
		case err == nil:
			return fmt.Errorf("voucher %d: %w", pending, ErrVoucherPending)
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		_, balance, _, err := t.lastEntry()
		if err != nil {
			return fmt.Errorf("read credit: %w", err)
		}
		if balance != int64(req.Amount) {
			return fmt.Errorf("credit is %s: %w", game.Money(balance), ErrBadAmount)
		}
		id, err := t.insertVoucher(req.Validation, req.Amount, req.Expires)
		if err != nil {
			return err
		}
		out, err = t.voucher(`WHERE id = ?`, id)
		return err
	})
	if err != nil {
		return Voucher{}, fmt.Errorf("issue voucher of %s: %w", req.Amount, err)
	}
	return out, nil
}

// insertVoucher writes the next voucher of the chain, in state issued,
// with a validation number never used before (ErrDuplicateRef) and an
// expiry after now (ErrBadRequest); it returns its number.
func (t *wtx) insertVoucher(validation string, amount game.Money, expires time.Time) (int64, error) {
	if expires.UnixNano() <= t.now {
		return 0, fmt.Errorf("expiry %s is not in the future: %w", expires.UTC().Format(time.RFC3339), ErrBadRequest)
	}
	var used int64
	err := t.rowQ(`SELECT (SELECT count(*) FROM vouchers WHERE validation = ?) +
		(SELECT count(*) FROM ledger WHERE kind = 'voucher_out' AND ref = ?)`, validation, validation).Scan(&used)
	if err != nil {
		return 0, err
	}
	if used > 0 {
		return 0, fmt.Errorf("validation number already used: %w", ErrDuplicateRef)
	}
	v := voucherRow{at: t.now, validation: validation, amount: int64(amount), expires: expires.UnixNano(), prevHash: genesis}
	var last int64
	if err := t.rowQ(`SELECT id, hash FROM vouchers ORDER BY id DESC LIMIT 1`).Scan(&last, &v.prevHash); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	v.id = last + 1
	v.hash = voucherHash(v.prevHash, &v)
	if _, err := t.execQ(`INSERT INTO vouchers(id, at, validation, amount, expires_at, prev_hash, hash, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, v.id, v.at, v.validation, v.amount, v.expires, v.prevHash, v.hash, v.at); err != nil {
		return 0, fmt.Errorf("insert voucher: %w", err)
	}
	t.heads.set(chVouchers, v.id, v.hash)
	return v.id, nil
}

// ConfirmVoucher is the cash-out's money transaction, called once the
// printer confirmed the print: the ledger's voucher_out row debiting the
// voucher's amount (reference: its validation number), the meters, and the
// voucher marked printed, in one commit. The debit is the voucher's amount,
// not "whatever the credit is": a note credited while the voucher printed
// stays on the credit. Asked again for a printed voucher, it writes
// nothing and returns the voucher and its entry with an error wrapping
// ErrDuplicateRef; a voucher in another state is ErrVoucherState. Refused
// while a play is unfinished (ErrPlayInProgress) and when the credit no
// longer covers the amount (ErrInsufficientCredit): the kiosk then voids the
// voucher.
func (s *Store) ConfirmVoucher(ctx context.Context, id int64) (Voucher, Entry, error) {
	var (
		out Voucher
		e   Entry
	)
	err := s.write(ctx, func(t *wtx) error {
		t.movesMoneyOut() // the voucher printed
		v, err := t.voucher(`WHERE id = ?`, id)
		if err != nil {
			return err
		}
		switch v.State {
		case VoucherIssued:
		case VoucherPrinted, VoucherPaid, VoucherExpired:
			first, err := scanEntry(t.rowQ(`SELECT `+entryColumns+` FROM ledger WHERE id = ?`, v.EntryID))
			if err != nil {
				return fmt.Errorf("read its debit, ledger row %d: %w", v.EntryID, err)
			}
			out, e = v, first.entry()
			return fmt.Errorf("voucher %d confirmed by ledger row %d: %w", id, v.EntryID, ErrDuplicateRef)
		default:
			return fmt.Errorf("voucher %d is %s: %w", id, v.State, ErrVoucherState)
		}
		e, err = t.move(KindVoucherOut, -v.Amount, v.Validation, fmt.Sprintf("voucher %d", v.ID), true)
		if errors.Is(err, ErrDuplicateRef) {
			return integrity("cash", "ledger", e.ID, "row holds validation number of voucher %d, which is issued", id)
		}
		if err != nil {
			return err
		}
		if _, err := t.execQ(`UPDATE vouchers SET state = 'printed', printed_at = ?, entry_id = ?, updated_at = ? WHERE id = ?`,
			t.now, e.ID, t.now, id); err != nil {
			return fmt.Errorf("mark voucher printed: %w", err)
		}
		if err := t.voucherStep(id, string(VoucherPrinted), e.ID, ""); err != nil {
			return err
		}
		out, err = t.voucher(`WHERE id = ?`, id)
		return err
	})
	if err != nil {
		if errors.Is(err, ErrDuplicateRef) {
			return out, e, fmt.Errorf("confirm voucher: %w", err)
		}
		return Voucher{}, Entry{}, fmt.Errorf("confirm voucher %d: %w", id, err)
	}
	return out, e, nil
}

// VoidVoucher voids an issued voucher whose print was not confirmed: it is
// never payable and the credit stays. reason (required) says why: "paper
// out", "kiosk restarted before the print was confirmed", … A voucher in
// another state is ErrVoucherState.
func (s *Store) VoidVoucher(ctx context.Context, id int64, reason string) (Voucher, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return Voucher{}, fmt.Errorf("void voucher %d: no reason: %w", id, ErrBadRequest)
	}
	var out Voucher
	err := s.write(ctx, func(t *wtx) error {
		v, err := t.voucher(`WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if v.State != VoucherIssued {
			return fmt.Errorf("voucher is %s: %w", v.State, ErrVoucherState)
		}
		if _, err := t.execQ(`UPDATE vouchers SET state = 'void', void_reason = ?, updated_at = ? WHERE id = ?`, reason, t.now, id); err != nil {
			return err
		}
		if err := t.voucherStep(id, string(VoucherVoid), 0, reason); err != nil {
			return err
		}
		if err := t.meters(MeterVouchersVoidCount, 1); err != nil {
			return err
		}
		out, err = t.voucher(`WHERE id = ?`, id)
		return err
	})
	if err != nil {
		return Voucher{}, fmt.Errorf("void voucher %d: %w", id, err)
	}
	return out, nil
}

// RecordReprint counts a duplicate of a printed voucher, once the printer
// confirmed it. No money moves. A voucher not in state printed (never
// printed, paid, expired, void) is ErrVoucherState: only a payable voucher
// is reprinted.
func (s *Store) RecordReprint(ctx context.Context, id int64) (Voucher, error) {
	var out Voucher
	err := s.write(ctx, func(t *wtx) error {
		v, err := t.voucher(`WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if v.State != VoucherPrinted {
			return fmt.Errorf("voucher is %s: %w", v.State, ErrVoucherState)
		}
		if _, err := t.execQ(`UPDATE vouchers SET reprints = reprints + 1, updated_at = ? WHERE id = ?`, t.now, id); err != nil {
			return err
		}
		if err := t.voucherStep(id, stepReprint, 0, fmt.Sprintf("duplicate %d", v.Reprints+1)); err != nil {
			return err
		}
		if err := t.meters(MeterVoucherReprints, 1); err != nil {
			return err
		}
		out, err = t.voucher(`WHERE id = ?`, id)
		return err
	})
	if err != nil {
		return Voucher{}, fmt.Errorf("reprint voucher %d: %w", id, err)
	}
	return out, nil
}

// VoucherRefusal is a payment PayVoucher refused for the voucher's state
// (ErrVoucherPaid, ErrVoucherExpired, ErrVoucherState): errors.As gives the
// voucher as it stands, without its validation number, so that a screen
// says when and by whom it was paid, when it expired, or why it is void.
type VoucherRefusal struct {
	Voucher Voucher
	err     error
}

func (e *VoucherRefusal) Error() string { return e.err.Error() }
func (e *VoucherRefusal) Unwrap() error { return e.err }

// PayVoucher records that staff (by: who paid, the role at the maintenance
// screen) paid the voucher with this validation number, at the store's
// now. Refused: unknown number (ErrNotFound), already paid (ErrVoucherPaid,
// saying when and by whom), past its expiry (ErrVoucherExpired, even
// before ExpireVouchers marked it), never printed or void
// (ErrVoucherState, with the reason). Paying moves no credit (the player's
// credit left the kiosk when the voucher printed); it counts the paid
// meters.
func (s *Store) PayVoucher(ctx context.Context, validation, by string) (Voucher, error) {
	if by = strings.TrimSpace(by); by == "" {
		return Voucher{}, fmt.Errorf("pay voucher: who pays it: %w", ErrBadRequest)
	}
	if !validValidation(validation) {
		return Voucher{}, fmt.Errorf("pay voucher: %q is not %d digits: %w", validation, ValidationDigits, ErrBadRequest)
	}
	var out Voucher
	err := s.write(ctx, func(t *wtx) error {
		t.movesMoneyOut() // cash handed out at the counter
		// A payout is the last moment a cut history costs money: the
		// heads must be the anchored ones, and this voucher's own chain
		// whole (a removed "paid" step would pay it twice).
		if err := t.checkAnchor(); err != nil {
			return err
		}
		v, err := t.voucher(`WHERE validation = ?`, validation)
		if err != nil {
			return err
		}
		if err := t.checkVoucherSteps(v); err != nil {
			return err
		}
		refused := func(err error) error {
			v.Validation = "" // the refusal is shown and logged: never the number that pays it
			return &VoucherRefusal{Voucher: v, err: err}
		}
		switch {
		case v.State == VoucherPaid:
			return refused(fmt.Errorf("voucher %d paid at %s by %s: %w", v.ID, v.Paid.Format(time.RFC3339), v.PaidBy, ErrVoucherPaid))
		case v.State == VoucherExpired || (v.State == VoucherPrinted && t.now >= v.Expires.UnixNano()):
			return refused(fmt.Errorf("voucher %d expired at %s: %w", v.ID, v.Expires.Format(time.RFC3339), ErrVoucherExpired))
		case v.Test():
			return refused(fmt.Errorf("voucher %d: %w", v.ID, ErrVoucherTest))
		case v.State == VoucherVoid:
			return refused(fmt.Errorf("voucher %d is void (%s): %w", v.ID, v.VoidReason, ErrVoucherState))
		case v.State != VoucherPrinted:
			return refused(fmt.Errorf("voucher %d is %s: %w", v.ID, v.State, ErrVoucherState))
		}
		if _, err := t.execQ(`UPDATE vouchers SET state = 'paid', paid_at = ?, updated_at = ? WHERE id = ?`, t.now, t.now, v.ID); err != nil {
			return err
		}
		if err := t.voucherStep(v.ID, string(VoucherPaid), 0, by); err != nil {
			return err
		}
		if err := t.meters(MeterVouchersPaid, int64(v.Amount), MeterVouchersPaidCount, 1); err != nil {
			return err
		}
		out, err = t.voucher(`WHERE id = ?`, v.ID)
		return err
	})
	if err != nil {
		return Voucher{}, fmt.Errorf("pay voucher: %w", err)
	}
	return out, nil
}

// ExpireVouchers marks expired every printed voucher whose expiry is at or
// before now, and returns them. The kiosk calls it at start and then from
// time to time.
func (s *Store) ExpireVouchers(ctx context.Context, now time.Time) ([]Voucher, error) {
	var out []Voucher
	err := s.write(ctx, func(t *wtx) error {
		out = out[:0]
		ids, err := t.voucherIDs(`WHERE state = 'printed' AND expires_at <= ? ORDER BY id`, now.UnixNano())
		if err != nil {
			return err
		}
		for _, id := range ids {
			if _, err := t.execQ(`UPDATE vouchers SET state = 'expired', updated_at = ? WHERE id = ?`, t.now, id); err != nil {
				return err
			}
			if err := t.voucherStep(id, string(VoucherExpired), 0, ""); err != nil {
				return err
			}
			v, err := t.voucher(`WHERE id = ?`, id)
			if err != nil {
				return err
			}
			if err := t.meters(MeterVouchersExpired, int64(v.Amount), MeterVouchersExpiredCount, 1); err != nil {
				return err
			}
			out = append(out, v)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("expire vouchers: %w", err)
	}
	return out, nil
}

func (t *wtx) voucher(where string, args ...any) (Voucher, error) {
	v, err := scanVoucher(t.rowQ(`SELECT `+voucherColumns+` FROM vouchers `+where, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return Voucher{}, fmt.Errorf("voucher: %w", ErrNotFound)
	}
	return v, err
}

// voucherIDs lists the ids a query selects (within a write transaction).
func (t *wtx) voucherIDs(where string, args ...any) ([]int64, error) {
	r, err := t.query(`SELECT id FROM vouchers `+where, args...)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var ids []int64
	for r.Next() {
		var id int64
		if err := r.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, r.Err()
}

// voucherStep appends a row to the chained history of voucher state changes.
func (t *wtx) voucherStep(voucherID int64, state string, entryID int64, detail string) error {
	s := voucherStepRow{voucherID: voucherID, at: t.now, state: state, entryID: entryID, detail: detail, prevHash: genesis}
	var last int64
	if err := t.rowQ(`SELECT id, hash FROM voucher_steps ORDER BY id DESC LIMIT 1`).Scan(&last, &s.prevHash); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	s.id = last + 1
	s.hash = voucherStepHash(s.prevHash, &s)
	if _, err := t.execQ(`INSERT INTO voucher_steps(id, voucher_id, at, state, entry_id, detail, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		s.id, s.voucherID, s.at, s.state, nullID(entryID), s.detail, s.prevHash, s.hash); err != nil {
		return fmt.Errorf("insert voucher step: %w", err)
	}
	t.heads.set(chVoucherSteps, s.id, s.hash)
	return nil
}

// Voucher returns one voucher by its number; ErrNotFound if there is none.
func (s *Store) Voucher(ctx context.Context, id int64) (Voucher, error) {
	return s.oneVoucher(ctx, `WHERE id = ?`, id)
}

// VoucherByValidation returns the voucher with this validation number;
// ErrNotFound if there is none.
func (s *Store) VoucherByValidation(ctx context.Context, validation string) (Voucher, error) {
	return s.oneVoucher(ctx, `WHERE validation = ?`, validation)
}

// PendingVoucher returns the voucher issued and neither confirmed nor
// voided (there is at most one): after a restart the kiosk voids it.
// ErrNotFound when there is none.
func (s *Store) PendingVoucher(ctx context.Context) (Voucher, error) {
	return s.oneVoucher(ctx, `WHERE state = 'issued'`)
}

// LastVoucher returns the newest voucher that was printed (printed, paid
// or expired), the one a duplicate would reproduce; ErrNotFound if none.
func (s *Store) LastVoucher(ctx context.Context) (Voucher, error) {
	return s.oneVoucher(ctx, `WHERE printed_at IS NOT NULL ORDER BY id DESC LIMIT 1`)
}

func (s *Store) oneVoucher(ctx context.Context, where string, args ...any) (Voucher, error) {
	var v Voucher
	err := s.read(ctx, func(tx *rtx) error {
		var err error
		v, err = scanVoucher(tx.queryRow(`SELECT `+voucherColumns+` FROM vouchers `+where, args...))
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		return err
	})
	if err != nil {
		return Voucher{}, fmt.Errorf("voucher: %w", err)
	}
	return v, nil
}

// Vouchers returns up to n vouchers, newest first, numbered below beforeID
// (0: from the newest).
func (s *Store) Vouchers(ctx context.Context, n int, beforeID int64) ([]Voucher, error) {
	if beforeID <= 0 {
		beforeID = 1<<63 - 1
	}
	var out []Voucher
	err := s.read(ctx, func(tx *rtx) error {
		rows, err := tx.query(`SELECT `+voucherColumns+` FROM vouchers WHERE id < ? ORDER BY id DESC LIMIT ?`, beforeID, n)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			v, err := scanVoucher(rows)
			if err != nil {
				return err
			}
			out = append(out, v)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("vouchers: %w", err)
	}
	return out, nil
}

// checkVoucherSteps checks one voucher against its chain, inside a write
// transaction: its row's hash, each of its steps' hash and both its
// neighbours in the steps' chain (a step removed after it or before it
// leaves a hole), and its state replayed from its steps.
func (t *wtx) checkVoucherSteps(v Voucher) error {
	var r voucherRow
	if err := t.rowQ(`SELECT id, at, validation, amount, expires_at, prev_hash, hash FROM vouchers WHERE id = ?`, v.ID).
		Scan(&r.id, &r.at, &r.validation, &r.amount, &r.expires, &r.prevHash, &r.hash); err != nil {
		return err
	}
	if string(voucherHash(r.prevHash, &r)) != string(r.hash) {
		return integrity("chain", "vouchers", v.ID, "content does not match its hash")
	}
	rows, err := t.query(`SELECT id, voucher_id, at, state, coalesce(entry_id, 0), detail, prev_hash, hash
		FROM voucher_steps WHERE voucher_id = ? ORDER BY id`, v.ID)
	if err != nil {
		return err
	}
	var steps []voucherStepRow
	for rows.Next() {
		var s voucherStepRow
		if err := rows.Scan(&s.id, &s.voucherID, &s.at, &s.state, &s.entryID, &s.detail, &s.prevHash, &s.hash); err != nil {
			rows.Close()
			return err
		}
		steps = append(steps, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	var last int64
	if err := t.rowQ(`SELECT coalesce(max(id), 0) FROM voucher_steps`).Scan(&last); err != nil {
		return err
	}
	replayed := string(VoucherIssued)
	for _, s := range steps {
		if string(voucherStepHash(s.prevHash, &s)) != string(s.hash) {
			return integrity("chain", "voucher_steps", s.id, "content does not match its hash")
		}
		var prev []byte
		err := t.rowQ(`SELECT hash FROM voucher_steps WHERE id = ?`, s.id-1).Scan(&prev)
		switch {
		case s.id == 1 && string(s.prevHash) != string(genesis):
			return integrity("chain", "voucher_steps", s.id, "first step does not start the chain")
		case s.id > 1 && (err != nil || string(prev) != string(s.prevHash)):
			return integrity("chain", "voucher_steps", s.id, "previous step %d is missing or not its previous", s.id-1)
		}
		if s.id < last {
			var next []byte
			err := t.rowQ(`SELECT prev_hash FROM voucher_steps WHERE id = ?`, s.id+1).Scan(&next)
			if err != nil || string(next) != string(s.hash) {
				return integrity("chain", "voucher_steps", s.id, "next step %d is missing or not its next", s.id+1)
			}
		}
		if s.state != stepReprint {
			replayed = s.state
		}
	}
	if replayed != string(v.State) {
		return integrity("chain", "vouchers", v.ID, "state %s, its steps say %s", v.State, replayed)
	}
	return nil
}
