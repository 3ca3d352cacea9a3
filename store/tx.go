package store

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mattn/go-sqlite3"
)

// stmtID names a statement prepared once on the writer connection.
type stmtID int

const (
	stBegin stmtID = iota
	stCommit
	stRollback
	stLastEntry
	stInsertEntry
	stEntryByRef
	stLastPlay
	stOpenBlock
	stUnit
	stInsertPlay
	stAdvanceBlock
	stPlayForUpdate
	stPlayByID
	stLastStep
	stInsertStep
	stSetState
	stSetRecording
	stLastEvent
	stInsertEvent
	stRotateEvents
	stMeters1
	stMeters2
	stMeters3
	stMeters4
	numStmts
)

var queries = [numStmts]string{
	stBegin:       `BEGIN IMMEDIATE`,
	stCommit:      `COMMIT`,
	stRollback:    `ROLLBACK`,
	stLastEntry:   `SELECT id, balance_after, hash FROM ledger ORDER BY id DESC LIMIT 1`,
	stInsertEntry: `INSERT INTO ledger(id, at, kind, amount, balance_after, play_id, ref, note, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	stEntryByRef:  `SELECT ` + entryColumns + ` FROM ledger WHERE kind = ? AND ref = ?`,
	stLastPlay:    `SELECT id, hash, state FROM plays ORDER BY id DESC LIMIT 1`,
	stOpenBlock:   `SELECT id, emission, number, next_index, units FROM blocks WHERE stake = ? AND state = 'open'`,
	stUnit:        `SELECT sealed FROM units WHERE block_id = ? AND idx = ?`,
	stInsertPlay: `INSERT INTO plays(id, at, stake, mode, layout_version, block_id, unit_idx, tier, via_bonus, seed, prize,
		stake_entry, prev_hash, hash, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	stAdvanceBlock:  `UPDATE blocks SET next_index = next_index + 1 WHERE id = ? AND next_index = ?`,
	stPlayForUpdate: `SELECT p.stake, p.tier, p.via_bonus, p.prize, p.state, p.recording FROM plays p WHERE p.id = ?`,
	stPlayByID:      `SELECT ` + playColumns + `, p.recording` + playFrom + `WHERE p.id = ?`,
	stLastStep:      `SELECT id, hash FROM play_steps ORDER BY id DESC LIMIT 1`,
	stInsertStep:    `INSERT INTO play_steps(id, play_id, at, state, revealed, mismatch, rec_digest, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	stSetState:      `UPDATE plays SET state = ?, updated_at = ?, revealed = ?, mismatch = ?, win_entry = ? WHERE id = ?`,
	stSetRecording:  `UPDATE plays SET recording = ?, updated_at = ? WHERE id = ?`,
	stLastEvent:     `SELECT id, hash FROM events ORDER BY id DESC LIMIT 1`,
	stInsertEvent:   `INSERT INTO events(id, at, level, source, code, detail, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
	stRotateEvents:  `DELETE FROM events WHERE id <= ?`,
	stMeters1:       metersUpsert(1),
	stMeters2:       metersUpsert(2),
	stMeters3:       metersUpsert(3),
	stMeters4:       metersUpsert(4),
}

// metersUpsert adds n (name, delta) pairs to the meters in one statement.
func metersUpsert(n int) string {
	return `INSERT INTO meters(name, value) VALUES ` + strings.TrimSuffix(strings.Repeat("(?, ?), ", n), ", ") +
		` ON CONFLICT(name) DO UPDATE SET value = value + excluded.value`
}

// prepare takes the writer connection for the store's lifetime and
// prepares the hot statements on it.
func (s *Store) prepare(ctx context.Context) error {
	c, err := s.w.Conn(ctx)
	if err != nil {
		return fmt.Errorf("writer connection: %w", err)
	}
	s.wc = c
	return c.Raw(func(dc any) error {
		conn, ok := dc.(*sqlite3.SQLiteConn)
		if !ok {
			return fmt.Errorf("writer connection is a %T", dc)
		}
		for i, q := range queries {
			st, err := conn.Prepare(q)
			if err != nil {
				return fmt.Errorf("prepare %q: %w", q, err)
			}
			s.stmts[i] = st.(*sqlite3.SQLiteStmt)
		}
		return nil
	})
}

// closeStmts finalizes the prepared statements on the writer connection.
func (s *Store) closeStmts() error {
	if s.wc == nil {
		return nil
	}
	return s.wc.Raw(func(any) error {
		var errs []error
		for i, st := range s.stmts {
			if st != nil {
				errs = append(errs, st.Close())
				s.stmts[i] = nil
			}
		}
		return errors.Join(errs...)
	})
}

// wtx is one write transaction on the writer connection. Every row it
// writes is stamped with the same time, read once from the clock.
//
// It talks to the go-sqlite3 driver connection directly rather than
// through database/sql: a play is a dozen statements, and database/sql's
// per-statement machinery (argument conversion, locks, a goroutine per
// query watching a transaction's context) cost more than SQLite's work
// (see BenchmarkPlayVsBareInsert). The connection is the one the store
// holds (s.wc); everything here runs inside its Raw callback.
type wtx struct {
	s   *Store
	c   *sqlite3.SQLiteConn
	ctx context.Context // never cancelled: a started write completes, or rolls back on error
	now int64           // Unix nanoseconds
	nv  []driver.NamedValue
	// heads are the chains' heads as this transaction leaves them: each
	// insert into a chained table moves its head (anchor.go).
	heads heads
	// moneyOut says the transaction moves money out of the kiosk: it
	// counts the trust root, at the anchor's pace (anchor.go).
	moneyOut bool
}

// movesMoneyOut marks the transaction as moving money out of the kiosk (a
// voucher printed or paid, a hand-pay, a collection): with an anchor, it
// counts the trust root before its COMMIT, at most once per the anchor's
// pace (DESIGN.md §4).
func (t *wtx) movesMoneyOut() { t.moneyOut = true }

func (t *wtx) args(args []any) ([]driver.NamedValue, error) {
	nv := t.nv[:0]
	for i, a := range args {
		var v driver.Value
		switch x := a.(type) {
		case nil, int64, string, []byte, bool:
			v = x
		case int:
			v = int64(x)
		case uint32:
			v = int64(x)
		default:
			var err error
			if v, err = driver.DefaultParameterConverter.ConvertValue(a); err != nil {
				return nil, fmt.Errorf("argument %d: %w", i+1, err)
			}
		}
		nv = append(nv, driver.NamedValue{Ordinal: i + 1, Value: v})
	}
	t.nv = nv
	return nv, nil
}

func (t *wtx) execStmt(st *sqlite3.SQLiteStmt, args ...any) (driver.Result, error) {
	nv, err := t.args(args)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(t.ctx, nv)
}

// queryStmt runs st and keeps its first row. ncols is its number of
// columns, or 0 to ask the driver (which costs a call into SQLite per
// column, for their names).
func (t *wtx) queryStmt(st *sqlite3.SQLiteStmt, ncols int, args ...any) *wrow {
	nv, err := t.args(args)
	if err != nil {
		return &wrow{err: err}
	}
	rows, err := st.QueryContext(t.ctx, nv)
	if err != nil {
		return &wrow{err: err}
	}
	defer rows.Close()
	if ncols == 0 {
		ncols = len(rows.Columns())
	}
	r := &wrow{vals: make([]driver.Value, ncols)}
	switch err := rows.Next(r.vals); {
	case errors.Is(err, io.EOF):
		r.err = sql.ErrNoRows
	case err != nil:
		r.err = err
	}
	return r
}

// exec runs a prepared statement.
func (t *wtx) exec(id stmtID, args ...any) (driver.Result, error) {
	return t.execStmt(t.s.stmts[id], args...)
}

// row runs a prepared query and keeps its first row.
func (t *wtx) row(id stmtID, args ...any) *wrow {
	r := t.queryStmt(t.s.stmts[id], t.s.ncols[id], args...)
	if r.vals != nil {
		t.s.ncols[id] = len(r.vals) // known from the first run on (writes hold wmu)
	}
	return r
}

// execQ and rowQ run a statement prepared for this call only (the rare
// writes: blocks, settings).
func (t *wtx) execQ(q string, args ...any) (driver.Result, error) {
	st, err := t.prepareQ(q)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return t.execStmt(st, args...)
}

func (t *wtx) rowQ(q string, args ...any) *wrow {
	st, err := t.prepareQ(q)
	if err != nil {
		return &wrow{err: err}
	}
	defer st.Close()
	return t.queryStmt(st, 0, args...)
}

func (t *wtx) prepareQ(q string) (*sqlite3.SQLiteStmt, error) {
	st, err := t.c.Prepare(q)
	if err != nil {
		return nil, err
	}
	return st.(*sqlite3.SQLiteStmt), nil
}

// wrow is the first row of a query, scanned like an *sql.Row.
type wrow struct {
	vals []driver.Value
	err  error
}

// Scan copies the row's values into dest: the few conversions the store's
// columns need (INTEGER to the integer types and bool, TEXT, BLOB, NULL).
func (r *wrow) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	if len(dest) != len(r.vals) {
		return fmt.Errorf("scan %d columns into %d values", len(r.vals), len(dest))
	}
	for i, v := range r.vals {
		if err := assign(dest[i], v); err != nil {
			return fmt.Errorf("column %d: %w", i, err)
		}
	}
	return nil
}

func assign(dest any, v driver.Value) error {
	switch d := dest.(type) {
	case *int64:
		if n, ok := v.(int64); ok {
			*d = n
			return nil
		}
	case *int:
		if n, ok := v.(int64); ok {
			*d = int(n)
			return nil
		}
	case *uint32:
		if n, ok := v.(int64); ok && n >= 0 && n <= 1<<32-1 {
			*d = uint32(n)
			return nil
		}
	case *bool:
		if n, ok := v.(int64); ok {
			*d = n != 0
			return nil
		}
	case *string:
		switch x := v.(type) {
		case string:
			*d = x
			return nil
		case []byte:
			*d = string(x)
			return nil
		}
	case *[]byte:
		switch x := v.(type) {
		case nil:
			*d = nil
			return nil
		case []byte:
			*d = bytes.Clone(x)
			return nil
		case string:
			*d = []byte(x)
			return nil
		}
	case *sql.NullInt64:
		switch x := v.(type) {
		case nil:
			*d = sql.NullInt64{}
			return nil
		case int64:
			*d = sql.NullInt64{Int64: x, Valid: true}
			return nil
		}
	case *sql.NullBool:
		switch x := v.(type) {
		case nil:
			*d = sql.NullBool{}
			return nil
		case int64:
			*d = sql.NullBool{Bool: x != 0, Valid: true}
			return nil
		}
	case *sql.NullString:
		switch x := v.(type) {
		case nil:
			*d = sql.NullString{}
			return nil
		case string:
			*d = sql.NullString{String: x, Valid: true}
			return nil
		}
	}
	return fmt.Errorf("cannot store %T in %T", v, dest)
}

// write runs fn in one BEGIN IMMEDIATE transaction on the writer
// connection and commits it; an error (or a panic) rolls everything back.
// A begun transaction is not tied to ctx's cancellation: stopping a money
// movement half-way has no use, and SQLite rolls back a commit that did
// not complete.
func (s *Store) write(ctx context.Context, fn func(*wtx) error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.onWrite != nil {
		s.onWrite()
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	bg := context.WithoutCancel(ctx)
	return s.wc.Raw(func(dc any) error {
		t := &wtx{s: s, c: dc.(*sqlite3.SQLiteConn), ctx: bg, now: s.now().UnixNano(), nv: make([]driver.NamedValue, 0, 16)}
		a := s.anc
		if a != nil {
			if a.err != nil {
				return a.err
			}
			t.heads = a.heads
		}
		if _, err := t.exec(stBegin); err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		done := false
		defer func() {
			if !done {
				// fn failed or panicked, or COMMIT failed: make sure nothing
				// of it stays (ROLLBACK fails harmlessly if SQLite already
				// rolled back).
				_, _ = t.exec(stRollback)
			}
		}()
		if err := fn(t); err != nil {
			return err
		}
		moved := a != nil && t.heads != a.heads
		count := a != nil && t.moneyOut && a.due(time.Unix(0, t.now))
		if moved || count {
			// The record of the heads this commit leaves (and of the
			// count it makes), durable before it: after a crash the
			// database is at a's heads or at these.
			next := a.counter
			if count {
				next++
			}
			if err := a.announce(t.heads, next); err != nil {
				return err
			}
		}
		if count {
			// Counted before the COMMIT: a transaction that moved money
			// out is never on the disk without its count.
			if err := a.increment(time.Unix(0, t.now)); err != nil {
				a.err = err
				return err
			}
		}
		if _, err := t.exec(stCommit); err != nil {
			return fmt.Errorf("commit: %w", err)
		}
		done = true
		if moved || count {
			a.confirm(t.heads)
		}
		return nil
	})
}

// meters adds the deltas to the named meters (at most 4 per call, zero
// deltas included: the set of meters rows is then the same whatever the
// amounts).
func (t *wtx) meters(kv ...any) error {
	n := len(kv) / 2
	if n < 1 || n > 4 || len(kv)%2 != 0 {
		panic(fmt.Sprintf("store: meters called with %d values", len(kv)))
	}
	_, err := t.exec(stMeters1+stmtID(n-1), kv...)
	if err != nil {
		return fmt.Errorf("meters: %w", err)
	}
	return nil
}
