package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// TestRecall plays 14 games over two days (one left unfinished) and
// recalls them: the last ten with the credit around each, those of a day,
// and one by its unit.
func TestRecall(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pharaon.db")
	copyFile(t, templateWith(t, block050), path)
	clk := newClock()
	s, err := Open(path, WithClock(clk.now))
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Adjust(ctx, 20*game.Euro, "", "test credit")
	require.NoError(t, err)

	type played_ struct {
		p             Play
		before, after game.Money
		day           int
	}
	var played []played_
	for i := 0; i < 14; i++ {
		day := 0
		if i >= 6 {
			day = 1
		}
		if i == 6 {
			clk.advance(24 * time.Hour)
		}
		before, err := s.Credit(ctx)
		require.NoError(t, err)
		p, err := s.StartPlay(ctx, jouer050)
		require.NoError(t, err)
		require.NoError(t, s.SaveRecording(ctx, p.ID, []byte{byte(i), 1, 2}))
		after := before - p.Stake.Money()
		if i < 13 {
			_, err = s.FinishPlay(ctx, p.ID, FinishInfo{Revealed: revealOf(p), Shown: p.Prize})
			require.NoError(t, err)
			after += p.Prize
		}
		played = append(played, played_{p, before, after, day})
	}

	last, err := s.Recall(ctx, RecallQuery{})
	require.NoError(t, err)
	require.Len(t, last, 10, "the last ten by default")
	for i, r := range last {
		want := played[13-i]
		assert.Equal(t, want.p.ID, r.ID)
		assert.Equal(t, want.before, r.CreditBefore, "play %d", r.ID)
		assert.Equal(t, want.after, r.CreditAfter, "play %d", r.ID)
		assert.Equal(t, []byte{byte(13 - i), 1, 2}, r.Recording, "the recording, for the replay")
	}
	assert.Equal(t, PlayStarted, last[0].State, "the unfinished play is recalled as it stands")

	older, err := s.Recall(ctx, RecallQuery{N: 10, BeforeID: last[9].ID})
	require.NoError(t, err)
	require.Len(t, older, 4)
	assert.Equal(t, played[0].p.ID, older[3].ID)

	day0 := played[0].p.At.Truncate(24 * time.Hour)
	first, err := s.Recall(ctx, RecallQuery{N: 100, From: day0, To: day0.Add(24 * time.Hour)})
	require.NoError(t, err)
	require.Len(t, first, 6, "the first day's games")
	for _, r := range first {
		assert.True(t, r.ID <= played[5].p.ID)
	}

	u := played[3].p
	r, err := s.RecallUnit(ctx, u.Emission, u.Number, u.Unit)
	require.NoError(t, err)
	assert.Equal(t, u.ID, r.ID)
	assert.Equal(t, played[3].before, r.CreditBefore)
	_, err = s.RecallUnit(ctx, u.Emission, u.Number, 300_000)
	assert.ErrorIs(t, err, ErrNotFound, "a unit not sold here")
	_, err = s.RecallUnit(ctx, 9, u.Number, u.Unit)
	assert.ErrorIs(t, err, ErrNotFound, "a block not here")

	_, err = s.Recall(ctx, RecallQuery{From: day0, To: day0})
	assert.ErrorIs(t, err, ErrBadRequest)
	_, err = s.Recall(ctx, RecallQuery{N: -1})
	assert.ErrorIs(t, err, ErrBadRequest)
}
