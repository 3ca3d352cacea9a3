package store

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// A held note counts in the box it was held in: the collection of that box
// lists it with its state then (still held, credited by staff before the
// collection, or closed), counts it only if it was credited, and no later
// box expects it, even when staff credit it after that collection, or
// after the next one. Every note credited is counted once: in a
// collection's amount, or as a held note of a collection credited after it.
func TestCollectionCountsHeldNotesInTheirBox(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	s := openTest(t, WithClock(clk.now))
	take := func(d game.Money) BillIntent {
		t.Helper()
		clk.advance(time.Minute)
		in, err := s.RecordBillIntent(ctx, d)
		require.NoError(t, err)
		in, err = s.MarkBillIntentStacking(ctx, in.ID)
		require.NoError(t, err)
		return in
	}
	credit := func(d game.Money) {
		t.Helper()
		_, err := s.CreditBillIntent(ctx, take(d).ID)
		require.NoError(t, err)
	}
	hold := func(d game.Money) BillIntent {
		t.Helper()
		in, err := s.HoldBillIntent(ctx, take(d).ID, "power cut after STACK")
		require.NoError(t, err)
		return in
	}
	held := func(in BillIntent, st IntentState) HeldNote {
		return HeldNote{Intent: in.ID, Denom: in.Denom, At: in.At, State: st}
	}
	collect := func() Collection {
		t.Helper()
		clk.advance(time.Hour)
		c, err := s.Collect(ctx, "staff")
		require.NoError(t, err)
		return c
	}
	box := func() CashBox {
		t.Helper()
		b, err := s.CashBox(ctx)
		require.NoError(t, err)
		return b
	}

	// Box 1: a note credited; a held note left to staff; one found in the
	// box before the collection; one closed (not in the box).
	credit(10 * game.Euro)
	a := hold(20 * game.Euro)
	b := hold(50 * game.Euro)
	_, err := s.CreditHeldIntent(ctx, b.ID, "found in the box")
	require.NoError(t, err)
	c := hold(5 * game.Euro)
	_, err = s.CloseHeldIntent(ctx, c.ID, "not in the box")
	require.NoError(t, err)
	want := []HeldNote{held(a, IntentHeld), held(b, IntentCredited), held(c, IntentVoid)}
	assert.Equal(t, want, box().Held)
	c1 := collect()
	assert.Equal(t, map[game.Money]int64{10 * game.Euro: 1, 50 * game.Euro: 1}, c1.Notes)
	assert.Equal(t, 60*game.Euro, c1.Amount, "the held note is not expected, the one credited is")
	assert.Equal(t, want, c1.Held, "the collection lists the held notes of its box")
	n, sum := c1.Unsettled()
	assert.Equal(t, int64(1), n)
	assert.Equal(t, 20*game.Euro, sum)

	// Box 2: staff count box 1 and credit its held note: it left with box 1.
	_, err = s.CreditHeldIntent(ctx, a.ID, "found in the box collected")
	require.NoError(t, err)
	empty := box()
	assert.Zero(t, empty.Count, "the next box does not expect the note credited late")
	assert.Zero(t, empty.Amount)
	assert.Empty(t, empty.Notes)
	assert.Empty(t, empty.Held, "nor lists it")
	credit(5 * game.Euro)
	d := hold(10 * game.Euro)
	c2 := collect()
	assert.Equal(t, map[game.Money]int64{5 * game.Euro: 1}, c2.Notes)
	assert.Equal(t, 5*game.Euro, c2.Amount)
	assert.Equal(t, []HeldNote{held(d, IntentHeld)}, c2.Held)

	// Box 3: d stays held through its collection and the next one.
	c3 := collect()
	assert.Zero(t, c3.Amount)
	assert.Empty(t, c3.Held, "a note held in box 2 is not in box 3")
	_, err = s.CreditHeldIntent(ctx, d.ID, "found at last")
	require.NoError(t, err)
	assert.Zero(t, box().Amount, "box 4 does not expect it")

	m, err := s.Meters(ctx)
	require.NoError(t, err)
	lateCredits := a.Denom + d.Denom
	assert.Equal(t, m.Get(MeterBillsIn), int64(c1.Amount+c2.Amount+c3.Amount+box().Amount+lateCredits),
		"every note credited counted once")

	events, err := s.EventsWhere(ctx, EventQuery{Source: "maintenance"})
	require.NoError(t, err)
	require.Len(t, events, 3)
	assert.Equal(t, EventCashCollected, events[2].Code)
	assert.Contains(t, events[2].Detail, "held notes to settle: 1, 20\u00a0€", "oldest last")
	require.NoError(t, s.Verify(ctx))
}

// A collection's box ends at the intents' step it recorded: a row that
// puts it before the previous one is refused by the schema.
func TestCollectionBoxesFollow(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	in, err := s.RecordBillIntent(ctx, 20*game.Euro)
	require.NoError(t, err)
	_, err = s.HoldBillIntent(ctx, in.ID, "power cut")
	require.NoError(t, err)
	_, err = s.Collect(ctx, "staff")
	require.NoError(t, err)
	db, err := sql.Open("sqlite3", "file:"+s.Path())
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec(`INSERT INTO collections(at, by, meters, count, amount, intent_step) VALUES (1, 'staff', '', 0, 0, 0)`)
	require.ErrorContains(t, err, "a collection's box ends after the previous one")
}

// A note on its way to the box when the box is collected (its STACK sent,
// the validator's answer not yet seen: an open intent, stacking) belongs to
// the box collected: that collection lists it as unsettled, and when the
// kiosk holds it later and staff credit it, the next box does not expect
// it. A note that only reached escrow (pending, no STACK yet) goes to the
// next box.
func TestCollectionCountsAStackingNoteInItsBox(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	in, err := s.RecordBillIntent(ctx, 50*game.Euro)
	require.NoError(t, err)
	in, err = s.MarkBillIntentStacking(ctx, in.ID)
	require.NoError(t, err)
	c1, err := s.Collect(ctx, "staff")
	require.NoError(t, err)
	assert.Equal(t, []HeldNote{{Intent: in.ID, Denom: in.Denom, At: in.At, State: IntentStacking}}, c1.Held,
		"listed as unsettled: it may be in the box")
	assert.Zero(t, c1.Amount)
	n, sum := c1.Unsettled()
	assert.Equal(t, int64(1), n)
	assert.Equal(t, 50*game.Euro, sum)

	_, err = s.HoldBillIntent(ctx, in.ID, "a new note in escrow while this one was stacking")
	require.NoError(t, err)
	_, err = s.CreditHeldIntent(ctx, in.ID, "found in the box collected")
	require.NoError(t, err)
	next, err := s.RecordBillIntent(ctx, 10*game.Euro) // in escrow at the next collection
	require.NoError(t, err)
	box, err := s.CashBox(ctx)
	require.NoError(t, err)
	assert.Zero(t, box.Amount, "the note left with the box collected")
	assert.Empty(t, box.Held)
	c2, err := s.Collect(ctx, "staff")
	require.NoError(t, err)
	assert.Empty(t, c2.Held, "a note in escrow is in no box yet")
	_, err = s.MarkBillIntentStacking(ctx, next.ID)
	require.NoError(t, err)
	_, err = s.CreditBillIntent(ctx, next.ID)
	require.NoError(t, err)
	box, err = s.CashBox(ctx)
	require.NoError(t, err)
	assert.Equal(t, 10*game.Euro, box.Amount, "stacked after the collection: in the next box")
	require.NoError(t, s.Verify(ctx))
}
