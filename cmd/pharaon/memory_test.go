package main

import (
	"runtime/metrics"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The kiosk sets its own garbage collection target unless the operator set
// one with GOGC.
func TestGCPercent(t *testing.T) {
	assert.Equal(t, kioskGCPercent, gcPercent(mapEnv{}))
	assert.Equal(t, 0, gcPercent(mapEnv{"GOGC": "100"}), "the operator's target wins")
}

// The memory log's line: what Go holds, and the rest of the resident
// memory once it is known; bench.sh reads "mem go_mib".
func TestMemLine(t *testing.T) {
	s := make([]metrics.Sample, len(memSamples))
	copy(s, memSamples)
	metrics.Read(s)
	l := memLine(s, 0)
	assert.Regexp(t, `^mem go_mib [0-9.]+ heap_objects_mib [0-9.]+ heap_live_mib [0-9.]+$`, l)
	l = memLine(s, residentBytes())
	assert.Regexp(t, `^mem go_mib [0-9.]+ .* rss_mib [0-9.]+ non_go_mib -?[0-9.]+$`, l)
	assert.NotZero(t, residentBytes(), "this process's VmRSS")
}
