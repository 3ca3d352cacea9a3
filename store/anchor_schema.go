package store

// schemaV6Anchors chains the bill intents and keeps the verification's
// checkpoints (anchor.go, checkpoint.go). Why each part exists:
//   - a bill intent is hash-chained on what never changes (id, time, note)
//     and its state changes are rows of bill_intent_steps, a chain of its
//     own, as the vouchers and their steps: the intents say which notes
//     went to the cash box, and a cut or edited intent would hide one;
//   - a checkpoint is what a full verification found (the chains' heads,
//     the meters, each block's units sold), signed with the kiosk's anchor
//     secret: the boot check verifies only what was written after the
//     newest one. A checkpoint removed only makes the next check longer.
const schemaV6Anchors = `
ALTER TABLE bill_intents ADD COLUMN prev_hash BLOB CHECK (prev_hash IS NULL OR length(prev_hash) = 32);
ALTER TABLE bill_intents ADD COLUMN hash BLOB CHECK (hash IS NULL OR length(hash) = 32);
CREATE TABLE bill_intent_steps (
	id        INTEGER PRIMARY KEY,
	intent_id INTEGER NOT NULL REFERENCES bill_intents(id),
	at        INTEGER NOT NULL,
	state     TEXT NOT NULL CHECK (state = 'stacking' OR state = 'held' OR state = 'credited' OR state = 'void'),
	entry_id  INTEGER REFERENCES ledger(id),
	reason    TEXT NOT NULL DEFAULT '',
	prev_hash BLOB NOT NULL CHECK (length(prev_hash) = 32),
	hash      BLOB NOT NULL CHECK (length(hash) = 32)
);
CREATE INDEX bill_intent_steps_intent ON bill_intent_steps(intent_id);
CREATE TRIGGER bill_intent_steps_no_update BEFORE UPDATE ON bill_intent_steps
BEGIN SELECT RAISE(ABORT, 'bill intent steps never change'); END;
CREATE TRIGGER bill_intent_steps_no_delete BEFORE DELETE ON bill_intent_steps
BEGIN SELECT RAISE(ABORT, 'bill intent steps are never deleted'); END;
CREATE TRIGGER bill_intents_chained BEFORE INSERT ON bill_intents WHEN NEW.prev_hash IS NULL OR NEW.hash IS NULL
BEGIN SELECT RAISE(ABORT, 'a bill intent is written with its chain hash'); END;
CREATE TRIGGER bill_intents_hash_fixed BEFORE UPDATE OF prev_hash, hash ON bill_intents WHEN OLD.hash IS NOT NULL
BEGIN SELECT RAISE(ABORT, 'a bill intent''s chain hash never changes'); END;
CREATE TABLE checkpoints (
	id   INTEGER PRIMARY KEY,
	at   INTEGER NOT NULL,
	body BLOB NOT NULL,
	mac  BLOB NOT NULL CHECK (length(mac) = 32)
);
DROP TRIGGER bill_intents_final;
CREATE TRIGGER bill_intents_final BEFORE UPDATE ON bill_intents WHEN OLD.state = 'credited' OR OLD.state = 'void'
BEGIN SELECT RAISE(ABORT, 'a credited or void bill intent never changes'); END;
`
