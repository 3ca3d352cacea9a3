package maint

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk/ui"
	"pharaon/store"
)

// hold leaves a note of denom held for staff, as a power cut while it was
// stacked does.
func (f *shFix) hold(denom game.Money) store.BillIntent {
	f.t.Helper()
	ctx := context.Background()
	in, err := f.st.RecordBillIntent(ctx, denom)
	require.NoError(f.t, err)
	_, err = f.st.MarkBillIntentStacking(ctx, in.ID)
	require.NoError(f.t, err)
	in, err = f.st.HoldBillIntent(ctx, in.ID, "power cut while stacking")
	require.NoError(f.t, err)
	return in
}

// Held notes show with their value and time; staff credit one found in the
// cash box (the credit grows by its value, through the ledger) and close
// one not there (no credit), each with its reason logged with the role.
func TestHeldNotesCreditAndClose(t *testing.T) {
	f := newShFix(t, true)
	first := f.hold(10 * game.Euro)
	f.clock.Advance(3 * time.Minute)
	f.hold(20 * game.Euro)
	f.open(ui.French)
	f.pin(shStaffPIN)
	f.tap("Billets en attente")
	at := first.At.In(f.m.Location()).Format("02/01/2006 15:04:05")
	assert.Contains(t, f.text(), "Billet de 10\u00a0€ · "+at+" · n°\u00a0")
	assert.Contains(t, f.text(), "Billet de 20\u00a0€")
	f.golden("maint-held.png")

	f.tap("Créditer") // the first note's
	assert.Contains(t, f.text(), "Créditer ce billet de 10\u00a0€ au joueur")
	f.tap("Billet trouvé dans la caisse")
	assert.Contains(t, f.text(), "Billet de 10\u00a0€ crédité. Crédit de la borne\u00a0: 10\u00a0€.")
	credit, err := f.st.Credit(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 10*game.Euro, credit)
	assert.NotContains(t, f.text(), "Billet de 10\u00a0€ ·", "no longer held")

	f.tap("Clore sans crédit")
	f.tap("Billet absent de la caisse")
	assert.Contains(t, f.text(), "Billet de 20\u00a0€ clos sans crédit.")
	assert.Contains(t, f.text(), "Aucun billet en attente.")
	credit, err = f.st.Credit(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 10*game.Euro, credit, "a closed note credits nothing")
	held, err := f.st.HeldIntents(context.Background())
	require.NoError(t, err)
	assert.Empty(t, held)

	all, err := f.st.Events(context.Background(), 1000, 0)
	require.NoError(t, err)
	var reasons []string
	for _, e := range all {
		if e.Source != "" && (strings.Contains(e.Detail, "note found in the cash box (staff)") || strings.Contains(e.Detail, "no such note in the cash box (staff)")) {
			reasons = append(reasons, e.Detail)
		}
	}
	assert.Len(t, reasons, 2, "both reasons logged with the role")
}
