package kiosk

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fleet's update waits for an idle kiosk: a player's credit, or the
// maintenance screen open, refuses the hold; an idle kiosk is locked for
// the install and let back after it.
func TestHoldIdle(t *testing.T) {
	f := newFixture(t)
	f.boot()

	f.credit(500)
	_, ok := f.m.HoldIdle("an update")
	assert.False(t, ok, "a player's credit")
	assert.False(t, f.m.Snapshot().Maintenance)
	f.credit(-500)

	f.m.SetMaintenance(true)
	_, ok = f.m.HoldIdle("an update")
	assert.False(t, ok, "the maintenance screen open")
	f.m.SetMaintenance(false)

	release, ok := f.m.HoldIdle("an update")
	require.True(t, ok)
	s := f.m.Snapshot()
	assert.True(t, s.Maintenance, "the players locked out")
	assert.True(t, s.Restarting, "the screens say the kiosk restarts")
	_, again := f.m.HoldIdle("another")
	assert.False(t, again, "one hold at a time")
	release()
	s = f.m.Snapshot()
	assert.False(t, s.Maintenance)
	assert.False(t, s.Restarting)
	assert.True(t, f.m.InService())
}
