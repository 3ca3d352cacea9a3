package main

/*
#include <malloc.h>
*/
import "C"

// The C side's allocator (glibc malloc) holds what llvmpipe, Mesa's
// software GL, allocates for the screens' textures: a texture is a block of
// its pixels, from 0,1 to 4 MB at 1280×800, freed when Fyne frees the
// texture. By default glibc serves such blocks from its main heap once it
// has seen large blocks freed (its mmap threshold rises, up to 32 MB), and
// a heap with free holes between live blocks cannot give the holes back to
// the system: over a player's session the kiosk's C heap grew from about 24
// to 42 MiB (docs/performance.md). With a fixed threshold of 128 KiB, every
// block from that size is its own mapping, returned to the system when
// freed, and the heap is trimmed past 128 KiB of free space at its top.
const mallocThreshold = 128 << 10

// The environment variables by which an operator sets these thresholds
// (glibc's tunables): when set, they win.
const (
	mallocMmapEnv = "MALLOC_MMAP_THRESHOLD_"
	mallocTrimEnv = "MALLOC_TRIM_THRESHOLD_"
)

// setMallocThresholds sets the C allocator's thresholds (above) unless the
// environment sets them, and says which it set (glibc accepted).
func setMallocThresholds(e env) (mmap, trim bool) {
	if e.Getenv(mallocMmapEnv) == "" {
		mmap = C.mallopt(C.M_MMAP_THRESHOLD, mallocThreshold) == 1
	}
	if e.Getenv(mallocTrimEnv) == "" {
		trim = C.mallopt(C.M_TRIM_THRESHOLD, mallocThreshold) == 1
	}
	return mmap, trim
}
