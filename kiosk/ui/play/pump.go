package play

import (
	"time"

	"pharaon/game/breakout"
)

// DefaultMaxCatchUp is how many engine ticks one frame may run at most:
// 8 ticks, 1/15 s of game time. A frame that comes later than that (the
// kiosk swapped, the screen was busy) slows the game down instead of making
// it run a burst of ticks that would take longer still (the spiral of death).
const DefaultMaxCatchUp = 8

// Pump turns the frames the screen draws into the fixed 1/120 s ticks of the
// engine (DESIGN.md §6): each frame it is told the time, adds the time since
// the previous frame to an accumulator and says how many whole ticks to run.
// The remainder carries over to the next frame, so at 60 frames a second
// the game runs exactly two ticks a frame and game time follows the clock.
//
// The accumulator counts nanoseconds times breakout.TicksPerSecond, so a
// tick is exactly one second of it and no rounding drifts (1/120 s is not a
// whole number of nanoseconds).
//
// It reads no clock itself: the caller passes now (from a monotonic clock),
// which is what makes it testable. It is not safe for concurrent use.
type Pump struct {
	maxCatchUp int
	started    bool
	last       time.Time
	acc        int64 // nanoseconds × TicksPerSecond not yet turned into ticks
	dropped    int64 // ticks dropped by the catch-up cap, for the frame log
}

// pumpTickUnit is one tick in the accumulator's units.
const pumpTickUnit = int64(time.Second)

// NewPump returns a pump that runs at most maxCatchUp ticks a frame
// (DefaultMaxCatchUp if maxCatchUp < 1).
func NewPump(maxCatchUp int) *Pump {
	if maxCatchUp < 1 {
		maxCatchUp = DefaultMaxCatchUp
	}
	return &Pump{maxCatchUp: maxCatchUp}
}

// Advance is called once a frame with the frame's time and returns how many
// ticks the engine must run before the frame is drawn. The first call starts
// the clock and returns 0. A clock that goes backwards (it should not: pass
// a monotonic time) counts as no time.
func (p *Pump) Advance(now time.Time) int {
	if !p.started {
		p.started, p.last, p.acc = true, now, 0
		return 0
	}
	d := now.Sub(p.last)
	p.last = now
	if d < 0 {
		d = 0
	}
	// A pause longer than a minute counts as a minute: it is dropped anyway,
	// and the bound keeps the accumulator far from overflowing.
	if d > time.Minute {
		d = time.Minute
	}
	p.acc += int64(d) * breakout.TicksPerSecond
	n := p.acc / pumpTickUnit
	p.acc -= n * pumpTickUnit
	if n > int64(p.maxCatchUp) {
		// The game slows down rather than catching up: the ticks beyond the
		// cap, and the fraction of a tick still owed, are forgotten.
		p.dropped += n - int64(p.maxCatchUp)
		n = int64(p.maxCatchUp)
		p.acc = 0
	}
	return int(n)
}

// Alpha is how far past its last tick the game is, in ticks (0 to 1): the
// time owed to the next tick. A frame draws moving things that far between
// their last two ticks so their motion stays even (Playfield).
func (p *Pump) Alpha() float32 { return float32(p.acc) / float32(pumpTickUnit) }

// Reset forgets the time: the next Advance starts the clock again. Call it
// when the game pauses (between the main wall and the bonus wall, when the
// screen is hidden) so the pause is not caught up.
func (p *Pump) Reset() {
	p.started, p.acc = false, 0
}

// Dropped is how many ticks the catch-up cap has dropped since the pump was
// made: game time the player lost to slow frames.
func (p *Pump) Dropped() int64 { return p.dropped }
