package store

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNewDatabaseIsPrivate: the database the store creates, and the WAL and
// shared-memory files SQLite makes beside it (with the database's mode),
// are readable and writable by the kiosk's user only (0600), whatever the
// process's umask: the ledger, the PIN hashes and the validation numbers
// of payable vouchers are in them (docs/threat-model.md).
func TestNewDatabaseIsPrivate(t *testing.T) {
	old := syscall.Umask(0o022) // the usual umask, which would give 0644
	t.Cleanup(func() { syscall.Umask(old) })
	path := filepath.Join(t.TempDir(), "pharaon.db")
	s, err := Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	_, err = s.Log(context.Background(), Event{Level: LevelInfo, Source: "test", Code: "mode"})
	require.NoError(t, err)
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "%s", filepath.Base(p))
	}
}
