package main

import (
	"crypto/ed25519"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/block"
)

// benchSessionSeed is the seed the scene bench's scripted session runs on
// (cmd/pharaon-scenebench/bench.sh, DEVSEED): its 2 € block starts with a
// loser (played in Jouer), a win (Auto) and a win through the bonus game
// (Rejouer), small prizes that the kiosk pays on a voucher.
const benchSessionSeed = 112

// TestDevSeedBlocksAreKnown: a seed draws the same block every time, and
// the bench's seed gives the games its script expects.
func TestDevSeedBlocksAreKnown(t *testing.T) {
	first := func(seed uint64, n int) []block.Unit {
		priv := devSeedKey(seed)
		pr, pw := io.Pipe()
		p := block.Params{Emission: 9999, Number: 1, Stake: game.Stake200, Created: time.Unix(0, 0),
			Rand: devSeedSource(seed, game.Stake200)}
		go func() { _, err := block.Generate(pw, p, priv); pw.CloseWithError(err) }()
		defer pr.Close()
		r, err := block.NewReader(pr, block.NewKeySet(priv.Public().(ed25519.PublicKey)))
		require.NoError(t, err)
		var out []block.Unit
		for range n {
			u, err := r.Next()
			require.NoError(t, err)
			out = append(out, u)
		}
		return out
	}
	u := first(benchSessionSeed, 3)
	assert.Equal(t, u, first(benchSessionSeed, 3), "the same seed, the same block")
	assert.Equal(t, game.Tier(0), u[0].Tier, "a loser first")
	assert.True(t, u[1].Tier >= 5 && !u[1].ViaBonus, "then a small win: %+v", u[1])
	assert.True(t, u[2].Tier >= 5 && u[2].ViaBonus, "then a small win through the bonus game: %+v", u[2])
	assert.NotEqual(t, u, first(benchSessionSeed+1, 3), "another seed, another block")
}

// -dev-seed is for a development run only.
func TestDevSeedNeedsDev(t *testing.T) {
	_, err := loadConfig([]string{"-dev-seed", "112", "-db", "/tmp/x.db"}, mapEnv{}, io.Discard)
	var u *usageError
	assert.ErrorAs(t, err, &u)
	cfg, err := loadConfig([]string{"-dev", "-dev-seed", "112", "-db", "/tmp/x.db"}, mapEnv{}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, uint64(112), cfg.DevSeed)
	_, err = loadConfig([]string{"-dev", "-dev-seed", "0"}, mapEnv{}, io.Discard)
	assert.Error(t, err)
}
