package store

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/binary"
	"io"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/block"
)

// counts is how many rows each table holds: "nothing written" means these
// do not move.
func counts(t testing.TB, s *Store) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range []string{"blocks", "units", "plays", "play_steps", "ledger", "meters", "events", "settings"} {
		var n int
		require.NoError(t, s.r.QueryRow(`SELECT count(*) FROM `+table).Scan(&n))
		out[table] = n
	}
	var sum int64
	require.NoError(t, s.r.QueryRow(`SELECT coalesce(sum(value), 0) FROM meters`).Scan(&sum))
	out["meters total"] = int(sum)
	require.NoError(t, s.r.QueryRow(`SELECT coalesce(sum(next_index), 0) FROM blocks`).Scan(&sum))
	out["units sold"] = int(sum)
	return out
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

func TestImportBlockStates(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	a := importTest(t, s, 1, 1, game.Stake050)
	b := importTest(t, s, 1, 2, game.Stake050)
	c := importTest(t, s, 2, 1, game.Stake200)

	assert.Equal(t, BlockOpen, a.State)
	assert.Equal(t, BlockQueued, b.State, "behind the open block of its stake")
	assert.Equal(t, BlockOpen, c.State, "the first block of its stake")
	assert.Equal(t, game.UnitsPerBlock, a.Units)
	assert.Equal(t, 0, a.Sold)
	assert.Equal(t, game.Table(game.Stake050).Digest(), a.TableDigest)
	assert.Equal(t, block.KeyIDOf(issuerKey.Public().(ed25519.PublicKey)), a.KeyID)
	assert.Equal(t, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), a.Created)
	assert.Equal(t, sha256File(t, blockFile(t, 1, 1, game.Stake050)), a.FileDigest)

	open, err := s.OpenBlock(ctx, game.Stake050)
	require.NoError(t, err)
	assert.Equal(t, a.ID, open.ID)
	_, err = s.OpenBlock(ctx, game.Stake100)
	assert.ErrorIs(t, err, ErrNoOpenBlock)

	// The units are the file's, in its order, sealed: none is in clear.
	f, err := os.Open(blockFile(t, 1, 1, game.Stake050))
	require.NoError(t, err)
	defer f.Close()
	br, err := block.NewReader(f, trusted())
	require.NoError(t, err)
	rows, err := s.r.Query(`SELECT idx, sealed FROM units WHERE block_id = ? ORDER BY idx`, a.ID)
	require.NoError(t, err)
	seal := s.units.block(1, 1)
	n := 0
	for rows.Next() {
		var idx uint32
		var sealed []byte
		require.NoError(t, rows.Scan(&idx, &sealed))
		u, err := br.Next()
		require.NoError(t, err)
		var seed [8]byte
		binary.BigEndian.PutUint64(seed[:], u.Seed)
		require.False(t, bytes.Contains(sealed, seed[:]), "unit %d's seed in clear", n)
		got, err := openUnit(seal, a.ID, idx, sealed)
		require.NoError(t, err)
		if u != (block.Unit{Index: got.idx, Tier: got.tier, ViaBonus: got.viaBonus, Seed: got.seed}) {
			require.Failf(t, "unit differs", "unit %d: file %+v, store %+v", n, u, got)
		}
		n++
	}
	require.NoError(t, rows.Err())
	rows.Close()
	_, err = br.Next()
	assert.ErrorIs(t, err, io.EOF)
	assert.Equal(t, game.UnitsPerBlock, n)

	// Withdrawing: the open block gives way to the queued one.
	_, err = s.WithdrawBlock(ctx, a.ID, "")
	assert.ErrorIs(t, err, ErrBadRequest, "a reason is required")
	w, err := s.WithdrawBlock(ctx, a.ID, "damaged paper roll batch")
	require.NoError(t, err)
	assert.Equal(t, BlockWithdrawn, w.State)
	assert.Equal(t, "damaged paper roll batch", w.Note)
	open, err = s.OpenBlock(ctx, game.Stake050)
	require.NoError(t, err)
	assert.Equal(t, b.ID, open.ID)
	_, err = s.WithdrawBlock(ctx, a.ID, "again")
	assert.ErrorIs(t, err, ErrBlockState)
	_, err = s.WithdrawBlock(ctx, 99, "none")
	assert.ErrorIs(t, err, ErrNotFound)

	var stored []byte
	require.NoError(t, s.r.QueryRow(`SELECT units_digest FROM blocks WHERE id = ?`, a.ID).Scan(&stored))
	assert.Equal(t, unitsDigestOf(fileUnits(t, blockFile(t, 1, 1, game.Stake050), game.UnitsPerBlock)), stored)
	require.NoError(t, s.VerifyBlocks(ctx, trusted()))

	all, err := s.Blocks(ctx)
	require.NoError(t, err)
	require.Len(t, all, 3)
	assert.Equal(t, []BlockState{BlockWithdrawn, BlockOpen, BlockOpen}, []BlockState{all[0].State, all[1].State, all[2].State})
	require.NoError(t, s.Verify(ctx))
}

func sha256File(t testing.TB, path string) [32]byte {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	sum, err := block.Verify(f, trusted())
	require.NoError(t, err)
	return sum.FileDigest
}

func TestImportBlockRefusesBadFiles(t *testing.T) {
	good := readFile(t, blockFile(t, 3, 1, game.Stake100))
	flip := func(at int) []byte {
		b := bytes.Clone(good)
		b[at] ^= 0x10
		return b
	}
	otherKey := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, ed25519.SeedSize))
	var foreign bytes.Buffer
	_, err := block.Generate(&foreign, block.Params{Emission: 3, Number: 2, Stake: game.Stake100}, otherKey)
	require.NoError(t, err)

	cases := []struct {
		name string
		data []byte
		want []error
	}{
		{"a unit's seed changed", flip(len(good) / 2), []error{ErrBadBlock, block.ErrSignature}},
		{"the last unit changed", flip(len(good) - 64 - 1), []error{ErrBadBlock, block.ErrSignature}},
		{"the signature changed", flip(len(good) - 3), []error{ErrBadBlock, block.ErrSignature}},
		{"header changed", flip(20), []error{ErrBadBlock}},
		{"truncated", good[:len(good)-1000], []error{ErrBadBlock, block.ErrTruncated}},
		{"trailing bytes", append(bytes.Clone(good), 0), []error{ErrBadBlock, block.ErrTrailing}},
		{"empty", nil, []error{ErrBadBlock}},
		{"untrusted issuer", foreign.Bytes(), []error{ErrBadBlock, block.ErrUnknownKey}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := openTest(t)
			before := counts(t, s)
			_, err := s.ImportBlock(context.Background(), bytes.NewReader(c.data), trusted())
			for _, want := range c.want {
				assert.ErrorIs(t, err, want)
			}
			assertRefusalLogged(t, s, before, err)
			require.NoError(t, s.Verify(context.Background()))
		})
	}
}

func TestImportBlockRefusesDuplicates(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	first := importTest(t, s, 4, 1, game.Stake050)
	before := counts(t, s)

	// The same file again.
	_, err := s.ImportBlock(ctx, bytes.NewReader(readFile(t, blockFile(t, 4, 1, game.Stake050))), trusted())
	assert.ErrorIs(t, err, ErrDuplicateBlock)
	assert.Contains(t, err.Error(), "emission 4, block 1")
	assertRefusalLogged(t, s, before, err)
	before = counts(t, s)

	// Another file claiming the same emission and number.
	var other bytes.Buffer
	_, err = block.Generate(&other, block.Params{Emission: 4, Number: 1, Stake: game.Stake100}, issuerKey)
	require.NoError(t, err)
	_, err = s.ImportBlock(ctx, &other, trusted())
	assert.ErrorIs(t, err, ErrDuplicateBlock)
	assertRefusalLogged(t, s, before, err)
	before = counts(t, s)

	// A damaged copy of the block imported is a damaged file, not the
	// block again: the signature is checked first.
	damaged := readFile(t, blockFile(t, 4, 1, game.Stake050))
	damaged[len(damaged)-64-1] ^= 0x10 // the last unit
	_, err = s.ImportBlock(ctx, bytes.NewReader(damaged), trusted())
	assert.ErrorIs(t, err, block.ErrSignature)
	assert.NotErrorIs(t, err, ErrDuplicateBlock)
	assertRefusalLogged(t, s, before, err)
	before = counts(t, s)

	// The same file under another identity cannot be signed, so make the
	// store believe the first block was 4/9: the file digest still refuses it.
	require.NoError(t, s.write(ctx, func(tx *wtx) error {
		if _, err := tx.execQ(`DROP TRIGGER blocks_fixed`); err != nil {
			return err
		}
		_, err := tx.execQ(`UPDATE blocks SET number = 9 WHERE id = ?`, first.ID)
		return err
	}))
	_, err = s.ImportBlock(ctx, bytes.NewReader(readFile(t, blockFile(t, 4, 1, game.Stake050))), trusted())
	assert.ErrorIs(t, err, ErrDuplicateBlock)
	assert.Contains(t, err.Error(), "same file")
	assertRefusalLogged(t, s, before, err)
}

// assertRefusalLogged checks that a refused import wrote nothing but the
// event saying so, with the reason.
func assertRefusalLogged(t *testing.T, s *Store, before map[string]int, err error) {
	t.Helper()
	require.Error(t, err)
	after := counts(t, s)
	require.Equal(t, before["events"]+1, after["events"], "one event")
	after["events"] = before["events"]
	assert.Equal(t, before, after, "nothing else written")
	evs, lerr := s.Events(context.Background(), 1, 0)
	require.NoError(t, lerr)
	require.Len(t, evs, 1)
	assert.Equal(t, EventBlockRefused, evs[0].Code)
	assert.Equal(t, LevelWarning, evs[0].Level)
	assert.Equal(t, err.Error(), evs[0].Detail, "the reason")
}

func TestImportBlockCancelled(t *testing.T) {
	s := openTest(t)
	before := counts(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	f, err := os.Open(blockFile(t, 1, 1, game.Stake050))
	require.NoError(t, err)
	defer f.Close()
	// Cancel once a good part of the file has been read.
	r := &cancelAfter{r: f, n: 2 << 20, cancel: cancel}
	_, err = s.ImportBlock(ctx, r, trusted())
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, before, counts(t, s), "nothing written")
}

type cancelAfter struct {
	r      io.Reader
	n      int
	cancel func()
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n -= n
	if c.n <= 0 {
		c.cancel()
	}
	return n, err
}

func TestBlockProgress(t *testing.T) {
	ctx := context.Background()
	s := openWith(t, block050)
	b, err := s.OpenBlock(ctx, game.Stake050)
	require.NoError(t, err)
	playBatch(t, s, game.Stake050, 5000, 1000)

	p, err := s.BlockProgress(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, 5000, p.Sold)
	assert.Equal(t, game.UnitsPerBlock-5000, p.Remaining)

	// Against the block file itself: the first 5 000 units by tier.
	f, err := os.Open(blockFile(t, 1, 1, game.Stake050))
	require.NoError(t, err)
	defer f.Close()
	br, err := block.NewReader(f, trusted())
	require.NoError(t, err)
	var sold [game.NumTiers + 1]int
	for i := 0; i < 5000; i++ {
		u, err := br.Next()
		require.NoError(t, err)
		sold[u.Tier]++
	}
	table := game.Table(game.Stake050)
	var won game.Money
	for tier := range p.Tiers {
		tp := p.Tiers[tier]
		assert.Equal(t, sold[tier], tp.Sold, "tier %d", tier)
		assert.Equal(t, table.LotsOf(game.Tier(tier)), tp.Lots)
		assert.Equal(t, tp.Lots-sold[tier], tp.Remaining)
		assert.Equal(t, game.Money(sold[tier])*table.Amount(game.Tier(tier)), tp.Won)
		won += tp.Won
	}
	assert.Equal(t, won, p.Won)
	m, err := s.Meters(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(won), m.Get(MeterWon))

	_, err = s.BlockProgress(ctx, 42)
	assert.ErrorIs(t, err, ErrNotFound)
}

// unitsDigestOf is the digest of units in block order, computed apart from
// the import.
func unitsDigestOf(us []block.Unit) []byte {
	h := newUnitsHash()
	for _, u := range us {
		h.add(u.Index, u.Tier, u.ViaBonus, u.Seed)
	}
	return h.sum()
}
