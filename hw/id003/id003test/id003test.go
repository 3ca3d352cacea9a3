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
)

func (s IntentState) String() string {
	return [...]string{"pending", "credited", "void"}[s]
}

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
//   - Escrow voids any pending intent (its note never reached VEND VALID), refuses a note that
//     would take the balance over MaxCredit, and records a pending intent.
//   - Credit resolves the named intent, or else the pending one, or else, when the latest intent
//     is already credited, credits nothing and returns nil (the kiosk died between commit and ACK).
type MemoryWallet struct {
	mu sync.Mutex
	// MaxCredit refuses notes beyond it (0: no limit).
	MaxCredit int64
	Balance   int64
	Intents   []Intent
	// Credits lists every note credited, in order: the test's view of money given.
	Credits []id003.Note
	// Calls counts Escrow and Credit calls.
	EscrowCalls, CreditCalls int
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
		if w.Intents[i].State == Pending {
			w.Intents[i].State = Void
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
		case Pending:
			return &w.Intents[i], nil
		case Credited:
			return nil, nil
		}
	}
	return nil, errors.New("credit: VEND VALID with no intent")
}

// Observe voids the intent of a note the host reports returned; pass it the host's events.
func (w *MemoryWallet) Observe(e id003.Event) {
	if e.Kind != id003.EventNoteReturned || e.Note.IntentID == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range w.Intents {
		if w.Intents[i].ID == e.Note.IntentID && w.Intents[i].State == Pending {
			w.Intents[i].State = Void
		}
	}
}

// Snapshot returns balance, intents and credits under the lock.
func (w *MemoryWallet) Snapshot() (balance int64, intents []Intent, credits []id003.Note) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.Balance, append([]Intent(nil), w.Intents...), append([]id003.Note(nil), w.Credits...)
}
