package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// A backup is the database (its WAL's rows included) and its anchor, both
// 0600: put back in a fresh directory under the same trust root, it opens
// with no fault and holds every note. Once the kiosk has started again
// (the trust root counted), the same copy put back is the rollback fault,
// by design. A store whose anchor failed makes no backup.
func TestBackupRestores(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "pharaon.db")
	a := AnchorConfig{Path: filepath.Join(dir, "pharaon.anchor"), TrustDir: filepath.Join(dir, "trust")}
	s, err := Open(path, WithAnchor(a), WithClock(newClock().now))
	require.NoError(t, err)
	for i := range 5 {
		_, err := s.BillIn(ctx, 10*game.Euro, fmt.Sprintf("note-%d", i))
		require.NoError(t, err)
	}
	out := t.TempDir()
	db, anc := filepath.Join(out, "pharaon.db"), filepath.Join(out, "pharaon.anchor")
	require.NoError(t, s.Backup(ctx, db, anc))
	for _, p := range []string{db, anc} {
		fi, err := os.Stat(p)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "%s", p)
	}
	assert.NoFileExists(t, db+"-wal", "the check of the copy writes nothing beside it")
	assert.Error(t, s.Backup(ctx, db, anc), "an existing copy is never overwritten")
	require.NoError(t, s.Close())

	restore := func() *Store {
		fresh := t.TempDir()
		copyFile(t, db, filepath.Join(fresh, "pharaon.db"))
		copyFile(t, anc, filepath.Join(fresh, "pharaon.anchor"))
		r, err := Open(filepath.Join(fresh, "pharaon.db"), WithCreate(false),
			WithAnchor(AnchorConfig{Path: filepath.Join(fresh, "pharaon.anchor"), TrustDir: a.TrustDir}))
		require.NoError(t, err)
		t.Cleanup(func() { r.Close() })
		return r
	}
	r := restore()
	require.NoError(t, r.AnchorErr())
	require.NoError(t, r.Verify(ctx))
	credit, err := r.Credit(ctx)
	require.NoError(t, err)
	assert.Equal(t, 50*game.Euro, credit, "every note is in the copy")
	require.NoError(t, r.Close())

	// The restored copy started (counted) once: the same copy again is
	// behind the trust root.
	r = restore()
	assert.ErrorIs(t, r.AnchorErr(), ErrRollback)
	assert.ErrorIs(t, r.Backup(ctx, filepath.Join(out, "again.db"), filepath.Join(out, "again.anchor")), ErrRollback,
		"no backup of a store whose anchor failed")
}
