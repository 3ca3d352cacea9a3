package store

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// stackingIntent records a note's intent and marks STACK sent, as the
// kiosk does before the validator takes the note.
func stackingIntent(t *testing.T, s *Store, denom game.Money) BillIntent {
	t.Helper()
	in, err := s.RecordBillIntent(context.Background(), denom)
	require.NoError(t, err)
	in, err = s.MarkBillIntentStacking(context.Background(), in.ID)
	require.NoError(t, err)
	require.Equal(t, IntentStacking, in.State)
	return in
}

func lastEvent(t *testing.T, s *Store) Event {
	t.Helper()
	es, err := s.Events(context.Background(), 1, 0)
	require.NoError(t, err)
	require.Len(t, es, 1)
	return es[0]
}

// An intent whose STACK was sent is never voided by a new escrow: the
// kiosk must resolve it first, and it stays the open intent meanwhile.
func TestStackingIntentIsNeverSuperseded(t *testing.T) {
	ctx := context.Background()
	s, _ := openCash(t)
	in := stackingIntent(t, s, 20*game.Euro)
	_, err := s.MarkBillIntentStacking(ctx, in.ID)
	require.ErrorIs(t, err, ErrIntentState, "stacking once")
	_, err = s.RecordBillIntent(ctx, 10*game.Euro)
	require.ErrorIs(t, err, ErrIntentState)
	p, err := s.PendingBillIntent(ctx)
	require.NoError(t, err)
	assert.Equal(t, in.ID, p.ID)
	assert.Equal(t, IntentStacking, p.State)

	e, err := s.CreditBillIntent(ctx, in.ID)
	require.NoError(t, err, "VEND VALID credits a stacking intent")
	assert.Equal(t, 20*game.Euro, e.Balance)
	_, err = s.CreditBillIntent(ctx, in.ID)
	require.ErrorIs(t, err, ErrDuplicateRef)

	next := stackingIntent(t, s, 5*game.Euro)
	v, err := s.VoidBillIntent(ctx, next.ID, "note returned: 17 79")
	require.NoError(t, err, "a stacking note the unit gives back is void")
	assert.Equal(t, IntentVoid, v.State)
	_, err = s.RecordBillIntent(ctx, 10*game.Euro)
	require.NoError(t, err)
	require.NoError(t, s.Verify(ctx))
}

func TestHeldIntentCreditedByStaff(t *testing.T) {
	ctx := context.Background()
	s, _ := openCash(t)
	in := stackingIntent(t, s, 50*game.Euro)
	_, err := s.HoldBillIntent(ctx, in.ID, " ")
	require.ErrorIs(t, err, ErrBadRequest)
	h, err := s.HoldBillIntent(ctx, in.ID, "power up with bill in acceptor")
	require.NoError(t, err)
	assert.Equal(t, IntentHeld, h.State)
	assert.True(t, h.Resolved.IsZero(), "held is not resolved")
	ev := lastEvent(t, s)
	assert.Equal(t, LevelCritical, ev.Level)
	assert.Equal(t, "intent_held", ev.Code)
	assert.Contains(t, ev.Detail, "50 EUR")

	held, err := s.HeldIntents(ctx)
	require.NoError(t, err)
	require.Len(t, held, 1)
	assert.Equal(t, in.ID, held[0].ID)
	_, err = s.PendingBillIntent(ctx)
	require.ErrorIs(t, err, ErrNotFound, "a held intent is no longer open")
	_, err = s.CreditBillIntent(ctx, in.ID)
	require.ErrorIs(t, err, ErrIntentState, "a late VEND VALID never credits a held intent")
	_, err = s.VoidBillIntent(ctx, in.ID, "returned")
	require.ErrorIs(t, err, ErrIntentState)
	// Another note goes on meanwhile.
	creditNote(t, s, 5*game.Euro)

	_, err = s.CreditHeldIntent(ctx, in.ID, "")
	require.ErrorIs(t, err, ErrBadRequest)
	e, err := s.CreditHeldIntent(ctx, in.ID, "counted: the cash box holds one more 50 € note")
	require.NoError(t, err)
	assert.Equal(t, KindBillIn, e.Kind)
	assert.Equal(t, 50*game.Euro, e.Amount)
	assert.Equal(t, 55*game.Euro, e.Balance)
	assert.Equal(t, IntentRef(in.ID), e.Ref)
	ev = lastEvent(t, s)
	assert.Equal(t, "held_intent_credited", ev.Code)
	assert.Contains(t, ev.Detail, "counted")
	got, err := s.BillIntent(ctx, in.ID)
	require.NoError(t, err)
	assert.Equal(t, IntentCredited, got.State)
	assert.Equal(t, e.ID, got.EntryID)
	assert.Equal(t, "counted: the cash box holds one more 50 € note", got.Reason)
	_, err = s.CreditHeldIntent(ctx, in.ID, "again")
	require.ErrorIs(t, err, ErrIntentState, "credited once")
	held, err = s.HeldIntents(ctx)
	require.NoError(t, err)
	assert.Empty(t, held)
	m, err := s.Meters(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(5500), m.Get(MeterBillsIn))
	assert.Equal(t, int64(2), m.Get(MeterBillsInCount))
	require.NoError(t, s.Verify(ctx))
}

func TestHeldIntentClosedByStaff(t *testing.T) {
	ctx := context.Background()
	s, _ := openCash(t)
	in := stackingIntent(t, s, 10*game.Euro)
	_, err := s.CloseHeldIntent(ctx, in.ID, "no note")
	require.ErrorIs(t, err, ErrIntentState, "only a held intent is closed by staff")
	_, err = s.CreditHeldIntent(ctx, in.ID, "note")
	require.ErrorIs(t, err, ErrIntentState)
	_, err = s.HoldBillIntent(ctx, in.ID, "new note in escrow while it was stacking")
	require.NoError(t, err)
	_, err = s.CloseHeldIntent(ctx, in.ID, "")
	require.ErrorIs(t, err, ErrBadRequest)
	c, err := s.CloseHeldIntent(ctx, in.ID, "cash box counted: no extra note")
	require.NoError(t, err)
	assert.Equal(t, IntentVoid, c.State)
	assert.False(t, c.Resolved.IsZero())
	ev := lastEvent(t, s)
	assert.Equal(t, "held_intent_closed", ev.Code)
	_, err = s.CreditHeldIntent(ctx, in.ID, "changed my mind")
	require.ErrorIs(t, err, ErrIntentState)
	_, err = s.CloseHeldIntent(ctx, 99, "none")
	require.ErrorIs(t, err, ErrNotFound)
	credit, err := s.Credit(ctx)
	require.NoError(t, err)
	assert.Zero(t, credit)
	require.NoError(t, s.Verify(ctx))
}

// The schema refuses what the API refuses: a held intent without a reason,
// a credited one going back, two open intents.
func TestHeldIntentSchemaGuards(t *testing.T) {
	ctx := context.Background()
	s, _ := openCash(t)
	in := stackingIntent(t, s, 10*game.Euro)
	for _, q := range []string{
		`UPDATE bill_intents SET state = 'held', reason = '' WHERE id = 1`,
		`UPDATE bill_intents SET state = 'pending' WHERE id = 1`,
		`INSERT INTO bill_intents(id, at, denom) VALUES (2, 1, 500)`,
	} {
		err := s.write(ctx, func(t *wtx) error { _, err := t.execQ(q); return err })
		assert.Error(t, err, q)
	}
	_, err := s.CreditBillIntent(ctx, in.ID)
	require.NoError(t, err)
	err = s.write(ctx, func(t *wtx) error {
		_, err := t.execQ(`UPDATE bill_intents SET state = 'held', reason = 'x', entry_id = NULL, resolved_at = NULL WHERE id = 1`)
		return err
	})
	assert.ErrorContains(t, err, "bill intent", "a credited intent is never held")
}
