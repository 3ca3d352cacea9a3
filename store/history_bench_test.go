package store

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// TestBootCheckCostWithHistory measures the boot check (VerifyBoot) beside
// the full verification (VerifyFull) on an anchored database holding
// PHARAON_HISTORY_BLOCKS full 0,50 € blocks played to the end (350 000
// plays each, through the play transaction's code, 2 000 per commit), then
// one session after the checkpoint: 1 000 more plays, each its own commit. It only runs when
// the variable is set (ten blocks take long to generate); it logs the
// figures and the database's size, and asserts nothing about time.
//
//	PHARAON_HISTORY_BLOCKS=2 go test ./store -run TestBootCheckCostWithHistory -v -timeout 2h
func TestBootCheckCostWithHistory(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("PHARAON_HISTORY_BLOCKS"))
	if n <= 0 {
		t.Skip("set PHARAON_HISTORY_BLOCKS to the number of blocks of history")
	}
	ctx := context.Background()
	dir := t.TempDir()
	if d := os.Getenv("PHARAON_HISTORY_DIR"); d != "" {
		dir = d
	}
	path := filepath.Join(dir, "pharaon.db")
	_, statErr := os.Stat(path)
	s, err := Open(path, WithClock(newClock().now), WithAnchor(DefaultAnchor(path)))
	require.NoError(t, err)
	defer s.Close()
	if statErr == nil {
		// A history generated before, in PHARAON_HISTORY_DIR: the boot
		// check only.
		for i := 0; i < 5; i++ {
			t0 := time.Now()
			full, err := s.VerifyBoot(ctx)
			require.NoError(t, err)
			t.Logf("boot check of the history at hand: %v (full: %v)", time.Since(t0), full)
		}
		return
	}
	// Credit for every play (playBatch's own notes would reuse their
	// references from one call to the next).
	_, err = s.Adjust(ctx, game.Money(n+1)*200_000*game.Euro, "", "history credit")
	require.NoError(t, err)
	start := time.Now()
	for b := 1; b <= n; b++ {
		importTest(t, s, 1, uint32(b), game.Stake050)
		playBatch(t, s, game.Stake050, game.UnitsPerBlock, 2000)
		t.Logf("block %d played: %v since the start", b, time.Since(start))
	}
	importTest(t, s, 1, uint32(n+1), game.Stake050)

	t0 := time.Now()
	require.NoError(t, s.VerifyFull(ctx))
	first := time.Since(t0)
	playBatch(t, s, game.Stake050, 1000, 1)
	size := func() int64 {
		var total int64
		for _, suffix := range []string{"", "-wal"} {
			if fi, err := os.Stat(path + suffix); err == nil {
				total += fi.Size()
			}
		}
		return total
	}
	var plays, ledger int64
	require.NoError(t, s.r.QueryRow(`SELECT (SELECT count(*) FROM plays), (SELECT count(*) FROM ledger)`).Scan(&plays, &ledger))
	var boots []time.Duration
	for i := 0; i < 5; i++ {
		t0 = time.Now()
		full, err := s.VerifyBoot(ctx)
		boots = append(boots, time.Since(t0))
		require.NoError(t, err)
		require.False(t, full)
	}
	t0 = time.Now()
	require.NoError(t, s.Verify(ctx))
	t.Logf("%d blocks, %d plays, %d ledger rows, %.1f MB: boot check %v, full verification %v (with its checkpoint: %v)",
		n, plays, ledger, float64(size())/1e6, boots, time.Since(t0), first)
}
