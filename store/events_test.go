package store

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLog(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	e, err := s.Log(ctx, Event{Level: LevelError, Source: "validator", Code: "jam", Detail: "acceptor jam"})
	require.NoError(t, err)
	assert.Equal(t, int64(1), e.ID)
	assert.False(t, e.At.IsZero())
	for _, bad := range []Event{
		{Level: "loud", Source: "validator", Code: "jam"},
		{Level: LevelInfo, Code: "jam"},
		{Level: LevelInfo, Source: "validator"},
	} {
		_, err := s.Log(ctx, bad)
		assert.ErrorIs(t, err, ErrBadRequest, "%+v", bad)
	}
	evs, err := s.Events(ctx, 10, 0)
	require.NoError(t, err)
	require.Len(t, evs, 1)
	assert.Equal(t, e, evs[0])
}

// The log keeps the newest MinEventsKept events; the chain still verifies
// from the oldest one kept, and the schema refuses to delete a newer one.
func TestEventRotation(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	const total = MinEventsKept + 250
	// One transaction for speed; Log runs the same logEvent.
	require.NoError(t, s.write(ctx, func(tx *wtx) error {
		for i := 1; i < total; i++ {
			if _, err := tx.logEvent(LevelInfo, "test", "tick", fmt.Sprint(i)); err != nil {
				return err
			}
		}
		return nil
	}))
	last, err := s.Log(ctx, Event{Level: LevelInfo, Source: "test", Code: "tick", Detail: fmt.Sprint(total)})
	require.NoError(t, err)
	assert.Equal(t, int64(total), last.ID)

	var n, oldest int64
	require.NoError(t, s.r.QueryRow(`SELECT count(*), min(id) FROM events`).Scan(&n, &oldest))
	assert.Equal(t, int64(MinEventsKept), n)
	assert.Equal(t, int64(total-MinEventsKept+1), oldest)
	require.NoError(t, s.VerifyChains(ctx))

	page, err := s.Events(ctx, 3, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{fmt.Sprint(total), fmt.Sprint(total - 1), fmt.Sprint(total - 2)},
		[]string{page[0].Detail, page[1].Detail, page[2].Detail})

	err = s.write(ctx, func(tx *wtx) error {
		_, err := tx.execQ(`DELETE FROM events WHERE id = ?`, oldest)
		return err
	})
	assert.ErrorContains(t, err, "only events older than the newest kept are deleted")
}

func TestSettings(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	_, ok, err := s.Setting(ctx, "handpay_limit")
	require.NoError(t, err)
	assert.False(t, ok)
	require.NoError(t, s.SetSetting(ctx, "maintenance", "handpay_limit", "120000"))
	require.NoError(t, s.SetSetting(ctx, "maintenance", "handpay_limit", "120000"), "same value: nothing written")
	require.NoError(t, s.SetSetting(ctx, "maintenance", "handpay_limit", "150000"))
	v, ok, err := s.Setting(ctx, "handpay_limit")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "150000", v)
	all, err := s.Settings(ctx)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"handpay_limit": "150000"}, all)
	assert.ErrorIs(t, s.SetSetting(ctx, "maintenance", "", "x"), ErrBadRequest)
	assert.Equal(t, []string{EventSettingChanged, EventSettingChanged}, eventCodes(t, s))
	evs, err := s.Events(ctx, 1, 0)
	require.NoError(t, err)
	assert.Equal(t, `handpay_limit: "120000" -> "150000"`, evs[0].Detail)
}
