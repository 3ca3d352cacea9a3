package store

// schemaV2Cash adds the bill intents and the vouchers. Why each
// constraint exists:
//   - a bill intent is a note of a euro denomination; at most one is pending
//     (bill_intents_pending): the validator holds one note at a time, and a
//     new escrow voids the previous intent in the same transaction;
//   - an intent is credited by exactly one ledger row (entry_id UNIQUE) and,
//     once credited or void, never changes again;
//   - vouchers are numbered 1, 2, 3… without a gap (vouchers_follow): the id
//     is the sequence number printed on the voucher, and a void voucher
//     keeps its number, so an auditor sees every number;
//   - a validation number is 18 digits and never used twice;
//   - at most one voucher is issued and unconfirmed (vouchers_issued);
//   - a voucher moves issued → printed → paid or expired, or issued → void,
//     and never back; its money row (entry_id) exists exactly when it was
//     printed; its identity and amount never change;
//   - the vouchers and their state changes (voucher_steps) are hash-chained
//     like the plays and their steps;
//   - a voucher of amount 0 is a test voucher (cash_testvoucher.go): it is
//     written void in the commit that writes it, and never becomes anything
//     else (vouchers_test_void); a cash-out's voucher has an amount.
const schemaV2Cash = `
CREATE TABLE bill_intents (
	id          INTEGER PRIMARY KEY,
	at          INTEGER NOT NULL,
	denom       INTEGER NOT NULL CHECK (denom = 500 OR denom = 1000 OR denom = 2000 OR denom = 5000 OR
	            denom = 10000 OR denom = 20000 OR denom = 50000),
	state       TEXT NOT NULL DEFAULT 'pending' CHECK (state = 'pending' OR state = 'credited' OR state = 'void'),
	resolved_at INTEGER,
	entry_id    INTEGER UNIQUE REFERENCES ledger(id),
	reason      TEXT NOT NULL DEFAULT '',
	CHECK ((state = 'credited') = (entry_id IS NOT NULL)),
	CHECK ((state = 'pending') = (resolved_at IS NULL))
);
CREATE UNIQUE INDEX bill_intents_pending ON bill_intents(state) WHERE state = 'pending';
CREATE TRIGGER bill_intents_follow BEFORE INSERT ON bill_intents
WHEN NEW.id <> coalesce((SELECT max(id) FROM bill_intents), 0) + 1 OR NEW.state <> 'pending'
BEGIN SELECT RAISE(ABORT, 'bill intents are numbered without a gap and start pending'); END;
CREATE TRIGGER bill_intents_no_delete BEFORE DELETE ON bill_intents
BEGIN SELECT RAISE(ABORT, 'bill intents are never deleted'); END;
CREATE TRIGGER bill_intents_fixed BEFORE UPDATE OF id, at, denom ON bill_intents
BEGIN SELECT RAISE(ABORT, 'a bill intent''s note never changes'); END;
CREATE TRIGGER bill_intents_final BEFORE UPDATE ON bill_intents WHEN OLD.state <> 'pending'
BEGIN SELECT RAISE(ABORT, 'a credited or void bill intent never changes'); END;

CREATE TABLE vouchers (
	id          INTEGER PRIMARY KEY,
	at          INTEGER NOT NULL,
	validation  TEXT NOT NULL UNIQUE CHECK (length(validation) = 18 AND validation NOT GLOB '*[^0-9]*'),
	amount      INTEGER NOT NULL CHECK (amount >= 0),
	expires_at  INTEGER NOT NULL,
	prev_hash   BLOB NOT NULL CHECK (length(prev_hash) = 32),
	hash        BLOB NOT NULL CHECK (length(hash) = 32),
	state       TEXT NOT NULL DEFAULT 'issued' CHECK (state = 'issued' OR state = 'printed' OR state = 'paid' OR
	            state = 'expired' OR state = 'void'),
	updated_at  INTEGER NOT NULL,
	entry_id    INTEGER UNIQUE REFERENCES ledger(id),
	printed_at  INTEGER,
	paid_at     INTEGER,
	reprints    INTEGER NOT NULL DEFAULT 0 CHECK (reprints >= 0),
	void_reason TEXT NOT NULL DEFAULT '',
	CHECK (expires_at > at),
	CHECK ((state = 'issued' OR state = 'void') = (entry_id IS NULL)),
	CHECK ((entry_id IS NULL) = (printed_at IS NULL)),
	CHECK ((state = 'paid') = (paid_at IS NOT NULL)),
	CHECK ((state = 'void') = (length(void_reason) > 0)),
	CHECK (reprints = 0 OR printed_at IS NOT NULL)
);
CREATE UNIQUE INDEX vouchers_issued ON vouchers(state) WHERE state = 'issued';
CREATE INDEX vouchers_printed ON vouchers(expires_at) WHERE state = 'printed';
CREATE TRIGGER vouchers_follow BEFORE INSERT ON vouchers
WHEN NEW.id <> coalesce((SELECT max(id) FROM vouchers), 0) + 1 OR NEW.state <> 'issued'
BEGIN SELECT RAISE(ABORT, 'vouchers are numbered without a gap and start issued'); END;
CREATE TRIGGER vouchers_no_delete BEFORE DELETE ON vouchers
BEGIN SELECT RAISE(ABORT, 'vouchers are never deleted'); END;
CREATE TRIGGER vouchers_fixed BEFORE UPDATE OF id, at, validation, amount, expires_at, prev_hash, hash ON vouchers
BEGIN SELECT RAISE(ABORT, 'a voucher''s number, amount and validation never change'); END;
CREATE TRIGGER vouchers_final BEFORE UPDATE ON vouchers
WHEN OLD.state = 'paid' OR OLD.state = 'expired' OR OLD.state = 'void'
BEGIN SELECT RAISE(ABORT, 'a paid, expired or void voucher never changes'); END;
CREATE TRIGGER vouchers_forward BEFORE UPDATE OF state ON vouchers
WHEN NEW.state <> OLD.state AND NOT (
	(OLD.state = 'issued' AND (NEW.state = 'printed' OR NEW.state = 'void')) OR
	(OLD.state = 'printed' AND (NEW.state = 'paid' OR NEW.state = 'expired')))
BEGIN SELECT RAISE(ABORT, 'a voucher goes issued → printed → paid or expired, or issued → void'); END;
CREATE TRIGGER vouchers_test_void BEFORE UPDATE OF state ON vouchers
WHEN NEW.amount = 0 AND NEW.state <> 'void'
BEGIN SELECT RAISE(ABORT, 'a test voucher (amount 0) is only ever void'); END;

CREATE TABLE voucher_steps (
	id         INTEGER PRIMARY KEY,
	voucher_id INTEGER NOT NULL REFERENCES vouchers(id),
	at         INTEGER NOT NULL,
	state      TEXT NOT NULL CHECK (state = 'printed' OR state = 'paid' OR state = 'expired' OR state = 'void' OR
	           state = 'reprint'),
	entry_id   INTEGER REFERENCES ledger(id),
	detail     TEXT NOT NULL DEFAULT '',
	prev_hash  BLOB NOT NULL CHECK (length(prev_hash) = 32),
	hash       BLOB NOT NULL CHECK (length(hash) = 32)
);
CREATE INDEX voucher_steps_voucher ON voucher_steps(voucher_id);
CREATE TRIGGER voucher_steps_no_update BEFORE UPDATE ON voucher_steps
BEGIN SELECT RAISE(ABORT, 'voucher steps never change'); END;
CREATE TRIGGER voucher_steps_no_delete BEFORE DELETE ON voucher_steps
BEGIN SELECT RAISE(ABORT, 'voucher steps are never deleted'); END;
`

// schemaV3HeldIntents adds two states of a bill intent (cash_intents.go):
//   - stacking: STACK is being sent for its note. Written before the
//     command, so a restarted kiosk knows the note may be in the cash box
//     and never voids the intent silently;
//   - held: the note may be in the cash box and the kiosk cannot tell (a
//     power cut with the note in the acceptor, a new note in escrow while
//     this one was stacking): staff count the cash box and credit it or
//     close it, with a reason (CreditHeldIntent, CloseHeldIntent).
//
// At most one intent is open (pending or stacking). SQLite cannot change a
// CHECK in place: the table is rebuilt with its rows, ids and triggers.
const schemaV3HeldIntents = `
DROP TRIGGER bill_intents_follow;
DROP TRIGGER bill_intents_no_delete;
DROP TRIGGER bill_intents_fixed;
DROP TRIGGER bill_intents_final;
DROP INDEX bill_intents_pending;
CREATE TABLE bill_intents_v3 (
	id          INTEGER PRIMARY KEY,
	at          INTEGER NOT NULL,
	denom       INTEGER NOT NULL CHECK (denom = 500 OR denom = 1000 OR denom = 2000 OR denom = 5000 OR
	            denom = 10000 OR denom = 20000 OR denom = 50000),
	state       TEXT NOT NULL DEFAULT 'pending' CHECK (state = 'pending' OR state = 'stacking' OR state = 'held' OR
	            state = 'credited' OR state = 'void'),
	resolved_at INTEGER,
	entry_id    INTEGER UNIQUE REFERENCES ledger(id),
	reason      TEXT NOT NULL DEFAULT '',
	CHECK ((state = 'credited') = (entry_id IS NOT NULL)),
	CHECK ((state = 'pending' OR state = 'stacking' OR state = 'held') = (resolved_at IS NULL)),
	CHECK (state <> 'held' OR length(reason) > 0)
);
INSERT INTO bill_intents_v3(id, at, denom, state, resolved_at, entry_id, reason)
	SELECT id, at, denom, state, resolved_at, entry_id, reason FROM bill_intents ORDER BY id;
DROP TABLE bill_intents;
ALTER TABLE bill_intents_v3 RENAME TO bill_intents;
CREATE UNIQUE INDEX bill_intents_open ON bill_intents((state = 'pending' OR state = 'stacking'))
	WHERE state = 'pending' OR state = 'stacking';
CREATE INDEX bill_intents_held ON bill_intents(id) WHERE state = 'held';
CREATE TRIGGER bill_intents_follow BEFORE INSERT ON bill_intents
WHEN NEW.id <> coalesce((SELECT max(id) FROM bill_intents), 0) + 1 OR NEW.state <> 'pending'
BEGIN SELECT RAISE(ABORT, 'bill intents are numbered without a gap and start pending'); END;
CREATE TRIGGER bill_intents_no_delete BEFORE DELETE ON bill_intents
BEGIN SELECT RAISE(ABORT, 'bill intents are never deleted'); END;
CREATE TRIGGER bill_intents_fixed BEFORE UPDATE OF id, at, denom ON bill_intents
BEGIN SELECT RAISE(ABORT, 'a bill intent''s note never changes'); END;
CREATE TRIGGER bill_intents_final BEFORE UPDATE ON bill_intents WHEN OLD.state = 'credited' OR OLD.state = 'void'
BEGIN SELECT RAISE(ABORT, 'a credited or void bill intent never changes'); END;
CREATE TRIGGER bill_intents_forward BEFORE UPDATE OF state ON bill_intents
WHEN NEW.state <> OLD.state AND NOT (
	(OLD.state = 'pending' AND NEW.state IN ('stacking', 'held', 'credited', 'void')) OR
	(OLD.state = 'stacking' AND NEW.state IN ('held', 'credited', 'void')) OR
	(OLD.state = 'held' AND NEW.state IN ('credited', 'void')))
BEGIN SELECT RAISE(ABORT, 'a bill intent goes pending → stacking → credited, void or held, and held → credited or void'); END;
`
