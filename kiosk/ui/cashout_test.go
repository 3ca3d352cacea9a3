package ui

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk"
)

// The voucher card calls the voucher what the paper calls it (BON DE
// PAIEMENT, Bon n° 000001: kiosk/voucher.go) and gives its expiry as the
// paper does, in the kiosk's zone; in English too.
func TestVoucherCardNamesThePaper(t *testing.T) {
	f := newScrFixture(t, withDevices(nil))
	f.insertNote(10 * game.Euro)
	f.tap("EN")
	f.tap("Cash out")
	assert.Contains(t, f.texts(), "Cash out €10?")
	f.tap("Print")
	f.waitFor(func() bool { return f.s.overlay == ovVoucher }, "the voucher card")
	texts := f.texts()
	assert.Contains(t, texts, "Take your voucher")
	assert.Contains(t, texts, "Payment voucher no.\u00a0000001")
	assert.Contains(t, texts, "Valid until 29 Jan 2027 at 11:00", "60 days, Paris time")
	r := f.receipt(1)
	assert.Contains(t, r, "BON DE PAIEMENT")
	assert.Contains(t, r, "Bon n° 000001")
	assert.Contains(t, r, "29/01/2027 à 11:00", "the paper's expiry is the screen's")
	v, err := f.st.Voucher(context.Background(), 1)
	require.NoError(t, err)
	masked := kiosk.MaskValidation(v.Validation)
	f.fixText("Validation no. "+masked, "Validation no. "+kiosk.MaskValidation("000000000000001234"))
	f.golden("screen-cash-voucher-en.png")
}

// The card of a voucher that failed in the middle says what happened and
// what to do, in English too.
func TestPrintFailedInEnglish(t *testing.T) {
	f := newScrFixture(t, withDevices(nil))
	f.insertNote(10 * game.Euro)
	f.tap("Pannes")
	f.tap("Papier épuisé pendant l’impression")
	f.tap("Fermer")
	f.tap("EN")
	f.tap("Cash out")
	f.tap("Print")
	f.waitFor(func() bool { return f.s.overlay == ovCashFailed }, "the failure card")
	screen := f.screenText()
	assert.Contains(t, screen, "Voucher not printed")
	assert.Contains(t, screen, "Your credit of €10 is kept.")
	assert.Contains(t, screen, "The voucher could not be printed in full: any part of it that came out is not valid. Try again, or call the staff.")
	f.golden("screen-cash-print-failed-en.png")
}
