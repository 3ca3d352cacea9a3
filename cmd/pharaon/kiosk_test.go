package main

import (
	"bytes"
	"context"
	"log"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk"
)

// fixedClock is a clock that does not move.
type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

var testNow = fixedClock{time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}

func TestOpenKioskDevelopment(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{DB: filepath.Join(dir, "data", "pharaon.db"), Dev: true}
	var logs bytes.Buffer
	p, err := openKiosk(context.Background(), cfg, testNow, log.New(&logs, "", 0))
	require.NoError(t, err)
	snap := p.m.Snapshot()
	assert.True(t, snap.Dev, "-dev makes a development kiosk")
	assert.Equal(t, kiosk.Home, snap.State)
	for _, s := range game.Stakes {
		assert.True(t, snap.Available[s], "a demo block for %s", s)
	}
	require.NoError(t, p.m.DevAddCredit(context.Background(), 10*game.Euro))
	assert.FileExists(t, filepath.Join(dir, "data", "demo", "demo-issuer.key"))
	blocks, err := p.st.Blocks(context.Background())
	require.NoError(t, err)
	assert.Len(t, blocks, len(game.Stakes))
	require.NoError(t, p.Close())

	// The next start keeps the database, the credit and the blocks.
	p, err = openKiosk(context.Background(), cfg, testNow, log.New(&logs, "", 0))
	require.NoError(t, err)
	defer p.Close()
	blocks, err = p.st.Blocks(context.Background())
	require.NoError(t, err)
	assert.Len(t, blocks, len(game.Stakes), "no new demo block while one is open")
	assert.Equal(t, 10*game.Euro, p.m.Snapshot().Credit)
}

func TestOpenKioskProduction(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{DB: filepath.Join(dir, "pharaon.db")}
	p, err := openKiosk(context.Background(), cfg, testNow, log.New(&bytes.Buffer{}, "", 0))
	require.NoError(t, err)
	defer p.Close()
	snap := p.m.Snapshot()
	assert.False(t, snap.Dev, "no development features without -dev")
	for _, s := range game.Stakes {
		assert.False(t, snap.Available[s], "no block, no sale at %s", s)
	}
	assert.ErrorIs(t, p.m.DevAddCredit(context.Background(), 10*game.Euro), kiosk.ErrNotDev)
	assert.NoDirExists(t, filepath.Join(dir, "demo"), "no demo key in production")
}

func TestOpenKioskBadKeys(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.pub")
	require.NoError(t, os.WriteFile(bad, []byte("not a key"), 0o600))
	for _, keys := range [][]string{{filepath.Join(dir, "missing.pub")}, {bad}} {
		_, err := openKiosk(context.Background(), Config{DB: filepath.Join(dir, "pharaon.db"), Keys: keys},
			testNow, log.New(&bytes.Buffer{}, "", 0))
		assert.Error(t, err, "%v", keys)
		assert.Equal(t, exitFailure, exitCode(err))
	}
}
