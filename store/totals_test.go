package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// The totals of a period count only the rows dated in it: a note of the
// day before and one of the day after are left out; a test movement is a
// kind of its own, apart from the notes.
func TestTotalsBetween(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	s := openTest(t, WithClock(c.now))
	note := 0
	in := func(denom game.Money) {
		note++
		_, err := s.BillIn(ctx, denom, fmt.Sprint("note-", note))
		require.NoError(t, err)
	}
	in(50 * game.Euro) // the day before
	c.advance(24 * time.Hour)
	from := c.now()
	in(5 * game.Euro)
	in(20 * game.Euro)
	in(20 * game.Euro)
	_, err := s.TestModeMovement(ctx, 10*game.Euro, "", "test")
	require.NoError(t, err)
	_, err = s.Collect(ctx, "staff")
	require.NoError(t, err)
	to := c.now()
	c.advance(time.Hour)
	in(10 * game.Euro) // after

	tot, err := s.TotalsBetween(ctx, from, to)
	require.NoError(t, err)
	assert.Equal(t, int64(3), tot.Count[KindBillIn])
	assert.Equal(t, 45*game.Euro, tot.Amount[KindBillIn])
	assert.Equal(t, map[game.Money]int64{5 * game.Euro: 1, 20 * game.Euro: 2}, tot.Notes)
	assert.Equal(t, int64(1), tot.Count[KindTest])
	assert.Equal(t, int64(1), tot.Collections)
	assert.Equal(t, 95*game.Euro, tot.CollectedCash, "the collection took the note of the day before too")

	_, err = s.TotalsBetween(ctx, to, from)
	require.ErrorIs(t, err, ErrBadRequest)
}
