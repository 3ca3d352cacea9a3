package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"io"
	"log"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/block"
	"pharaon/game/breakout"
	"pharaon/kiosk"
	"pharaon/store"
)

// The screenshots of docs/screenshots come from the real binary on a
// showcase database: a block of each stake whose first units are known, so
// the pictures show a win, the bonus game and a loss on the first try.
// TestShowcaseDatabase makes it, anchored as a development run anchors
// its database (its anchor and trust root beside it), and checks it sells
// those units; with PHARAON_SHOWCASE_DIR set it leaves it there
// (showcase.db, its anchor and trust root, showcase.pub):
//
//	PHARAON_SHOWCASE_DIR=/tmp/showcase go test ./cmd/pharaon -run Showcase
//	bin/pharaon -dev -db /tmp/showcase/showcase.db -keys /tmp/showcase/showcase.pub

// showcaseHeads are the first units of each stake's showcase block.
var showcaseHeads = map[game.Stake][]struct {
	tier     game.Tier
	viaBonus bool
}{
	game.Stake050: {{game.TierLose, false}, {8, false}},
	game.Stake100: {{1, false}, {game.TierLose, false}},
	game.Stake200: {{4, true}, {5, false}},
}

// writeShowcaseBlock writes a signed block of stake: the showcase head, then
// the rest of the table's lots and the losers.
func writeShowcaseBlock(w io.Writer, stake game.Stake, priv ed25519.PrivateKey) error {
	tab := game.Table(stake)
	var bonus [game.NumTiers]uint32
	for i, share := range block.DefaultBonusShare {
		bonus[i] = max(1, uint32((tab.Prizes[i].Lots*int(share)+500)/1000))
	}
	h := block.Header{Emission: 9000, Number: uint32(stake), Stake: stake, BonusLots: bonus,
		Created: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	bw, err := block.NewWriter(w, h, priv)
	if err != nil {
		return err
	}
	var direct, via [game.NumTiers + 1]int
	direct[0] = tab.Losers()
	for i, p := range tab.Prizes {
		direct[i+1], via[i+1] = p.Lots-int(bonus[i]), int(bonus[i])
	}
	idx := uint32(0)
	put := func(t game.Tier, vb bool) error {
		if vb {
			via[t]--
		} else {
			direct[t]--
		}
		err := bw.Write(block.Unit{Index: idx, Tier: t, ViaBonus: vb, Seed: uint64(idx)*0x9E3779B97F4A7C15 + 11})
		idx++
		return err
	}
	for _, u := range showcaseHeads[stake] {
		if err := put(u.tier, u.viaBonus); err != nil {
			return err
		}
	}
	for t := int(game.NumTiers); t >= 0; t-- {
		for direct[t] > 0 {
			if err := put(game.Tier(t), false); err != nil {
				return err
			}
		}
		for via[t] > 0 {
			if err := put(game.Tier(t), true); err != nil {
				return err
			}
		}
	}
	return bw.Close()
}

func TestShowcaseDatabase(t *testing.T) {
	dir := os.Getenv("PHARAON_SHOWCASE_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	db, pubPath := filepath.Join(dir, "showcase.db"), filepath.Join(dir, "showcase.pub")
	showcaseFiles := []string{"showcase.db", "pharaon.anchor", "trust.secret", "trust.counter"}
	for _, p := range append([]string{db + "-wal", db + "-shm", pubPath}, showcaseFiles...) {
		require.NoError(t, os.RemoveAll(filepath.Join(dir, filepath.Base(p))))
	}
	priv := ed25519.NewKeyFromSeed([]byte("pharaon showcase issuer key 32by"))
	pem, err := block.MarshalPublicKey(priv.Public().(ed25519.PublicKey))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(pubPath, pem, 0o644))

	st, err := store.Open(db, store.WithAnchor(store.DefaultAnchor(db)))
	require.NoError(t, err)
	keys := block.NewKeySet(priv.Public().(ed25519.PublicKey))
	for _, s := range game.Stakes {
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(writeShowcaseBlock(pw, s, priv)) }()
		_, err := st.ImportBlock(context.Background(), pr, keys)
		require.NoError(t, err, "import %s", s)
	}
	require.NoError(t, st.Close())

	// The kiosk started on it as the screenshots start it sells the
	// showcase units, and provisions no demo block beside them.
	checkDir := t.TempDir()
	for _, name := range showcaseFiles {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(checkDir, name), b, 0o600))
	}
	check := filepath.Join(checkDir, "showcase.db")
	p, err := openKiosk(context.Background(), Config{DB: check, Dev: true, Keys: []string{pubPath}}, testNow, log.New(&bytes.Buffer{}, "", 0))
	require.NoError(t, err)
	defer p.Close()
	blocks, err := p.st.Blocks(context.Background())
	require.NoError(t, err)
	assert.Len(t, blocks, len(game.Stakes))
	insertNote(t, p, 10*game.Euro)
	for _, s := range game.Stakes {
		g, err := p.m.Play(context.Background(), s, breakout.Auto)
		require.NoError(t, err)
		head := showcaseHeads[s][0]
		assert.Equal(t, head.tier, g.Walls().Tier, "%s", s)
		assert.Equal(t, head.viaBonus, g.Walls().ViaBonus, "%s", s)
		for i := 0; g.Stage() != kiosk.StageDone && i < 4*breakout.AutoBoundTicks; i++ {
			g.Step(breakout.Input{})
			g.Wait() // the machine's writer commits the bonus and the finish
		}
		require.Equal(t, kiosk.StageDone, g.Stage(), "%s", s)
		if hp := p.m.HandPay(); hp.Pending() {
			// Three birds at 1 € (7 500 €) are above the hand-pay limit:
			// the kiosk locks until staff record the payment.
			assert.Equal(t, game.Stake100, s)
			_, _, err := p.m.PayHandPay(context.Background(), "staff")
			require.NoError(t, err)
			insertNote(t, p, 10*game.Euro)
		}
	}
}
