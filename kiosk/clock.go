package kiosk

import "time"

// Clock tells the time. The kiosk never calls time.Now itself, so tests move
// time by hand.
type Clock interface{ Now() time.Time }

// Stopwatch is a clock's reading of time that runs: it moves at the pace
// of time and never with the wall clock set back or forward. The PIN
// pad's lock counts it (Access), so that setting the clock does not open
// the pad. A Clock without it is read through its Now's differences,
// never going back (SystemClock's Now carries Go's monotonic reading, so
// those differences are time that runs too).
type Stopwatch interface{ Running() time.Duration }

// SystemClock is the real clock.
type SystemClock struct{}

// Now is time.Now.
func (SystemClock) Now() time.Time { return time.Now() }

// processStart is the start of the process, with its monotonic reading.
var processStart = time.Now()

// Running is the time run since the process started, on Go's monotonic
// clock.
func (SystemClock) Running() time.Duration { return time.Since(processStart) }

// runningOf is c's Stopwatch, or its Now's differences never going back.
// The function it returns is for one goroutine at a time.
func runningOf(c Clock) func() time.Duration {
	if s, ok := c.(Stopwatch); ok {
		return s.Running
	}
	t0 := c.Now()
	var last time.Duration
	return func() time.Duration {
		last = max(last, c.Now().Sub(t0))
		return last
	}
}
