package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEventsWhere(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	s, err := Open(filepath.Join(t.TempDir(), "pharaon.db"), WithClock(clk.now))
	require.NoError(t, err)
	defer s.Close()
	levels := []Level{LevelInfo, LevelWarning, LevelError, LevelCritical}
	sources := []string{"printer", "validator", "kiosk"}
	start := clk.now()
	for i := 0; i < 24; i++ {
		if i == 12 {
			clk.advance(24 * time.Hour)
		}
		_, err := s.Log(ctx, Event{Level: levels[i%4], Source: sources[i%3], Code: "c", Detail: fmt.Sprint(i)})
		require.NoError(t, err)
	}
	all, err := s.EventsWhere(ctx, EventQuery{N: 100})
	require.NoError(t, err)
	require.Len(t, all, 24)
	assert.Equal(t, "23", all[0].Detail, "newest first")

	grave, err := s.EventsWhere(ctx, EventQuery{N: 100, MinLevel: LevelError})
	require.NoError(t, err)
	require.Len(t, grave, 12)
	for _, e := range grave {
		assert.Contains(t, []Level{LevelError, LevelCritical}, e.Level)
	}
	printer, err := s.EventsWhere(ctx, EventQuery{N: 100, Source: "printer", MinLevel: LevelCritical})
	require.NoError(t, err)
	require.Len(t, printer, 2, "i = 3 and 15: critical and from the printer")
	assert.Equal(t, []string{"15", "3"}, []string{printer[0].Detail, printer[1].Detail})

	day := start.Truncate(24 * time.Hour)
	first, err := s.EventsWhere(ctx, EventQuery{N: 100, From: day, To: day.Add(24 * time.Hour)})
	require.NoError(t, err)
	assert.Len(t, first, 12, "the first day")
	page, err := s.EventsWhere(ctx, EventQuery{N: 5, BeforeID: all[4].ID})
	require.NoError(t, err)
	require.Len(t, page, 5)
	assert.Equal(t, all[5:10], page)

	srcs, err := s.EventSources(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"kiosk", "printer", "validator"}, srcs)

	for _, bad := range []EventQuery{{N: -1}, {MinLevel: "loud"}, {From: day, To: day}} {
		_, err := s.EventsWhere(ctx, bad)
		assert.ErrorIs(t, err, ErrBadRequest, "%+v", bad)
	}
}
