package store

// schemaV7Outbox adds the fleet's outbox (DESIGN.md §11): every row of a
// chained table (plays, play_steps, ledger, events, vouchers,
// voucher_steps, bill_intents, bill_intent_steps) and every change of a play's or a voucher's state adds
// one outbox row, numbered by seq, the kiosk's own sequence. A bill
// intent's changes of state are its steps' rows (schemaV6Anchors).
//
// Why triggers rather than an insert in each write path of the store: a
// trigger runs inside the statement that fires it, so the outbox row is in
// the very transaction of the fact and no write path, present or future,
// can forget it; a crash loses or keeps both. The payload is the row as
// written, with its prev_hash and hash in hexadecimal, so the chain heads
// travel with the records and the centre can check the chain itself.
//
//   - seq is AUTOINCREMENT: a number is never given twice, even after the
//     published rows were pruned;
//   - outbox rows never change; only rows up to the published mark
//     (meta 'outbox_published') may be deleted;
//   - the published mark only moves forward and never past the last row.
const schemaV7Outbox = `
CREATE TABLE outbox (
	seq     INTEGER PRIMARY KEY AUTOINCREMENT,
	at      INTEGER NOT NULL,
	kind    TEXT NOT NULL CHECK (kind = 'play' OR kind = 'play_state' OR kind = 'play_step' OR kind = 'ledger' OR
	        kind = 'event' OR kind = 'voucher' OR kind = 'voucher_state' OR kind = 'voucher_step' OR
	        kind = 'bill_intent' OR kind = 'bill_intent_step'),
	ref_id  INTEGER NOT NULL,
	payload TEXT NOT NULL CHECK (json_valid(payload))
);
INSERT INTO meta(key, value) VALUES ('outbox_published', 0);
` + outboxTriggers

// outboxTriggers are the outbox's guards and the triggers that fill it from
// the chained tables, as schemaV7Outbox made them; schemaV8Snapshots writes
// them again over its rebuilt table.
const outboxTriggers = `
CREATE TRIGGER outbox_fixed BEFORE UPDATE ON outbox
BEGIN SELECT RAISE(ABORT, 'outbox rows never change'); END;
CREATE TRIGGER outbox_prune BEFORE DELETE ON outbox
WHEN OLD.seq > (SELECT value FROM meta WHERE key = 'outbox_published')
BEGIN SELECT RAISE(ABORT, 'only published outbox rows are deleted'); END;
CREATE TRIGGER outbox_mark BEFORE UPDATE OF value ON meta
WHEN NEW.key = 'outbox_published' AND (NEW.value < OLD.value OR
	NEW.value > coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'outbox'), 0))
BEGIN SELECT RAISE(ABORT, 'the published mark moves forward, up to the last outbox row'); END;

CREATE TRIGGER outbox_plays AFTER INSERT ON plays
BEGIN INSERT INTO outbox(at, kind, ref_id, payload) VALUES (NEW.at, 'play', NEW.id, json_object(
	'id', NEW.id, 'at', NEW.at, 'stake', NEW.stake, 'mode', NEW.mode, 'layout_version', NEW.layout_version,
	'block_id', NEW.block_id, 'unit_idx', NEW.unit_idx, 'tier', NEW.tier, 'via_bonus', NEW.via_bonus,
	'seed', NEW.seed, 'prize', NEW.prize, 'stake_entry', NEW.stake_entry,
	'prev_hash', hex(NEW.prev_hash), 'hash', hex(NEW.hash))); END;
CREATE TRIGGER outbox_play_state AFTER UPDATE OF state ON plays WHEN NEW.state <> OLD.state
BEGIN INSERT INTO outbox(at, kind, ref_id, payload) VALUES (NEW.updated_at, 'play_state', NEW.id, json_object(
	'id', NEW.id, 'at', NEW.updated_at, 'state', NEW.state, 'revealed', NEW.revealed, 'mismatch', NEW.mismatch,
	'win_entry', NEW.win_entry)); END;
CREATE TRIGGER outbox_play_steps AFTER INSERT ON play_steps
BEGIN INSERT INTO outbox(at, kind, ref_id, payload) VALUES (NEW.at, 'play_step', NEW.id, json_object(
	'id', NEW.id, 'play_id', NEW.play_id, 'at', NEW.at, 'state', NEW.state, 'revealed', NEW.revealed,
	'mismatch', NEW.mismatch, 'rec_digest', hex(NEW.rec_digest),
	'prev_hash', hex(NEW.prev_hash), 'hash', hex(NEW.hash))); END;
CREATE TRIGGER outbox_ledger AFTER INSERT ON ledger
BEGIN INSERT INTO outbox(at, kind, ref_id, payload) VALUES (NEW.at, 'ledger', NEW.id, json_object(
	'id', NEW.id, 'at', NEW.at, 'kind', NEW.kind, 'amount', NEW.amount, 'balance_after', NEW.balance_after,
	'play_id', NEW.play_id, 'ref', NEW.ref, 'note', NEW.note,
	'prev_hash', hex(NEW.prev_hash), 'hash', hex(NEW.hash))); END;
CREATE TRIGGER outbox_events AFTER INSERT ON events
BEGIN INSERT INTO outbox(at, kind, ref_id, payload) VALUES (NEW.at, 'event', NEW.id, json_object(
	'id', NEW.id, 'at', NEW.at, 'level', NEW.level, 'source', NEW.source, 'code', NEW.code, 'detail', NEW.detail,
	'prev_hash', hex(NEW.prev_hash), 'hash', hex(NEW.hash))); END;
CREATE TRIGGER outbox_vouchers AFTER INSERT ON vouchers
BEGIN INSERT INTO outbox(at, kind, ref_id, payload) VALUES (NEW.at, 'voucher', NEW.id, json_object(
	'id', NEW.id, 'at', NEW.at, 'validation', NEW.validation, 'amount', NEW.amount, 'expires_at', NEW.expires_at,
	'state', NEW.state, 'prev_hash', hex(NEW.prev_hash), 'hash', hex(NEW.hash))); END;
CREATE TRIGGER outbox_voucher_state AFTER UPDATE OF state ON vouchers WHEN NEW.state <> OLD.state
BEGIN INSERT INTO outbox(at, kind, ref_id, payload) VALUES (NEW.updated_at, 'voucher_state', NEW.id, json_object(
	'id', NEW.id, 'at', NEW.updated_at, 'validation', NEW.validation, 'amount', NEW.amount,
	'expires_at', NEW.expires_at, 'state', NEW.state, 'entry_id', NEW.entry_id)); END;
CREATE TRIGGER outbox_voucher_steps AFTER INSERT ON voucher_steps
BEGIN INSERT INTO outbox(at, kind, ref_id, payload) VALUES (NEW.at, 'voucher_step', NEW.id, json_object(
	'id', NEW.id, 'voucher_id', NEW.voucher_id, 'at', NEW.at, 'state', NEW.state, 'entry_id', NEW.entry_id,
	'detail', NEW.detail, 'prev_hash', hex(NEW.prev_hash), 'hash', hex(NEW.hash))); END;
CREATE TRIGGER outbox_bill_intents AFTER INSERT ON bill_intents
BEGIN INSERT INTO outbox(at, kind, ref_id, payload) VALUES (NEW.at, 'bill_intent', NEW.id, json_object(
	'id', NEW.id, 'at', NEW.at, 'denom', NEW.denom, 'state', NEW.state,
	'prev_hash', hex(NEW.prev_hash), 'hash', hex(NEW.hash))); END;
CREATE TRIGGER outbox_bill_intent_steps AFTER INSERT ON bill_intent_steps
BEGIN INSERT INTO outbox(at, kind, ref_id, payload) VALUES (NEW.at, 'bill_intent_step', NEW.id, json_object(
	'id', NEW.id, 'intent_id', NEW.intent_id, 'at', NEW.at, 'state', NEW.state, 'entry_id', NEW.entry_id,
	'reason', NEW.reason, 'prev_hash', hex(NEW.prev_hash), 'hash', hex(NEW.hash))); END;
`
