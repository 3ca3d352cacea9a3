package kiosk

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"pharaon/game"
	"pharaon/game/block"
	"pharaon/store"
)

// DemoEmission is the emission number of the demonstration blocks a
// development run generates. Real emissions are numbered by the operator.
const DemoEmission = 9999

// ProvisionDemo prepares a development kiosk: a demonstration issuer key in
// dir (made on first use, kept afterwards) and, for every stake without an
// open or queued block, a freshly generated demonstration block signed with
// it and imported. It returns the key set to trust. Never used by a
// production configuration, whose keys and blocks come from the operator.
func ProvisionDemo(ctx context.Context, st *store.Store, dir string, now time.Time) (block.KeySet, error) {
	priv, err := demoKey(dir)
	if err != nil {
		return nil, err
	}
	keys := block.NewKeySet(priv.Public().(ed25519.PublicKey))
	if _, err := ProvisionDemoBlocks(ctx, st, priv, nil, now); err != nil {
		return nil, err
	}
	return keys, nil
}

// ProvisionDemoBlocks generates and imports, for every stake of st without
// an open or queued block, a demonstration block signed with priv, its
// units drawn from source(stake) (nil, or a nil source: crypto/rand, as a
// real block's must be). It returns how many it imported.
func ProvisionDemoBlocks(ctx context.Context, st *store.Store, priv ed25519.PrivateKey, source func(game.Stake) io.Reader, now time.Time) (int, error) {
	keys := block.NewKeySet(priv.Public().(ed25519.PublicKey))
	blocks, err := st.Blocks(ctx)
	if err != nil {
		return 0, fmt.Errorf("demo blocks: %w", err)
	}
	next := uint32(1)
	ready := map[game.Stake]bool{}
	for _, b := range blocks {
		if b.Emission == DemoEmission && b.Number >= next {
			next = b.Number + 1
		}
		if b.State == store.BlockOpen || b.State == store.BlockQueued {
			ready[b.Stake] = true
		}
	}
	drew := 0
	for _, s := range game.Stakes {
		if ready[s] {
			continue
		}
		pr, pw := io.Pipe()
		p := block.Params{Emission: DemoEmission, Number: next, Stake: s, Created: now}
		if source != nil {
			p.Rand = source(s)
		}
		go func() {
			_, err := block.Generate(pw, p, priv)
			pw.CloseWithError(err)
		}()
		if _, err := st.ImportBlock(ctx, pr, keys); err != nil {
			pr.CloseWithError(err)
			return drew, fmt.Errorf("demo block %d/%d at %s: %w", DemoEmission, next, s, err)
		}
		next++
		drew++
	}
	return drew, nil
}

// demoKey loads the demonstration issuer key from dir, or makes it.
func demoKey(dir string) (ed25519.PrivateKey, error) {
	path := filepath.Join(dir, "demo-issuer.key")
	b, err := os.ReadFile(path)
	if err == nil {
		k, err := block.ParsePrivateKey(b)
		if err != nil {
			return nil, fmt.Errorf("demo key %s: %w", path, err)
		}
		return k, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("demo key: %w", err)
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("demo key: %w", err)
	}
	pem, err := block.MarshalPrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("demo key: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("demo key: %w", err)
	}
	if err := os.WriteFile(path, pem, 0o600); err != nil {
		return nil, fmt.Errorf("demo key: %w", err)
	}
	return priv, nil
}
