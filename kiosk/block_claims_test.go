package kiosk

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk/kiosktest"
	"pharaon/store"
)

// fakeClaims is the fleet's claims as a test sets them: err is what Claim
// answers.
type fakeClaims struct {
	err      error
	claimed  []BlockClaim
	later    []BlockClaim
	released int
}

func (f *fakeClaims) Claim(_ context.Context, c BlockClaim) (func(context.Context) error, error) {
	f.claimed = append(f.claimed, c)
	if f.err != nil {
		return nil, f.err
	}
	return func(context.Context) error { f.released++; return nil }, nil
}

func (f *fakeClaims) Later(c BlockClaim) { f.later = append(f.later, c) }

// A kiosk joined to a fleet imports from the maintenance screen only a
// block no other kiosk claimed: a block on sale elsewhere is refused,
// logged, and nothing changes; with the centre away the block is imported,
// a warning logged and the block left to be claimed later; a file that
// does not verify is not claimed at all.
func TestImportBlockClaimsInTheFleet(t *testing.T) {
	f, o := newOffice(t)
	tech, err := o.Login(ctx, "246800")
	require.NoError(t, err)
	block := func(n uint32) []byte {
		var buf bytes.Buffer
		require.NoError(t, kiosktest.WriteBlock(&buf, game.Stake100, n, nil))
		return buf.Bytes()
	}
	claims := &fakeClaims{}
	f.m.SetBlockClaims(claims)
	before, err := f.st.Blocks(ctx)
	require.NoError(t, err)

	since := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	claims.err = &BlockTakenError{Emission: 7, Number: 97, Kiosk: "PH-1", At: since}
	_, err = o.ImportBlock(ctx, tech, "/media/usb/b97.blk", bytes.NewReader(block(97)))
	require.ErrorIs(t, err, ErrBlockTaken)
	assert.Contains(t, err.Error(), "kiosk PH-1 since 2026-11-30T08:00:00Z")
	blocks, err := f.st.Blocks(ctx)
	require.NoError(t, err)
	assert.Len(t, blocks, len(before), "nothing imported")
	require.Len(t, claims.claimed, 1)
	assert.Equal(t, uint32(97), claims.claimed[0].Number)
	assert.Equal(t, "local", claims.claimed[0].Via)
	assert.Equal(t, f.clock.Now(), claims.claimed[0].At, "the kiosk's clock")
	taken := kioskEvents(t, f, EventBlockTaken)
	require.Len(t, taken, 1)
	assert.Equal(t, store.LevelWarning, taken[0].Level)
	assert.Contains(t, taken[0].Detail, "on sale at kiosk PH-1")
	require.Len(t, officeEvents(t, f, "import_refused"), 1, "the screen's refusal path")

	claims.err = ErrFleetOffline
	b, err := o.ImportBlock(ctx, tech, "/media/usb/b98.blk", bytes.NewReader(block(98)))
	require.NoError(t, err, "imported while the centre is away")
	assert.Equal(t, uint32(98), b.Number)
	require.Len(t, claims.later, 1, "to be claimed when the centre answers")
	assert.Equal(t, b.FileDigest, claims.later[0].FileDigest)
	un := kioskEvents(t, f, EventBlockUnclaimed)
	require.Len(t, un, 1)
	assert.Equal(t, store.LevelWarning, un[0].Level)
	assert.Contains(t, un[0].Detail, "block 7/98")

	claims.err = nil
	b, err = o.ImportBlock(ctx, tech, "/media/usb/b99.blk", bytes.NewReader(block(99)))
	require.NoError(t, err)
	assert.Equal(t, uint32(99), b.Number)
	assert.Zero(t, claims.released)
	// The same number again: claimed (this kiosk's), refused by the
	// store, the claim kept: the kiosk holds the block.
	_, err = o.ImportBlock(ctx, tech, "/media/usb/b99.blk", bytes.NewReader(block(99)))
	require.ErrorIs(t, err, store.ErrDuplicateBlock)
	assert.Zero(t, claims.released, "the block is here: its claim is not given back")

	n := len(claims.claimed)
	bad := block(96)
	bad[len(bad)/2] ^= 1
	_, err = o.ImportBlock(ctx, tech, "/media/usb/bad.blk", bytes.NewReader(bad))
	require.Error(t, err)
	assert.Len(t, claims.claimed, n, "a file that does not verify claims nothing")
}
