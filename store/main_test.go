package store

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/block"
)

// blockDir holds the block files generated for this test binary: a full
// block is 4.9 MB and takes a while to generate, so each is made once.
var blockDir string

func TestMain(m *testing.M) {
	if path := os.Getenv(crashChildEnv); path != "" {
		crashChild(path) // never returns
	}
	dir, err := os.MkdirTemp("", "pharaon-store-blocks-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	blockDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// issuerKey is the test issuer's key, derived from a fixed seed.
var issuerKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))

func trusted() block.KeySet { return block.NewKeySet(issuerKey.Public().(ed25519.PublicKey)) }

type blockID struct {
	emission, number uint32
	stake            game.Stake
}

var (
	blockMu    sync.Mutex
	blockFiles = map[blockID]string{}
)

// blockFile returns the path of a signed full block, generated once per
// test binary from a seed derived from its identity (so it is the same
// block on every run).
func blockFile(t testing.TB, emission, number uint32, stake game.Stake) string {
	t.Helper()
	id := blockID{emission, number, stake}
	blockMu.Lock()
	defer blockMu.Unlock()
	if p, ok := blockFiles[id]; ok {
		return p
	}
	p := filepath.Join(blockDir, fmt.Sprintf("block-%d-%d-%d.pblk", emission, number, stake))
	var seed [32]byte
	copy(seed[:], fmt.Sprintf("store test %d/%d/%d", emission, number, stake))
	f, err := os.Create(p)
	require.NoError(t, err)
	_, err = block.Generate(f, block.Params{
		Emission: emission, Number: number, Stake: stake,
		Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Rand:    rand.NewChaCha8(seed),
	}, issuerKey)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	blockFiles[id] = p
	return p
}

// clock is a test clock that moves a millisecond at every reading.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Millisecond)
	return c.t
}

// advance moves the clock on by d (a voucher's expiry, say).
func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func openTest(t testing.TB, opts ...Option) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "pharaon.db"), append([]Option{WithClock(newClock().now)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

var (
	templateMu sync.Mutex
	templates  = map[string]string{}
)

// templateWith returns the path of a closed database holding the given
// blocks, imported once per test binary (an import reads and writes 5 MB).
func templateWith(t testing.TB, blocks ...blockID) string {
	t.Helper()
	key := fmt.Sprint(blocks)
	templateMu.Lock()
	defer templateMu.Unlock()
	if p, ok := templates[key]; ok {
		return p
	}
	p := filepath.Join(blockDir, fmt.Sprintf("template-%d.db", len(templates)))
	s, err := Open(p, WithClock(newClock().now))
	require.NoError(t, err)
	for _, b := range blocks {
		importTest(t, s, b.emission, b.number, b.stake)
	}
	require.NoError(t, s.Close()) // the last close checkpoints the WAL into the file
	templates[key] = p
	return p
}

// anchoredTemplateWith returns the directory of a closed anchored database
// (pharaon.db, pharaon.anchor and trust/, DefaultAnchor's layout) holding
// the given blocks, sealed under its trust root's secret: a kiosk's data
// and trust root, copied whole by copyAnchoredTo.
func anchoredTemplateWith(t testing.TB, blocks ...blockID) string {
	t.Helper()
	key := "anchored " + fmt.Sprint(blocks)
	templateMu.Lock()
	defer templateMu.Unlock()
	if p, ok := templates[key]; ok {
		return p
	}
	dir := filepath.Join(blockDir, fmt.Sprintf("template-%d", len(templates)))
	require.NoError(t, os.MkdirAll(dir, 0o700))
	p := filepath.Join(dir, "pharaon.db")
	s, err := Open(p, WithClock(newClock().now), WithAnchor(DefaultAnchor(p)))
	require.NoError(t, err)
	for _, b := range blocks {
		importTest(t, s, b.emission, b.number, b.stake)
	}
	require.NoError(t, s.Close())
	templates[key] = dir
	return dir
}

// copyAnchoredTo copies the anchored database of the directory from, its
// anchor and its trust root (the whole disk of a kiosk without a TPM) into
// the directory to, and returns the database's path there.
func copyAnchoredTo(t testing.TB, from, to string) string {
	t.Helper()
	for _, name := range []string{"pharaon.db", "pharaon.anchor", "trust.secret", "trust.counter"} {
		copyFile(t, filepath.Join(from, name), filepath.Join(to, name))
	}
	return filepath.Join(to, "pharaon.db")
}

// openWith opens a copy of a template database holding the given blocks.
func openWith(t testing.TB, blocks ...blockID) *Store {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pharaon.db")
	copyFile(t, templateWith(t, blocks...), path)
	s, err := Open(path, WithClock(newClock().now))
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

var (
	block050 = blockID{1, 1, game.Stake050}
	block100 = blockID{1, 2, game.Stake100}
)

func importTest(t testing.TB, s *Store, emission, number uint32, stake game.Stake) BlockInfo {
	t.Helper()
	f, err := os.Open(blockFile(t, emission, number, stake))
	require.NoError(t, err)
	defer f.Close()
	b, err := s.ImportBlock(context.Background(), f, trusted())
	require.NoError(t, err)
	return b
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(to, b, 0o600))
}
