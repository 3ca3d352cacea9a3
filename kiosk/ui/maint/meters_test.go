package maint

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"pharaon/game"
	"pharaon/kiosk/ui"
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
