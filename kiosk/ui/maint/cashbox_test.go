package maint

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk/devsim"
	"pharaon/kiosk/kiosktest"
	"pharaon/kiosk/ui"
	"pharaon/store"
)

// The cash box: the notes since the last collection; collecting asks for a
// confirmation, records it and prints its report, whose totals are the
// note meters'; the box is then empty.
func TestCashBoxView(t *testing.T) {
	f := newRptFix(t)
	f.billIn(5*game.Euro, 20*game.Euro, 20*game.Euro, 10*game.Euro)
	f.show("cashbox", f.staff)
	txt := f.text()
	assert.Contains(t, txt, "Billets reçus depuis la mise en service")
	assert.Contains(t, txt, "20\u00a0€\n2\n40\u00a0€\n")
	assert.Contains(t, txt, "Total attendu\n4\n55\u00a0€\n")
	f.golden("maint-cashbox.png")

	f.tap("Relever la caisse")
	assert.Contains(t, f.text(), "Videz la caisse, puis confirmez\u00a0: le relevé de 55\u00a0€ sera enregistré et imprimé.")
	f.golden("maint-cashbox-confirm.png")
	f.tap("Annuler")
	box, err := f.st.CashBox(context.Background())
	require.NoError(t, err)
	assert.Equal(t, int64(4), box.Count, "cancelled: nothing collected")

	meters, err := f.st.Meters(context.Background())
	require.NoError(t, err)
	f.tap("Relever la caisse")
	f.tap("Confirmer le relevé")
	assert.Contains(t, f.text(), "Relevé n° 000001 enregistré\u00a0: 4\u00a0billets, 55\u00a0€. Rapport imprimé.")
	assert.Contains(t, f.text(), "La caisse doit être vide.")
	r, err := f.dev.Printer.WaitReceipt(context.Background(), 1)
	require.NoError(t, err)
	plain := r.Plain()
	for _, d := range []game.Money{5 * game.Euro, 10 * game.Euro, 20 * game.Euro} {
		n := meters.Get(store.NoteMeter(d))
		assert.Regexp(t, `(?m)^`+regexp.QuoteMeta(d.French())+`\s+`+fmt.Sprint(n)+`\s+`+regexp.QuoteMeta((d*game.Money(n)).French())+`$`, plain)
	}
	assert.Regexp(t, `(?m)^Total\s+`+fmt.Sprint(meters.Get(store.MeterBillsInCount))+`\s+`+
		regexp.QuoteMeta(game.Money(meters.Get(store.MeterBillsIn)).French())+`$`, plain, "the report's totals are the note meters")
	require.Len(t, f.events(store.EventCashCollected), 1)

	// A report the printer could not print: the collection stays, the
	// report can be printed again once the paper is back.
	f.billIn(50 * game.Euro)
	require.NoError(t, f.dev.Cause(devsim.PrinterPaperOut))
	require.Eventually(t, func() bool { return f.m.Snapshot().Cash.Printer.Code == "paper_out" }, 15*time.Second, 5*time.Millisecond)
	f.show("cashbox", f.staff)
	f.tap("Relever la caisse")
	f.tap("Confirmer le relevé")
	assert.Contains(t, f.text(), "Relevé n° 000002 enregistré, mais son rapport n’est pas imprimé : ")
	require.Len(t, f.events(store.EventCashCollected), 2, "the collection is recorded")
	require.NoError(t, f.dev.Repair())
	f.printerReady()
	f.tap("Imprimer le rapport")
	assert.Contains(t, f.text(), "Rapport du relevé n° 000002 imprimé.")
	r, err = f.dev.Printer.WaitReceipt(context.Background(), 2)
	require.NoError(t, err)
	assert.Contains(t, r.Plain(), "Relevé n° 000002")
	assert.Regexp(t, `(?m)^Total\s+1\s+50\x{a0}€$`, r.Plain())
}

// The notes held for staff since the last collection are listed under the
// box, each with its number, time, value and what became of it; the ones
// still held are summed apart from the total. After the collection, staff
// credit the note they found in the box they took: the next box does not
// expect it, nor list it.
func TestCashBoxViewListsHeldNotes(t *testing.T) {
	f := newRptFix(t)
	ctx := context.Background()
	f.billIn(10 * game.Euro)
	hold := func(d game.Money) store.BillIntent {
		t.Helper()
		f.clock.Advance(time.Minute)
		in, err := kiosktest.HoldNote(ctx, f.st, d)
		require.NoError(t, err)
		return in
	}
	a, b := hold(20*game.Euro), hold(50*game.Euro)
	require.NoError(t, f.o.CloseHeldNote(ctx, f.staff, b.ID, "pas dans la caisse"))
	f.show("cashbox", f.staff)
	txt := f.text()
	assert.Contains(t, txt, "Total attendu\n1\n10\u00a0€\n")
	assert.Contains(t, txt, "Billets en attente du personnel dans cette caisse\n"+
		fmt.Sprintf("N° %d du 30/11/2026 11:01:00, 20\u00a0€\u00a0: en attente, à compter à part\n", a.ID)+
		fmt.Sprintf("N° %d du 30/11/2026 11:02:00, 50\u00a0€\u00a0: clos, absent de la caisse\n", b.ID)+
		"Billets en attente (hors total, à compter à part)\u00a0: 1, 20\u00a0€\n")
	f.golden("maint-cashbox-held.png")
	f.lang = ui.English
	f.show("cashbox", f.staff)
	assert.Contains(t, f.text(), fmt.Sprintf("No. %d of 2026-11-30 11:01:00, €20: held, count it apart\n", a.ID))
	f.lang = ui.French
	f.show("cashbox", f.staff)

	f.tap("Relever la caisse")
	f.tap("Confirmer le relevé")
	r, err := f.dev.Printer.WaitReceipt(ctx, 1)
	require.NoError(t, err)
	assert.Contains(t, r.Plain(), fmt.Sprintf("n° %d du 30/11/2026 à 11:01", a.ID), "the report lists them too")
	_, err = f.o.CreditHeldNote(ctx, f.staff, a.ID, "trouvé dans la caisse relevée")
	require.NoError(t, err)
	f.show("cashbox", f.staff)
	txt = f.text()
	assert.Contains(t, txt, "La caisse doit être vide.", "the note credited late left with the box collected")
	assert.NotContains(t, txt, "en attente du personnel")
}
