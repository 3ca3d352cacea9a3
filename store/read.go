package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"

	"github.com/mattn/go-sqlite3"
)

// rtx is one read transaction on a reader connection: every query sees the
// same snapshot. Like wtx it talks to the driver connection directly: the
// checks of Verify read every play, step, ledger row and event, and
// database/sql's per-row machinery would cost more than SQLite's.
type rtx struct {
	ctx context.Context // the caller's, checked every few rows (see rows.Next)
	wtx                 // the connection, and ctx without cancellation given to the driver
}

// read runs fn in one read transaction on a reader connection.
func (s *Store) read(ctx context.Context, fn func(*rtx) error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return ErrClosed
	}
	c, err := s.r.Conn(ctx)
	if err != nil {
		return fmt.Errorf("reader connection: %w", err)
	}
	defer c.Close()
	return c.Raw(func(dc any) error {
		bg := context.WithoutCancel(ctx)
		t := &rtx{ctx: ctx, wtx: wtx{c: dc.(*sqlite3.SQLiteConn), ctx: bg}}
		if _, err := t.c.ExecContext(bg, "BEGIN", nil); err != nil {
			return fmt.Errorf("begin read: %w", err)
		}
		defer t.c.ExecContext(bg, "ROLLBACK", nil) //nolint:errcheck // read only
		return fn(t)
	})
}

// queryRow runs a query and keeps its first row.
func (t *rtx) queryRow(q string, args ...any) *wrow {
	return t.rowQ(q, args...)
}

// query runs a query; the caller iterates and closes the rows, which
// check the caller's ctx every few rows.
func (t *rtx) query(q string, args ...any) (*rows, error) {
	if err := t.ctx.Err(); err != nil {
		return nil, err
	}
	r, err := t.wtx.query(q, args...)
	if err != nil {
		return nil, err
	}
	r.ctx = t.ctx
	return r, nil
}

// query runs a query inside a write transaction (or, through rtx.query, a
// read one) on the transaction's uncancelled context; the caller iterates
// and closes the rows.
func (t *wtx) query(q string, args ...any) (*rows, error) {
	st, err := t.prepareQ(q)
	if err != nil {
		return nil, err
	}
	nv, err := t.args(args)
	if err != nil {
		st.Close()
		return nil, err
	}
	dr, err := st.QueryContext(t.ctx, nv)
	if err != nil {
		st.Close()
		return nil, err
	}
	return &rows{ctx: t.ctx, st: st, dr: dr, vals: make([]driver.Value, len(dr.Columns()))}, nil
}

// rows iterates over a query's rows like *sql.Rows.
type rows struct {
	ctx  context.Context
	st   *sqlite3.SQLiteStmt
	dr   driver.Rows
	vals []driver.Value
	n    int
	err  error
	done bool
}

func (r *rows) Next() bool {
	if r.done {
		return false
	}
	r.n++
	if r.n%1024 == 0 {
		if err := r.ctx.Err(); err != nil {
			r.err = err
			r.Close()
			return false
		}
	}
	err := r.dr.Next(r.vals)
	if err != nil {
		if !errors.Is(err, io.EOF) {
			r.err = err
		}
		r.Close()
		return false
	}
	return true
}

func (r *rows) Scan(dest ...any) error {
	if r.done {
		return errors.New("scan after the last row")
	}
	return (&wrow{vals: r.vals}).Scan(dest...)
}

func (r *rows) Err() error { return r.err }

func (r *rows) Close() error {
	if r.done {
		return nil
	}
	r.done = true
	return errors.Join(r.dr.Close(), r.st.Close())
}
