package kiosk

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
)

// The history's times are on the vouchers' clock: the kiosk's zone
// (Europe/Paris by default), whatever the system's.
func TestHistoryInTheKiosksZone(t *testing.T) {
	f := newFixture(t)
	f.boot()
	assert.Equal(t, "Europe/Paris", f.m.Location().String())
	f.credit(game.Stake050.Money())
	_, err := f.m.Play(context.Background(), game.Stake050, breakout.Auto)
	require.NoError(t, err)
	hist, err := f.m.History(context.Background(), 1)
	require.NoError(t, err)
	require.Len(t, hist, 1)
	assert.Equal(t, "Europe/Paris", hist[0].Time.Location().String())
	assert.Equal(t, "30/11/2026 11:00", hist[0].Time.Format("02/01/2006 15:04"), "10:00 UTC")
}
