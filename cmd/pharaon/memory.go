package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"
)

// kioskGCPercent is the kiosk's garbage collection target
// (runtime/debug.SetGCPercent): a collection once the heap has grown by a
// quarter of what was live after the last one, instead of the runtime's
// default of doubling. The kiosk's live heap in play is about 30 MB at
// 1280×800 and 40 MB at 1920×1080 (the fonts, the screens' rasters, the
// store's buffers) and grows slowly in play, so a collection comes every
// few tens of seconds. Against 50, the kiosk in play used 7 to 13 MiB less
// at 1280×800 and 12 to 18 MiB less at 1920×1080, for no measurable CPU
// per frame (docs/performance.md). A fixed limit (debug.SetMemoryLimit)
// leaves the collector running without pause if the live heap nears it, as
// it would at a larger screen: a target proportional to the live heap
// cannot.
const kioskGCPercent = 25

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

// The memory log, for measuring (docs/performance.md), off unless asked in
// the environment: PHARAON_MEMLOG=1 prints once a second, on stderr, what
// the Go runtime holds beside the process's resident memory (the rest is
// the C side: Mesa's llvmpipe and its textures, GLFW, fonts), and
// PHARAON_MEMPROFILE=FILE writes a heap profile (go tool pprof) to FILE
// every five seconds, the last one replacing the one before.
const (
	memLogEnv     = "PHARAON_MEMLOG"
	memProfileEnv = "PHARAON_MEMPROFILE"
)

// memSamples are the runtime/metrics the memory log reads.
var memSamples = []metrics.Sample{
	{Name: "/memory/classes/total:bytes"},
	{Name: "/memory/classes/heap/released:bytes"},
	{Name: "/memory/classes/heap/objects:bytes"},
	{Name: "/gc/heap/live:bytes"},
}

// memLine is one line of the memory log: rss is the process's resident
// memory in bytes (0 if unknown).
func memLine(s []metrics.Sample, rss uint64) string {
	v := func(i int) float64 {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return float64(s[i].Value.Uint64()) / (1 << 20)
	}
	goHeld := v(0) - v(1)
	out := fmt.Sprintf("mem go_mib %.1f heap_objects_mib %.1f heap_live_mib %.1f", goHeld, v(2), v(3))
	if rss > 0 {
		r := float64(rss) / (1 << 20)
		out += fmt.Sprintf(" rss_mib %.1f non_go_mib %.1f", r, r-goHeld)
	}
	return out
}

// residentBytes is the process's VmRSS (/proc/self/status), 0 if unknown.
func residentBytes() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseUint(f[1], 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// startMemLog starts the memory log and the heap profiles if the
// environment asks for them.
func startMemLog(e env, stderr io.Writer) {
	logOn, prof := e.Getenv(memLogEnv) != "", e.Getenv(memProfileEnv)
	if !logOn && prof == "" {
		return
	}
	go func() {
		s := make([]metrics.Sample, len(memSamples))
		copy(s, memSamples)
		for n := 1; ; n++ {
			time.Sleep(time.Second)
			if logOn {
				metrics.Read(s)
				fmt.Fprintln(stderr, memLine(s, residentBytes()))
			}
			if prof != "" && n%5 == 0 {
				if err := writeHeapProfile(prof); err != nil {
					fmt.Fprintf(stderr, "pharaon: heap profile: %v\n", err)
				}
			}
		}
	}()
}

// writeHeapProfile writes the heap profile to path through a temporary file.
func writeHeapProfile(path string) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".heap*")
	if err != nil {
		return err
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), path)
}
