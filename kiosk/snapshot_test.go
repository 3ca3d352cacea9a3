package kiosk

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
)

// listen registers a listener that hands every snapshot over on a channel,
// and returns it with the snapshot OnChange returned.
func listen(m *Machine) (Snapshot, <-chan Snapshot) {
	ch := make(chan Snapshot, 1024)
	now := m.OnChange(func(s Snapshot) { ch <- s })
	return now, ch
}

// until reads snapshots from ch until one satisfies cond, and returns it.
func until(t *testing.T, ch <-chan Snapshot, what string, cond func(Snapshot) bool) Snapshot {
	t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		select {
		case s := <-ch:
			if cond(s) {
				return s
			}
		case <-timeout:
			t.Fatalf("no snapshot pushed with %s", what)
		}
	}
}

// The end of a game reaches the listeners in the snapshot alone: the play,
// its stage, its result and the credit it left come in one push, so the
// screens need not ask the game or the machine for them.
func TestSnapshotCarriesTheResult(t *testing.T) {
	f := newFixture(t)
	f.boot()
	skipTo(t, f, game.Stake050, 1) // the scenario's unit 1: tier 1, won directly
	f.credit(game.Euro)
	before, ch := listen(f.m)
	assert.Equal(t, game.Euro, before.Credit, "OnChange returns the snapshot as it is now")
	assert.Equal(t, Home, before.State)
	last := before.Game.ID
	require.NotZero(t, last, "the last play is in the snapshot after it")
	assert.Equal(t, StageDone, before.Game.Stage)

	g, err := f.m.Play(ctx, game.Stake050, breakout.Auto)
	require.NoError(t, err)
	started := until(t, ch, "the play started", func(s Snapshot) bool { return s.Game.ID == g.ID() })
	assert.Equal(t, Playing, started.State)
	assert.Equal(t, StageMain, started.Game.Stage)
	assert.Equal(t, game.Stake050, started.Game.Stake)
	assert.Equal(t, game.Euro-50, started.Credit)

	for g.Stage() != StageDone {
		require.NoError(t, g.Err())
		if !g.Settled() {
			g.Wait()
			continue
		}
		g.Step(breakout.Input{})
	}
	prize := game.Table(game.Stake050).Amount(1)
	end := until(t, ch, "the play's end", func(s Snapshot) bool { return s.Game.Stage == StageDone && s.Game.ID == g.ID() })
	assert.Equal(t, Result, end.State)
	assert.True(t, end.Game.Settled)
	assert.False(t, end.Game.Stopped)
	assert.Equal(t, GameResult{Outcome: g.expected, Won: prize}, end.Game.Result)
	assert.Equal(t, game.Win, end.Game.Result.Outcome.Kind)
	assert.Equal(t, game.Euro-50+prize, end.Credit, "the credit the prize left, in the same push")

	f.m.EndResult()
	home := until(t, ch, "home", func(s Snapshot) bool { return s.State == Home })
	assert.Equal(t, end.Game, home.Game, "the last play's result stays in the snapshot")
}

// The machine's clock tells the listeners at every tick, so the screens'
// timers need no clock of their own.
func TestPollTellsTheListeners(t *testing.T) {
	f := newFixture(t)
	f.boot()
	_, ch := listen(f.m)
	f.m.Poll()
	select {
	case s := <-ch:
		assert.Equal(t, Home, s.State)
	default:
		t.Fatal("Poll told no listener")
	}
}
