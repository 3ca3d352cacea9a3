package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// VerifyCash checks the cash tables against themselves and the ledger (it
// is part of Verify): the vouchers' and their steps' hash chains, each
// voucher's state replayed from its steps, exactly one debit of its amount
// for every voucher printed and none for the others, and exactly one credit
// of its note for every credited bill intent and none for the others.
func (s *Store) VerifyCash(ctx context.Context) error {
	return s.read(ctx, func(tx *rtx) error { return verifyCash(tx) })
}

func verifyCash(tx *rtx) error {
	if err := verifyVoucherChains(tx); err != nil {
		return err
	}
	if err := verifyVoucherMoney(tx); err != nil {
		return err
	}
	if err := verifyIntentChains(tx, head{}, head{}); err != nil {
		return err
	}
	return verifyIntents(tx)
}

// verifiedVoucher is what the steps must agree with.
type verifiedVoucher struct {
	state                   string
	entryID, printed, paid  int64
	reprints                int64
	replayed                string // state replayed from the steps
	stepEntry, stepPrinted  int64
	stepPaid, stepReprints  int64
	hasVoidReason, isVoided bool
	test                    bool // amount 0: only ever voided as a test voucher
}

// verifyVoucherChains walks the vouchers' chain, then the steps' chain,
// replaying each voucher's state changes.
func verifyVoucherChains(tx *rtx) error {
	rows, err := tx.query(`SELECT id, at, validation, amount, expires_at, prev_hash, hash, state, coalesce(entry_id, 0),
		coalesce(printed_at, 0), coalesce(paid_at, 0), reprints, void_reason <> '' FROM vouchers ORDER BY id`)
	if err != nil {
		return fmt.Errorf("verify vouchers chain: %w", err)
	}
	defer rows.Close()
	vs := map[int64]*verifiedVoucher{}
	var id int64
	prev := genesis
	for rows.Next() {
		var v voucherRow
		w := &verifiedVoucher{replayed: string(VoucherIssued)}
		if err := rows.Scan(&v.id, &v.at, &v.validation, &v.amount, &v.expires, &v.prevHash, &v.hash, &w.state,
			&w.entryID, &w.printed, &w.paid, &w.reprints, &w.hasVoidReason); err != nil {
			return fmt.Errorf("verify vouchers chain: %w", err)
		}
		switch {
		case v.id != id+1:
			return integrity("chain", "vouchers", v.id, "follows voucher %d", id)
		case string(v.prevHash) != string(prev):
			return integrity("chain", "vouchers", v.id, "previous hash does not match voucher %d", id)
		case string(voucherHash(prev, &v)) != string(v.hash):
			return integrity("chain", "vouchers", v.id, "content does not match its hash")
		}
		id, prev = v.id, v.hash
		w.test = v.amount == 0
		vs[v.id] = w
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("verify vouchers chain: %w", err)
	}

	steps, err := tx.query(`SELECT id, voucher_id, at, state, coalesce(entry_id, 0), detail, prev_hash, hash FROM voucher_steps ORDER BY id`)
	if err != nil {
		return fmt.Errorf("verify voucher steps chain: %w", err)
	}
	defer steps.Close()
	id, prev = 0, genesis
	for steps.Next() {
		var s voucherStepRow
		if err := steps.Scan(&s.id, &s.voucherID, &s.at, &s.state, &s.entryID, &s.detail, &s.prevHash, &s.hash); err != nil {
			return fmt.Errorf("verify voucher steps chain: %w", err)
		}
		switch {
		case s.id != id+1:
			return integrity("chain", "voucher_steps", s.id, "follows step %d", id)
		case string(s.prevHash) != string(prev):
			return integrity("chain", "voucher_steps", s.id, "previous hash does not match step %d", id)
		case string(voucherStepHash(prev, &s)) != string(s.hash):
			return integrity("chain", "voucher_steps", s.id, "content does not match its hash")
		}
		id, prev = s.id, s.hash
		w := vs[s.voucherID]
		if w == nil {
			return integrity("chain", "voucher_steps", s.id, "step of voucher %d, which does not exist", s.voucherID)
		}
		if err := w.step(&s); err != nil {
			return err
		}
	}
	if err := steps.Err(); err != nil {
		return fmt.Errorf("verify voucher steps chain: %w", err)
	}
	for vid := int64(1); vid <= int64(len(vs)); vid++ {
		if err := vs[vid].check(vid); err != nil {
			return err
		}
	}
	return nil
}

// step replays one of the voucher's steps.
func (w *verifiedVoucher) step(s *voucherStepRow) error {
	from := w.replayed
	ok := false
	switch s.state {
	case string(VoucherPrinted):
		ok = from == string(VoucherIssued) && s.entryID != 0
		w.stepEntry, w.stepPrinted = s.entryID, s.at
	case string(VoucherVoid):
		ok = from == string(VoucherIssued) && s.entryID == 0 && s.detail != ""
		w.isVoided = true
	case string(VoucherPaid):
		ok = from == string(VoucherPrinted) && s.entryID == 0
		w.stepPaid = s.at
	case string(VoucherExpired):
		ok = from == string(VoucherPrinted) && s.entryID == 0
	case stepReprint:
		ok = from == string(VoucherPrinted) && s.entryID == 0
		w.stepReprints++
	}
	if w.test && (s.state != string(VoucherVoid) || s.detail != TestVoucherReason) {
		ok = false // a test voucher is written void, and that is all it ever is
	}
	if !ok {
		return integrity("chain", "voucher_steps", s.id, "voucher %d cannot go from %s to %s", s.voucherID, from, s.state)
	}
	if s.state != stepReprint {
		w.replayed = s.state
	}
	return nil
}

// check compares the voucher's row with its steps replayed.
func (w *verifiedVoucher) check(vid int64) error {
	{
		switch {
		case w.state != w.replayed:
			return integrity("chain", "vouchers", vid, "state %s, its steps say %s", w.state, w.replayed)
		case w.entryID != w.stepEntry || w.printed != w.stepPrinted:
			return integrity("chain", "vouchers", vid, "debit row %d printed at %d, its steps say row %d at %d",
				w.entryID, w.printed, w.stepEntry, w.stepPrinted)
		case w.paid != w.stepPaid:
			return integrity("chain", "vouchers", vid, "paid at %d, its steps say %d", w.paid, w.stepPaid)
		case w.reprints != w.stepReprints:
			return integrity("chain", "vouchers", vid, "%d reprints, its steps count %d", w.reprints, w.stepReprints)
		case w.hasVoidReason != w.isVoided:
			return integrity("chain", "vouchers", vid, "void reason does not match its steps")
		}
	}
	return nil
}

// verifyVoucherMoney: every printed voucher (printed, paid, expired) has
// exactly its debit in the ledger, no other voucher has one, and every
// debit numbered like a voucher is a voucher's.
func verifyVoucherMoney(tx *rtx) error { return verifyVoucherMoneyFrom(tx, nil) }

// verifyVoucherMoneyFrom checks, after a checkpoint (nil: everything), the
// vouchers written or moved since, and the debits since.
func verifyVoucherMoneyFrom(tx *rtx, cp *checkpoint) error {
	var id int64
	var reason string
	since := [3]int64{}
	if cp != nil {
		since = [3]int64{cp.Heads[chVouchers].ID, cp.Heads[chVoucherSteps].ID, cp.Heads[chLedger].ID}
	}
	err := tx.queryRow(`SELECT v.id, CASE
			WHEN v.entry_id IS NULL THEN 'a debit in the ledger while ' || v.state
			WHEN l.id IS NULL THEN 'its debit row is missing'
			ELSE 'its debit row is not a voucher_out of its amount and number' END
		FROM vouchers v LEFT JOIN ledger l ON l.id = v.entry_id
		WHERE (v.id > ?1 OR v.id IN (SELECT voucher_id FROM voucher_steps WHERE id > ?2)) AND (
		   (v.entry_id IS NOT NULL AND (l.id IS NULL OR l.kind <> 'voucher_out' OR l.amount <> -v.amount OR l.ref IS NOT v.validation))
		   OR (v.entry_id IS NULL AND EXISTS (SELECT 1 FROM ledger x WHERE x.kind = 'voucher_out' AND x.ref = v.validation)))
		ORDER BY v.id LIMIT 1`, since[0], since[1]).Scan(&id, &reason)
	switch {
	case err == nil:
		return integrity("cash", "vouchers", id, "%s", reason)
	case !errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("verify vouchers: %w", err)
	}
	// A debit whose reference has the form of a validation number is a
	// voucher's: the voucher must be there (a removed last voucher leaves
	// no gap in the chain, but its debit stays). Other references are
	// cash-outs recorded with VoucherOut, before the vouchers table.
	err = tx.queryRow(`SELECT l.id FROM ledger l LEFT JOIN vouchers v ON v.entry_id = l.id
		WHERE l.id > ? AND l.kind = 'voucher_out' AND length(l.ref) = 18 AND l.ref NOT GLOB '*[^0-9]*'
		  AND (v.id IS NULL OR v.validation <> l.ref)
		ORDER BY l.id LIMIT 1`, since[2]).Scan(&id)
	switch {
	case err == nil:
		return integrity("cash", "ledger", id, "debit of a voucher that does not record it")
	case !errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("verify vouchers: %w", err)
	}
	return nil
}

// verifyIntents: every credited intent has exactly its credit in the
// ledger; every credit of an intent ("intent:<id>") is that intent's.
func verifyIntents(tx *rtx) error { return verifyIntentsFrom(tx, nil) }

// verifyIntentsFrom checks, after a checkpoint (nil: everything), the
// intents written or moved since, and the credits since.
func verifyIntentsFrom(tx *rtx, cp *checkpoint) error {
	var id int64
	var reason string
	since := [3]int64{}
	if cp != nil {
		since = [3]int64{cp.Heads[chIntents].ID, cp.Heads[chIntentSteps].ID, cp.Heads[chLedger].ID}
	}
	err := tx.queryRow(`SELECT i.id, CASE
			WHEN i.entry_id IS NULL THEN 'a credit in the ledger while ' || i.state
			WHEN l.id IS NULL THEN 'its credit row is missing'
			ELSE 'its credit row is not a bill_in of its note and reference' END
		FROM bill_intents i LEFT JOIN ledger l ON l.id = i.entry_id
		WHERE (i.id > ?1 OR i.id IN (SELECT intent_id FROM bill_intent_steps WHERE id > ?2)) AND (
		   (i.entry_id IS NOT NULL AND (l.id IS NULL OR l.kind <> 'bill_in' OR l.amount <> i.denom OR l.ref IS NOT 'intent:' || i.id))
		   OR (i.entry_id IS NULL AND EXISTS (SELECT 1 FROM ledger x WHERE x.kind = 'bill_in' AND x.ref = 'intent:' || i.id)))
		ORDER BY i.id LIMIT 1`, since[0], since[1]).Scan(&id, &reason)
	switch {
	case err == nil:
		return integrity("cash", "bill_intents", id, "%s", reason)
	case !errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("verify bill intents: %w", err)
	}
	err = tx.queryRow(`SELECT l.id FROM ledger l LEFT JOIN bill_intents i ON i.entry_id = l.id
		WHERE l.id > ? AND l.kind = 'bill_in' AND l.ref LIKE 'intent:%' AND (i.id IS NULL OR l.ref <> 'intent:' || i.id)
		ORDER BY l.id LIMIT 1`, since[2]).Scan(&id)
	switch {
	case err == nil:
		return integrity("cash", "ledger", id, "credit of a bill intent that does not record it")
	case !errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("verify bill intents: %w", err)
	}
	return nil
}

// deriveCashMeters adds the voucher meters re-derived from the vouchers
// table (see deriveMeters).
// They are counted from the voucher steps after sinceStep (0: all): each
// paid, expired, void or reprint step is one, but a test voucher's void
// (cash_testvoucher.go: it counts nothing) (verifyVoucherChains checks
// that the vouchers' states are their steps').
func deriveCashMeters(tx *rtx, sinceStep int64, add func(name string, v int64)) error {
	var paid, nPaid, expired, nExpired, nVoid, reprints int64
	err := tx.queryRow(`SELECT
		coalesce(sum(CASE WHEN s.state = 'paid' THEN v.amount END), 0), count(CASE WHEN s.state = 'paid' THEN 1 END),
		coalesce(sum(CASE WHEN s.state = 'expired' THEN v.amount END), 0), count(CASE WHEN s.state = 'expired' THEN 1 END),
		count(CASE WHEN s.state = 'void' AND v.amount > 0 THEN 1 END), count(CASE WHEN s.state = 'reprint' THEN 1 END)
		FROM voucher_steps s JOIN vouchers v ON v.id = s.voucher_id WHERE s.id > ?`, sinceStep).
		Scan(&paid, &nPaid, &expired, &nExpired, &nVoid, &reprints)
	if err != nil {
		return fmt.Errorf("derive voucher meters: %w", err)
	}
	add(MeterVouchersPaid, paid)
	add(MeterVouchersPaidCount, nPaid)
	add(MeterVouchersExpired, expired)
	add(MeterVouchersExpiredCount, nExpired)
	add(MeterVouchersVoidCount, nVoid)
	add(MeterVoucherReprints, reprints)
	return nil
}
