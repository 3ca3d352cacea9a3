package store

import (
	"errors"
	"fmt"

	"github.com/mattn/go-sqlite3"
)

// Sentinel errors. Every error of the package wraps one of them, or an
// error of SQLite or of package block, with context saying what failed.
var (
	// ErrNotSQLite: the file at the path is not an SQLite database.
	ErrNotSQLite = errors.New("not an SQLite database")
	// ErrNotPharaon: the file is an SQLite database of another application.
	ErrNotPharaon = errors.New("not a Pharaon database")
	// ErrNewerSchema: the database was written by a newer version of the
	// kiosk software; this one does not know its schema and will not touch it.
	ErrNewerSchema = errors.New("database schema is newer than this software")
	// ErrOldSchema: the database was written by a development version of
	// the kiosk software, before the first release; it is not converted.
	ErrOldSchema = errors.New("database of a development version")
	// ErrPragma: SQLite did not put in force a setting the store relies on
	// for durability (WAL, synchronous=FULL, foreign keys, busy timeout).
	ErrPragma = errors.New("database setting not in force")
	// ErrNoDatabase: there is no database at the path (no file, an empty
	// one, or one without a schema) and Open was told not to create it
	// (WithCreate(false)).
	ErrNoDatabase = errors.New("no database")
	// ErrMigration: a schema migration failed; the schema is unchanged.
	ErrMigration = errors.New("schema migration failed")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("store is closed")

	// ErrBadBlock: the block file failed verification (the error also wraps
	// the block package's sentinel saying what is wrong).
	ErrBadBlock = errors.New("block file rejected")
	// ErrDuplicateBlock: a block of the same emission and number, or the
	// same file, was already imported.
	ErrDuplicateBlock = errors.New("block already imported")
	// ErrNoOpenBlock: no block is open for the stake: the stake is
	// unavailable until a block of it is imported (DESIGN.md §5).
	ErrNoOpenBlock = errors.New("no open block for this stake")
	// ErrBlockState: the block is not in a state allowing the operation.
	ErrBlockState = errors.New("block state does not allow this")

	// ErrInsufficientCredit: the credit is below the stake or the amount.
	ErrInsufficientCredit = errors.New("insufficient credit")
	// ErrPlayInProgress: a play is started and not finished; the kiosk
	// plays one unit at a time and finishes it before anything else.
	ErrPlayInProgress = errors.New("a play is not finished")
	// ErrPlayFinished: the play is already finished (its prize credited).
	ErrPlayFinished = errors.New("play already finished")
	// ErrPlayState: the requested state does not follow the play's state.
	ErrPlayState = errors.New("play state does not follow")
	// ErrStaleRecording: the recording is shorter than the one the play
	// holds, so older than it; nothing was written.
	ErrStaleRecording = errors.New("recording older than the one kept")
	// ErrPrizeMismatch: the amount shown by the caller is not the prize
	// committed in the play's unit; nothing is credited.
	ErrPrizeMismatch = errors.New("amount differs from the unit's prize")

	// ErrDuplicateRef: a movement with the same kind and reference
	// (idempotency key) is already in the ledger; nothing was written.
	ErrDuplicateRef = errors.New("movement already recorded")
	// ErrBadAmount: the amount is not valid for the movement.
	ErrBadAmount = errors.New("invalid amount")
	// ErrBadRequest: an argument is outside what the operation accepts.
	ErrBadRequest = errors.New("invalid request")
	// ErrNotFound: no row with that id.
	ErrNotFound = errors.New("not found")

	// ErrIntegrity: a check of Verify failed: SQLite's integrity check, a
	// hash chain, the ledger's balances, the meters or the units sold.
	ErrIntegrity = errors.New("integrity check failed")
)

// Transient reports whether err is SQLite's refusal of a write because
// another connection holds the database (SQLITE_BUSY, SQLITE_LOCKED) past
// the busy timeout: nothing was written, and the same write may succeed
// if tried again later.
func Transient(err error) bool {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return false
	}
	return se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked
}

// IntegrityError says which check failed where. It matches ErrIntegrity
// with errors.Is.
type IntegrityError struct {
	Check  string // "sqlite", "chain", "ledger", "meters", "units", "plays"
	Table  string // the table concerned, if any
	ID     int64  // the first row found wrong, if any
	Reason string
}

func (e *IntegrityError) Error() string {
	s := "integrity check failed: " + e.Check
	if e.Table != "" {
		s += ": " + e.Table
		if e.ID != 0 {
			s += fmt.Sprintf(" row %d", e.ID)
		}
	}
	return s + ": " + e.Reason
}

func (e *IntegrityError) Is(target error) bool { return target == ErrIntegrity }

func integrity(check, table string, id int64, format string, args ...any) error {
	return &IntegrityError{Check: check, Table: table, ID: id, Reason: fmt.Sprintf(format, args...)}
}
