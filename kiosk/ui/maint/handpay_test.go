package maint

import (
	"context"
	"testing"

	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/kiosk"
	"pharaon/kiosk/ui/golden"
	"pharaon/store"
)

// Staff record a hand-pay: the view shows the amount the kiosk is locked
// for; a first touch asks to confirm, the second debits it through the
// ledger (a hand_pay row with the lock's reference), logs who paid, and
// unlocks the kiosk.
func TestHandPayStaffRecordsThePayment(t *testing.T) {
	f := newRclFix(t, 0)                 // the default limit: 1 500 €
	f.play(game.Stake050, breakout.Auto) // a loser
	none := newHandPayView(f.env, f.o)
	assert.Contains(t, rclTexts(none.root), "Aucun paiement manuel en attente.")

	g := f.play(game.Stake050, breakout.Auto) // three birds: 3 750 €
	hp := f.m.Snapshot().HandPay
	require.True(t, hp.Pending())
	_, err := f.m.Play(context.Background(), game.Stake050, breakout.Auto)
	require.ErrorIs(t, err, kiosk.ErrHandPay, "locked")

	v := newHandPayView(f.env, f.o)
	f.show(v.root)
	shown := rclTexts(v.root)
	assert.Contains(t, shown, "J’ai payé "+f.env.Tr.Money(hp.Amount))
	assert.Contains(t, shown, "Gain de la partie n°\u00a0"+rclItoa(g.ID())+" au-dessus de la limite de paiement manuel.")
	settle(f.w)
	golden.Assert(t, "handpay-staff.png", f.w.Canvas().Capture())

	test.Tap(v.pay)
	assert.Equal(t, "Touchez encore pour confirmer le paiement de "+f.env.Tr.Money(hp.Amount)+".", v.note.Text)
	assert.True(t, f.m.Snapshot().HandPay.Pending(), "one touch pays nothing")
	test.Tap(v.pay)

	assert.False(t, f.m.Snapshot().HandPay.Pending(), "unlocked")
	rows, err := f.st.Entries(context.Background(), 1, 0)
	require.NoError(t, err)
	require.Len(t, rows, 1)
	assert.Equal(t, store.KindHandPay, rows[0].Kind)
	assert.Equal(t, -hp.Amount, rows[0].Amount)
	assert.Equal(t, hp.Ref, rows[0].Ref)
	assert.Equal(t, "Paiement de "+f.env.Tr.Money(hp.Amount)+" enregistré (écriture n°\u00a0"+rclItoa(rows[0].ID)+"). La borne est débloquée.", v.note.Text)
	ev, err := f.st.EventsWhere(context.Background(), store.EventQuery{N: 20, Source: "maintenance"})
	require.NoError(t, err)
	var who string
	for _, e := range ev {
		if e.Code == "handpay_paid" {
			who = e.Detail
		}
	}
	assert.Contains(t, who, "paid by staff")
	_, err = f.m.Play(context.Background(), game.Stake050, breakout.Auto)
	assert.NotErrorIs(t, err, kiosk.ErrHandPay, "the kiosk sells again")
}
