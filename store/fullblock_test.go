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

// revealOf is what a correct wall shows for a play's unit: its
// combination, three snakes for a via-bonus win, nothing for a loser.
func revealOf(p Play) game.Counts {
	var c game.Counts
	switch {
	case p.ViaBonus:
		c[game.Snake] = 3
	case p.Tier.Wins():
		comb := game.Table(p.Stake).Prizes[p.Tier-1].Combination
		c[comb.Symbol] = comb.Count
	}
	return c
}

// playBatch plays n units at stake through the store's own play
// transaction code (startPlay, setPlayState, finishPlay: what StartPlay,
// SetPlayState and FinishPlay run), many per commit so that a whole block
// plays in seconds. A bank note of 500 € is inserted whenever the credit
// does not cover the stake.
func playBatch(t testing.TB, s *Store, stake game.Stake, n, perCommit int) {
	t.Helper()
	ctx := context.Background()
	req := PlayRequest{Stake: stake, Mode: ModeAuto, LayoutVersion: 1}
	for done := 0; done < n; {
		k := min(perCommit, n-done)
		err := s.write(ctx, func(tx *wtx) error {
			for i := 0; i < k; i++ {
				p, err := tx.startPlay(req)
				if err != nil {
					_, balance, _, lerr := tx.lastEntry()
					if lerr != nil || balance >= int64(stake) {
						return err
					}
					if _, err := tx.move(KindBillIn, 500*game.Euro, fmt.Sprintf("batch-note-%d-%d", done, i), "", false); err != nil {
						return err
					}
					if p, err = tx.startPlay(req); err != nil {
						return err
					}
				}
				// The intermediate states for the via-bonus units only (a
				// fifth of the winners): FinishPlay does not need them, and
				// the state machine has its own tests.
				if p.ViaBonus {
					if err := tx.setPlayState(p.ID, PlayMainDone); err != nil {
						return err
					}
					if err := tx.setPlayState(p.ID, PlayBonus); err != nil {
						return err
					}
				}
				if _, err := tx.finishPlay(p.ID, FinishInfo{Revealed: revealOf(p), Shown: p.Prize}); err != nil {
					return err
				}
			}
			return nil
		})
		require.NoError(t, err, "after %d plays", done)
		done += k
	}
}

// TestFullBlock imports a full 0,50 € block and plays all its 350 000
// units through the play transaction: every unit is sold once, in order,
// the money is the table's to the cent, and everything re-derives. It runs
// under -race too (about a minute on two busy cores), so `make test`
// checks it.
func TestFullBlock(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a full block takes about a minute; make test plays it")
	}
	ctx := context.Background()
	stake := game.Stake050
	s := openTest(t)
	b := importTest(t, s, 1, 1, stake)
	require.Equal(t, BlockOpen, b.State)
	next := importTest(t, s, 1, 2, stake)
	require.Equal(t, BlockQueued, next.State, "one open block per stake")
	table := game.Table(stake)

	start := time.Now()
	playBatch(t, s, stake, game.UnitsPerBlock, 2000)
	t.Logf("%d plays in %v", game.UnitsPerBlock, time.Since(start))

	// Every unit sold once, in order.
	b, err := s.Block(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, BlockExhausted, b.State)
	assert.Equal(t, game.UnitsPerBlock, b.Sold)
	var plays, distinct, minIdx, maxIdx int
	require.NoError(t, s.r.QueryRow(`SELECT count(*), count(DISTINCT unit_idx), min(unit_idx), max(unit_idx) FROM plays WHERE block_id = ?`,
		b.ID).Scan(&plays, &distinct, &minIdx, &maxIdx))
	assert.Equal(t, game.UnitsPerBlock, plays)
	assert.Equal(t, game.UnitsPerBlock, distinct)
	assert.Equal(t, 0, minIdx)
	assert.Equal(t, game.UnitsPerBlock-1, maxIdx)
	var outOfOrder int
	require.NoError(t, s.r.QueryRow(`SELECT count(*) FROM plays WHERE unit_idx <> id - 1`).Scan(&outOfOrder))
	assert.Zero(t, outOfOrder, "units are sold strictly in block order")

	// The money: staked is the block's sales, won its table's total.
	m, err := s.Meters(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(table.Sales()), m.Get(MeterStaked))
	assert.Equal(t, int64(game.UnitsPerBlock)*int64(stake), m.Get(ByStake(MeterStaked, stake)))
	assert.Equal(t, int64(table.Total()), m.Get(MeterWon))
	assert.Equal(t, int64(table.Total()), m.Get(ByStake(MeterWon, stake)))
	assert.Equal(t, int64(game.UnitsPerBlock), m.Get(MeterPlays))
	assert.Equal(t, int64(table.Lots()), m.Get(MeterWins))
	if stake == game.Stake050 {
		assert.Equal(t, int64(175_000*game.Euro), m.Get(MeterStaked), "0,50 € × 350 000")
	}
	credit, err := s.Credit(ctx)
	require.NoError(t, err)
	assert.Equal(t, game.Money(m.Get(MeterBillsIn))-table.Sales()+table.Total(), credit)

	// Wins per tier, from the plays and from the ledger, match the table.
	p, err := s.BlockProgress(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, table.Total(), p.Won)
	assert.Equal(t, 0, p.Remaining)
	for tier := game.Tier(0); tier <= game.NumTiers; tier++ {
		tp := p.Tiers[tier]
		assert.Equal(t, table.LotsOf(tier), tp.Sold, "tier %d sold", tier)
		assert.Equal(t, 0, tp.Remaining, "tier %d remaining", tier)
		assert.Equal(t, game.Money(table.LotsOf(tier))*table.Amount(tier), tp.Won, "tier %d won", tier)
	}
	rows, err := s.r.Query(`SELECT p.tier, count(*), sum(l.amount) FROM plays p JOIN ledger l ON l.play_id = p.id AND l.kind = 'win' GROUP BY p.tier`)
	require.NoError(t, err)
	var wins [game.NumTiers + 1]int
	for rows.Next() {
		var tier, n int
		var sum int64
		require.NoError(t, rows.Scan(&tier, &n, &sum))
		wins[tier] = n
		assert.Equal(t, game.Money(n)*table.Amount(game.Tier(tier)), game.Money(sum))
	}
	require.NoError(t, rows.Err())
	rows.Close()
	for tier := game.Tier(1); tier <= game.NumTiers; tier++ {
		assert.Equal(t, table.LotsOf(tier), wins[tier], "tier %d wins", tier)
	}
	assert.Zero(t, wins[0], "a losing unit is never credited")

	// And everything re-derives and chains.
	start = time.Now()
	require.NoError(t, s.VerifyMeters(ctx))
	require.NoError(t, s.VerifyChains(ctx))
	require.NoError(t, s.VerifyBlocks(ctx, trusted()), "the queued block")
	t.Logf("verify in %v", time.Since(start))

	// The queued block opened when the first was exhausted, in the same
	// transaction as its last unit; the next play draws its unit 0.
	next, err = s.Block(ctx, next.ID)
	require.NoError(t, err)
	assert.Equal(t, BlockOpen, next.State)
	assert.Equal(t, b.Closed, next.Opened)
	p1, err := s.StartPlay(ctx, PlayRequest{Stake: stake, Mode: ModeJouer, LayoutVersion: 1})
	require.NoError(t, err)
	assert.Equal(t, next.ID, p1.BlockID)
	assert.Equal(t, uint32(0), p1.Unit)
	_, err = s.FinishPlay(ctx, p1.ID, FinishInfo{Revealed: revealOf(p1), Shown: p1.Prize})
	require.NoError(t, err)
	codes := eventCodes(t, s)
	assert.Equal(t, []string{EventBlockImported, EventBlockOpened, EventBlockImported, EventBlockExhausted, EventBlockOpened}, codes)

	_, err = s.WithdrawBlock(ctx, next.ID, "end of the emission")
	require.NoError(t, err)
	_, err = s.StartPlay(ctx, PlayRequest{Stake: stake, Mode: ModeJouer, LayoutVersion: 1})
	assert.ErrorIs(t, err, ErrNoOpenBlock, "no block left to sell at this stake")
	require.NoError(t, s.VerifyPlays(ctx))
	require.NoError(t, s.VerifyMeters(ctx))
	require.NoError(t, s.IntegrityCheck(ctx))
}

// eventCodes lists the codes of the events, oldest first.
func eventCodes(t testing.TB, s *Store) []string {
	t.Helper()
	evs, err := s.Events(context.Background(), 1000, 0)
	require.NoError(t, err)
	var codes []string
	for i := len(evs) - 1; i >= 0; i-- {
		codes = append(codes, evs[i].Code)
	}
	return codes
}
