package early

import (
	"os"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A block of a texture's size freed does not send the next, smaller ones
// to the heap: each still gets a mapping of its own, given back to the
// system when it is freed. (On one thread, so that the C allocator serves
// them all from the same arena.)
func TestLargeBlocksKeepTheirOwnMapping(t *testing.T) {
	if os.Getenv("GLIBC_TUNABLES") != "" {
		t.Skip("the allocator is tuned from the environment")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, c := range []struct{ big, small int }{
		{4 << 20, 256 << 10},
		{4 << 20, 1 << 20},
		{8 << 20, 1 << 20},
		{1280 * 800 * 4, 960 * 800 * 4},
	} {
		assert.True(t, mappedAfterALargerFree(c.big, c.small), "a block of %d bytes after one of %d was freed", c.small, c.big)
	}
	assert.Contains(t, Applied, "malloc mmap threshold fixed at 128 KiB")
}
