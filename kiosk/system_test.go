package kiosk

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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

// A system that `pharaon update` wrote into the other slot waits for the
// kiosk's first idle moment: never while a player has credit; then the
// players are locked out, the event written, and the helper asked, once.
// A restart that does not come, or a refused one, opens the kiosk again,
// and it asks again later.
func TestSystemSwitchAtTheFirstIdleMoment(t *testing.T) {
	f := newFixture(t)
	f.boot()
	status := filepath.Join(t.TempDir(), "system.json")
	var (
		mu     sync.Mutex
		asks   int
		answer error
	)
	askCount := func() int { mu.Lock(); defer mu.Unlock(); return asks }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.m.RunSystemSwitch(ctx, SystemSwitch{Status: status, Ask: func(context.Context) error {
			mu.Lock()
			defer mu.Unlock()
			asks++
			return answer
		}})
	}()
	defer func() { cancel(); <-done }()
	events := func(code string) []store.Event { return kioskEvents(t, f, code) }
	settle := func() { f.m.Poll(); time.Sleep(50 * time.Millisecond) }

	settle()
	assert.Zero(t, askCount(), "no status file: nothing waits")
	require.NoError(t, update.WriteBootStatus(status, update.BootStatus{Slot: "a", Version: "1.0", Entry: "pharaon-0001-a.conf", Confirmed: true}))
	settle()
	assert.Zero(t, askCount(), "nothing pending")

	f.credit(500)
	require.NoError(t, update.WriteBootStatus(status, update.BootStatus{Slot: "a", Version: "1.0", Entry: "pharaon-0001-a.conf", Confirmed: true,
		PendingVersion: "1.1", PendingEntry: "pharaon-0002-b+3.conf"}))
	for range 3 {
		settle()
	}
	assert.Zero(t, askCount(), "a player's credit")
	assert.False(t, f.m.Snapshot().Maintenance)

	f.credit(-500)
	require.Eventually(t, func() bool { f.m.Poll(); return askCount() == 1 }, 5*time.Second, 20*time.Millisecond)
	assert.True(t, f.m.Snapshot().Maintenance, "the players locked out until the restart")
	assert.True(t, f.m.Snapshot().Restarting, "the screens say the kiosk restarts")
	sw := events("system_switch")
	require.Len(t, sw, 1)
	assert.Equal(t, "system 1.1 waits in slot B (pharaon-0002-b+3.conf) and the kiosk is idle: restarting into it", sw[0].Detail)
	settle()
	assert.Equal(t, 1, askCount(), "asked once")

	// The restart does not come: the kiosk opens again after the grace.
	f.clock.Advance(5 * time.Minute)
	require.Eventually(t, func() bool { f.m.Poll(); return !f.m.Snapshot().Maintenance }, 5*time.Second, 20*time.Millisecond)
	assert.False(t, f.m.Snapshot().Restarting)
	require.Len(t, events("system_switch_failed"), 1)
	assert.True(t, strings.HasPrefix(events("system_switch_failed")[0].Detail, "the restart into system 1.1 (pharaon-0002-b+3.conf) did not come within 5m0s"))
	settle()
	assert.Equal(t, 1, askCount(), "not again before the retry's delay")

	// Later, asked again; refused this time: the kiosk opens at once.
	mu.Lock()
	answer = errors.New("helper: nosystem: no system waits in the other slot")
	mu.Unlock()
	f.clock.Advance(10 * time.Minute)
	require.Eventually(t, func() bool { f.m.Poll(); return askCount() == 2 }, 5*time.Second, 20*time.Millisecond)
	require.Eventually(t, func() bool { return len(events("system_switch_failed")) == 2 }, 5*time.Second, 20*time.Millisecond)
	assert.False(t, f.m.Snapshot().Maintenance)
	assert.False(t, f.m.Snapshot().Restarting)
	assert.Contains(t, events("system_switch_failed")[0].Detail+events("system_switch_failed")[1].Detail, "no system waits in the other slot")

	// The lock's own events say why, never a maintenance screen that was
	// not open.
	var details []string
	for _, code := range []string{"maintenance_on", "maintenance_off"} {
		for _, e := range events(code) {
			details = append(details, e.Detail)
		}
	}
	assert.ElementsMatch(t, []string{
		"a restart into a new system: play and cash-in locked",
		"a restart into a new system: play and cash-in locked",
		"the restart into a new system did not come: play and cash-in open again",
		"the restart into a new system was not made: play and cash-in open again",
	}, details)
}
