package main

import "runtime/debug"

// kioskGCPercent is the kiosk's garbage collection target
// (runtime/debug.SetGCPercent): a collection once the heap has grown by half
// of what was live after the last one, instead of the runtime's default of
// doubling. The kiosk's live heap in play is about 30 MB (the screens'
// rasters, the store's buffers); the kiosk in play used about 13 MiB less
// memory with it, for no measurable CPU per frame (docs/performance.md). A
// fixed limit (debug.SetMemoryLimit) saved more at 1280×800 but leaves the
// collector running without pause if the live heap nears it, as it would
// at a larger screen: a target proportional to the live heap cannot.
const kioskGCPercent = 50

// gcPercent is the target to set, or 0 to leave the runtime's: a GOGC in
// the environment is the operator's, and wins.
func gcPercent(e env) int {
	if e.Getenv("GOGC") != "" {
		return 0
	}
	return kioskGCPercent
}

// setGCPercent sets the kiosk's collection target (gcPercent).
func setGCPercent(e env) {
	if p := gcPercent(e); p > 0 {
		debug.SetGCPercent(p)
	}
}
