package breakout

import (
	"errors"
	"fmt"
)

// TicksPerSecond is the fixed step rate: Step advances the world 1/120 s.
const TicksPerSecond = 120

// AutoBoundTicks is the most game time Auto may take to finish a wall,
// main or bonus, from its start or from where the player left it: 12 s.
// The tests hold the engine to it for every wall of the layout versions.
const AutoBoundTicks = 12 * TicksPerSecond

// Settings are the operator's tunables of a game. They are part of a
// recording: a game replays with the settings it was played with.
type Settings struct {
	// StoneTicks is how long a spell stone's effect lasts: the pink
	// stone's wider paddle, the green stone's narrower one, the blue
	// stone's magnet (Art. 4.5, "pendant quelques secondes").
	StoneTicks int
	// IdleTicks is how long a Jouer game waits without input before it
	// continues in Auto, so the kiosk never waits forever on a player
	// who walked away (DESIGN.md §6).
	IdleTicks int
	// GhostTicks is how long the ball stays away after it is lost, while
	// the pharaoh's ghost mask shows (Art. 4.4), before it is back on the
	// paddle.
	GhostTicks int
}

// DefaultSettings: stones 8 s, Auto after 45 s idle, ghost mask 1,2 s.
func DefaultSettings() Settings {
	return Settings{StoneTicks: 8 * TicksPerSecond, IdleTicks: 45 * TicksPerSecond, GhostTicks: 144}
}

// Bounds of the settings.
const (
	MinStoneTicks = 1 * TicksPerSecond
	MaxStoneTicks = 30 * TicksPerSecond
	MinIdleTicks  = 5 * TicksPerSecond
	MaxIdleTicks  = 10 * 60 * TicksPerSecond
	MinGhostTicks = TicksPerSecond / 4
	MaxGhostTicks = 5 * TicksPerSecond
)

// ErrBadSettings is returned for settings out of their bounds.
var ErrBadSettings = errors.New("bad engine settings")

// Validate checks each setting against its bounds.
func (s Settings) Validate() error {
	check := func(name string, v, lo, hi int) error {
		if v < lo || v > hi {
			return fmt.Errorf("%s %d ticks, want %d to %d: %w", name, v, lo, hi, ErrBadSettings)
		}
		return nil
	}
	return errors.Join(
		check("stone effect", s.StoneTicks, MinStoneTicks, MaxStoneTicks),
		check("idle before auto", s.IdleTicks, MinIdleTicks, MaxIdleTicks),
		check("ghost mask", s.GhostTicks, MinGhostTicks, MaxGhostTicks),
	)
}
