package kiosk

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/store"
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

// The player's session runs back to the last zero credit: a cash-out or a
// game lost down to zero ends one; a game whose stake took the credit to
// zero is still the player's while nothing but its win followed.
func TestSessionWalkStopsAtTheLastZeroCredit(t *testing.T) {
	at := func(min int) time.Time { return time.Date(2026, 11, 30, 10, min, 0, 0, time.UTC) }
	e := func(min int, kind store.Kind, balance game.Money, play int64) store.Entry {
		return store.Entry{At: at(min), Kind: kind, Balance: balance, PlayID: play}
	}
	for _, tc := range []struct {
		name    string
		ledger  []store.Entry // newest first
		plays   []int64
		since   time.Time
		stopped bool
	}{
		{"a win", []store.Entry{e(3, store.KindWin, 550, 1), e(2, store.KindStake, 450, 1), e(1, store.KindBillIn, 500, 0)},
			[]int64{1}, at(1), false},
		{"the last game lost to zero, then a new player's note",
			[]store.Entry{e(4, store.KindBillIn, 500, 0), e(3, store.KindStake, 0, 2), e(2, store.KindStake, 50, 1), e(1, store.KindBillIn, 100, 0)},
			nil, at(4), true},
		{"a game to zero, its win after it", []store.Entry{e(5, store.KindWin, 200, 3), e(4, store.KindStake, 0, 3),
			e(3, store.KindStake, 50, 2), e(2, store.KindBillIn, 100, 0), e(1, store.KindVoucherOut, 0, 0)},
			[]int64{3, 2}, at(2), true},
		{"a game to zero, still on", []store.Entry{e(3, store.KindStake, 0, 2), e(2, store.KindStake, 50, 1), e(1, store.KindBillIn, 100, 0)},
			[]int64{2, 1}, at(1), false},
		{"just cashed out", []store.Entry{e(2, store.KindVoucherOut, 0, 0), e(1, store.KindBillIn, 500, 0)},
			nil, time.Time{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w sessionWalk
			assert.Equal(t, tc.stopped, w.read(tc.ledger))
			assert.Equal(t, tc.plays, w.plays)
			assert.Equal(t, tc.since, w.since)
		})
	}
}
