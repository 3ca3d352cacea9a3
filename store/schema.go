package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// applicationID marks a Pharaon database in the SQLite header ("PHAR").
const applicationID = 0x50484152

// A migration takes the schema from version N-1 to N (its index + 1). A new
// database gets them all in one transaction, with the user_version set to
// the last. A database below firstRelease was written by a development
// version of this software, before any kiosk ran in a shop: it is refused
// (ErrOldSchema), never converted, for a conversion is code that accepts a
// file in a shape today's schema forbids, and whoever edits the file can
// put it back in that shape. From firstRelease on, a migration added later
// runs in its own transaction with the user_version bump, and a released
// one is never edited.
var migrations = []string{
	schemaV1,
	schemaV2Cash,            // bill intents and vouchers (cash_schema.go)
	schemaV3HeldIntents,     // stacking and held bill intents (cash_schema.go)
	schemaV4Maintenance,     // credentials, the PIN pad's lock, cash box collections (maintenance_schema.go)
	schemaV5BlockSignatures, // the issuer's signature of each block, checked at boot (blocks_schema.go)
	schemaV6Anchors,         // the bill intents chained, the verification's checkpoints (anchor_schema.go)
	schemaV7Outbox,          // the fleet's outbox, filled by triggers (outbox_schema.go)
	schemaV8Snapshots,       // meter snapshots, the anchor's records in the outbox (snapshot_schema.go)
}

// schemaV1 is the first schema. (Lists of allowed values are written as
// OR chains, not IN (...): SQLite evaluates an IN list of more than two
// constants through an ephemeral table built at every execution of the
// statement, which cost more than the rest of a play's insert.)
// Why each constraint exists:
//   - amounts are integer cents; CHECKs refuse a negative balance, a stake
//     that is not one of Art. 2, a movement whose sign does not fit its kind;
//   - units are keyed (block, index) WITHOUT ROWID and never change; their
//     outcome is sealed under the kiosk's key (units_seal.go): the file
//     does not tell which unit wins;
//   - a unit is sold at most once (plays UNIQUE(block_id, unit_idx));
//   - a play names its stake debit (stake_entry, fixed at insert) and its
//     win credit (win_entry, set once as it finishes, and a finished play
//     never changes); a ledger row of a play must be the one the play names
//     and carry exactly its stake or its prize (ledger_play_rows): a play
//     is debited once and credited at most once, with its unit's prize. (The
//     play points at its rows rather than an index on ledger(play_id)
//     pointing back: one page less in every play commit.)
//   - no index finds the unfinished play: the store starts a play only when
//     the last one is finished, so only the last can be unfinished (Verify
//     checks it), and an index would be one more page in every commit;
//   - an idempotency key (bill note, voucher number) is used once per kind;
//   - one open block per stake (blocks_open);
//   - the ledger, units, play steps and the immutable part of plays refuse
//     UPDATE and DELETE; ledger rows must follow each other (id and
//     balance continuity), so a row can neither be skipped nor rewritten;
//   - events may only be deleted by rotation, beyond the newest kept;
//   - settings are a chain of changes (settings.go), the value of a key
//     being its newest row: the limits, the kiosk id and the hand-pay lock
//     are as hard to edit unseen as the ledger (chained, anchored).
const schemaV1 = `
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO meta(key, value) VALUES ('events_kept', 10000);

CREATE TABLE settings (
	id        INTEGER PRIMARY KEY,
	at        INTEGER NOT NULL,
	key       TEXT NOT NULL CHECK (length(key) > 0),
	value     TEXT NOT NULL,
	source    TEXT NOT NULL CHECK (length(source) > 0),
	prev_hash BLOB NOT NULL CHECK (length(prev_hash) = 32),
	hash      BLOB NOT NULL CHECK (length(hash) = 32)
);
CREATE INDEX settings_key ON settings(key, id);
CREATE TRIGGER settings_no_update BEFORE UPDATE ON settings
BEGIN SELECT RAISE(ABORT, 'settings never change: a new row sets a new value'); END;
CREATE TRIGGER settings_no_delete BEFORE DELETE ON settings
BEGIN SELECT RAISE(ABORT, 'settings are never deleted'); END;

CREATE TABLE blocks (
	id           INTEGER PRIMARY KEY,
	emission     INTEGER NOT NULL CHECK (emission >= 1),
	number       INTEGER NOT NULL CHECK (number >= 1),
	stake        INTEGER NOT NULL CHECK (stake = 50 OR stake = 100 OR stake = 200),
	units        INTEGER NOT NULL CHECK (units > 0),
	table_digest BLOB NOT NULL CHECK (length(table_digest) = 32),
	key_id       BLOB NOT NULL CHECK (length(key_id) = 8),
	created_at   INTEGER NOT NULL,
	file_digest  BLOB NOT NULL UNIQUE CHECK (length(file_digest) = 32),
	units_digest BLOB NOT NULL CHECK (length(units_digest) = 32),
	imported_at  INTEGER NOT NULL,
	state        TEXT NOT NULL CHECK (state = 'queued' OR state = 'open' OR state = 'exhausted' OR state = 'withdrawn'),
	next_index   INTEGER NOT NULL DEFAULT 0,
	opened_at    INTEGER,
	closed_at    INTEGER,
	note         TEXT NOT NULL DEFAULT '',
	UNIQUE (emission, number),
	CHECK (next_index BETWEEN 0 AND units),
	CHECK (state <> 'queued' OR next_index = 0),
	CHECK (state <> 'exhausted' OR next_index = units)
);
CREATE UNIQUE INDEX blocks_open ON blocks(stake) WHERE state = 'open';
CREATE INDEX blocks_queued ON blocks(stake, id) WHERE state = 'queued';
CREATE TRIGGER blocks_no_delete BEFORE DELETE ON blocks
BEGIN SELECT RAISE(ABORT, 'blocks are never deleted'); END;
CREATE TRIGGER blocks_fixed BEFORE UPDATE OF id, emission, number, stake, units, table_digest,
	key_id, created_at, file_digest, units_digest, imported_at ON blocks
BEGIN SELECT RAISE(ABORT, 'a block''s identity never changes'); END;
CREATE TRIGGER blocks_forward BEFORE UPDATE OF next_index ON blocks
WHEN NEW.next_index <> OLD.next_index + 1 OR OLD.state <> 'open'
BEGIN SELECT RAISE(ABORT, 'units are drawn one at a time from the open block'); END;
CREATE TRIGGER blocks_final BEFORE UPDATE OF state ON blocks
WHEN OLD.state IN ('exhausted', 'withdrawn') AND NEW.state <> OLD.state
BEGIN SELECT RAISE(ABORT, 'an exhausted or withdrawn block stays so'); END;

CREATE TABLE units (
	block_id  INTEGER NOT NULL REFERENCES blocks(id) DEFERRABLE INITIALLY DEFERRED,
	idx       INTEGER NOT NULL CHECK (idx >= 0),
	sealed    BLOB NOT NULL CHECK (length(sealed) = 16), -- tier, bonus flag and seed, sealed (units_seal.go)
	PRIMARY KEY (block_id, idx)
) WITHOUT ROWID;
CREATE TRIGGER units_no_update BEFORE UPDATE ON units
BEGIN SELECT RAISE(ABORT, 'units never change'); END;
CREATE TRIGGER units_no_delete BEFORE DELETE ON units
BEGIN SELECT RAISE(ABORT, 'units are never deleted'); END;

CREATE TABLE plays (
	id             INTEGER PRIMARY KEY,
	at             INTEGER NOT NULL,
	stake          INTEGER NOT NULL CHECK (stake = 50 OR stake = 100 OR stake = 200),
	mode           TEXT NOT NULL CHECK (mode IN ('jouer', 'auto')),
	layout_version INTEGER NOT NULL CHECK (layout_version >= 1),
	block_id       INTEGER NOT NULL,
	unit_idx       INTEGER NOT NULL,
	tier           INTEGER NOT NULL CHECK (tier BETWEEN 0 AND 8),
	via_bonus      INTEGER NOT NULL CHECK (via_bonus IN (0, 1)),
	seed           INTEGER NOT NULL,
	prize          INTEGER NOT NULL CHECK (prize >= 0 AND (prize = 0) = (tier = 0)),
	stake_entry    INTEGER NOT NULL, -- the ledger row debiting the stake
	prev_hash      BLOB NOT NULL CHECK (length(prev_hash) = 32),
	hash           BLOB NOT NULL CHECK (length(hash) = 32),
	-- What changes while the unit is revealed; every change but the
	-- recording is also a row of play_steps, which is hash-chained.
	state          TEXT NOT NULL DEFAULT 'started'
	               CHECK (state = 'started' OR state = 'main_done' OR state = 'bonus' OR state = 'finished'),
	updated_at     INTEGER NOT NULL,
	recording      BLOB,
	revealed       TEXT,
	mismatch       INTEGER NOT NULL DEFAULT 0 CHECK (mismatch IN (0, 1)),
	win_entry      INTEGER, -- the ledger row crediting the prize, set when finished
	CHECK ((state = 'finished' AND prize > 0) = (win_entry IS NOT NULL)),
	UNIQUE (block_id, unit_idx),
	FOREIGN KEY (block_id, unit_idx) REFERENCES units(block_id, idx)
);
CREATE TRIGGER plays_no_delete BEFORE DELETE ON plays
BEGIN SELECT RAISE(ABORT, 'plays are never deleted'); END;
CREATE TRIGGER plays_fixed BEFORE UPDATE OF id, at, stake, mode, layout_version, block_id,
	unit_idx, tier, via_bonus, seed, prize, stake_entry, prev_hash, hash ON plays
BEGIN SELECT RAISE(ABORT, 'a play''s unit and stake never change'); END;
CREATE TRIGGER plays_final BEFORE UPDATE ON plays WHEN OLD.state = 'finished'
BEGIN SELECT RAISE(ABORT, 'a finished play never changes'); END;

CREATE TABLE play_steps (
	id          INTEGER PRIMARY KEY,
	play_id     INTEGER NOT NULL REFERENCES plays(id),
	at          INTEGER NOT NULL,
	state       TEXT NOT NULL CHECK (state = 'main_done' OR state = 'bonus' OR state = 'finished'),
	revealed    TEXT,
	mismatch    INTEGER NOT NULL DEFAULT 0 CHECK (mismatch IN (0, 1)),
	rec_digest  BLOB,
	prev_hash   BLOB NOT NULL CHECK (length(prev_hash) = 32),
	hash        BLOB NOT NULL CHECK (length(hash) = 32)
);
CREATE TRIGGER play_steps_no_update BEFORE UPDATE ON play_steps
BEGIN SELECT RAISE(ABORT, 'play steps never change'); END;
CREATE TRIGGER play_steps_no_delete BEFORE DELETE ON play_steps
BEGIN SELECT RAISE(ABORT, 'play steps are never deleted'); END;

CREATE TABLE ledger (
	id            INTEGER PRIMARY KEY,
	at            INTEGER NOT NULL,
	kind          TEXT NOT NULL CHECK (kind = 'bill_in' OR kind = 'stake' OR kind = 'win' OR
	              kind = 'voucher_out' OR kind = 'hand_pay' OR kind = 'adjustment' OR kind = 'test'),
	amount        INTEGER NOT NULL,
	balance_after INTEGER NOT NULL CHECK (balance_after >= 0),
	play_id       INTEGER REFERENCES plays(id),
	ref           TEXT CHECK (ref IS NULL OR length(ref) > 0),
	note          TEXT NOT NULL DEFAULT '',
	prev_hash     BLOB NOT NULL CHECK (length(prev_hash) = 32),
	hash          BLOB NOT NULL CHECK (length(hash) = 32),
	CHECK (CASE kind
		WHEN 'bill_in'     THEN amount > 0 AND ref IS NOT NULL AND play_id IS NULL
		WHEN 'stake'       THEN amount < 0 AND play_id IS NOT NULL
		WHEN 'win'         THEN amount > 0 AND play_id IS NOT NULL
		WHEN 'voucher_out' THEN amount < 0 AND ref IS NOT NULL AND play_id IS NULL
		WHEN 'hand_pay'    THEN amount < 0 AND ref IS NOT NULL AND play_id IS NULL
		ELSE amount <> 0 AND play_id IS NULL
	END)
);
CREATE UNIQUE INDEX ledger_ref ON ledger(kind, ref) WHERE ref IS NOT NULL;
CREATE TRIGGER ledger_play_rows BEFORE INSERT ON ledger WHEN NEW.play_id IS NOT NULL AND NOT EXISTS (
	SELECT 1 FROM plays p WHERE p.id = NEW.play_id AND CASE NEW.kind
		WHEN 'stake' THEN p.stake_entry = NEW.id AND NEW.amount = -p.stake
		WHEN 'win'   THEN p.win_entry = NEW.id AND NEW.amount = p.prize
	END)
BEGIN SELECT RAISE(ABORT, 'a play''s stake and win rows are the ones it names, of its stake and of its prize'); END;
CREATE TRIGGER ledger_follows BEFORE INSERT ON ledger
WHEN NEW.id <> coalesce((SELECT max(id) FROM ledger), 0) + 1
  OR NEW.balance_after <> coalesce((SELECT balance_after FROM ledger ORDER BY id DESC LIMIT 1), 0) + NEW.amount
BEGIN SELECT RAISE(ABORT, 'a ledger row follows the previous one: next id, balance after = balance before + amount'); END;
CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;

CREATE TABLE meters (
	name  TEXT PRIMARY KEY,
	value INTEGER NOT NULL CHECK (value >= 0)
) WITHOUT ROWID;
CREATE TRIGGER meters_no_delete BEFORE DELETE ON meters
BEGIN SELECT RAISE(ABORT, 'meters are never deleted'); END;
CREATE TRIGGER meters_forward BEFORE UPDATE ON meters WHEN NEW.value < OLD.value
BEGIN SELECT RAISE(ABORT, 'meters only count up'); END;

CREATE TABLE events (
	id        INTEGER PRIMARY KEY,
	at        INTEGER NOT NULL,
	level     TEXT NOT NULL CHECK (level = 'info' OR level = 'warning' OR level = 'error' OR level = 'critical'),
	source    TEXT NOT NULL CHECK (length(source) > 0),
	code      TEXT NOT NULL CHECK (length(code) > 0),
	detail    TEXT NOT NULL DEFAULT '',
	prev_hash BLOB NOT NULL CHECK (length(prev_hash) = 32),
	hash      BLOB NOT NULL CHECK (length(hash) = 32)
);
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'events never change'); END;
CREATE TRIGGER events_rotation_only BEFORE DELETE ON events
WHEN OLD.id > (SELECT max(id) FROM events) - (SELECT value FROM meta WHERE key = 'events_kept')
BEGIN SELECT RAISE(ABORT, 'only events older than the newest kept are deleted'); END;
`

// firstRelease is the schema version of the first release: every
// migration of today's list. (The tests that give the store a longer list
// of migrations try the migrations of a later release.)
var firstRelease = len(migrations)

// migrate brings the schema to the latest version: a new database in one
// transaction, a released one one transaction per migration. It refuses a
// database from a newer schema, from a development version, or from
// another application before writing anything.
func migrate(ctx context.Context, db *sql.DB, migs []string) error {
	version, appID, err := schemaIdentity(ctx, db)
	if err != nil {
		return err
	}
	if err := checkIdentity(version, appID, len(migs)); err != nil {
		return err
	}
	if version == 0 {
		var tables int
		if err := db.QueryRowContext(ctx,
			`SELECT count(*) FROM sqlite_schema WHERE type = 'table'`).Scan(&tables); err != nil {
			return fmt.Errorf("read schema: %w", err)
		}
		if tables > 0 {
			return fmt.Errorf("version 0 with %d tables: %w", tables, ErrNotPharaon)
		}
		// A cut while a new database is made leaves no schema at all.
		return applyMigration(ctx, db, len(migs), strings.Join(migs, "\n"))
	}
	for v := version; v < len(migs); v++ {
		if err := applyMigration(ctx, db, v+1, migs[v]); err != nil {
			return err
		}
	}
	return nil
}

func applyMigration(ctx context.Context, db *sql.DB, to int, script string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migration %d: begin: %w", to, err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	if _, err := tx.ExecContext(ctx, script); err != nil {
		return fmt.Errorf("migration %d: %w: %w", to, ErrMigration, err)
	}
	// Both pragmas write the header of page 1, which is journaled: they
	// commit or roll back with the migration.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = %d", applicationID, to)); err != nil {
		return fmt.Errorf("migration %d: %w: %w", to, ErrMigration, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migration %d: %w: commit: %w", to, ErrMigration, err)
	}
	return nil
}

func schemaIdentity(ctx context.Context, db *sql.DB) (version, appID int, err error) {
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return 0, 0, fmt.Errorf("read schema version: %w", mapOpenErr(err))
	}
	if err := db.QueryRowContext(ctx, `PRAGMA application_id`).Scan(&appID); err != nil {
		return 0, 0, fmt.Errorf("read application id: %w", mapOpenErr(err))
	}
	return version, appID, nil
}

// checkIdentity refuses another application's database, a schema newer
// than the latest migration this software knows, and one older than the
// first release (a development version's).
func checkIdentity(version, appID, latest int) error {
	if appID != 0 && appID != applicationID {
		return fmt.Errorf("application id %#x: %w", appID, ErrNotPharaon)
	}
	if version > 0 && appID != applicationID {
		return fmt.Errorf("schema version %d without the Pharaon application id: %w", version, ErrNotPharaon)
	}
	if version > latest {
		return fmt.Errorf("schema version %d, this software knows up to %d: %w", version, latest, ErrNewerSchema)
	}
	if version > 0 && version < firstRelease {
		return fmt.Errorf("schema version %d was written by a development version of Pharaon, before version %d of the first release: it is not converted: %w",
			version, firstRelease, ErrOldSchema)
	}
	return nil
}
