package store

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadAnchorIsTheStoresHeads: the newest record of the anchor file, read
// without a store, holds the heads the store anchored, nothing pending
// once the store is closed; a secret of another kiosk reads nothing.
func TestReadAnchorIsTheStoresHeads(t *testing.T) {
	dir := t.TempDir()
	anchoredHistory(t, dir)
	path := filepath.Join(dir, "pharaon.db")
	s, err := Open(path, WithAnchor(DefaultAnchor(path)))
	require.NoError(t, err)
	want, err := s.Anchor()
	require.NoError(t, err)
	require.NoError(t, s.Close())

	rec, err := ReadAnchor(DefaultAnchor(path))
	require.NoError(t, err)
	require.Equal(t, want.Seq, rec.Seq)
	require.True(t, SameHeads(want.Heads, rec.Committed), "the record's heads are the store's")
	require.Nil(t, rec.Pending, "nothing announced after a close")
	require.False(t, SameHeads(want.Heads, rec.Committed[:len(rec.Committed)-1]))

	require.Equal(t, want.Counter, rec.Counter)

	other, err := OpenFileTrust(t.TempDir())
	require.NoError(t, err)
	_, err = ReadAnchor(AnchorConfig{Trust: other, Path: DefaultAnchor(path).Path})
	require.ErrorIs(t, err, ErrAnchor)
}

// TestWeakenSyncOnlyInTestBuilds: without the tag pharaon_weaksync the
// store keeps synchronous=FULL whatever it is asked.
func TestWeakenSyncOnlyInTestBuilds(t *testing.T) {
	s := openTest(t)
	err := s.WeakenSync(context.Background(), "OFF")
	if WeakSyncBuilt {
		require.NoError(t, err)
		return
	}
	require.Error(t, err)
	var sync int
	require.NoError(t, s.wc.QueryRowContext(context.Background(), "PRAGMA synchronous").Scan(&sync))
	require.Equal(t, 2, sync, "FULL")
}
