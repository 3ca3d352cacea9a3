package kiosk

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/store"
)

// playJouer plays g with the paddle moved and the ball launched now and
// then, so its recording holds inputs, until it ends.
func playJouer(t *testing.T, g *Game) {
	t.Helper()
	for i := 0; g.Stage() != StageDone; i++ {
		require.Less(t, i, 4*60*breakout.TicksPerSecond, "game %d does not end", g.ID())
		if !g.Settled() {
			g.Wait()
			continue
		}
		in := breakout.Input{}
		if i%3 == 0 {
			b := g.World().Ball()
			in = breakout.Input{Steer: true, PaddleX: b.X + int32(i%200) - 100, Launch: b.Phase == breakout.OnPaddle && i%7 == 0}
		}
		g.Step(in)
	}
}

// The recall lists the last 10 games at least, with the credit around each;
// each replays from its recording to the original's final state, symbols
// and amount, moving no money and no meter.
func TestRecallLastTenAndReplay(t *testing.T) {
	f, o := newOffice(t)
	skipTo(t, f, game.Stake200, 9) // the 2 € units from here are won through the bonus
	var ids []int64
	for i := 0; i < 12; i++ {
		s := game.Stakes[i%len(game.Stakes)]
		f.credit(s.Money())
		mode := breakout.Auto
		if i%2 == 0 {
			mode = breakout.Play
		}
		g, err := f.m.Play(ctx, s, mode)
		require.NoError(t, err)
		if mode == breakout.Play {
			playJouer(t, g)
		} else {
			runToEnd(t, g)
		}
		f.m.EndResult()
		ids = append(ids, g.ID())
	}
	staff, err := o.Login(ctx, "135700")
	require.NoError(t, err)
	got, err := o.Recall(ctx, staff, store.RecallQuery{})
	require.NoError(t, err)
	require.Len(t, got, 10, "the last 10 games (the regulators' minimum)")
	for i, r := range got {
		assert.Equal(t, ids[len(ids)-1-i], r.ID, "newest first")
		assert.Equal(t, r.CreditBefore-r.Stake.Money()+r.Prize, r.CreditAfter)
	}

	credit := f.m.Snapshot().Credit
	meters, err := f.st.Meters(ctx)
	require.NoError(t, err)
	ledger, err := f.st.Entries(ctx, 1, 0)
	require.NoError(t, err)

	var bonus, jouer int
	for _, r := range got {
		rp, err := o.Replay(ctx, staff, r.Play)
		require.NoError(t, err, "play %d", r.ID)
		rp.Run()
		require.True(t, rp.Done())
		res := rp.Result()
		assert.False(t, res.Mismatch, "play %d", r.ID)
		assert.Equal(t, r.Prize, res.Won, "play %d: the same amount", r.ID)
		assert.Equal(t, r.Revealed, rp.Revealed(), "play %d: the same symbols", r.ID)
		// The same final state: the replayed walls record exactly the
		// recording the play kept.
		mainRec, bonusRec, err := decodeRecordings(r.Recording)
		require.NoError(t, err)
		if r.ViaBonus {
			bonus++
			assert.Equal(t, 2, rp.World().RedHits(), "play %d: the red brick hit twice", r.ID)
			assert.True(t, bytes.Equal(bonusRec, rp.World().AppendRecording(nil)), "play %d: bonus wall", r.ID)
		} else {
			assert.True(t, bytes.Equal(mainRec, rp.World().AppendRecording(nil)), "play %d: main wall", r.ID)
			assert.Zero(t, rp.World().Standing(), "play %d: every brick down", r.ID)
		}
		if r.Mode == store.ModeJouer {
			jouer++
		}
	}
	assert.Positive(t, bonus, "a bonus game is among them")
	assert.Positive(t, jouer, "a Jouer game with inputs is among them")

	assert.Equal(t, credit, f.m.Snapshot().Credit, "a replay moves no credit")
	after, err := f.st.Meters(ctx)
	require.NoError(t, err)
	assert.Equal(t, meters, after, "nor a meter")
	last, err := f.st.Entries(ctx, 1, 0)
	require.NoError(t, err)
	assert.Equal(t, ledger, last, "nor the ledger")
	assert.Len(t, officeEvents(t, f, "replay"), 10, "each replay is logged")

	older, err := o.Recall(ctx, staff, store.RecallQuery{BeforeID: got[len(got)-1].ID})
	require.NoError(t, err)
	require.Equal(t, 10, len(older), "the older games, page by page (9 skipped + 2)")
	assert.Equal(t, got[len(got)-1].ID-1, older[0].ID)
	u, err := o.RecallUnit(ctx, staff, got[0].Emission, got[0].Number, got[0].Unit)
	require.NoError(t, err)
	assert.Equal(t, got[0].ID, u.ID, "found by its unit")
}

// A play recalled while unfinished replays to where its recording stops.
func TestReplayOfAnUnfinishedPlay(t *testing.T) {
	f := newFixture(t)
	f.boot()
	f.credit(game.Euro)
	g, err := f.m.Play(ctx, game.Stake100, breakout.Auto)
	require.NoError(t, err)
	for i := 0; i < 300; i++ {
		g.Step(breakout.Input{})
	}
	syncWriter(f.m)
	p, err := f.st.Play(ctx, g.ID())
	require.NoError(t, err)
	require.Equal(t, store.PlayStarted, p.State)
	r, err := NewReplay(p)
	require.NoError(t, err)
	r.Run()
	assert.True(t, r.Done())
	assert.False(t, r.World().Done(), "the wall is not cleared yet")
	mainRec, _, err := decodeRecordings(p.Recording)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(mainRec, r.World().AppendRecording(nil)), "stopped where the recording stops")
	assert.False(t, r.Result().Mismatch, "an unfinished play is not compared")
	runToEnd(t, g)
}
