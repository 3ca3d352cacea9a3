package main

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countRows counts the rows of table in the database at path, read with
// SQLite alone (its WAL included when there is one).
func countRows(t *testing.T, path, table string) int {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	require.NoError(t, err)
	defer db.Close()
	var n int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM `+table).Scan(&n))
	return n
}

// systemd stops the kiosk with SIGTERM (systemctl stop pharaon): the kiosk
// exits 0 having closed its store, so its WAL is gone (or empty) and the
// database file alone, the file a technician copies, holds what this run
// wrote (its start's events and meter snapshot).
func TestSIGTERMLeavesNoWAL(t *testing.T) {
	k := newLockKiosk(t)
	rk := startKiosk(t, k)
	// What the running kiosk has committed, read beside it (WAL included);
	// the connection closed before the stop, as it would keep the WAL.
	events, snapshots := countRows(t, k.db, "events"), countRows(t, k.db, "meter_snapshots")
	require.NotZero(t, snapshots, "the start wrote its meter snapshot")
	fi, err := os.Stat(k.db + "-wal")
	require.NoError(t, err)
	require.NotZero(t, fi.Size(), "the running kiosk's WAL holds its writes")

	require.NoError(t, rk.cmd.Process.Signal(syscall.SIGTERM))
	done := make(chan error, 1)
	go func() { done <- rk.cmd.Wait() }()
	select {
	case err := <-done:
		require.NoError(t, err, "a clean stop exits 0: %s", rk.stderr.String())
	case <-time.After(30 * time.Second): // the unit's TimeoutStopSec
		t.Fatalf("the kiosk did not stop on SIGTERM: %s", rk.stderr.String())
	}
	fi, err = os.Stat(k.db + "-wal")
	if !errors.Is(err, os.ErrNotExist) {
		require.NoError(t, err)
		assert.Zero(t, fi.Size(), "the WAL is empty after the stop")
	}
	b, err := os.ReadFile(k.db)
	require.NoError(t, err)
	alone := filepath.Join(t.TempDir(), "pharaon.db")
	require.NoError(t, os.WriteFile(alone, b, 0o600))
	assert.GreaterOrEqual(t, countRows(t, alone, "events"), events, "the run's events are in the database file")
	assert.Equal(t, snapshots, countRows(t, alone, "meter_snapshots"), "the run's snapshot is in the database file")
}
