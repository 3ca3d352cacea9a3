package ui

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk/devsim"
)

// With no paper and no credit, home says notes are refused, and why, before
// a note goes in; it invites notes again once the paper is back.
func TestScreensNoNotesWhileNoVoucherCanBePrinted(t *testing.T) {
	f := newScrFixture(t, withDevices(nil))
	// The validator up first: while it starts, home says that instead,
	// and a loaded machine takes seconds to start it.
	f.cashReady()
	require.NoError(t, f.devs.Cause(devsim.PrinterPaperOut))
	f.waitFor(func() bool {
		c := f.s.snap.Cash
		return !c.Printer.OK && c.Validator.OK && !c.CanCashIn
	}, "paper out seen")
	assert.Contains(t, f.screenText(), "Billets refusés pour le moment\u00a0: aucun bon de paiement ne peut être imprimé (plus de papier)")
	assert.NotContains(t, f.screenText(), "Insérez un billet")
	require.NoError(t, f.devs.Repair())
	f.waitFor(func() bool { return f.s.snap.Cash.CanCashIn }, "notes taken again")
	assert.NotContains(t, f.screenText(), "Billets refusés")
}
