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
	assert.Contains(t, f.text(), "Relevé n° 000001 enregistré\u00a0: 4 billets, 55\u00a0€. Rapport imprimé.")
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
