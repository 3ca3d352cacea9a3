package kiosk

import "time"

// Clock tells the time. The kiosk never calls time.Now itself, so tests move
// time by hand.
type Clock interface{ Now() time.Time }

// SystemClock is the real clock.
type SystemClock struct{}

// Now is time.Now.
func (SystemClock) Now() time.Time { return time.Now() }
