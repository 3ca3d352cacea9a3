package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The kiosk sets its own garbage collection target unless the operator set
// one with GOGC.
func TestGCPercent(t *testing.T) {
	assert.Equal(t, kioskGCPercent, gcPercent(mapEnv{}))
	assert.Equal(t, 0, gcPercent(mapEnv{"GOGC": "100"}), "the operator's target wins")
}
