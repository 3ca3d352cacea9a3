package kiosktest

import (
	"context"

	"pharaon/game"
	"pharaon/store"
)

// HoldNote records a note of denom as the validator's driver does up to
// STACK, then holds it for staff as the kiosk does after a power cut with
// the note in the acceptor: the note may be in the cash box, uncredited.
func HoldNote(ctx context.Context, st *store.Store, denom game.Money) (store.BillIntent, error) {
	in, err := st.RecordBillIntent(ctx, denom)
	if err != nil {
		return store.BillIntent{}, err
	}
	if _, err := st.MarkBillIntentStacking(ctx, in.ID); err != nil {
		return store.BillIntent{}, err
	}
	return st.HoldBillIntent(ctx, in.ID, "power cut with the note in the acceptor after STACK")
}
