package kiosk

import (
	"context"
	"fmt"
	"time"

	"pharaon/game"
	"pharaon/store"
)

// Test mode (DESIGN.md §7): a technician checks the bill validator without
// money. While it is on, every note the validator recognises is given back
// at escrow, never stacked nor credited: no ledger row, no meter moves (the
// money meters and the test meters alike); each note is listed for the
// technician and logged. It starts only with no credit and no game, so no
// play and no cash-out can happen while it is on; it lives in memory (a
// restart ends it) and the maintenance screen ends it when the technician
// leaves. It is the one case where the validator takes notes under the
// maintenance screen (acceptPolicyLocked).

// TestNote is a note recognised in test mode.
type TestNote struct {
	At    time.Time
	Denom game.Money
}

type testMode struct {
	on    bool
	notes []TestNote
}

// testNote takes a note in test mode: it reports whether test mode is on
// (the note is then given back).
func (m *Machine) testNote(denom game.Money) bool {
	m.mu.Lock()
	on := m.cash.test.on
	if on {
		m.cash.test.notes = append(m.cash.test.notes, TestNote{At: m.clk.Now(), Denom: denom})
	}
	m.mu.Unlock()
	if !on {
		return false
	}
	m.logCash(store.LevelInfo, "validator", "test_note", "test mode: note of %s recognised and given back", denom.Plain())
	m.noteRefused(denom, "test_mode", Message{Code: MsgNoteTestMode, Amount: denom})
	return true
}

// SetTestMode turns the test mode on or off. It starts only with no credit
// and no game (ErrBusy otherwise); turning it on clears the list of notes.
func (o *Office) SetTestMode(ctx context.Context, s *Session, on bool) error {
	if err := o.begin(ctx, s, RoleTechnician, "switch the test mode"); err != nil {
		return err
	}
	m := o.m
	m.mu.Lock()
	var err error
	changed := false
	switch {
	case on && m.cash.test.on, !on && !m.cash.test.on:
	case on && m.playerBusyLocked():
		err = fmt.Errorf("test mode with a credit of %s or a game: %w", m.credit.Plain(), ErrBusy)
	default:
		m.cash.test.on, changed = on, true
		if on {
			m.cash.test.notes = nil
		}
	}
	m.mu.Unlock()
	if changed {
		m.notify() // the validator takes notes under the maintenance screen in test mode only
	}
	if err != nil {
		o.audit(store.LevelWarning, "test_mode_refused", "test mode refused to %s: %v", s.role, err)
		return err
	}
	state := "off"
	if on {
		state = "on"
	}
	o.audit(store.LevelInfo, "test_mode", "test mode %s by %s", state, s.role)
	return nil
}

// TestMode says whether the test mode is on and lists the notes
// recognised since it started.
func (o *Office) TestMode(ctx context.Context, s *Session) (bool, []TestNote, error) {
	if err := o.begin(ctx, s, RoleTechnician, "read the test mode"); err != nil {
		return false, nil, err
	}
	o.m.mu.Lock()
	defer o.m.mu.Unlock()
	return o.m.cash.test.on, append([]TestNote(nil), o.m.cash.test.notes...), nil
}

// playerBusyLocked says a player's money or game is under way: a credit, a
// game, a cash-out or a note on its way. Neither the test mode nor an
// update starts then. m.mu is held.
func (m *Machine) playerBusyLocked() bool {
	return m.credit > 0 || m.gameOnLocked() || m.cash.cashingOut || m.cash.noteInPath
}
