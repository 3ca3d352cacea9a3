package maint

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk"
	"pharaon/kiosk/ui"
	"pharaon/store"
)

// The meters on ten digits, per stake and in total, as the store counts
// them; staff may read them.
func TestMetersView(t *testing.T) {
	f := newRptFix(t)
	f.billIn(20*game.Euro, 20*game.Euro, 5*game.Euro)
	f.show("meters", f.staff)
	txt := f.text()
	assert.Contains(t, txt, "Billets acceptés\n0000000003\n")
	assert.Contains(t, txt, "Montant des billets\n00000045,00\n")
	assert.Contains(t, txt, "Parties jouées\n0000000000\n0000000000\n0000000000\n0000000000\n", "a total and three stakes")
	assert.Contains(t, txt, "0,50\u00a0€")
	f.golden("maint-meters.png")

	f.billIn(50 * game.Euro)
	f.tap("Actualiser")
	assert.Contains(t, f.text(), "Billets acceptés\n0000000004\n")

	f.lang = ui.English
	f.show("meters", f.staff)
	assert.Contains(t, f.text(), "Bank notes accepted\n0000000004\n")
}

// Every meter the core lays out has its own words in both languages; a
// stake's line names its stake.
func TestEveryMeterHasWords(t *testing.T) {
	lines := kiosk.MeterLines(store.Meters{})
	require.NotEmpty(t, lines)
	for _, l := range lines {
		for _, tr := range []Tr{{Lang: ui.French}, {Lang: ui.English}} {
			label := meterLabel(tr, l)
			assert.NotEqual(t, l.Name, label, "meter %s has no words", l.Name)
			assert.NotContains(t, label, "[", "meter %s: %q", l.Name, label)
		}
	}
	stake := kiosk.MeterLine{Name: store.ByStake(store.MeterPlays, game.Stakes[0]), Stake: game.Stakes[0]}
	assert.Equal(t, "mise de 0,50\u00a0€", meterLabel(Tr{Lang: ui.French}, stake))
	assert.Equal(t, "stake of €0.50", meterLabel(Tr{Lang: ui.English}, stake))
}
