package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// A closed store leaves everything in the database file: no WAL (or an
// empty one), so that a copy of pharaon.db alone, the file a technician
// saves, holds every committed row. SQLite checkpoints the WAL into the
// database and deletes it when the last connection closes; a connection
// left open (a reader not returned, a statement not finalized) would keep
// the WAL, and the rows in it, out of the copy.
func TestCloseLeavesEverythingInTheDatabaseFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pharaon.db")
	s, err := Open(path, WithAnchor(DefaultAnchor(path)), WithClock(newClock().now))
	require.NoError(t, err)
	for i := range 20 {
		_, err := s.BillIn(ctx, 10*game.Euro, fmt.Sprintf("note-%d", i))
		require.NoError(t, err)
	}
	_, err = s.Log(ctx, Event{Level: LevelInfo, Source: "test", Code: "last_event"})
	require.NoError(t, err)
	require.NoError(t, s.Verify(ctx)) // the readers used too
	fi, err := os.Stat(path + "-wal")
	require.NoError(t, err)
	require.NotZero(t, fi.Size(), "the rows are in the WAL before Close")

	require.NoError(t, s.Close())
	fi, err = os.Stat(path + "-wal")
	if !errors.Is(err, os.ErrNotExist) {
		require.NoError(t, err)
		assert.Zero(t, fi.Size(), "the WAL is empty once the store is closed")
	}

	// The database file alone, copied where no WAL is.
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	alone := filepath.Join(t.TempDir(), "pharaon.db")
	require.NoError(t, os.WriteFile(alone, b, 0o600))
	db, err := sql.Open("sqlite3", "file:"+alone+"?mode=ro")
	require.NoError(t, err)
	defer db.Close()
	var notes, events int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM ledger WHERE kind = 'bill_in'`).Scan(&notes))
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM events WHERE code = 'last_event'`).Scan(&events))
	assert.Equal(t, 20, notes, "every note credited is in the database file")
	assert.Equal(t, 1, events, "the last event is in the database file")
}
