// Package early sets, before any library reads them, the settings of the
// libraries the kiosk links that are read once, at their own
// initialisation: Fyne's cache lifetime, the C allocator's threshold for
// mapping large blocks, and a locale Fyne can parse (locale.go). Package main imports it for its side effect.
//
// Fyne (fyne.io/fyne/v2/internal/cache) reads FYNE_CACHE in its package
// initialisation: how long a texture, a renderer or a text's texture is kept
// after it was last drawn, a minute by default. The kiosk's screens leave
// and come back (home, a game, its windows, the cash-out), and at 1280×800
// every screen kept its textures for a minute after it left, in software
// GL's memory; ten seconds frees them while the next screen plays. This
// package's initialisation runs before Fyne's because Go initialises, of
// the packages ready, the one whose import path sorts first, and this one
// imports only os and the C allocator, which are ready long before Fyne's
// cache: "pharaon/…" sorts after "fyne.io/…", but Fyne's cache needs
// packages ("reflect", "strings", "time"…) that sort after it.
// cmd/pharaon's TestEarlyRunsBeforeFynesCache checks the order in the
// program as built.
//
// glibc's malloc serves a block larger than its mmap threshold (128 KiB at
// start) from a mapping of its own, given back when it is freed, but it
// raises the threshold to the size of every mapped block freed (up to 32
// MiB). Software GL (Mesa's llvmpipe) allocates each texture with malloc:
// once the first texture of the window's size was freed, the next ones came
// from the heap, whose holes between live blocks it does not give back.
// Fixing the threshold keeps every texture in a mapping of its own.
//
// An operator's setting wins: FYNE_CACHE or GLIBC_TUNABLES set in the
// environment are left as they are (docs/kiosk-config.md).
package early

/*
#include <malloc.h>

static int fix_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }

// mapped_after_a_larger_free frees a block of big bytes, then says whether a
// block of small bytes (above the threshold) is served from a mapping of its
// own: glibc marks such a chunk in the low bits of the size word before it.
static int mapped_after_a_larger_free(size_t big, size_t small) {
	void *p = malloc(big);
	free(p);
	void *q = malloc(small);
	if (q == NULL) return -1;
	int mapped = (((size_t *)q)[-1] & 2) != 0;
	free(q);
	return mapped;
}
*/
import "C"

import (
	"os"
	"strings"
)

// CacheLifetime is how long Fyne keeps what it drew after it was last
// drawn, in the kiosk (FYNE_CACHE; Fyne's default is a minute).
const CacheLifetime = "10s"

// MmapThreshold is the size from which the C allocator maps a block of its
// own (glibc's starting value, kept fixed).
const MmapThreshold = 128 << 10

// cacheEnv is the variable Fyne reads its cache lifetime from.
const cacheEnv = "FYNE_CACHE"

// Applied says what this package set at start, for the kiosk's log.
var Applied []string

// mappedAfterALargerFree says whether, once a block of big bytes was
// freed, a block of small bytes comes from a mapping of its own (the
// threshold held) or from the heap (the threshold raised to big).
func mappedAfterALargerFree(big, small int) bool {
	return C.mapped_after_a_larger_free(C.size_t(big), C.size_t(small)) == 1
}

func init() {
	fixInitLocale()
	if _, set := os.LookupEnv(cacheEnv); !set {
		if os.Setenv(cacheEnv, CacheLifetime) == nil {
			Applied = append(Applied, cacheEnv+"="+CacheLifetime)
		}
	}
	if !strings.Contains(os.Getenv("GLIBC_TUNABLES"), "mmap_threshold") {
		if C.fix_mmap_threshold(MmapThreshold) == 1 {
			Applied = append(Applied, "malloc mmap threshold fixed at 128 KiB")
		}
	}
}
