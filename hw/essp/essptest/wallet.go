// Package essptest holds what the tests of an SSP host and of its simulator share: a kiosk wallet
// in memory that keeps the validator.Wallet contract, so a test can count credits exactly.
//
// Nothing here may be used outside tests.
package essptest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"pharaon/hw/validator"
)

// Intent is a note the kiosk decided to take.
type Intent struct {
	ID       string
	Cents    int64
	Stacking bool
	Credited bool
	Void     bool
	Held     bool // for staff: may be in the cash box
}

func (i Intent) open() bool { return !i.Credited && !i.Void && !i.Held }

// Wallet is a kiosk in memory: its intents, its balance, its credits.
type Wallet struct {
	mu       sync.Mutex
	intents  []Intent
	balance  int64
	credits  []validator.Note
	powerUps []validator.Place
	refuse   bool
	fail     int
	after    func(validator.Note)
	beforeEs func(validator.Note)
}

// SetRefuse makes Escrow refuse every note (true) or take them (false).
func (w *Wallet) SetRefuse(on bool) {
	w.mu.Lock()
	w.refuse = on
	w.mu.Unlock()
}

// SetAfterCredit sets a function called after each committed credit (a test kills the host there).
func (w *Wallet) SetAfterCredit(f func(validator.Note)) {
	w.mu.Lock()
	w.after = f
	w.mu.Unlock()
}

// SetBeforeEscrow sets a function called as Escrow starts, while the unit holds the note (a test
// cuts the power there).
func (w *Wallet) SetBeforeEscrow(f func(validator.Note)) {
	w.mu.Lock()
	w.beforeEs = f
	w.mu.Unlock()
}

var errInjected = errors.New("essptest: commit failed")

// FailNext makes the next n Credit or PowerUp calls fail before committing.
func (w *Wallet) FailNext(n int) {
	w.mu.Lock()
	w.fail = n
	w.mu.Unlock()
}

// Escrow records an intent, voiding or holding an earlier open one as the contract says.
func (w *Wallet) Escrow(_ context.Context, n validator.Note) (bool, string, error) {
	w.mu.Lock()
	before := w.beforeEs
	w.mu.Unlock()
	if before != nil {
		before(n)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range w.intents {
		if in := &w.intents[i]; in.open() {
			if in.Stacking && in.ID != n.Previous {
				in.Held = true
			} else {
				in.Void = true
			}
		}
	}
	if w.refuse {
		return false, "", nil
	}
	id := fmt.Sprintf("intent-%d", len(w.intents)+1)
	w.intents = append(w.intents, Intent{ID: id, Cents: n.Cents})
	return true, id, nil
}

// Stacking marks the intent as being stacked.
func (w *Wallet) Stacking(_ context.Context, n validator.Note) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range w.intents {
		if w.intents[i].ID == n.IntentID {
			w.intents[i].Stacking = true
			return nil
		}
	}
	return fmt.Errorf("essptest: stacking of unknown intent %q", n.IntentID)
}

func (w *Wallet) injected() bool {
	if w.fail > 0 {
		w.fail--
		return true
	}
	return false
}

// openIntent is the latest open intent, nil if none.
func (w *Wallet) openIntent() *Intent {
	for i := len(w.intents) - 1; i >= 0; i-- {
		if w.intents[i].open() {
			return &w.intents[i]
		}
	}
	return nil
}

// Credit credits a note once: by its intent, or, recovered, the open intent if any.
func (w *Wallet) Credit(_ context.Context, n validator.Note) error {
	w.mu.Lock()
	if w.injected() {
		w.mu.Unlock()
		return errInjected
	}
	var in *Intent
	if n.IntentID != "" {
		for i := range w.intents {
			if w.intents[i].ID == n.IntentID {
				in = &w.intents[i]
			}
		}
	} else {
		in = w.openIntent()
	}
	if in != nil && !in.Credited {
		in.Credited = true
		w.balance += in.Cents
		w.credits = append(w.credits, n)
	}
	after := w.after
	w.mu.Unlock()
	if after != nil {
		after(n)
	}
	return nil
}

// PowerUp credits the open intent of a note that went into the cash box, voids it otherwise.
func (w *Wallet) PowerUp(_ context.Context, at validator.Place, n validator.Note) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.injected() {
		return errInjected
	}
	w.powerUps = append(w.powerUps, at)
	if in := w.openIntent(); in != nil {
		if at == validator.InStacker {
			in.Credited = true
			w.balance += in.Cents
			w.credits = append(w.credits, n)
		} else {
			in.Void = true
		}
	}
	return nil
}

// Snapshot is the wallet's state.
func (w *Wallet) Snapshot() (balance int64, intents []Intent, credits []validator.Note) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.balance, slices.Clone(w.intents), slices.Clone(w.credits)
}

// PowerUps lists the places of the PowerUp calls.
func (w *Wallet) PowerUps() []validator.Place {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.powerUps)
}
