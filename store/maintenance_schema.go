package store

// schemaV4Maintenance adds what the maintenance screen keeps: the staff's
// credentials, the PIN pad's lock and the cash box collections. Why each
// constraint exists:
//   - one credential per role (staff, technician): a PIN names its role;
//   - a credential keeps only a slow key-derivation hash of the PIN, its salt
//     and the derivation's parameters, never the PIN itself;
//   - the pad's lock is one row, kept in the database so that a restart (or
//     pulling the plug) does not give a guesser five more tries;
//   - a collection records the note meters when staff emptied the cash box,
//     so the next one counts the notes since, and the newest step of the
//     bill intents' chain then (intent_step), which says which box a held
//     note was in: the one collected after its hold (collections.go); it is
//     never changed or deleted (the meters themselves are never reset).
const schemaV4Maintenance = `
CREATE TABLE staff (
	role   TEXT PRIMARY KEY CHECK (role = 'staff' OR role = 'technician'),
	kdf    TEXT NOT NULL CHECK (kdf <> ''),
	salt   BLOB NOT NULL CHECK (length(salt) >= 16),
	hash   BLOB NOT NULL CHECK (length(hash) >= 32),
	set_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE pin_lock (
	id       INTEGER PRIMARY KEY CHECK (id = 1),
	failures INTEGER NOT NULL CHECK (failures >= 0),
	lockouts INTEGER NOT NULL CHECK (lockouts >= 0),
	until    INTEGER NOT NULL
);
INSERT INTO pin_lock(id, failures, lockouts, until) VALUES (1, 0, 0, 0);
CREATE TRIGGER pin_lock_no_delete BEFORE DELETE ON pin_lock
BEGIN SELECT RAISE(ABORT, 'the PIN pad''s lock is never deleted'); END;
CREATE TABLE collections (
	id     INTEGER PRIMARY KEY,
	at     INTEGER NOT NULL,
	by     TEXT NOT NULL CHECK (by <> ''),
	meters TEXT NOT NULL,
	count  INTEGER NOT NULL CHECK (count >= 0),
	amount INTEGER NOT NULL CHECK (amount >= 0),
	intent_step INTEGER NOT NULL CHECK (intent_step >= 0)
);
CREATE TRIGGER collections_follow BEFORE INSERT ON collections
WHEN NEW.intent_step < coalesce((SELECT max(intent_step) FROM collections), 0)
BEGIN SELECT RAISE(ABORT, 'a collection''s box ends after the previous one'); END;
CREATE TRIGGER collections_fixed BEFORE UPDATE ON collections
BEGIN SELECT RAISE(ABORT, 'a collection never changes'); END;
CREATE TRIGGER collections_no_delete BEFORE DELETE ON collections
BEGIN SELECT RAISE(ABORT, 'collections are never deleted'); END;
`
