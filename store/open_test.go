package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

func TestOpenSetsPragmasAndSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pharaon.db")
	s, err := Open(path, WithBusyTimeout(1500*time.Millisecond))
	require.NoError(t, err)
	// The writer connection (held by the store) and the readers have the
	// settings in force.
	assert.NoError(t, checkPragmas(ctx, s.r, 1500*time.Millisecond), "reader")
	require.NoError(t, s.write(ctx, func(tx *wtx) error {
		var mode string
		var sync, fk, timeout int
		for q, dst := range map[string]any{"journal_mode": &mode, "synchronous": &sync, "foreign_keys": &fk, "busy_timeout": &timeout} {
			if err := tx.rowQ("PRAGMA " + q).Scan(dst); err != nil {
				return err
			}
		}
		assert.Equal(t, "wal", mode)
		assert.Equal(t, 2, sync)
		assert.Equal(t, 1, fk)
		assert.Equal(t, 1500, timeout)
		return nil
	}))
	var version, appID int
	require.NoError(t, s.r.QueryRow(`PRAGMA user_version`).Scan(&version))
	require.NoError(t, s.r.QueryRow(`PRAGMA application_id`).Scan(&appID))
	assert.Equal(t, len(migrations), version)
	assert.Equal(t, applicationID, appID)
	_, err = s.Adjust(ctx, 3*game.Euro, "", "kept across a reopen")
	require.NoError(t, err)
	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "closing twice is harmless")
	_, err = s.Credit(ctx)
	assert.ErrorIs(t, err, ErrClosed)
	_, err = s.BillIn(ctx, 5*game.Euro, "n")
	assert.ErrorIs(t, err, ErrClosed)

	s, err = Open(path)
	require.NoError(t, err)
	defer s.Close()
	c, err := s.Credit(ctx)
	require.NoError(t, err)
	assert.Equal(t, 3*game.Euro, c)
	require.NoError(t, s.Verify(ctx))
}

func TestCheckPragmasRefuses(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name, query string
		timeout     time.Duration
	}{
		{"rollback journal", "_journal_mode=DELETE&_synchronous=FULL&_foreign_keys=1&_busy_timeout=5000", DefaultBusyTimeout},
		{"synchronous normal", "_journal_mode=WAL&_synchronous=NORMAL&_foreign_keys=1&_busy_timeout=5000", DefaultBusyTimeout},
		{"no foreign keys", "_journal_mode=WAL&_synchronous=FULL&_foreign_keys=0&_busy_timeout=5000", DefaultBusyTimeout},
		{"other busy timeout", "_journal_mode=WAL&_synchronous=FULL&_foreign_keys=1&_busy_timeout=10", DefaultBusyTimeout},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db, err := sql.Open("sqlite3", "file:"+filepath.Join(t.TempDir(), "x.db")+"?"+c.query)
			require.NoError(t, err)
			defer db.Close()
			assert.ErrorIs(t, checkPragmas(ctx, db, c.timeout), ErrPragma)
		})
	}
	// And a database where WAL cannot be: an in-memory one.
	_, err := Open(":memory:")
	assert.ErrorIs(t, err, ErrBadRequest)
}

// fileState is what must not change when Open refuses a file: its bytes
// and the absence of a WAL or shared-memory file beside it.
func fileState(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	sum := sha256.Sum256(b)
	state := string(sum[:])
	for _, ext := range []string{"-wal", "-shm", "-journal"} {
		if _, err := os.Stat(path + ext); err == nil {
			state += ext
		}
	}
	return state
}

// sqliteFile makes an SQLite database at path with raw SQL, outside the store.
func sqliteFile(t *testing.T, path string, script string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path)
	require.NoError(t, err)
	_, err = db.Exec(script)
	require.NoError(t, err)
	require.NoError(t, db.Close())
}

func TestOpenRefusesForeignFiles(t *testing.T) {
	newer := func(t *testing.T, path string) {
		s, err := Open(path)
		require.NoError(t, err)
		_, err = s.Adjust(context.Background(), 100, "", "written by the newer kiosk")
		require.NoError(t, err)
		require.NoError(t, s.Close())
		sqliteFile(t, path, "PRAGMA user_version = 99")
	}
	cases := []struct {
		name string
		make func(t *testing.T, path string)
		want error
	}{
		{"text file", func(t *testing.T, p string) {
			require.NoError(t, os.WriteFile(p, bytes.Repeat([]byte("not a database\n"), 100), 0o600))
		}, ErrNotSQLite},
		{"short file", func(t *testing.T, p string) {
			require.NoError(t, os.WriteFile(p, []byte("SQLite format 3\x00"), 0o600))
		}, ErrNotSQLite},
		{"a block file", func(t *testing.T, p string) {
			b, err := os.ReadFile(blockFile(t, 9, 9, game.Stake200))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(p, b, 0o600))
		}, ErrNotSQLite},
		{"newer schema", newer, ErrNewerSchema},
		{"another application", func(t *testing.T, p string) {
			sqliteFile(t, p, "PRAGMA application_id = 1234; CREATE TABLE t(a)")
		}, ErrNotPharaon},
		{"another application without id", func(t *testing.T, p string) {
			sqliteFile(t, p, "CREATE TABLE customers(name TEXT); INSERT INTO customers VALUES ('x')")
		}, ErrNotPharaon},
		{"another application in WAL", func(t *testing.T, p string) {
			sqliteFile(t, p, "PRAGMA journal_mode = WAL; CREATE TABLE customers(name TEXT)")
		}, ErrNotPharaon},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "pharaon.db")
			c.make(t, path)
			before := fileState(t, path)
			_, err := Open(path)
			assert.ErrorIs(t, err, c.want)
			assert.Equal(t, before, fileState(t, path), "nothing written")
		})
	}
}

func TestMigrations(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pharaon.db")
	with := func(migs ...string) Option {
		return func(c *config) error { c.migrations = migs; return nil }
	}
	s, err := Open(path)
	require.NoError(t, err)
	_, err = s.BillIn(ctx, 10*game.Euro, "note-1")
	require.NoError(t, err)
	require.NoError(t, s.Close())
	schema := func() string {
		db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
		require.NoError(t, err)
		defer db.Close()
		var v int
		require.NoError(t, db.QueryRow(`PRAGMA user_version`).Scan(&v))
		rows, err := db.Query(`SELECT type, name, coalesce(sql, '') FROM sqlite_schema ORDER BY name`)
		require.NoError(t, err)
		defer rows.Close()
		out := ""
		for rows.Next() {
			var typ, name, q string
			require.NoError(t, rows.Scan(&typ, &name, &q))
			out += typ + " " + name + " " + q + "\n"
		}
		return string(rune('0'+v)) + "\n" + out
	}
	v1 := schema()

	// A migration failing half-way (its first statement worked) leaves the
	// schema and the version exactly as they were.
	bad := "CREATE TABLE later (id INTEGER PRIMARY KEY); ALTER TABLE nowhere ADD COLUMN x"
	// (The migrations are this software's, plus one: the test holds
	// whatever the current schema version is.)
	_, err = Open(path, with(append(migrations[:len(migrations):len(migrations)], bad)...))
	assert.ErrorIs(t, err, ErrMigration)
	assert.Equal(t, v1, schema())

	// A good one applies, once, and keeps the data.
	good := "CREATE TABLE later (id INTEGER PRIMARY KEY, amount INTEGER NOT NULL)"
	s, err = Open(path, with(append(migrations[:len(migrations):len(migrations)], good)...))
	require.NoError(t, err)
	c, err := s.Credit(ctx)
	require.NoError(t, err)
	assert.Equal(t, 10*game.Euro, c)
	require.NoError(t, s.Close())
	v2 := schema()
	assert.Contains(t, v2, "table later")
	assert.Equal(t, string(rune('0'+len(migrations)+1)), v2[:1])
	s, err = Open(path, with(append(migrations[:len(migrations):len(migrations)], good)...))
	require.NoError(t, err)
	require.NoError(t, s.Close())
	assert.Equal(t, v2, schema())

	// This software's schema is now older than the file's.
	before := fileState(t, path)
	_, err = Open(path)
	assert.ErrorIs(t, err, ErrNewerSchema)
	assert.Equal(t, before, fileState(t, path))
}

func TestOptionsRefuseBadValues(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pharaon.db")
	for _, o := range []Option{WithClock(nil), WithBusyTimeout(0), WithEventsKept(MinEventsKept - 1)} {
		_, err := Open(path, o)
		assert.ErrorIs(t, err, ErrBadRequest)
	}
	_, err := os.Stat(path)
	assert.ErrorIs(t, err, os.ErrNotExist, "a refused option creates nothing")
}

// WithCreate(false) opens only a database that is there: no file, an empty
// one or one without a schema is ErrNoDatabase, and nothing is written.
func TestOpenWithoutCreate(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.db")
	_, err := Open(missing, WithCreate(false))
	require.ErrorIs(t, err, ErrNoDatabase)
	assert.NoFileExists(t, missing, "nothing created")
	assert.NoFileExists(t, missing+"-wal")

	empty := filepath.Join(dir, "empty.db")
	require.NoError(t, os.WriteFile(empty, nil, 0o600))
	_, err = Open(empty, WithCreate(false))
	require.ErrorIs(t, err, ErrNoDatabase)
	fi, err := os.Stat(empty)
	require.NoError(t, err)
	assert.Zero(t, fi.Size(), "the empty file is left empty")

	bare := filepath.Join(dir, "bare.db")
	db, err := sql.Open("sqlite3", bare)
	require.NoError(t, err)
	_, err = db.Exec(`PRAGMA user_version = 1; PRAGMA user_version = 0`) // a header, no schema
	require.NoError(t, err)
	require.NoError(t, db.Close())
	fi, err = os.Stat(bare)
	require.NoError(t, err)
	require.NotZero(t, fi.Size())
	_, err = Open(bare, WithCreate(false))
	require.ErrorIs(t, err, ErrNoDatabase, "a file without a schema")

	// A database made before opens as usual.
	made := filepath.Join(dir, "made.db")
	s, err := Open(made)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	s, err = Open(made, WithCreate(false))
	require.NoError(t, err)
	require.NoError(t, s.Close())
}

// TestDevelopmentSchemaRefused: a database written by a development
// version (a schema below the first release) is refused, never converted,
// and the file is left as it was: a conversion is code that takes a shape
// today's schema forbids (unchained intents, unsigned blocks), which whoever
// edits the file could put back.
func TestDevelopmentSchemaRefused(t *testing.T) {
	for v := 1; v < firstRelease; v++ {
		path := filepath.Join(t.TempDir(), "pharaon.db")
		s, err := Open(path, func(c *config) error { c.migrations = migrations[:v]; return nil })
		require.NoError(t, err)
		require.NoError(t, s.Close())
		before := fileState(t, path)
		_, err = Open(path)
		require.ErrorIs(t, err, ErrOldSchema, "schema %d", v)
		assert.Contains(t, err.Error(), "development version")
		assert.Equal(t, before, fileState(t, path), "schema %d: nothing written", v)
	}
}

// TestNewDatabaseIsOneTransaction: a new database gets its whole schema in
// one transaction, so a failure (or a cut) while it is made leaves no
// schema at all, and the next start makes it whole, never a development
// version's half.
func TestNewDatabaseIsOneTransaction(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pharaon.db")
	bad := append(migrations[:len(migrations):len(migrations)], "ALTER TABLE nowhere ADD COLUMN x")
	_, err := Open(path, func(c *config) error { c.migrations = bad; return nil })
	require.ErrorIs(t, err, ErrMigration)
	db, err := sql.Open("sqlite3", path)
	require.NoError(t, err)
	var version, tables int
	require.NoError(t, db.QueryRow(`PRAGMA user_version`).Scan(&version))
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM sqlite_schema`).Scan(&tables))
	require.NoError(t, db.Close())
	assert.Zero(t, version)
	assert.Zero(t, tables, "no table of the failed creation stays")
	s, err := Open(path)
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Verify(context.Background()))
}
