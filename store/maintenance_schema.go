package store

// schemaV4Maintenance adds what the maintenance screen keeps: the
// credentials, the PIN pad's lock and the cash box collections. Why each
// constraint exists:
//   - the credentials are a chain of changes (credentials.go): each row sets
//     or revokes one role's PIN, by whom, and the role's credential is its
//     newest row. Rows never change and are never deleted, and the chain is
//     hash-chained and anchored like the ledger: a credential deleted or
//     edited on the disk is a fault at the next start (and at once for the
//     newest), never a kiosk without PINs that asks for its setup again;
//   - a credential keeps only a slow key-derivation hash of the PIN, its salt
//     and the derivation's parameters, never the PIN itself; the chain hashes
//     a digest of those three (secret_digest), which is what the fleet's
//     outbox carries: the centre checks the chain without holding anything
//     that helps to guess a PIN;
//   - the PIN pad's lock is a chain too, one row per change of its state
//     (the wrong PINs in a row, the lockouts, the lock's time left, the
//     quiet time since the last wrong PIN), anchored: a lock rolled back or
//     deleted on the disk is a fault like an edited ledger, and a restart
//     (or pulling the plug) gives a guesser nothing;
//   - a collection records the note meters when staff emptied the cash box,
//     so the next one counts the notes since, and the newest step of the
//     bill intents' chain then (intent_step), which says which box a held
//     note was in: the one collected after its hold (collections.go); it is
//     never changed or deleted (the meters themselves are never reset), and
//     the collections are a chain anchored like the ledger: what the next
//     box expects is the last collection's meters, which a clerk who took
//     notes from the box would otherwise raise with SQL.
const schemaV4Maintenance = `
CREATE TABLE credentials (
	id            INTEGER PRIMARY KEY,
	at            INTEGER NOT NULL,
	role          TEXT NOT NULL CHECK (role = 'staff' OR role = 'technician'),
	action        TEXT NOT NULL CHECK (action = 'set' OR action = 'revoke'),
	by            TEXT NOT NULL CHECK (by <> ''),
	kdf           TEXT NOT NULL,
	salt          BLOB NOT NULL,
	pin_hash      BLOB NOT NULL,
	secret_digest BLOB NOT NULL,
	prev_hash     BLOB NOT NULL CHECK (length(prev_hash) = 32),
	hash          BLOB NOT NULL CHECK (length(hash) = 32),
	CHECK (CASE action
		WHEN 'set' THEN kdf <> '' AND length(salt) >= 16 AND length(pin_hash) >= 32 AND length(secret_digest) = 32
		ELSE kdf = '' AND length(salt) = 0 AND length(pin_hash) = 0 AND length(secret_digest) = 0
	END)
);
CREATE TRIGGER credentials_no_update BEFORE UPDATE ON credentials
BEGIN SELECT RAISE(ABORT, 'credentials never change: a new row sets or revokes'); END;
CREATE TRIGGER credentials_no_delete BEFORE DELETE ON credentials
BEGIN SELECT RAISE(ABORT, 'credentials are never deleted'); END;
CREATE TABLE pin_lock (
	id        INTEGER PRIMARY KEY,
	at        INTEGER NOT NULL,
	failures  INTEGER NOT NULL CHECK (failures >= 0),
	lockouts  INTEGER NOT NULL CHECK (lockouts >= 0),
	remaining INTEGER NOT NULL CHECK (remaining >= 0),
	quiet     INTEGER NOT NULL CHECK (quiet >= 0),
	prev_hash BLOB NOT NULL CHECK (length(prev_hash) = 32),
	hash      BLOB NOT NULL CHECK (length(hash) = 32)
);
CREATE TRIGGER pin_lock_no_update BEFORE UPDATE ON pin_lock
BEGIN SELECT RAISE(ABORT, 'the PIN pad''s lock never changes: a new row holds its new state'); END;
CREATE TRIGGER pin_lock_no_delete BEFORE DELETE ON pin_lock
BEGIN SELECT RAISE(ABORT, 'the PIN pad''s lock is never deleted'); END;
CREATE TABLE collections (
	id     INTEGER PRIMARY KEY,
	at     INTEGER NOT NULL,
	by     TEXT NOT NULL CHECK (by <> ''),
	meters TEXT NOT NULL,
	count  INTEGER NOT NULL CHECK (count >= 0),
	amount INTEGER NOT NULL CHECK (amount >= 0),
	intent_step INTEGER NOT NULL CHECK (intent_step >= 0),
	prev_hash BLOB NOT NULL CHECK (length(prev_hash) = 32),
	hash      BLOB NOT NULL CHECK (length(hash) = 32)
);
CREATE TRIGGER collections_follow BEFORE INSERT ON collections
WHEN NEW.intent_step < coalesce((SELECT max(intent_step) FROM collections), 0)
BEGIN SELECT RAISE(ABORT, 'a collection''s box ends after the previous one'); END;
CREATE TRIGGER collections_fixed BEFORE UPDATE ON collections
BEGIN SELECT RAISE(ABORT, 'a collection never changes'); END;
CREATE TRIGGER collections_no_delete BEFORE DELETE ON collections
BEGIN SELECT RAISE(ABORT, 'collections are never deleted'); END;
`
