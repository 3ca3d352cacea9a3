package main

import (
	"errors"
	"flag"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
)

func TestParse(t *testing.T) {
	c, err := parse(nil, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, config{width: 1280, height: 800, fullscreen: true, fps: true, stake: game.Stake200, seed: 1, mode: breakout.Auto, credit: 20 * game.Euro, pause: 1500 * time.Millisecond, scene: sceneGame, fullBackdrop: true}, c,
		"the defaults are the bench's: 1280×800 fullscreen, 2 € walls in Auto, the full backdrop as in the kiosk, fps logged")

	c, err = parse([]string{"-w", "1920", "-h", "1080", "-fs=false", "-fps=false", "-stake", "0,50", "-seed", "9", "-mode", "play", "-credit", "12,50", "-pause", "0", "-bonusdelay", "1ms", "-for", "1m", "-fullbackdrop=false", "-scene", "attract"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, config{width: 1920, height: 1080, stake: game.Stake050, seed: 9, mode: breakout.Play, credit: 1250, bonusDelay: time.Millisecond, duration: time.Minute, scene: sceneAttract}, c)

	for _, args := range [][]string{
		{"-stake", "3"},
		{"-mode", "fast"},
		{"-w", "10"},
		{"-credit", "-5"},
		{"-credit", "lots"},
		{"extra"},
		{"-nope"},
		{"-pause", "-1s"},
		{"-for", "-3s"},
		{"-scene", "menu"},
	} {
		_, err := parse(args, io.Discard)
		var u *usageError
		assert.True(t, errors.As(err, &u), "%v: %v", args, err)
	}
	_, err = parse([]string{"-help"}, io.Discard)
	assert.ErrorIs(t, err, flag.ErrHelp)
}

// The playlist plays losers, winners and bonus games in turn, each with its
// own seed, and lays out walls that evaluate to the outcome it asked for.
func TestPlaylist(t *testing.T) {
	p := &playlist{stake: game.Stake100, mode: breakout.Auto, seed: 40}
	kinds := map[game.OutcomeKind]int{}
	seeds := map[uint64]bool{}
	for i := 0; i < 2*len(playlistTiers); i++ {
		d, err := p.next()
		require.NoError(t, err)
		l := d.Walls()
		assert.Equal(t, game.Stake100, l.Stake)
		assert.Equal(t, breakout.Auto, d.World().Mode())
		want := playlistTiers[i%len(playlistTiers)]
		assert.Equal(t, want.tier, l.Tier)
		assert.Equal(t, want.bonus, l.ViaBonus)
		assert.False(t, seeds[l.Seed], "a new seed each game")
		seeds[l.Seed] = true
		o, err := l.Outcome()
		require.NoError(t, err)
		kinds[o.Kind]++
	}
	assert.Positive(t, kinds[game.Lose])
	assert.Positive(t, kinds[game.Win])
	assert.Positive(t, kinds[game.Bonus])
}
