package kiosk

import (
	"context"
	"strings"
	"time"

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

// SystemSwitch restarts the machine into a new system that `pharaon
// update` wrote into its other A/B slot (over SSH; the maintenance
// screen's install restarts at once), at the kiosk's first idle moment:
// the status file (update.StatusFile) says a system is pending.
type SystemSwitch struct {
	// Status is the slots' status file (update.StatusFile).
	Status string
	// Ask asks the root helper to restart into the pending system
	// (helper.Client.Switch); the helper reads the slots itself.
	Ask func(ctx context.Context) error
	// Grace is how long the kiosk stays locked for a restart asked that
	// does not come (default 5 min); then it opens again and says so.
	Grace time.Duration
	// RetryAfter is how long after a refused or failed request it asks
	// again for the same pending system (default 10 min).
	RetryAfter time.Duration
}

// RunSystemSwitch waits until ctx ends for a pending system and an idle
// kiosk: no credit, at home (or out of service), no note on its way, no
// voucher printing, no hand-pay, no maintenance screen open. Then it locks
// the players out (as the maintenance screen does), writes the event
// `system_switch`, and asks the helper, which restarts the machine: the
// kiosk stops as at any restart. A refusal or a failure opens the kiosk
// again (`system_switch_failed`).
func (m *Machine) RunSystemSwitch(ctx context.Context, sw SystemSwitch) {
	if sw.Grace <= 0 {
		sw.Grace = 5 * time.Minute
	}
	if sw.RetryAfter <= 0 {
		sw.RetryAfter = 10 * time.Minute
	}
	wake := make(chan struct{}, 1)
	m.OnChange(func(Snapshot) {
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	var (
		last     string    // the pending entry last asked for
		lastV    string    // its version
		failedAt time.Time // when that ask failed (zero: it did not)
		askedAt  time.Time // when the restart was asked (zero: none)
	)
	for {
		select {
		case <-ctx.Done():
			return
		case <-wake:
		}
		now := m.clk.Now()
		if !askedAt.IsZero() {
			if now.Sub(askedAt) >= sw.Grace {
				m.logf(store.LevelWarning, "system_switch_failed", "the restart into system %s (%s) did not come within %s: the kiosk opens again", lastV, last, sw.Grace)
				askedAt, failedAt = time.Time{}, now
				m.setMaintenance(false, "the restart into a new system did not come", nil)
			}
			continue
		}
		st, ok, err := update.ReadBootStatus(sw.Status)
		if err != nil || !ok || st.PendingEntry == "" {
			continue
		}
		if st.PendingEntry == last && !failedAt.IsZero() && now.Sub(failedAt) < sw.RetryAfter {
			continue
		}
		if !m.lockIdle() {
			continue
		}
		last, lastV, failedAt = st.PendingEntry, st.PendingVersion, time.Time{}
		m.logf(store.LevelInfo, "system_switch", "system %s waits in slot %s (%s) and the kiosk is idle: restarting into it",
			st.PendingVersion, strings.ToUpper(update.Other(st.Slot)), st.PendingEntry)
		if err := sw.Ask(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			m.logf(store.LevelWarning, "system_switch_failed", "the restart into system %s: %v", st.PendingVersion, err)
			failedAt = now
			m.setMaintenance(false, "the restart into a new system was not made", nil)
			continue
		}
		askedAt = now
	}
}

// lockIdle locks the players out, as the maintenance screen does, only
// when no player's money or game is under way (the check and the lock in
// one step); it says whether it locked.
func (m *Machine) lockIdle() bool {
	return m.setMaintenance(true, "a restart into a new system", func() bool {
		idle := m.credit == 0 && (m.state == Home || m.state == OutOfService) && !m.starting &&
			!m.gameOnLocked() && !m.cash.noteInPath && !m.cash.cashingOut && !m.handPayLockedLocked()
		m.restarting = idle // the screens say why the players are locked out
		return idle
	})
}
