package fleet

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/block"
	"pharaon/store"
)

// importBlock generates a signed block at stake and imports it into each
// store.
func importBlock(t *testing.T, stake game.Stake, number uint32, stores ...*store.Store) {
	t.Helper()
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))
	var buf bytes.Buffer
	var seed [32]byte
	seed[0] = byte(number)
	_, err := block.Generate(&buf, block.Params{Emission: 1, Number: number, Stake: stake,
		Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Rand: rand.NewChaCha8(seed)}, key)
	require.NoError(t, err)
	for _, s := range stores {
		_, err := s.ImportBlock(context.Background(), bytes.NewReader(buf.Bytes()), block.NewKeySet(key.Public().(ed25519.PublicKey)))
		require.NoError(t, err)
	}
}

// playN plays n games at stake to the end, adding credit when needed.
func playN(t *testing.T, s *store.Store, stake game.Stake, n int) {
	t.Helper()
	ctx := context.Background()
	for range n {
		if c, err := s.Credit(ctx); err == nil && c < game.Money(stake) {
			_, err := s.Adjust(ctx, 100*game.Euro, "", "test credit")
			require.NoError(t, err)
		}
		p, err := s.StartPlay(ctx, store.PlayRequest{Stake: stake, Mode: store.ModeAuto, LayoutVersion: 1})
		require.NoError(t, err)
		var c game.Counts
		switch {
		case p.ViaBonus:
			c[game.Snake] = 3
			require.NoError(t, s.EnterBonus(ctx, p.ID, nil))
		case p.Tier.Wins():
			comb := game.Table(p.Stake).Prizes[p.Tier-1].Combination
			c[comb.Symbol] = comb.Count
		}
		_, err = s.FinishPlay(ctx, p.ID, store.FinishInfo{Revealed: c, Shown: p.Prize})
		require.NoError(t, err)
	}
}

// sums is what a kiosk's own ledger says, by stake.
func sums(t *testing.T, s *store.Store) (credit game.Money, sales, wins map[game.Stake]game.Money) {
	t.Helper()
	ctx := context.Background()
	credit, err := s.Credit(ctx)
	require.NoError(t, err)
	sales, wins = map[game.Stake]game.Money{}, map[game.Stake]game.Money{}
	plays, err := s.LastPlays(ctx, 100000, 0)
	require.NoError(t, err)
	for _, p := range plays {
		sales[p.Stake] += game.Money(p.Stake)
		wins[p.Stake] += p.Prize
	}
	return credit, sales, wins
}

// Two kiosks publish; the centre's fold holds each kiosk's credit, sales
// and wins by stake to the cent, with no problem; a record rewritten in
// the stream (its hash no longer chains) is reported.
func TestCentreTotalsEqualTheLedgers(t *testing.T) {
	ns := startNATS(t)
	a, b := openStore(t), openStore(t)
	importBlock(t, game.Stake050, 1, a, b)
	importBlock(t, game.Stake100, 2, a, b)
	playN(t, a, game.Stake050, 120)
	playN(t, a, game.Stake100, 80)
	playN(t, b, game.Stake100, 150)

	for id, s := range map[string]*store.Store{"a": a, "b": b} {
		p, err := NewPublisher(ns.kiosk(t, id), s)
		require.NoError(t, err)
		ack := newAcks()
		p.OnAck = ack.on
		stop := run(p)
		o, err := s.OutboxState(context.Background())
		require.NoError(t, err)
		ack.wait(t, o.Last)
		stop()
	}

	f := NewFleet()
	f.VoucherMaster = ns.master
	require.NoError(t, ReadRecords(context.Background(), ns.js(t), "", func(r Record) error {
		f.Add(r)
		return nil
	}))
	require.Len(t, f.Kiosks, 2)
	total := map[game.Stake][2]game.Money{}
	for id, s := range map[string]*store.Store{"a": a, "b": b} {
		k := f.Kiosks[id]
		credit, sales, wins := sums(t, s)
		assert.Empty(t, k.Problems, id)
		assert.Equal(t, int64(credit), k.Credit, id)
		assert.Equal(t, k.Credit, k.Ledger, id)
		var ks, kw game.Money
		for st := range sales {
			ks, kw = ks+sales[st], kw+wins[st]
			total[st] = [2]game.Money{total[st][0] + sales[st], total[st][1] + wins[st]}
		}
		assert.Equal(t, int64(ks), k.Sales, id)
		assert.Equal(t, int64(kw), k.Wins, id)
		o, err := s.OutboxState(context.Background())
		require.NoError(t, err)
		assert.Equal(t, o.Last, k.LastSeq, id)
	}
	for _, r := range f.Stakes() {
		assert.Equal(t, int64(total[game.Stake(r.Stake)][0]), r.Sales, "sales at %d", r.Stake)
		assert.Equal(t, int64(total[game.Stake(r.Stake)][1]), r.Wins, "wins at %d", r.Stake)
	}
	assert.Len(t, f.Stakes(), 2)

	// A history cut or rewritten: the fold reports it.
	recs, err := a.Outbox(context.Background(), 0, 1000000)
	require.NoError(t, err)
	g := NewFleet()
	for i, r := range recs {
		if i == 10 {
			continue // a record missing
		}
		if r.Kind == "ledger" && i > 20 && i < 40 {
			var m map[string]any
			require.NoError(t, json.Unmarshal(r.Payload, &m))
			m["prev_hash"] = "00"
			r.Payload, _ = json.Marshal(m)
		}
		g.Apply("a", r, time.Now())
	}
	assert.NotEmpty(t, g.Kiosks["a"].Problems)
	assert.Contains(t, g.Kiosks["a"].Problems[0], "sequence 12 after 10")
	assert.True(t, hasProblem(g.Kiosks["a"], "chain broken"), "%q", g.Kiosks["a"].Problems)
}

// The player's protection facts reach the centre as the kiosk's events,
// through its outbox, and the centre counts them by kiosk.
func TestCentreCountsThePlayersProtection(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "pharaon.db"))
	require.NoError(t, err)
	defer st.Close()
	for _, f := range []struct {
		key   string
		since int64
		value string
	}{
		{store.FactLimitSet, 0, "5000"}, {store.FactRealityCheck, 0, "1"}, {store.FactRealityCheck, 0, "2"},
		{store.FactLimitReached, 0, "player"}, {store.FactLimitReached, 0, "player"}, // once a session
		{store.FactLimitSet, 7, "2000"},
	} {
		_, err := st.PlayerFact(ctx, f.key, f.since, f.value, "test")
		require.NoError(t, err)
	}
	recs, err := st.Outbox(ctx, 0, 1000)
	require.NoError(t, err)
	fl := NewFleet()
	for _, r := range recs {
		fl.Apply("PH-1", r, time.Now())
	}
	k := fl.Sorted()[0]
	assert.Equal(t, int64(2), k.RealityChecks)
	assert.Equal(t, int64(2), k.LimitsSet)
	assert.Equal(t, int64(1), k.LimitsReached)
	assert.Empty(t, k.Problems, "the facts' settings rows chain as the kiosk wrote them")
}
