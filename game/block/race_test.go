//go:build race

package block

// raceEnabled: the race detector slows the single-goroutine unit loop about
// tenfold without checking anything more in it, so the exhaustive tamper
// tests try fewer alterations per byte under -race (every byte is still
// altered).
const raceEnabled = true
