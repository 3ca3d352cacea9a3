package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/block"
	"pharaon/kiosk"
	"pharaon/kiosk/fleet"
	"pharaon/kiosk/fleet/fleettest"
	"pharaon/kiosk/kiosktest"
	"pharaon/store"
)

// A technician's import at kiosk PH-2, joined to a fleet, of a block kiosk
// PH-1 claimed is refused while the centre answers; with the centre away
// the block is imported with a warning, and claimed when the kiosk runs
// again: found on sale at PH-1, it is reported. The running kiosk's own
// imports (the maintenance screen's) claim their block too.
func TestBinaryImportClaimsInTheFleet(t *testing.T) {
	dir := t.TempDir()
	centre := fleettest.Start(t)
	kcfg := centre.Kiosk(t, "PH-2")

	pub, err := block.MarshalPublicKey(kiosktest.Key.Public().(ed25519.PublicKey))
	require.NoError(t, err)
	keyFile := filepath.Join(dir, "issuer.pub")
	require.NoError(t, os.WriteFile(keyFile, pub, 0o644))
	db := filepath.Join(dir, "data", "pharaon.db")
	conf := filepath.Join(dir, "pharaon.conf")
	voucherKey := filepath.Join(dir, "voucher.key")
	require.NoError(t, os.WriteFile(voucherKey, kcfg.VoucherKey, 0o600))
	require.NoError(t, os.WriteFile(conf, []byte("db = "+db+"\nkeys = "+keyFile+"\nkiosk-id = PH-2\nnats-url = "+kcfg.URL+
		"\nnats-creds = "+kcfg.CredsFile+"\nnats-ca = "+kcfg.CAFile+"\nnats-voucher-key = "+voucherKey+"\n"), 0o600))
	files := map[uint32][]byte{}
	blockFile := func(number uint32) string {
		var buf bytes.Buffer
		require.NoError(t, kiosktest.WriteBlock(&buf, game.Stake100, number, nil))
		files[number] = buf.Bytes()
		path := filepath.Join(dir, fmt.Sprintf("b%d.blk", number))
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
		return path
	}
	ctx := context.Background()
	kvOf := func() fleet.Bucket { return fleet.NewBucket(centre.JS(t), fleet.ClaimsBucket) }
	kv := kvOf()
	since := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	for _, n := range []uint32{11, 14} {
		_, created, err := fleet.ClaimBlock(ctx, kv, fleet.BlockClaim{Kiosk: "PH-1", Emission: kiosktest.Emission, Number: n, At: since, Via: "local"})
		require.NoError(t, err)
		require.True(t, created)
	}
	b11, b12, b13 := blockFile(11), blockFile(12), blockFile(13)
	blockFile(14)

	r := runBinary(t, dir, "import", "-config", conf, "-first-install", b11, b12)
	assert.Equal(t, exitFailure, r.status, r.stderr)
	assert.Contains(t, r.stderr, "b11.blk refusé\u00a0: le bloc 7/11 est déjà en vente à la borne PH-1 depuis le ")
	assert.Contains(t, r.stdout, "b12.blk\u00a0: bloc 7/12")
	c, err := fleet.ReadClaim(ctx, kv, kiosktest.Emission, 12)
	require.NoError(t, err)
	assert.Equal(t, "PH-2", c.Kiosk)
	assert.Equal(t, "local", c.Via)

	centre.Stop()
	r = runBinary(t, dir, "import", "-config", conf, "-lang", "en", b11, b13)
	assert.Equal(t, exitOK, r.status, "the centre away: %s", r.stderr)
	assert.Contains(t, r.stderr, "b11.blk: the fleet does not answer: block imported without its claim, claimed when the kiosk starts")
	assert.Contains(t, r.stderr, "b13.blk: the fleet does not answer")

	require.NoError(t, centre.Start())
	kv = kvOf()
	logs := &syncBuffer{}
	p, err := openKiosk(ctx, Config{DB: db, FirstInstall: true, Installed: filepath.Join(dir, installedMarker), KioskID: "PH-2",
		Keys: []string{keyFile}, Fleet: kcfg}, testNow, log.New(logs, "", 0))
	require.NoError(t, err)
	defer p.Close()
	require.Eventually(t, func() bool {
		c, err := fleet.ReadClaim(ctx, kv, kiosktest.Emission, 13)
		return err == nil && c.Kiosk == "PH-2"
	}, 3*time.Minute, 10*time.Millisecond, "claimed when the kiosk runs")
	c, err = fleet.ReadClaim(ctx, kv, kiosktest.Emission, 11)
	require.NoError(t, err)
	assert.Equal(t, "PH-1", c.Kiosk)
	require.Len(t, c.Also, 1, "on sale at two kiosks: reported")
	assert.Equal(t, "PH-2", c.Also[0].Kiosk)

	_, err = p.m.ImportBlock(ctx, bytes.NewReader(files[14]))
	var taken *kiosk.BlockTakenError
	require.ErrorAs(t, err, &taken, "the maintenance screen's import claims")
	assert.Equal(t, "PH-1", taken.Kiosk)
	blocks, err := p.st.Blocks(ctx)
	require.NoError(t, err)
	var numbers []uint32
	for _, b := range blocks {
		numbers = append(numbers, b.Number)
	}
	assert.Equal(t, []uint32{12, 11, 13}, numbers)
	evs, err := p.st.EventsWhere(ctx, store.EventQuery{N: 100, Source: "kiosk", MinLevel: store.LevelWarning})
	require.NoError(t, err)
	codes := map[string]int{}
	for _, e := range evs {
		codes[e.Code]++
	}
	assert.Equal(t, 2, codes[kiosk.EventBlockTaken], "the technician's and the screen's: %v", codes)
	assert.Equal(t, 2, codes[kiosk.EventBlockUnclaimed])
}
