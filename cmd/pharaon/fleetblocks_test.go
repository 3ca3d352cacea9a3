package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"fmt"
	"log"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/block"
	"pharaon/kiosk/fleet"
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
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	require.NoError(t, err)
	go ns.Start()
	require.True(t, ns.ReadyForConnections(10*time.Second))
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	url := fmt.Sprintf("nats://127.0.0.1:%d", ns.Addr().(*net.TCPAddr).Port)

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
		KioskID: "PH-7", Keys: []string{keyFile},
		Fleet: fleet.Config{URL: url, KioskID: "PH-7", Groups: []string{"nord"}}}
	logs := &syncBuffer{}
	p, err := openKiosk(context.Background(), cfg, testNow, log.New(logs, "", 0))
	require.NoError(t, err)
	assert.False(t, p.m.Snapshot().Available[game.Stake050])

	nc, err := nats.Connect(url)
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
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

// nats-groups names the groups whose blocks the kiosk takes.
func TestConfigFleetGroups(t *testing.T) {
	c, err := loadConfig([]string{"-kiosk-id", "PH-1", "-nats-url", "nats://127.0.0.1:4222", "-nats-groups", "nord, paris-11"},
		mapEnv{"HOME": "/h"}, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, []string{"nord", "paris-11"}, c.Fleet.Groups)
	var f Config
	require.NoError(t, ParseConfigFile(bytes.NewBufferString("nats-groups = sud\n"), t.TempDir(), &f))
	assert.Equal(t, []string{"sud"}, f.Fleet.Groups)
	require.NoError(t, ParseConfigFile(bytes.NewBufferString("nats-groups =\n"), t.TempDir(), &f))
	assert.Empty(t, f.Fleet.Groups, "none")
	for _, g := range []string{"no rd", "a.b", "nord,,sud"} {
		_, err := loadConfig([]string{"-kiosk-id", "PH-1", "-nats-url", "nats://127.0.0.1:4222", "-nats-groups", g},
			mapEnv{"HOME": "/h"}, &bytes.Buffer{})
		assert.Equal(t, exitUsage, exitCode(err), "%q: %v", g, err)
	}
}
