package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// The schema check (part of Verify): the tables, indexes and triggers of
// the file are exactly those the migrations create, each with the very SQL
// they gave it. A trigger dropped (the append-only ledger, the
// never-deleted plays), a table or index added or changed is an
// *IntegrityError of check "schema": the triggers are what refuses an edit
// of the history, so a file without them is not trusted.

// schemaObject is one row of sqlite_schema.
type schemaObject struct{ kind, name, table, sql string }

var (
	schemaMu   sync.Mutex
	schemaMemo = map[[sha256.Size]byte][]schemaObject{}
)

// expectedSchema is the schema the migrations make, read from an empty
// in-memory database they were applied to (once per list of migrations).
func expectedSchema(ctx context.Context, migs []string) ([]schemaObject, error) {
	key := sha256.Sum256([]byte(strings.Join(migs, "\x00")))
	schemaMu.Lock()
	defer schemaMu.Unlock()
	if s, ok := schemaMemo[key]; ok {
		return s, nil
	}
	db, err := sql.Open("sqlite3", "file::memory:?_foreign_keys=1")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if err := migrate(ctx, db, migs); err != nil {
		return nil, fmt.Errorf("expected schema: %w", err)
	}
	rows, err := db.QueryContext(ctx, schemaQuery)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []schemaObject
	for rows.Next() {
		var o schemaObject
		if err := rows.Scan(&o.kind, &o.name, &o.table, &o.sql); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	schemaMemo[key] = out
	return out, nil
}

// schemaQuery lists the schema's objects but SQLite's statistics tables
// (ANALYZE writes them; they change no rule).
const schemaQuery = `SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema
	WHERE name NOT LIKE 'sqlite\_stat%' ESCAPE '\' ORDER BY type, name`

func verifySchema(tx *rtx, migs []string) error {
	want, err := expectedSchema(tx.ctx, migs)
	if err != nil {
		return err
	}
	rows, err := tx.query(schemaQuery)
	if err != nil {
		return fmt.Errorf("verify schema: %w", err)
	}
	defer rows.Close()
	got := map[string]schemaObject{}
	for rows.Next() {
		var o schemaObject
		if err := rows.Scan(&o.kind, &o.name, &o.table, &o.sql); err != nil {
			return fmt.Errorf("verify schema: %w", err)
		}
		got[o.kind+" "+o.name] = o
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("verify schema: %w", err)
	}
	var diffs []string
	for _, w := range want {
		k := w.kind + " " + w.name
		g, ok := got[k]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s %s is missing", w.kind, w.name))
		case g != w:
			diffs = append(diffs, fmt.Sprintf("%s %s is not the one shipped", w.kind, w.name))
		}
		delete(got, k)
	}
	for _, g := range got {
		diffs = append(diffs, fmt.Sprintf("%s %s is not in the schema shipped", g.kind, g.name))
	}
	if len(diffs) > 0 {
		sort.Strings(diffs)
		return integrity("schema", "", 0, "%s", strings.Join(diffs, "; "))
	}
	return nil
}
