package kiosktest

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/block"
	"pharaon/store"
)

// A test block is a valid block: its head is where the test put it and its
// lots are exactly the table's.
func TestWriteBlock(t *testing.T) {
	head := EveryOutcome()
	var buf bytes.Buffer
	require.NoError(t, WriteBlock(&buf, game.Stake100, 3, head))
	r, err := block.NewReader(&buf, Keys)
	require.NoError(t, err)
	for i, want := range head {
		u, err := r.Next()
		require.NoError(t, err)
		assert.Equal(t, want.Tier, u.Tier, "unit %d", i)
		assert.Equal(t, want.ViaBonus, u.ViaBonus, "unit %d", i)
		assert.Equal(t, Seed(game.Stake100, uint32(i)), u.Seed)
	}
	for {
		if _, err := r.Next(); err != nil {
			require.ErrorIs(t, err, io.EOF)
			break
		}
	}
}

func TestWriteBlockRefusesTooManyLots(t *testing.T) {
	head := make([]Unit, 6) // six top prizes: the table has five
	for i := range head {
		head[i] = Unit{Tier: 1}
	}
	var buf bytes.Buffer
	assert.ErrorContains(t, WriteBlock(&buf, game.Stake050, 1, head), "no lot of tier 1")
}

func TestTemplate(t *testing.T) {
	dir := t.TempDir()
	b, err := Template(filepath.Join(dir, "t.db"), map[game.Stake][]Unit{game.Stake200: {{Tier: 4, ViaBonus: true}}})
	require.NoError(t, err)
	path, err := CopyTemplate(b, t.TempDir())
	require.NoError(t, err)
	st, err := store.Open(path)
	require.NoError(t, err)
	defer st.Close()
	for _, s := range game.Stakes {
		blk, err := st.OpenBlock(context.Background(), s)
		require.NoError(t, err)
		assert.EqualValues(t, Emission, blk.Emission)
	}
}
