// Package id003test holds what tests of code that drives an ID-003 unit need beside the shared
// record/playback port of hw/hwtest: Frame, which encodes the frames of a recorded conversation,
// and MemoryWallet, an in-memory reference of the kiosk's side of the exactly-once rule (intents
// before STACK, idempotent Credit).
//
// Nothing here may be used outside tests and the development run.
package id003test

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"pharaon/hw/id003"
)

// Frame encodes a frame for a hwtest.Exchange; it panics on a frame too long (test data).
func Frame(cmd byte, data ...byte) []byte { return id003.MustEncode(cmd, data...) }

// IntentState is where a MemoryWallet intent stands.
type IntentState int

const (
	Pending IntentState = iota
	Credited
	Void
	Stacking // STACK is being sent
	Held     // the note may be in the cash box: staff decide
)

func (s IntentState) String() string {
	return [...]string{"pending", "credited", "void", "stacking", "held"}[s]
}

func (s IntentState) open() bool { return s == Pending || s == Stacking }

// Intent is the durable record of an accepted escrow.
type Intent struct {
	ID    string
	Cents int64
	State IntentState
}

// ErrCrash is what a MemoryWallet returns to simulate the kiosk dying before its commit.
var ErrCrash = errors.New("simulated crash before commit")

// MemoryWallet implements id003.Wallet the way the kiosk must, in memory (it stands for the
// durable store, and outlives the hosts a test starts and kills):
//   - Escrow voids the intent of the same note decided in an earlier session (Previous) and any
//     pending intent (its STACK was never sent), holds a stacking one for staff (its note may be
//     in the cash box), refuses a note that would take the balance over MaxCredit, and records a
//     pending intent; Stacking marks it before STACK.
//   - Credit resolves the named intent, or else the open one (at its recorded value when the unit
//     gave no code), or else, when the latest intent is already credited, credits nothing and
//     returns nil (the kiosk died between commit and ACK).
//   - PowerUp credits a stacking intent whose note is in the stacker, voids one whose STACK the
//     unit refused or never got, and holds the others for staff.
type MemoryWallet struct {
	mu sync.Mutex
	// MaxCredit refuses notes beyond it (0: no limit).
	MaxCredit int64
	Balance   int64
	Intents   []Intent
	// Credits lists every note credited, in order: the test's view of money given.
	Credits []id003.Note
	// Calls counts Escrow, Credit and PowerUp calls.
	EscrowCalls, CreditCalls, PowerUpCalls int
	// FailCredits makes the next n Credit calls fail with ErrCrash before committing.
	FailCredits int
	// AfterCredit, when set, runs once after a commit (inside Credit, before it returns): tests
	// use it to cut the line between the commit and the ACK.
	AfterCredit func(id003.Note)
	next        int
}

var _ id003.Wallet = (*MemoryWallet)(nil)

func (w *MemoryWallet) Escrow(_ context.Context, n id003.Note) (bool, string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.EscrowCalls++
	for i := range w.Intents {
		switch in := &w.Intents[i]; {
		case in.ID == n.Previous && in.State.open():
			in.State = Void
		case in.State == Pending:
			in.State = Void
		case in.State == Stacking:
			in.State = Held
		}
	}
	if w.MaxCredit > 0 && w.Balance+n.Cents > w.MaxCredit {
		return false, "", nil
	}
	w.next++
	id := fmt.Sprintf("intent-%d", w.next)
	w.Intents = append(w.Intents, Intent{ID: id, Cents: n.Cents})
	return true, id, nil
}

func (w *MemoryWallet) Credit(_ context.Context, n id003.Note) error {
	w.mu.Lock()
	w.CreditCalls++
	if w.FailCredits > 0 {
		w.FailCredits--
		w.mu.Unlock()
		return ErrCrash
	}
	in, err := w.resolve(n)
	if err != nil || in == nil {
		w.mu.Unlock()
		return err
	}
	if n.Recovered && n.Code == 0 {
		n.Cents = in.Cents // the unit gave no code: the recorded value
	}
	if in.Cents != n.Cents {
		w.mu.Unlock()
		return fmt.Errorf("credit: note of %d cents for intent %s of %d", n.Cents, in.ID, in.Cents)
	}
	in.State = Credited
	w.Balance += n.Cents
	n.IntentID = in.ID
	w.Credits = append(w.Credits, n)
	after := w.AfterCredit
	w.AfterCredit = nil // once
	w.mu.Unlock()
	if after != nil {
		after(n)
	}
	return nil
}

// Stacking marks the accepted intent: STACK follows.
func (w *MemoryWallet) Stacking(_ context.Context, n id003.Note) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range w.Intents {
		if w.Intents[i].ID == n.IntentID && w.Intents[i].State == Pending {
			w.Intents[i].State = Stacking
			return nil
		}
	}
	return fmt.Errorf("stacking: no pending intent %s", n.IntentID)
}

// PowerUp resolves the open intent when the unit lost power with a note in its path.
func (w *MemoryWallet) PowerUp(_ context.Context, st id003.State, n id003.Note) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.PowerUpCalls++
	var in *Intent
	for i := range w.Intents {
		if w.Intents[i].State.open() && (n.IntentID == "" || w.Intents[i].ID == n.IntentID) {
			in = &w.Intents[i]
		}
	}
	switch {
	case in == nil:
	case in.State == Pending && st == id003.StatePowerUpBillInAcceptor,
		in.State == Stacking && st == id003.StatePowerUpBillInAcceptor && !n.Recovered && !n.StackSent:
		in.State = Void
	case in.State == Stacking && st == id003.StatePowerUpBillInStacker:
		in.State = Credited
		w.Balance += in.Cents
		w.Credits = append(w.Credits, id003.Note{Code: n.Code, Cents: in.Cents, IntentID: in.ID, Recovered: n.Recovered})
	default:
		in.State = Held
	}
	return nil
}

// SetAfterCredit sets AfterCredit under the wallet's lock (the host reads it from its goroutine).
func (w *MemoryWallet) SetAfterCredit(f func(id003.Note)) {
	w.mu.Lock()
	w.AfterCredit = f
	w.mu.Unlock()
}

// FailNext makes the next n Credit calls fail with ErrCrash (0 stops failing).
func (w *MemoryWallet) FailNext(n int) {
	w.mu.Lock()
	w.FailCredits = n
	w.mu.Unlock()
}

// resolve finds the intent a VEND VALID settles; nil with no error means already credited.
func (w *MemoryWallet) resolve(n id003.Note) (*Intent, error) {
	if n.IntentID != "" {
		for i := range w.Intents {
			if w.Intents[i].ID == n.IntentID {
				if w.Intents[i].State == Credited {
					return nil, nil
				}
				return &w.Intents[i], nil
			}
		}
		return nil, fmt.Errorf("credit: unknown intent %s", n.IntentID)
	}
	for i := len(w.Intents) - 1; i >= 0; i-- {
		switch w.Intents[i].State {
		case Pending, Stacking:
			return &w.Intents[i], nil
		case Credited:
			return nil, nil
		}
	}
	return nil, errors.New("credit: VEND VALID with no intent")
}

// Observe voids the intent of a note the host reports returned, and holds the one of a note it
// reports uncertain; pass it the host's events.
func (w *MemoryWallet) Observe(e id003.Event) {
	to := Void
	switch {
	case e.Note.IntentID == "":
		return
	case e.Kind == id003.EventNoteUncertain:
		to = Held
	case e.Kind != id003.EventNoteReturned:
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range w.Intents {
		if w.Intents[i].ID == e.Note.IntentID && w.Intents[i].State.open() {
			w.Intents[i].State = to
		}
	}
}

// Snapshot returns balance, intents and credits under the lock.
func (w *MemoryWallet) Snapshot() (balance int64, intents []Intent, credits []id003.Note) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.Balance, append([]Intent(nil), w.Intents...), append([]id003.Note(nil), w.Credits...)
}
