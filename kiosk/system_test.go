package kiosk

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk/update"
	"pharaon/store"
)

// A return from a failed system, as the boot's check left it, is written
// in the event log once (it reaches the centre with the log), however many
// times the kiosk starts; a newer failure is written again.
func TestSystemReturnLoggedOnce(t *testing.T) {
	f := newFixture(t)
	f.stop()
	f.cfg.SystemStatus = filepath.Join(t.TempDir(), "system.json")
	returned := func() []store.Event {
		t.Helper()
		evs, err := f.st.EventsWhere(context.Background(), store.EventQuery{N: 1000, Source: "kiosk"})
		require.NoError(t, err)
		var out []store.Event
		for _, e := range evs {
			if e.Code == "system_returned" {
				out = append(out, e)
			}
		}
		return out
	}
	f.start()
	f.boot()
	assert.Empty(t, returned(), "no status: a kiosk without slots")

	require.NoError(t, update.WriteBootStatus(f.cfg.SystemStatus, update.BootStatus{Slot: "b", Version: "1.1", Entry: "pharaon-0002-b.conf",
		Confirmed: true, FailedVersion: "1.2", FailedEntry: "pharaon-0003-a+0-3.conf", FailedTries: 3}))
	f.stop()
	f.start()
	f.boot()
	evs := returned()
	require.Len(t, evs, 1)
	assert.Equal(t, store.LevelWarning, evs[0].Level)
	assert.Equal(t, `system 1.2 did not reach "kiosk ready" in 3 boots (entry pharaon-0003-a+0-3.conf); the kiosk came back to system 1.1 of slot B`, evs[0].Detail)
	f.stop()
	f.start()
	f.boot()
	assert.Len(t, returned(), 1, "said once")

	require.NoError(t, update.WriteBootStatus(f.cfg.SystemStatus, update.BootStatus{Slot: "b", Version: "1.1", Entry: "pharaon-0002-b.conf",
		Confirmed: true, FailedVersion: "1.3", FailedEntry: "pharaon-0005-a+0-3.conf", FailedTries: 3}))
	f.stop()
	f.start()
	f.boot()
	assert.Len(t, returned(), 2, "a newer failure")
}
