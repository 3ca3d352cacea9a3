package kiosk

import (
	"context"
	"strings"

	"pharaon/kiosk/update"
	"pharaon/store"
)

// noteSystemReturn writes in the event log, once, that the firmware came
// back by itself from a newer system that used all its tries on an A/B
// kiosk (Config.SystemStatus, left by `pharaon boot-check`): the event
// reaches the fleet's centre with the others, and the event log keeps it.
// A failure to read or write it stops nothing.
func (m *Machine) noteSystemReturn(ctx context.Context) {
	if m.cfg.SystemStatus == "" {
		return
	}
	st, ok, err := update.ReadBootStatus(m.cfg.SystemStatus)
	if err != nil {
		m.logf(store.LevelWarning, "system_status_unreadable", "%v", err)
		return
	}
	if !ok || st.FailedEntry == "" {
		return
	}
	evs, err := m.st.EventsWhere(ctx, store.EventQuery{N: 1000, Source: "kiosk"})
	if err != nil {
		return
	}
	mark := "entry " + st.FailedEntry + ")"
	for _, e := range evs {
		if e.Code == "system_returned" && strings.Contains(e.Detail, mark) {
			return
		}
	}
	m.logf(store.LevelWarning, "system_returned", "system %s did not reach \"kiosk ready\" in %d boots (entry %s); the kiosk came back to system %s of slot %s",
		st.FailedVersion, st.FailedTries, st.FailedEntry, st.Version, strings.ToUpper(st.Slot))
}
