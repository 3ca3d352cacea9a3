package kiosk

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/store"
)

func TestProvisionDemo(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(filepath.Join(dir, "pharaon.db"))
	require.NoError(t, err)
	defer st.Close()
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	keys, err := ProvisionDemo(ctx, st, dir, now)
	require.NoError(t, err)
	require.Len(t, keys, 1)
	for _, s := range game.Stakes {
		b, err := st.OpenBlock(ctx, s)
		require.NoError(t, err, "stake %s has an open demo block", s)
		assert.EqualValues(t, DemoEmission, b.Emission)
	}
	// A second start keeps the key and adds no block.
	keys2, err := ProvisionDemo(ctx, st, dir, now)
	require.NoError(t, err)
	assert.Equal(t, keys, keys2)
	blocks, err := st.Blocks(ctx)
	require.NoError(t, err)
	assert.Len(t, blocks, 3)
}
