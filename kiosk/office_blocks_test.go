package kiosk

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The blocks view's count of a block's progress by tier is the
// technician's, as the list of blocks is.
func TestOfficeBlockProgress(t *testing.T) {
	_, o := newOffice(t)
	staff, err := o.Login(ctx, "135700")
	require.NoError(t, err)
	_, err = o.BlockProgress(ctx, staff, 1)
	require.ErrorIs(t, err, ErrNotAllowed)

	tech, err := o.Login(ctx, "246800")
	require.NoError(t, err)
	blocks, err := o.Blocks(ctx, tech)
	require.NoError(t, err)
	require.NotEmpty(t, blocks)
	p, err := o.BlockProgress(ctx, tech, blocks[0].ID)
	require.NoError(t, err)
	assert.Equal(t, blocks[0].Units, p.Sold+p.Remaining)
	lots := 0
	for _, tp := range p.Tiers {
		lots += tp.Lots
	}
	assert.Equal(t, blocks[0].Units, lots, "the tiers' lots and the losers make the block")
}
