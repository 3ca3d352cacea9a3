package maint

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/store"
)

// The event log filtered by level, source and day, newest first; a day
// staff cannot have meant is refused with the format to use.
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
	log(store.LevelError, "printer", "jam_yesterday", "a jam the day before")
	f.clock.Advance(24 * time.Hour)
	log(store.LevelWarning, "printer", "paper_low", "paper near end")
	log(store.LevelError, "validator", "stacker_full", "cash box full")
	log(store.LevelInfo, "kiosk", "hello", "an info line")
	f.show("events", f.staff)
	txt := f.text()
	assert.Contains(t, txt, "an info line")
	assert.Less(t, indexOf(txt, "an info line"), indexOf(txt, "cash box full"), "newest first")

	sel := f.selects()
	require.Len(t, sel, 2)
	sel[0].SetSelected("Erreur")
	f.tap("Filtrer")
	txt = f.text()
	assert.Contains(t, txt, "cash box full")
	assert.Contains(t, txt, "a jam the day before")
	assert.NotContains(t, txt, "paper near end", "below the level")
	assert.NotContains(t, txt, "an info line")

	assert.Contains(t, sel[1].Options, "printer", "the sources the log holds")
	sel[1].SetSelected("printer")
	f.entries()[0].SetText("01/12/2026")
	f.tap("Filtrer")
	txt = f.text()
	assert.NotContains(t, txt, "a jam the day before", "another day")
	assert.NotContains(t, txt, "cash box full", "another source")
	assert.Contains(t, txt, "Aucun évènement pour ce filtre.")

	sel[0].SetSelected("Tous")
	f.tap("Filtrer")
	assert.Contains(t, f.text(), "paper near end")
	assert.Contains(t, f.text(), "01/12/2026 11:00:00", "in the kiosk's zone")
	f.golden("maint-events.png")

	f.entries()[0].SetText("31/02/2026")
	f.tap("Filtrer")
	assert.Contains(t, f.text(), "Jour incompréhensible\u00a0: écrivez-le JJ/MM/AAAA")
	assert.Contains(t, f.text(), "paper near end", "the list stays as it was")
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
