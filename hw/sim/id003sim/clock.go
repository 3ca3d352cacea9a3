package id003sim

import "time"

// Clock is the unit's sense of time: its motions and its escrow timer run on it. Tests pass a
// fake one and move it on themselves, so that 10 s of escrow cost them nothing.
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

// Durations are how long a unit stays in each state it leaves on its own (see Config.Timing).
type Durations struct {
	Accept, Stack, Stacked, Reject, Init, Escrow time.Duration
}

// UnitTiming is a real unit's, to the second: a note is drawn in and read in about a second,
// stacked in about another, pushed back out to the bezel in about a second; the check of the
// mechanism after a RESET takes a couple of seconds; a note nobody decides on goes back after about
// 10 s in escrow (the escrow timeout, reported as REJECTING 0x79). Only the escrow timeout is a
// figure hosts are written against; the motions are orders of magnitude (uncertain to ±50 %).
var UnitTiming = Durations{
	Accept:  1 * time.Second,
	Stack:   1 * time.Second,
	Stacked: 200 * time.Millisecond,
	Reject:  1 * time.Second,
	Init:    2 * time.Second,
	Escrow:  10 * time.Second,
}

// QuickTiming is what a Config left at zero takes: the unit's escrow timeout, which a host must
// meet, but motions fifty times quicker, so that the many tests that drive notes through the
// simulator in real time stay quick (at UnitTiming hw/id003's tests take 180 s instead of 6). A
// polling host still sees every state, REJECTING and its reason included: a state whose time is
// up waits for one status request to report it (Config.MoveOnUnseen).
var QuickTiming = Durations{
	Accept:  20 * time.Millisecond,
	Stack:   20 * time.Millisecond,
	Stacked: 10 * time.Millisecond,
	Reject:  20 * time.Millisecond,
	Init:    20 * time.Millisecond,
	Escrow:  UnitTiming.Escrow,
}

// pollPeriod converts the deprecated poll counts of Config into durations: a typical host's.
const pollPeriod = 100 * time.Millisecond
