package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/block"
)

// Benchmarks of the store against the bare SQLite work it cannot avoid,
// measured side by side in the same loop (so both see the same disk and
// the same load) and reported as ratios:
//
//   - a play transaction (StartPlay) against a bare single-row INSERT
//     committed with the same pragmas in a database on the same disk: the
//     goal is at most 1.3×, one durable commit per play and nothing more;
//   - a block import (ImportBlock, verification included) against a bare
//     bulk insert of the same units with the same batched statement: the
//     goal is at most 1.5×, and under 1.5 s.
//
// Each reports the mean of both sides (bare-ns/op, play-ns/op, …) and the
// ratio of their medians (play/bare, …): on a shared machine an fsync now
// and then takes ten times longer, and the median is what a commit costs.

// timings collects the durations of one side of a benchmark.
type timings []time.Duration

func (ts timings) mean() float64 {
	var sum time.Duration
	for _, d := range ts {
		sum += d
	}
	return float64(sum.Nanoseconds()) / float64(len(ts))
}

func (ts timings) median() float64 {
	s := slices.Clone(ts)
	slices.Sort(s)
	return float64(s[len(s)/2].Nanoseconds())
}

// quantiles are the 5th, 25th, 50th, 75th and 95th percentiles.
func (ts timings) quantiles() []time.Duration {
	s := slices.Clone(ts)
	slices.Sort(s)
	var q []time.Duration
	for _, p := range []float64{0.05, 0.25, 0.5, 0.75, 0.95} {
		q = append(q, s[int(p*float64(len(s)-1))].Round(time.Microsecond))
	}
	return q
}

// report puts both sides and their ratio in the benchmark's output, and
// logs their quantiles (go test -v).
func report(b *testing.B, name string, ours, bare timings) {
	b.Logf("quantiles 5-25-50-75-95%%: bare %v, %s %v", bare.quantiles(), name, ours.quantiles())
	b.ReportMetric(bare.mean(), "bare-ns/op")
	b.ReportMetric(ours.mean(), name+"-ns/op")
	b.ReportMetric(ours.median()/bare.median(), name+"/bare")
}

// bareDB opens a database with the store's pragmas and no schema but table.
func bareDB(b testing.TB, dir, table string) (*sql.DB, *sql.Conn) {
	b.Helper()
	db, err := sql.Open("sqlite3", dsn(filepath.Join(dir, "bare.db"), DefaultBusyTimeout, true))
	require.NoError(b, err)
	db.SetMaxOpenConns(1)
	b.Cleanup(func() { db.Close() })
	ctx := context.Background()
	require.NoError(b, checkPragmas(ctx, db, DefaultBusyTimeout))
	_, err = db.Exec(table)
	require.NoError(b, err)
	c, err := db.Conn(ctx)
	require.NoError(b, err)
	b.Cleanup(func() { c.Close() })
	return db, c
}

// playBench opens a store with a 0,50 € block and credit enough for any
// run, and beside it a bare database; bareCommit commits one row there in
// its own BEGIN IMMEDIATE transaction, the baseline of a play's commit,
// and returns how long it took.
func playBench(b *testing.B) (s *Store, bareCommit func(i int) time.Duration) {
	ctx := context.Background()
	dir := b.TempDir()
	s, err := Open(filepath.Join(dir, "pharaon.db"))
	require.NoError(b, err)
	b.Cleanup(func() { s.Close() })
	importTest(b, s, 1, 1, game.Stake050)
	_, err = s.Adjust(ctx, 1_000_000*game.Euro, "", "benchmark credit")
	require.NoError(b, err)
	_, bare := bareDB(b, dir, `CREATE TABLE bare (id INTEGER PRIMARY KEY, at INTEGER NOT NULL, amount INTEGER NOT NULL, hash BLOB NOT NULL)`)
	insert, err := bare.PrepareContext(ctx, `INSERT INTO bare(id, at, amount, hash) VALUES (?, ?, ?, ?)`)
	require.NoError(b, err)
	b.Cleanup(func() { insert.Close() })
	hash := sha256.Sum256([]byte("bare"))
	return s, func(i int) time.Duration {
		t0 := time.Now()
		_, err := bare.ExecContext(ctx, "BEGIN IMMEDIATE")
		if err == nil {
			_, err = insert.ExecContext(ctx, i+1, t0.UnixNano(), 50, hash[:])
		}
		if err == nil {
			_, err = bare.ExecContext(ctx, "COMMIT")
		}
		d := time.Since(t0)
		if err != nil {
			b.Fatal(err)
		}
		return d
	}
}

func BenchmarkPlayVsBareInsert(b *testing.B) {
	ctx := context.Background()
	s, bareCommit := playBench(b)
	req := PlayRequest{Stake: game.Stake050, Mode: ModeAuto, LayoutVersion: 1}
	var playTime, bareTime timings
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bareTime = append(bareTime, bareCommit(i))

		t0 := time.Now()
		p, err := s.StartPlay(ctx, req)
		playTime = append(playTime, time.Since(t0))
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if _, err := s.FinishPlay(ctx, p.ID, FinishInfo{Revealed: revealOf(p), Shown: p.Prize}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	report(b, "play", playTime, bareTime)
}

func BenchmarkFinishPlayVsBareInsert(b *testing.B) {
	ctx := context.Background()
	s, bareCommit := playBench(b)
	req := PlayRequest{Stake: game.Stake050, Mode: ModeAuto, LayoutVersion: 1}
	var finishTime, bareTime timings
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		p, err := s.StartPlay(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		bareTime = append(bareTime, bareCommit(i))

		t0 := time.Now()
		_, err = s.FinishPlay(ctx, p.ID, FinishInfo{Revealed: revealOf(p), Shown: p.Prize})
		finishTime = append(finishTime, time.Since(t0))
		if err != nil {
			b.Fatal(err)
		}
	}
	report(b, "finish", finishTime, bareTime)
}

func BenchmarkImportVsBareBulkInsert(b *testing.B) {
	ctx := context.Background()
	path := blockFile(b, 1, 1, game.Stake050)
	// The same rows, decoded once, for the baseline.
	f, err := os.Open(path)
	require.NoError(b, err)
	br, err := block.NewReader(f, trusted())
	require.NoError(b, err)
	var units []block.Unit
	for {
		u, err := br.Next()
		if err != nil {
			require.ErrorIs(b, err, io.EOF)
			break
		}
		units = append(units, u)
	}
	f.Close()
	require.Len(b, units, game.UnitsPerBlock)

	var importTime, bareTime timings
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := b.TempDir()
		_, bare := bareDB(b, dir, `CREATE TABLE units (
			block_id INTEGER NOT NULL, idx INTEGER NOT NULL, tier INTEGER NOT NULL,
			via_bonus INTEGER NOT NULL, seed INTEGER NOT NULL, PRIMARY KEY (block_id, idx)) WITHOUT ROWID`)
		s, err := Open(filepath.Join(dir, "pharaon.db"))
		require.NoError(b, err)
		f, err := os.Open(path)
		require.NoError(b, err)
		b.StartTimer()

		t0 := time.Now()
		err = bareBulkInsert(ctx, bare, units)
		bareTime = append(bareTime, time.Since(t0))
		require.NoError(b, err)

		t0 = time.Now()
		_, err = s.ImportBlock(ctx, f, trusted())
		importTime = append(importTime, time.Since(t0))
		require.NoError(b, err)

		b.StopTimer()
		f.Close()
		s.Close()
		b.StartTimer()
	}
	report(b, "import", importTime, bareTime)
}

// bareBulkInsert writes the units in clear, batched as the import
// batches them, in one transaction, without reading or checking a file
// or sealing a unit: the layout of the units before they were sealed.
func bareBulkInsert(ctx context.Context, c *sql.Conn, units []block.Unit) error {
	if _, err := c.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	st, err := c.PrepareContext(ctx, `INSERT INTO units(block_id, idx, tier, via_bonus, seed) VALUES `+
		strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?), ", unitBatch), ", "))
	if err != nil {
		return err
	}
	defer st.Close()
	args := make([]any, 0, 5*unitBatch)
	for _, u := range units {
		args = append(args, int64(1), int64(u.Index), int64(u.Tier), u.ViaBonus, int64(u.Seed))
		if len(args) == cap(args) {
			if _, err := st.ExecContext(ctx, args...); err != nil {
				return err
			}
			args = args[:0]
		}
	}
	if len(args) > 0 {
		return fmt.Errorf("%d units left: the block is not a multiple of %d", len(args)/5, unitBatch)
	}
	_, err = c.ExecContext(ctx, "COMMIT")
	return err
}

// BenchmarkPlayAnchoredVsBareInsert measures what anchoring the chains'
// heads (anchor.go) adds to a play: in the same loop, the bare commit,
// a play on a store without an anchor, and a play on an anchored store
// (its announcement synced before the COMMIT, its confirmation synced by
// the syncer goroutine). play/bare and anchored/bare are the ratios of
// the medians to the bare commit's.
func BenchmarkPlayAnchoredVsBareInsert(b *testing.B) {
	ctx := context.Background()
	plain, bareCommit := playBench(b)
	dir := b.TempDir()
	path := filepath.Join(dir, "pharaon.db")
	anchored, err := Open(path, WithAnchor(DefaultAnchor(path)))
	require.NoError(b, err)
	b.Cleanup(func() { anchored.Close() })
	importTest(b, anchored, 1, 1, game.Stake050)
	_, err = anchored.Adjust(ctx, 1_000_000*game.Euro, "", "benchmark credit")
	require.NoError(b, err)
	req := PlayRequest{Stake: game.Stake050, Mode: ModeAuto, LayoutVersion: 1}
	play := func(s *Store) time.Duration {
		t0 := time.Now()
		p, err := s.StartPlay(ctx, req)
		d := time.Since(t0)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if _, err := s.FinishPlay(ctx, p.ID, FinishInfo{Revealed: revealOf(p), Shown: p.Prize}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		return d
	}
	var bareTime, playTime, anchoredTime timings
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bareTime = append(bareTime, bareCommit(i))
		playTime = append(playTime, play(plain))
		anchoredTime = append(anchoredTime, play(anchored))
	}
	report(b, "play", playTime, bareTime)
	report(b, "anchored", anchoredTime, bareTime)
}
