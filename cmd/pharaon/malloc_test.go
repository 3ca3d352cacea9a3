package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The kiosk sets the C allocator's thresholds, and glibc takes them; a
// threshold the environment sets is the operator's, and is left alone.
func TestSetMallocThresholds(t *testing.T) {
	mmap, trim := setMallocThresholds(mapEnv{})
	assert.True(t, mmap)
	assert.True(t, trim)
	mmap, trim = setMallocThresholds(mapEnv{mallocMmapEnv: "65536"})
	assert.False(t, mmap, "the environment's")
	assert.True(t, trim)
	mmap, trim = setMallocThresholds(mapEnv{mallocTrimEnv: "65536"})
	assert.True(t, mmap)
	assert.False(t, trim, "the environment's")
}
