package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/block"
	"pharaon/store"
)

// report prints the plays by stake and by block, with the same totals,
// equal to the kiosks' ledgers; status prints each kiosk's block stock and
// flags a stake with no unit left.
func TestCentralReportByBlockAndStock(t *testing.T) {
	c := startCentre(t)
	ctx := context.Background()
	dir := t.TempDir()
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{3}, ed25519.SeedSize))
	keys := block.NewKeySet(key.Public().(ed25519.PublicKey))
	imports := map[string][]block.Params{
		"borne-1": {{Number: 1, Stake: game.Stake050}, {Number: 2, Stake: game.Stake100}},
		"borne-2": {{Number: 3, Stake: game.Stake100}, {Number: 4, Stake: game.Stake100}},
	}
	playsAt := map[string]map[game.Stake]int{"borne-1": {game.Stake050: 30, game.Stake100: 20}, "borne-2": {game.Stake100: 25}}
	var sales, wins game.Money // from the kiosks' ledgers
	for _, id := range []string{"borne-1", "borne-2"} {
		st, err := store.Open(filepath.Join(dir, id+".db"))
		require.NoError(t, err)
		defer st.Close()
		for _, p := range imports[id] {
			var buf bytes.Buffer
			p.Emission, p.Created, p.Rand = 8, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), rand.NewChaCha8([32]byte{byte(p.Number)})
			_, err := block.Generate(&buf, p, key)
			require.NoError(t, err)
			_, err = st.ImportBlock(ctx, &buf, keys)
			require.NoError(t, err)
		}
		_, err = st.Adjust(ctx, 100*game.Euro, "", "test credit")
		require.NoError(t, err)
		for _, stake := range game.Stakes {
			for range playsAt[id][stake] {
				p, err := st.StartPlay(ctx, store.PlayRequest{Stake: stake, Mode: store.ModeAuto, LayoutVersion: 1})
				require.NoError(t, err)
				var c game.Counts
				switch {
				case p.ViaBonus:
					c[game.Snake] = 3
					require.NoError(t, st.EnterBonus(ctx, p.ID, nil))
				case p.Tier.Wins():
					comb := game.Table(p.Stake).Prizes[p.Tier-1].Combination
					c[comb.Symbol] = comb.Count
				}
				_, err = st.FinishPlay(ctx, p.ID, store.FinishInfo{Revealed: c, Shown: p.Prize})
				require.NoError(t, err)
			}
		}
		entries, err := st.Entries(ctx, 100000, 0)
		require.NoError(t, err)
		for _, e := range entries {
			switch e.Kind {
			case store.KindStake:
				sales -= e.Amount
			case store.KindWin:
				wins += e.Amount
			}
		}
		publish(t, c, id, st)
	}
	require.NotZero(t, wins, "some plays won")

	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	out, err := c.cmd(t, now, "report")
	require.NoError(t, err, out)
	byStake, byBlock, ok := strings.Cut(out, "\n\n")
	require.True(t, ok, out)
	total := regexp.MustCompile(`(?m)^ *total +(\d+) +(\S+\x{a0}€) +(\S+\x{a0}€) *$`)
	want := []string{"75", sales.String(), wins.String()}
	for _, view := range []string{byStake, byBlock} {
		m := total.FindStringSubmatch(view)
		require.NotNil(t, m, view)
		assert.Equal(t, want, m[1:], "the ledgers' totals: %s", view)
	}
	for _, row := range []string{`8/1 +0,50\x{a0}€ +borne-1 +ouvert/open +30 +15\x{a0}€ `, `8/2 +1\x{a0}€ +borne-1 +ouvert/open +20 +20\x{a0}€ `,
		`8/3 +1\x{a0}€ +borne-2 +ouvert/open +25 +25\x{a0}€ `, `8/4 +1\x{a0}€ +borne-2 +en attente/queued +0 +0\x{a0}€ +0\x{a0}€$`} {
		assert.Regexp(t, `(?m)^ *`+row, byBlock)
	}

	out, err = c.cmd(t, now, "status")
	require.NoError(t, err, out)
	for _, row := range []string{
		`borne-1 +0,50\x{a0}€ +349\x{a0}970 +8/1 \(349\x{a0}970\) +—`,
		`borne-1 +1\x{a0}€ +349\x{a0}980 +8/2 \(349\x{a0}980\) +—`,
		`borne-1 +2\x{a0}€ +0 +— +—`,
		`borne-2 +1\x{a0}€ +699\x{a0}975 +8/3 \(349\x{a0}975\) +8/4 \(350\x{a0}000\)`,
	} {
		assert.Regexp(t, `(?m)^`+row+` *$`, out)
	}
	assert.Contains(t, out, "STOCK borne-2\u00a0: plus de billets à 0,50\u00a0€ / no units left at €0.50")
	assert.Contains(t, out, "STOCK borne-1\u00a0: plus de billets à 2\u00a0€ / no units left at €2")
	assert.NotContains(t, out, "STOCK borne-1\u00a0: plus de billets à 1\u00a0€")
}
