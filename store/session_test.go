package store

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

func session(t *testing.T, s *Store) PlayerSession {
	t.Helper()
	p, err := s.PlayerSession(context.Background())
	require.NoError(t, err)
	return p
}

// The session is the ledger's rows since the credit was last nothing
// with no game on: a play that takes the credit to nothing keeps it open
// until it ends, and a prize keeps it going.
func TestPlayerSessionFollowsTheCredit(t *testing.T) {
	ctx := context.Background()
	s := openWith(t, block050)
	assert.False(t, session(t, s).Active(), "an empty ledger has no session")

	creditNote(t, s, 5*game.Euro)
	first := session(t, s)
	require.True(t, first.Active())
	assert.Equal(t, int64(0), first.Since)
	assert.Equal(t, 5*game.Euro, first.MoneyIn)
	assert.Zero(t, first.Net())

	var staked, won game.Money
	ended := false
	for i := 0; i < 400 && !ended; i++ {
		p, err := s.StartPlay(ctx, PlayRequest{Stake: game.Stake050, Mode: ModeAuto, LayoutVersion: 1})
		require.NoError(t, err)
		staked += 50
		on := session(t, s)
		require.True(t, on.Active(), "a game on keeps the session, even at no credit (play %d)", i)
		assert.Equal(t, first.Since, on.Since)
		assert.Equal(t, won-staked, on.Net())
		_, err = s.FinishPlay(ctx, p.ID, FinishInfo{Revealed: revealOf(p), Shown: p.Prize})
		require.NoError(t, err)
		won += p.Prize
		after := session(t, s)
		if after.Credit == 0 {
			assert.False(t, after.Active(), "a lost play at no credit ends the session")
			ended = true
			continue
		}
		require.True(t, after.Active())
		assert.Equal(t, first.Since, after.Since, "the session goes on while there is credit")
		assert.Equal(t, won-staked, after.Net())
		assert.Equal(t, 5*game.Euro, after.MoneyIn)
		assert.Equal(t, i+1, after.Plays)
		assert.Equal(t, first.Start, after.Start)
		assert.Equal(t, after.Credit, after.MoneyIn+after.Net(), "credit = notes in + net")
	}
	require.True(t, ended, "5 € at 0,50 € ran out within 400 plays")

	// The next note opens another session, named after the row before it.
	last := session(t, s).Since
	e := creditNote(t, s, 10*game.Euro)
	next := session(t, s)
	assert.Equal(t, last, next.Since)
	assert.Equal(t, e.ID-1, next.Since)
	assert.Equal(t, 10*game.Euro, next.MoneyIn)
	assert.Zero(t, next.Net())
	assert.Zero(t, next.Plays)
}

func TestPlayerSessionEndsAtCashOut(t *testing.T) {
	ctx := context.Background()
	s, _ := openCash(t)
	creditNote(t, s, 20*game.Euro)
	creditNote(t, s, 10*game.Euro)
	p := session(t, s)
	assert.Equal(t, 30*game.Euro, p.MoneyIn)
	v, err := s.IssueVoucher(ctx, VoucherRequest{30 * game.Euro, val1, time.Now().Add(time.Hour)})
	require.NoError(t, err)
	_, _, err = s.ConfirmVoucher(ctx, v.ID)
	require.NoError(t, err)
	assert.False(t, session(t, s).Active())
	creditNote(t, s, 5*game.Euro)
	assert.Equal(t, 5*game.Euro, session(t, s).MoneyIn, "the notes of the session before are not counted")
}

// A player fact belongs to its session: the next one does not see it; the
// same fact again writes nothing; each is a row of the settings' chain
// with its event, and the chain still verifies.
func TestPlayerFactsBelongToTheirSession(t *testing.T) {
	ctx := context.Background()
	s, c := openCash(t)
	creditNote(t, s, 20*game.Euro)
	p := session(t, s)
	wrote, err := s.PlayerFact(ctx, FactLimitSet, p.Since, "5000", "limit 50,00 €")
	require.NoError(t, err)
	assert.True(t, wrote)
	v, err := s.SessionFact(ctx, FactLimitSet, p.Since)
	require.NoError(t, err)
	assert.Equal(t, "5000", v)
	v, err = s.SessionFact(ctx, FactLimitSet, p.Since+7)
	require.NoError(t, err)
	assert.Empty(t, v, "another session's limit is not this one's")

	for range 2 {
		_, err = s.PlayerFact(ctx, FactLimitReached, p.Since, "ceiling", "ceiling reached")
		require.NoError(t, err)
	}
	_, err = s.PlayerFact(ctx, FactLimitSet, p.Since, "a:b", "")
	require.ErrorIs(t, err, ErrBadRequest)
	_, err = s.PlayerFact(ctx, "cash.max_credit", p.Since, "1", "")
	require.ErrorIs(t, err, ErrBadRequest, "only the player's facts")

	counts, err := s.PlayerFactCounts(ctx, time.Time{}, time.Time{})
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{FactLimitSet: 1, FactLimitReached: 1}, counts, "a fact repeated is counted once")
	c.advance(48 * time.Hour)
	_, err = s.PlayerFact(ctx, FactRealityCheck, p.Since, "1", "reality check 1")
	require.NoError(t, err)
	day, err := s.PlayerFactCounts(ctx, c.now().Add(-time.Hour), c.now().Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{FactRealityCheck: 1}, day)

	evs, err := s.EventsWhere(ctx, EventQuery{Source: "player"})
	require.NoError(t, err)
	var codes []string
	for _, e := range evs {
		codes = append(codes, e.Code)
	}
	assert.Equal(t, []string{EventRealityCheck, EventLimitReached, EventLimitSet}, codes)
	require.NoError(t, s.Verify(ctx))
	require.NoError(t, s.Close())

	// A player's limit is a row of the settings' chain: the schema refuses
	// its deletion, and a deletion around it is the anchor or integrity
	// fault of TestSettingsEditedOnTheDiskAreAFault.
	db := openRaw(t, s.path)
	_, err = db.Exec(`DELETE FROM settings WHERE key = ?`, FactLimitSet)
	require.ErrorContains(t, err, "never deleted")
	require.NoError(t, db.Close())
}
