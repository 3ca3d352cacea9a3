package esspsim

import "time"

// Clock is the unit's sense of time: its motions and its escrow timer run on it. Tests pass a fake
// one and move it on themselves.
type Clock interface {
	// AfterFunc calls f in its own goroutine once d has passed, unless the Timer is stopped first.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a call a Clock will make.
type Timer interface {
	Stop() bool
}

type systemClock struct{}

func (systemClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// Durations are how long the unit takes for what it does on its own.
type Durations struct {
	// Read: a note drawn in and read, to escrow (or rejected). Stack: from the host's accept to the
	// point of no return (the credit). Stacked: from there to the note in the cash box. Reject: a
	// note carried back to the bezel. Escrow: a note left in escrow without HOLD or a poll goes
	// back after it.
	Read, Stack, Stacked, Reject, Escrow time.Duration
}

// UnitTiming is a real unit's, in orders of magnitude (±50 %), but the escrow timer: about 10 s
// without a command from the host, as public hosts are written against.
var UnitTiming = Durations{
	Read: 1 * time.Second, Stack: 1 * time.Second, Stacked: 500 * time.Millisecond,
	Reject: 1 * time.Second, Escrow: 10 * time.Second,
}

// QuickTiming is what a Config left at zero takes: the unit's escrow timer, motions fifty times
// quicker so tests that drive notes in real time stay quick. SSP reports every state in each poll
// as long as it lasts and queues the events that happen once, so a host misses nothing at this pace.
var QuickTiming = Durations{
	Read: 20 * time.Millisecond, Stack: 20 * time.Millisecond, Stacked: 10 * time.Millisecond,
	Reject: 20 * time.Millisecond, Escrow: UnitTiming.Escrow,
}
