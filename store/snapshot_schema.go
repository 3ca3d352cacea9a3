package store

// schemaV8Snapshots adds the meter snapshots and the anchor's records to
// the fleet's outbox (DESIGN.md §4, §11). Why each part exists:
//   - a meter snapshot is every meter as it stood when written, with the
//     last ledger row and voucher step it counts; the rows are chained
//     (and anchored) like the ledger, never change and are never deleted:
//     the centre compares each with its own derivation from the records;
//   - the outbox's list of kinds is a CHECK of its table, which SQLite
//     cannot alter: the table is rebuilt with 'meters' and 'anchor' added,
//     its rows and its sequence (sqlite_sequence, so that no number is
//     given twice even when every row was pruned) carried over, and its
//     triggers and those of the chained tables written again as
//     schemaV7Outbox made them;
//   - the credentials', the PIN pad lock's (schemaV4Maintenance) and the
//     settings' chains (schemaV1) have their records too ('credential',
//     'pin_lock', 'setting'), written here
//     with the outbox that takes their kinds: a credential's record
//     carries the digest of its secret, never the salt and hash of a PIN
//     (the centre is another party, and a PIN's hash off the kiosk would
//     help an offline guesser);
//   - an 'anchor' record carries the chains' heads and their HMAC as the
//     transaction that writes it leaves them (Store.SnapshotMeters writes
//     one with each snapshot): the heads travel with the records, and a
//     kiosk whose history was later cut or rewritten shows at the centre
//     against the records it holds. No trigger writes it: the HMAC needs
//     the anchor's secret, which the database never holds.
const schemaV8Snapshots = `
CREATE TABLE meter_snapshots (
	id              INTEGER PRIMARY KEY,
	at              INTEGER NOT NULL,
	reason          TEXT NOT NULL CHECK (reason = 'boot' OR reason = 'report' OR reason = 'plays'),
	ledger_id       INTEGER NOT NULL CHECK (ledger_id >= 0),
	voucher_step_id INTEGER NOT NULL CHECK (voucher_step_id >= 0),
	meters          TEXT NOT NULL CHECK (json_valid(meters)),
	prev_hash       BLOB NOT NULL CHECK (length(prev_hash) = 32),
	hash            BLOB NOT NULL CHECK (length(hash) = 32)
);
CREATE TRIGGER meter_snapshots_no_update BEFORE UPDATE ON meter_snapshots
BEGIN SELECT RAISE(ABORT, 'meter snapshots never change'); END;
CREATE TRIGGER meter_snapshots_no_delete BEFORE DELETE ON meter_snapshots
BEGIN SELECT RAISE(ABORT, 'meter snapshots are never deleted'); END;

DROP TRIGGER outbox_fixed;
DROP TRIGGER outbox_prune;
DROP TRIGGER outbox_mark;
DROP TRIGGER outbox_plays;
DROP TRIGGER outbox_play_state;
DROP TRIGGER outbox_play_steps;
DROP TRIGGER outbox_ledger;
DROP TRIGGER outbox_events;
DROP TRIGGER outbox_vouchers;
DROP TRIGGER outbox_voucher_state;
DROP TRIGGER outbox_voucher_steps;
DROP TRIGGER outbox_bill_intents;
DROP TRIGGER outbox_bill_intent_steps;
CREATE TABLE outbox_v8 (
	seq     INTEGER PRIMARY KEY AUTOINCREMENT,
	at      INTEGER NOT NULL,
	kind    TEXT NOT NULL CHECK (kind = 'play' OR kind = 'play_state' OR kind = 'play_step' OR kind = 'ledger' OR
	        kind = 'event' OR kind = 'voucher' OR kind = 'voucher_state' OR kind = 'voucher_step' OR
	        kind = 'bill_intent' OR kind = 'bill_intent_step' OR kind = 'meters' OR kind = 'anchor' OR
	        kind = 'credential' OR kind = 'pin_lock' OR kind = 'setting' OR kind = 'collection'),
	ref_id  INTEGER NOT NULL,
	payload TEXT NOT NULL CHECK (json_valid(payload))
);
INSERT INTO outbox_v8(seq, at, kind, ref_id, payload) SELECT seq, at, kind, ref_id, payload FROM outbox ORDER BY seq;
DELETE FROM sqlite_sequence WHERE name = 'outbox_v8';
INSERT INTO sqlite_sequence(name, seq) SELECT 'outbox_v8', seq FROM sqlite_sequence WHERE name = 'outbox';
DROP TABLE outbox;
ALTER TABLE outbox_v8 RENAME TO outbox;

` + outboxTriggers + `
CREATE TRIGGER outbox_meter_snapshots AFTER INSERT ON meter_snapshots
BEGIN INSERT INTO outbox(at, kind, ref_id, payload) VALUES (NEW.at, 'meters', NEW.id, json_object(
	'id', NEW.id, 'at', NEW.at, 'reason', NEW.reason, 'ledger_id', NEW.ledger_id,
	'voucher_step_id', NEW.voucher_step_id, 'meters', NEW.meters,
	'prev_hash', hex(NEW.prev_hash), 'hash', hex(NEW.hash))); END;
CREATE TRIGGER outbox_credentials AFTER INSERT ON credentials
BEGIN INSERT INTO outbox(at, kind, ref_id, payload) VALUES (NEW.at, 'credential', NEW.id, json_object(
	'id', NEW.id, 'at', NEW.at, 'role', NEW.role, 'action', NEW.action, 'by', NEW.by,
	'secret_digest', hex(NEW.secret_digest), 'prev_hash', hex(NEW.prev_hash), 'hash', hex(NEW.hash))); END;
CREATE TRIGGER outbox_settings AFTER INSERT ON settings
BEGIN INSERT INTO outbox(at, kind, ref_id, payload) VALUES (NEW.at, 'setting', NEW.id, json_object(
	'id', NEW.id, 'at', NEW.at, 'key', NEW.key, 'value', NEW.value, 'source', NEW.source,
	'prev_hash', hex(NEW.prev_hash), 'hash', hex(NEW.hash))); END;
CREATE TRIGGER outbox_collections AFTER INSERT ON collections
BEGIN INSERT INTO outbox(at, kind, ref_id, payload) VALUES (NEW.at, 'collection', NEW.id, json_object(
	'id', NEW.id, 'at', NEW.at, 'by', NEW.by, 'meters', NEW.meters, 'count', NEW.count, 'amount', NEW.amount,
	'intent_step', NEW.intent_step, 'prev_hash', hex(NEW.prev_hash), 'hash', hex(NEW.hash))); END;
CREATE TRIGGER outbox_pin_lock AFTER INSERT ON pin_lock
BEGIN INSERT INTO outbox(at, kind, ref_id, payload) VALUES (NEW.at, 'pin_lock', NEW.id, json_object(
	'id', NEW.id, 'at', NEW.at, 'failures', NEW.failures, 'lockouts', NEW.lockouts, 'remaining', NEW.remaining,
	'quiet', NEW.quiet, 'prev_hash', hex(NEW.prev_hash), 'hash', hex(NEW.hash))); END;
`
