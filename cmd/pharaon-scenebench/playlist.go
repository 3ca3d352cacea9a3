package main

import (
	"fmt"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/game/reveal"
	"pharaon/kiosk/ui/play"
)

// playlistTiers is the outcome of each game in turn: losers and winners of
// every tier, and every fourth game won through the bonus game, so that the
// bench shows every motion of the screen (flights, blinking, the bonus wall
// and its red brick) in proportions close enough to a kiosk's.
var playlistTiers = [...]struct {
	tier  game.Tier
	bonus bool
}{
	{game.TierLose, false}, {8, false}, {game.TierLose, false}, {5, true},
	{7, false}, {game.TierLose, false}, {3, false}, {6, true},
	{game.TierLose, false}, {4, false}, {1, false}, {2, true},
}

// playlist hands out the demo games of the bench, one after the other.
type playlist struct {
	stake game.Stake
	mode  breakout.Mode
	seed  uint64
	n     int
}

// next lays out and starts the next game.
func (p *playlist) next() (*play.DemoGame, error) {
	t := playlistTiers[p.n%len(playlistTiers)]
	seed := p.seed + uint64(p.n)
	p.n++
	l, err := reveal.Layout(p.stake, t.tier, t.bonus, seed, reveal.Latest)
	if err != nil {
		return nil, fmt.Errorf("game %d: %w", p.n, err)
	}
	return play.NewDemoGame(l, p.mode, breakout.DefaultSettings())
}
