package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/block"
	"pharaon/kiosk/fleet"
	"pharaon/kiosk/fleet/fleettest"
)

// syncBuffer is a log the fetcher's goroutine writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A kiosk in a fleet group takes a block the centre sends to its group
// through the machine: the stake goes on sale without a restart.
func TestOpenKioskTakesBlocksFromTheCentre(t *testing.T) {
	centre := fleettest.Start(t)

	dir := t.TempDir()
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{5}, ed25519.SeedSize))
	pub, err := block.MarshalPublicKey(key.Public().(ed25519.PublicKey))
	require.NoError(t, err)
	keyFile := filepath.Join(dir, "issuer.pub")
	require.NoError(t, os.WriteFile(keyFile, pub, 0o600))
	var file bytes.Buffer
	_, err = block.Generate(&file, block.Params{Emission: 4, Number: 1, Stake: game.Stake050,
		Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Rand: rand.NewChaCha8([32]byte{4})}, key)
	require.NoError(t, err)

	cfg := Config{DB: filepath.Join(dir, "pharaon.db"), FirstInstall: true, Installed: filepath.Join(dir, installedMarker),
		KioskID: "PH-7", Keys: []string{keyFile}, Fleet: centre.Kiosk(t, "PH-7", "nord")}
	logs := &syncBuffer{}
	p, err := openKiosk(context.Background(), cfg, testNow, log.New(logs, "", 0))
	require.NoError(t, err)
	assert.False(t, p.m.Snapshot().Available[game.Stake050])

	js := centre.JS(t)
	_, err = fleet.SendBlock(context.Background(), js, file.Bytes(), fleet.ToGroup("nord"), time.Now())
	require.NoError(t, err)
	require.Eventually(t, func() bool { return p.m.Snapshot().Available[game.Stake050] }, 3*time.Minute, 10*time.Millisecond,
		"the block's stake goes on sale")
	require.Eventually(t, func() bool {
		rs, err := fleet.ReadBlockResults(context.Background(), js)
		return err == nil && len(rs) == 1 && rs[0].Kiosk == "PH-7" && rs[0].Outcome == fleet.BlockImported
	}, time.Minute, 10*time.Millisecond)
	rs, err := fleet.ReadBlockResults(context.Background(), js)
	require.NoError(t, err)
	assert.Equal(t, testNow.Now().UTC(), rs[0].At.UTC(), "the kiosk's clock")
	require.NoError(t, p.Close())
	assert.Contains(t, logs.String(), "fleet: delivery 1 (group:nord) of block 4/1: imported")
}
