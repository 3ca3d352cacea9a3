package main

import (
	"os"
	"os/exec"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// Package early sets Fyne's cache lifetime in the environment before
// Fyne's cache package reads it at its initialisation: Go's order of
// initialisation (by import path, among the packages ready) puts it first,
// and this checks that order in the program as linked.
func TestEarlyRunsBeforeFynesCache(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-h")
	cmd.Env = []string{binaryEnv + "=1", "GODEBUG=inittrace=1", "LANG=fr_FR.UTF-8", "PATH=" + os.Getenv("PATH")}
	out, _ := cmd.CombinedOutput()
	at := func(pkg string) int {
		for i, l := range strings.Split(string(out), "\n") {
			if f := strings.Fields(l); len(f) > 1 && f[0] == "init" && f[1] == pkg {
				return i
			}
		}
		return -1
	}
	early, cache := at("pharaon/cmd/pharaon/internal/early"), at("fyne.io/fyne/v2/internal/cache")
	require.True(t, early >= 0 && cache >= 0, "both initialisations traced:\n%s", out)
	assert.Less(t, early, cache, "package early initialised before Fyne's cache")
}
