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

// Two kiosks in a fleet group (as make run-fleet runs them) and a block the
// centre sends to the group: one of them takes it through its machine, the
// stake going on sale without a restart; the other records it taken and
// sells nothing of it.
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

	kiosks := map[string]*parts{}
	logs := map[string]*syncBuffer{}
	for _, id := range []string{"PH-7", "PH-8"} {
		kdir := filepath.Join(dir, id)
		cfg := Config{DB: filepath.Join(kdir, "pharaon.db"), FirstInstall: true, Installed: filepath.Join(kdir, installedMarker),
			KioskID: id, Keys: []string{keyFile}, Fleet: centre.Kiosk(t, id, "nord")}
		logs[id] = &syncBuffer{}
		p, err := openKiosk(context.Background(), cfg, testNow, log.New(logs[id], "", 0))
		require.NoError(t, err)
		assert.False(t, p.m.Snapshot().Available[game.Stake050])
		kiosks[id] = p
	}

	js := centre.JS(t)
	_, err = fleet.SendBlock(context.Background(), js, file.Bytes(), fleet.ToGroup("nord"), time.Now())
	require.NoError(t, err)
	var rs []fleet.BlockResult
	require.Eventually(t, func() bool {
		rs, err = fleet.ReadBlockResults(context.Background(), js)
		return err == nil && len(rs) == 2
	}, 3*time.Minute, 10*time.Millisecond, "both kiosks answer the delivery")
	outcomes := map[string]string{}
	for _, r := range rs {
		outcomes[r.Outcome] = r.Kiosk
		assert.Equal(t, testNow.Now().UTC(), r.At.UTC(), "the kiosk's clock")
	}
	owner, other := outcomes[fleet.BlockImported], outcomes[fleet.BlockTaken]
	require.NotEmpty(t, owner, "one imports it: %+v", rs)
	require.NotEmpty(t, other, "the other finds it taken: %+v", rs)
	require.NotEqual(t, owner, other)
	require.Eventually(t, func() bool { return kiosks[owner].m.Snapshot().Available[game.Stake050] }, time.Minute,
		10*time.Millisecond, "the block's stake goes on sale")
	assert.False(t, kiosks[other].m.Snapshot().Available[game.Stake050], "on sale at one kiosk only")
	c, err := fleet.ReadClaim(context.Background(), fleet.NewBucket(js, fleet.ClaimsBucket), 4, 1)
	require.NoError(t, err)
	assert.Equal(t, owner, c.Kiosk)
	for id, p := range kiosks {
		require.NoError(t, p.Close())
		outcome := fleet.BlockTaken
		if id == owner {
			outcome = fleet.BlockImported
		}
		assert.Contains(t, logs[id].String(), "fleet: delivery 1 (group:nord) of block 4/1: "+outcome)
	}
}
