package store

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/mattn/go-sqlite3"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// TestDiskFull fills the database (SQLite's max_page_count stands for the
// disk) while playing: the operation that does not fit fails with SQLite's
// "full" error, writes nothing, and once there is room again the store
// carries on, the interrupted play included (DESIGN.md §12: a full disk
// gets a clear error and loses nothing).
func TestDiskFull(t *testing.T) {
	ctx := context.Background()
	s := openWith(t, block050)
	_, err := s.Adjust(ctx, 10_000*game.Euro, "", "test credit")
	require.NoError(t, err)
	limit := func(pages string) {
		require.NoError(t, s.write(ctx, func(tx *wtx) error {
			var n int64
			return tx.rowQ("PRAGMA max_page_count = " + pages).Scan(&n)
		}))
	}
	var pages int64
	require.NoError(t, s.r.QueryRow(`PRAGMA page_count`).Scan(&pages))
	limit(strconv.FormatInt(pages+2, 10))

	var started *Play
	full := false
	for i := 0; i < 20000 && !full; i++ {
		before := counts(t, s)
		if started == nil {
			p, err := s.StartPlay(ctx, jouer050)
			if err != nil {
				require.True(t, isFull(err), "%v", err)
				require.Equal(t, before, counts(t, s), "a play that does not fit writes nothing")
				full = true
				break
			}
			started = &p
			continue
		}
		_, err := s.FinishPlay(ctx, started.ID, FinishInfo{Revealed: revealOf(*started), Shown: started.Prize})
		if err != nil {
			require.True(t, isFull(err), "%v", err)
			require.Equal(t, before, counts(t, s), "a finish that does not fit writes nothing")
			full = true
			break
		}
		started = nil
	}
	require.True(t, full, "the database never filled up")
	require.NoError(t, s.Verify(ctx))

	limit("1073741823")
	if started != nil {
		_, err := s.FinishPlay(ctx, started.ID, FinishInfo{Revealed: revealOf(*started), Shown: started.Prize})
		require.NoError(t, err)
	}
	p, err := s.StartPlay(ctx, jouer050)
	require.NoError(t, err)
	_, err = s.FinishPlay(ctx, p.ID, FinishInfo{Revealed: revealOf(p), Shown: p.Prize})
	require.NoError(t, err)
	require.NoError(t, s.Verify(ctx))
}

func isFull(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.Code == sqlite3.ErrFull
}
