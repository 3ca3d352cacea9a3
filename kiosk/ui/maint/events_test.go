package maint

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk/ui"
	"pharaon/store"
)

// The event log filtered by level, source and day, newest first, each
// event in the screen's language with its code and detail under it as the
// technical detail; a day staff cannot have meant is refused with the
// format to use.
func TestEventsView(t *testing.T) {
	f := newRptFix(t)
	log := func(l store.Level, src, code, detail string) {
		_, err := f.st.Log(context.Background(), store.Event{Level: l, Source: src, Code: code, Detail: detail})
		require.NoError(t, err)
	}
	// The printer's first status read is logged from the devices' own
	// goroutine: let it land on the first day, before the clock moves.
	require.Eventually(t, func() bool {
		evs, err := f.st.Events(context.Background(), 50, 0)
		require.NoError(t, err)
		for _, e := range evs {
			if e.Source == "printer" && e.Code == "status" {
				return true
			}
		}
		return false
	}, 10*time.Second, 10*time.Millisecond, "the printer's first status event")
	log(store.LevelError, "printer", "print_failed", "voucher 3 of 10.00 not printed (cutter): escpos: cutter jammed")
	f.clock.Advance(24 * time.Hour)
	log(store.LevelWarning, "printer", "report_failed", "daily report 2026-12-01 not printed (paper_low)")
	log(store.LevelError, "validator", "state", "state stacker_full")
	log(store.LevelWarning, "maintenance", "voucher_refused", "payment refused to staff: pay voucher: voucher: not found")
	log(store.LevelInfo, "kiosk", "hello", "an info line")
	f.show("events", f.staff)
	txt := f.text()
	assert.Contains(t, txt, "Maintenance · Paiement d’un bon refusé\n"+
		"Détail technique\u00a0: voucher_refused — payment refused to staff: pay voucher: voucher: not found\n")
	assert.NotContains(t, txt, "· voucher_refused", "a code is never the sentence")
	assert.Contains(t, txt, "Borne · Évènement non décrit\nDétail technique\u00a0: hello — an info line\n", "a code without words")
	assert.Less(t, indexOf(txt, "an info line"), indexOf(txt, "stacker_full"), "newest first")

	sel := f.selects()
	require.Len(t, sel, 2)
	sel[0].SetSelected("Erreur")
	f.tap("Filtrer")
	txt = f.text()
	assert.Contains(t, txt, "Lecteur de billets · Lecteur de billets\u00a0: nouvel état\n")
	assert.Contains(t, txt, "Imprimante · Bon de paiement non imprimé\n")
	assert.NotContains(t, txt, "paper_low", "below the level")
	assert.NotContains(t, txt, "an info line")

	assert.Contains(t, sel[1].Options, "Imprimante", "the sources the log holds, named")
	assert.NotContains(t, sel[1].Options, "printer")
	sel[1].SetSelected("Imprimante")
	f.entries()[0].SetText("01/12/2026")
	f.tap("Filtrer")
	txt = f.text()
	assert.NotContains(t, txt, "cutter jammed", "another day")
	assert.NotContains(t, txt, "stacker_full", "another source")
	assert.Contains(t, txt, "Aucun évènement pour ce filtre.")

	sel[0].SetSelected("Tous")
	f.tap("Filtrer")
	assert.Contains(t, f.text(), "Imprimante · Rapport non imprimé\nDétail technique\u00a0: report_failed — daily report 2026-12-01 not printed (paper_low)\n")
	assert.Contains(t, f.text(), "01/12/2026 11:00:00", "in the kiosk's zone")
	f.golden("maint-events.png")

	f.entries()[0].SetText("31/02/2026")
	f.tap("Filtrer")
	assert.Contains(t, f.text(), "Jour incompréhensible\u00a0: écrivez-le JJ/MM/AAAA")
	assert.Contains(t, f.text(), "paper_low", "the list stays as it was")

	f.lang = ui.English
	f.show("events", f.staff)
	assert.Contains(t, f.text(), "Maintenance · Voucher payment refused\nTechnical detail: voucher_refused — ")
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
