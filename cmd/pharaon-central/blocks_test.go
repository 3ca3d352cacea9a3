package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/block"
	"pharaon/kiosk/fleet"
	"pharaon/store"
)

// The operator sends a block file to a kiosk and reads what the kiosk did
// with it; a file that is not a block is not sent; a tampered one is sent,
// refused by the kiosk, and shown as a problem.
func TestCentralSendsBlocks(t *testing.T) {
	c := startCentre(t)
	ctx := context.Background()
	dir := t.TempDir()
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{3}, ed25519.SeedSize))
	var buf bytes.Buffer
	_, err := block.Generate(&buf, block.Params{Emission: 5, Number: 2, Stake: game.Stake200,
		Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Rand: rand.NewChaCha8([32]byte{5})}, key)
	require.NoError(t, err)
	good := filepath.Join(dir, "good.pblk")
	require.NoError(t, os.WriteFile(good, buf.Bytes(), 0o600))
	bad := bytes.Clone(buf.Bytes())
	bad[106+7] ^= 1 // a reveal seed: the lots still count, the signature does not
	tampered := filepath.Join(dir, "tampered.pblk")
	require.NoError(t, os.WriteFile(tampered, bad, 0o600))
	short := filepath.Join(dir, "short.pblk")
	require.NoError(t, os.WriteFile(short, buf.Bytes()[:1000], 0o600))

	st, err := store.Open(filepath.Join(dir, "pharaon.db"))
	require.NoError(t, err)
	defer st.Close()
	keys := block.NewKeySet(key.Public().(ed25519.PublicKey))
	f, err := fleet.NewBlockFetcher(c.kiosk(t, "borne-1"), st,
		func(ctx context.Context, r io.Reader) (store.BlockInfo, error) { return st.ImportBlock(ctx, r, keys) })
	require.NoError(t, err)
	f.Poll = 100 * time.Millisecond
	f.Now = func() time.Time { return time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) } // the kiosk's clock
	results := make(chan fleet.BlockResult, 4)
	f.OnResult = func(r fleet.BlockResult) { results <- r }
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); f.Run(runCtx) }() //nolint:errcheck // ends with ctx
	defer func() { cancel(); <-done }()
	next := func() fleet.BlockResult {
		select {
		case r := <-results:
			return r
		case <-time.After(3 * time.Minute):
			t.Fatal("no result")
			return fleet.BlockResult{}
		}
	}

	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	out, err := c.cmd(t, now, "blocks")
	require.NoError(t, err, "nothing sent yet: %s", out)
	out, err = c.cmd(t, now, "send-block", "-file", good, "-to", "borne-1")
	require.NoError(t, err, out)
	assert.Contains(t, out, "ENVOYÉ / SENT\u00a0: bloc / block 5/2 (2\u00a0€) → kiosk:borne-1, livraison / delivery 1")
	assert.Equal(t, fleet.BlockImported, next().Outcome)
	_, err = st.OpenBlock(ctx, game.Stake200)
	require.NoError(t, err, "on sale at the kiosk")

	// On sale at borne-1: not sent to another kiosk, nor to a group.
	for _, to := range [][]string{{"-to", "borne-2"}, {"-group", "nord"}} {
		out, err = c.cmd(t, now, append([]string{"send-block", "-file", good}, to...)...)
		assert.ErrorIs(t, err, errFound, out)
		assert.Contains(t, out, "REFUSÉ / REFUSED\u00a0: bloc / block 5/2 déjà en vente à la borne / already on sale at kiosk borne-1 "+
			"depuis / since 2026-12-01T09:00:00Z (delivery 1)\u00a0: rien n’est envoyé à / nothing sent to ")
	}
	var buf2 bytes.Buffer
	_, err = block.Generate(&buf2, block.Params{Emission: 5, Number: 3, Stake: game.Stake200,
		Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Rand: rand.NewChaCha8([32]byte{6})}, key)
	require.NoError(t, err)
	other := filepath.Join(dir, "other.pblk")
	require.NoError(t, os.WriteFile(other, buf2.Bytes(), 0o600))
	out, err = c.cmd(t, now, "send-block", "-file", other, "-to", "borne-2")
	require.NoError(t, err, out)
	out, err = c.cmd(t, now, "send-block", "-file", other, "-to", "borne-3")
	assert.ErrorIs(t, err, errFound, "delivered to borne-2, not answered yet: %s", out)
	assert.Contains(t, out, "REFUSÉ / REFUSED\u00a0: bloc / block 5/3 déjà envoyé à / already sent to kiosk:borne-2 (livraison / delivery 2")
	out, err = c.cmd(t, now, "blocks")
	require.NoError(t, err, out)
	assert.Regexp(t, `(?m)^1 +2026-12-01T09:00:00Z +kiosk:borne-1 +5/2 +2\x{a0}€ +block-`, out)
	assert.Regexp(t, `(?m)^borne-1 +1 +5/2 +importé/imported +1 `, out)
	assert.Contains(t, out, "EN ATTENTE / PENDING\u00a0: livraison / delivery 2 → borne-2")
	assert.NotContains(t, out, "delivery 1 →")

	out, err = c.cmd(t, now, "send-block", "-file", short, "-group", "nord")
	assert.ErrorIs(t, err, errFound)
	assert.Contains(t, out, "REFUSÉ / REFUSED\u00a0: "+short)
	deliveries, err := fleet.ReadDeliveries(ctx, c.js(t))
	require.NoError(t, err)
	assert.Len(t, deliveries, 2, "nothing sent")

	out, err = c.cmd(t, now, "send-block", "-file", tampered, "-to", "borne-1")
	require.NoError(t, err, out)
	r := next()
	assert.Equal(t, fleet.BlockRefused, r.Outcome)
	out, err = c.cmd(t, now, "blocks", "-kiosk", "borne-1")
	assert.ErrorIs(t, err, errFound, "a refusal is a problem")
	assert.Regexp(t, `(?m)^borne-1 +3 +5/2 +REFUSÉ/REFUSED +0 .*bad signature`, out)
	assert.NotContains(t, out, "borne-2", "one kiosk")
	blocks, err := st.Blocks(ctx)
	require.NoError(t, err)
	assert.Len(t, blocks, 1)

	for _, args := range [][]string{
		{"send-block", "-to", "borne-1"},
		{"send-block", "-file", good},
		{"send-block", "-file", good, "-to", "borne-1", "-group", "nord"},
		{"send-block", "-file", good, "-to", "borne 1"},
	} {
		out, err := c.cmd(t, now, args...)
		assert.ErrorIs(t, err, errUsage, "%q", args)
		assert.True(t, strings.HasPrefix(out, "send-block: "), out)
	}
}

// A block imported at two kiosks while the centre did not answer (a file
// copied to two USB sticks) is on sale at both: the centre reports it from
// the kiosks' published records, and from the claims once a kiosk claims
// it late.
func TestCentralReportsBlockOnSaleTwice(t *testing.T) {
	c := startCentre(t)
	ctx := context.Background()
	dir := t.TempDir()
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{3}, ed25519.SeedSize))
	keys := block.NewKeySet(key.Public().(ed25519.PublicKey))
	files := map[uint32][]byte{}
	for _, n := range []uint32{1, 2} {
		var buf bytes.Buffer
		_, err := block.Generate(&buf, block.Params{Emission: 6, Number: n, Stake: game.Stake100,
			Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Rand: rand.NewChaCha8([32]byte{byte(n)})}, key)
		require.NoError(t, err)
		files[n] = buf.Bytes()
	}
	imports := map[string][]uint32{"borne-1": {1, 2}, "borne-2": {1}, "borne-3": {}}
	for _, id := range []string{"borne-1", "borne-2", "borne-3"} {
		st, err := store.Open(filepath.Join(dir, id+".db"))
		require.NoError(t, err)
		defer st.Close()
		for _, n := range imports[id] {
			_, err := st.ImportBlock(ctx, bytes.NewReader(files[n]), keys)
			require.NoError(t, err)
		}
		_, err = st.Log(ctx, store.Event{Level: store.LevelInfo, Source: "test", Code: "start"})
		require.NoError(t, err)
		publish(t, c, id, st)
	}
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	const twice = "EN VENTE À 2 BORNES / ON SALE AT 2 KIOSKS\u00a0: bloc / block 6/1\u00a0: borne-1, borne-2 (tickets vendus deux fois / units sold twice)"
	out, err := c.cmd(t, now, "blocks")
	assert.ErrorIs(t, err, errFound, out)
	assert.Contains(t, out, twice)
	assert.NotContains(t, out, "6/2\u00a0:")
	out, err = c.cmd(t, now, "status")
	assert.ErrorIs(t, err, errFound, out)
	assert.Contains(t, out, twice)
	// One of the two kiosks: the other's records show the block on sale
	// there too.
	for _, id := range []string{"borne-1", "borne-2"} {
		out, err = c.cmd(t, now, "status", "-kiosk", id)
		assert.ErrorIs(t, err, errFound, out)
		assert.Contains(t, out, twice)
	}
	out, err = c.cmd(t, now, "blocks", "-kiosk", "borne-3")
	assert.NoError(t, err, out)
	assert.NotContains(t, out, "EN VENTE À")

	// From the claims alone: borne-6 imported 7/1 offline and found it
	// claimed by borne-5 when the centre answered (kiosk/fleet/claims.go).
	js := c.js(t)
	kv, err := js.KeyValue(ctx, fleet.ClaimsBucket)
	require.NoError(t, err)
	data, err := json.Marshal(fleet.BlockClaim{Kiosk: "borne-5", Emission: 7, Number: 1, At: now, Via: "local",
		Also: []fleet.BlockClaim{{Kiosk: "borne-6", Emission: 7, Number: 1, At: now, Via: "late"}}})
	require.NoError(t, err)
	_, err = kv.Put(ctx, fleet.ClaimKey(7, 1), data)
	require.NoError(t, err)
	out, err = c.cmd(t, now, "blocks", "-kiosk", "borne-6")
	assert.ErrorIs(t, err, errFound, out)
	assert.Contains(t, out, "bloc / block 7/1\u00a0: borne-5, borne-6")
	out, err = c.cmd(t, now, "blocks", "-kiosk", "borne-5")
	assert.ErrorIs(t, err, errFound, out)
	assert.Regexp(t, `(?m)^7/1 +borne-5 +2026-12-01T09:00:00Z +local$`, out)
}

// A claim the centre cannot read leaves the check of the blocks on sale
// twice undone: status says so and ends with a problem found.
func TestCentralStatusClaimsUnreadable(t *testing.T) {
	c := startCentre(t)
	ctx := context.Background()
	st, err := store.Open(filepath.Join(t.TempDir(), "pharaon.db"))
	require.NoError(t, err)
	defer st.Close()
	_, err = st.Log(ctx, store.Event{Level: store.LevelInfo, Source: "test", Code: "start"})
	require.NoError(t, err)
	publish(t, c, "borne-1", st)
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	out, err := c.cmd(t, now, "status")
	require.NoError(t, err, out)
	assert.NotContains(t, out, "PROBLÈME")

	kv, err := c.js(t).KeyValue(ctx, fleet.ClaimsBucket)
	require.NoError(t, err)
	_, err = kv.Put(ctx, fleet.ClaimKey(8, 1), []byte("{not json"))
	require.NoError(t, err)
	out, err = c.cmd(t, now, "status")
	assert.ErrorIs(t, err, errFound, out)
	assert.Contains(t, out, "PROBLÈME / PROBLEM "+fleet.ClaimsBucket+"\u00a0: ")
	assert.Contains(t, out, "claim 8.1: ")
}
