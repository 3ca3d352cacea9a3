package store

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

func TestCashBoxCollections(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	note := 0
	in := func(denom game.Money, n int) {
		for i := 0; i < n; i++ {
			note++
			_, err := s.BillIn(ctx, denom, fmt.Sprint("note-", note))
			require.NoError(t, err)
		}
	}
	in(5*game.Euro, 3)
	in(20*game.Euro, 2)
	box, err := s.CashBox(ctx)
	require.NoError(t, err)
	assert.True(t, box.Since.IsZero(), "never collected")
	assert.Equal(t, map[game.Money]int64{5 * game.Euro: 3, 20 * game.Euro: 2}, box.Notes)
	assert.Equal(t, int64(5), box.Count)
	assert.Equal(t, 55*game.Euro, box.Amount)

	c, err := s.Collect(ctx, "staff")
	require.NoError(t, err)
	assert.Equal(t, box.Notes, c.Notes, "the collection holds what the box held")
	assert.Equal(t, box.Amount, c.Amount)
	assert.Equal(t, "staff", c.By)

	empty, err := s.CashBox(ctx)
	require.NoError(t, err)
	assert.Equal(t, c.At, empty.Since)
	assert.Zero(t, empty.Count)
	assert.Empty(t, empty.Notes)

	in(10*game.Euro, 1)
	in(5*game.Euro, 1)
	held, err := s.RecordBillIntent(ctx, 50*game.Euro)
	require.NoError(t, err)
	_, err = s.MarkBillIntentStacking(ctx, held.ID)
	require.NoError(t, err)
	_, err = s.HoldBillIntent(ctx, held.ID, "power cut after STACK")
	require.NoError(t, err)
	box, err = s.CashBox(ctx)
	require.NoError(t, err)
	n, sum := box.Unsettled()
	assert.Equal(t, int64(1), n, "a held note may be in the box")
	assert.Equal(t, 50*game.Euro, sum)
	assert.Equal(t, map[game.Money]int64{10 * game.Euro: 1, 5 * game.Euro: 1}, box.Notes)
	assert.Equal(t, 15*game.Euro, box.Amount)

	m, err := s.Meters(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(4), m.Get(NoteMeter(5*game.Euro)), "the meters are never reset")
	assert.Equal(t, int64(70*game.Euro), m.Get(MeterBillsIn))
	// The collections and the box add up to the note meters.
	assert.Equal(t, m.Get(MeterBillsIn), int64(c.Amount+box.Amount))

	events, err := s.EventsWhere(ctx, EventQuery{Source: "maintenance"})
	require.NoError(t, err)
	require.Len(t, events, 1)
	assert.Equal(t, EventCashCollected, events[0].Code)
	assert.Contains(t, events[0].Detail, "5 notes, 55\u00a0€")

	_, err = s.Collect(ctx, "")
	assert.ErrorIs(t, err, ErrBadRequest)
	require.NoError(t, s.Verify(ctx))
}
