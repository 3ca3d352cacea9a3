package fleet

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/store"
)

// The report by block: two kiosks, four blocks (one withdrawn after its
// plays, one queued). Each block's plays, sales and wins are its plays' at
// its kiosk, the sums by block equal the sums by stake and the kiosks'
// ledgers to the cent, and each kiosk's stock is its blocks' units left.
func TestCentreReportByBlock(t *testing.T) {
	ctx := context.Background()
	a, b := openStore(t), openStore(t)
	importBlock(t, game.Stake050, 11, a)
	importBlock(t, game.Stake100, 12, a)
	importBlock(t, game.Stake100, 13, b)
	importBlock(t, game.Stake100, 14, b)
	playN(t, a, game.Stake050, 60)
	playN(t, a, game.Stake100, 40)
	playN(t, b, game.Stake100, 70)
	blocks, err := a.Blocks(ctx)
	require.NoError(t, err)
	for _, bl := range blocks {
		if bl.Stake == game.Stake050 {
			_, err := a.WithdrawBlock(ctx, bl.ID, "test")
			require.NoError(t, err)
		}
	}

	f := NewFleet()
	stores := map[string]*store.Store{"a": a, "b": b}
	for id, s := range stores {
		fold(t, f, id, s, 0)
	}
	type sum struct{ plays, sales, wins int64 }
	want := map[string]sum{} // "kiosk E/N" → from the kiosk's plays
	wantStake := map[int64]sum{}
	for id, s := range stores {
		assert.Empty(t, f.Kiosks[id].Problems, id)
		_, sales, wins := sums(t, s)
		for st := range sales {
			w := wantStake[int64(st)]
			wantStake[int64(st)] = sum{w.plays, w.sales + int64(sales[st]), w.wins + int64(wins[st])}
		}
		plays, err := s.LastPlays(ctx, 100000, 0)
		require.NoError(t, err)
		for _, p := range plays {
			k := id + " " + BlockReport{Emission: p.Emission, Number: p.Number, Named: true}.Name()
			w := want[k]
			want[k] = sum{w.plays + 1, w.sales + int64(p.Stake), w.wins + int64(p.Prize)}
			w = wantStake[int64(p.Stake)]
			wantStake[int64(p.Stake)] = sum{w.plays + 1, w.sales, w.wins}
		}
	}
	got := map[string]sum{}
	var byBlock, byStake sum
	for _, r := range f.Blocks() {
		require.True(t, r.Named, "%+v", r)
		got[r.Kiosk+" "+r.Name()] = sum{r.Plays, r.Sales, r.Wins}
		byBlock = sum{byBlock.plays + r.Plays, byBlock.sales + r.Sales, byBlock.wins + r.Wins}
	}
	want["b 1/14"] = sum{} // queued, nothing sold
	assert.Equal(t, want, got)
	for _, r := range f.Stakes() {
		assert.Equal(t, wantStake[r.Stake], sum{r.Plays, r.Sales, r.Wins}, "stake %d", r.Stake)
		byStake = sum{byStake.plays + r.Plays, byStake.sales + r.Sales, byStake.wins + r.Wins}
	}
	assert.Equal(t, byStake, byBlock, "the two views agree")
	assert.Equal(t, sum{170, 60*50 + 110*100, f.Kiosks["a"].Wins + f.Kiosks["b"].Wins}, byBlock)
	var names []string
	for _, r := range f.Blocks() {
		names = append(names, r.Kiosk+" "+r.Name()+" "+r.State)
	}
	assert.Equal(t, []string{"a 1/11 withdrawn", "a 1/12 open", "b 1/13 open", "b 1/14 queued"}, names)

	left := func(k string) map[int64]int64 {
		out := map[int64]int64{}
		for _, s := range f.Kiosks[k].Stock() {
			out[s.Stake] = s.Left
		}
		return out
	}
	assert.Equal(t, map[int64]int64{50: 0, 100: game.UnitsPerBlock - 40, 200: 0}, left("a"))
	assert.Equal(t, map[int64]int64{50: 0, 100: 2*game.UnitsPerBlock - 70, 200: 0}, left("b"))
	st := f.Kiosks["b"].Stock()[1]
	require.Len(t, st.Open, 1)
	require.Len(t, st.Queued, 1)
	assert.Equal(t, "1/13", st.Open[0].Name())
	assert.Equal(t, "1/14", st.Queued[0].Name())
	// The kiosk's own count of units left.
	for id, s := range stores {
		blocks, err := s.Blocks(ctx)
		require.NoError(t, err)
		own := map[int64]int64{50: 0, 100: 0, 200: 0}
		for _, bl := range blocks {
			if bl.State == store.BlockOpen || bl.State == store.BlockQueued {
				own[int64(bl.Stake)] += int64(bl.Remaining())
			}
		}
		assert.Equal(t, own, left(id), id)
	}
}

// A kiosk whose records begin after its block's import and opening: the
// block is known by its id at the kiosk and its stake, open since it is
// drawn from, and its units left counted from the last unit drawn (units
// are drawn in order), as the kiosk counts them.
func TestCentreStockFromAPartialHistory(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	importBlock(t, game.Stake100, 2, s)
	playN(t, s, game.Stake100, 10)
	o, err := s.OutboxState(ctx)
	require.NoError(t, err)
	importBlock(t, game.Stake100, 3, s)
	playN(t, s, game.Stake100, 5)

	f := NewFleet()
	recs, err := s.Outbox(ctx, o.Last, 1_000_000)
	require.NoError(t, err)
	for i, r := range recs {
		r.Seq = int64(i + 1) // the outbox began after the history
		f.Apply("k1", r, time.Now())
	}
	var rows []string
	var plays, sales int64
	for _, b := range f.Blocks() {
		rows = append(rows, b.Name()+" "+b.State)
		plays, sales = plays+b.Plays, sales+b.Sales
	}
	assert.Equal(t, []string{"1/3 queued", "id 1 open"}, rows)
	require.Len(t, f.Stakes(), 1)
	assert.Equal(t, f.Stakes()[0].Plays, plays)
	assert.Equal(t, f.Stakes()[0].Sales, sales)
	assert.Equal(t, int64(500), sales)

	blocks, err := s.Blocks(ctx)
	require.NoError(t, err)
	var own int64
	for _, b := range blocks {
		own += int64(b.Remaining())
	}
	stock := f.Kiosks["k1"].Stock()[1]
	assert.Equal(t, int64(game.Stake100), stock.Stake)
	assert.Equal(t, own, stock.Left)
	assert.Equal(t, int64(2*game.UnitsPerBlock-15), stock.Left)
}
