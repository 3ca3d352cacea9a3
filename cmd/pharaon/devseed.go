package main

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"time"

	"pharaon/game"
	"pharaon/game/block"
	"pharaon/kiosk"
	"pharaon/store"
)

// A scripted development session (-dev -dev-seed N, docs/performance.md):
// the demo blocks of a new development database are drawn from N instead
// of at random, so the script knows what its first games hold (a win, the
// bonus game), and the Jouer hand-over to Auto is at its shortest, so a
// Jouer game the script launched goes on alone. Only with -dev: a
// production kiosk's blocks come from the operator, and an issuer's block
// must never be guessable (block.Params.Rand).

// devSeedAutoSeconds is the Auto hand-over of a seeded development
// database: the shortest the setting allows.
const devSeedAutoSeconds = "5"

// devSeedKey is the issuer key of the seeded demo blocks, made from the
// seed: every run with the same seed trusts it.
func devSeedKey(seed uint64) ed25519.PrivateKey {
	s := sha256.Sum256([]byte("pharaon development seed " + strconv.FormatUint(seed, 10)))
	return ed25519.NewKeyFromSeed(s[:])
}

// devSeedSource is the random source of the block at stake s drawn from
// seed.
func devSeedSource(seed uint64, s game.Stake) io.Reader {
	return rand.NewChaCha8(sha256.Sum256([]byte(fmt.Sprintf("pharaon development block %d %d", seed, s))))
}

// provisionSeeded gives every stake of st without an open or queued block
// a demo block drawn from seed (devSeedSource), signed with devSeedKey,
// and, when it drew any, sets the Auto hand-over to devSeedAutoSeconds. It
// returns the key to trust. Run before kiosk.ProvisionDemo, which then
// finds every stake provided for.
func provisionSeeded(ctx context.Context, st *store.Store, seed uint64, now time.Time) (block.KeySet, error) {
	priv := devSeedKey(seed)
	drew, err := kiosk.ProvisionDemoBlocks(ctx, st, priv, func(s game.Stake) io.Reader { return devSeedSource(seed, s) }, now)
	if err != nil {
		return nil, fmt.Errorf("seeded demo blocks: %w", err)
	}
	if drew > 0 {
		if err := st.SetSetting(ctx, "dev-seed", kiosk.SettingAutoSeconds, devSeedAutoSeconds); err != nil {
			return nil, fmt.Errorf("seeded demo blocks: %w", err)
		}
	}
	return block.NewKeySet(priv.Public().(ed25519.PublicKey)), nil
}
