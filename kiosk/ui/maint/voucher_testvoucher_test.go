package maint

import (
	"context"
	"crypto/rand"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk"
	"pharaon/kiosk/ui"
	"pharaon/store"
)

// The first start's test voucher scanned at the counter is refused as
// what it is, in the screen's language: a void test voucher of no value,
// never "unknown" and never an amount; another kiosk's test voucher, as
// the fleet knows it, likewise. Nothing is paid.
func TestTestVoucherRefusedAtTheCounter(t *testing.T) {
	ctx := context.Background()
	f := newShFix(t, true)
	own, err := kiosk.NewValidation(rand.Reader)
	require.NoError(t, err)
	tv, err := f.st.RecordTestVoucher(ctx, own, f.clock.Now().Add(kiosk.DefaultVoucherValidity))
	require.NoError(t, err)
	other, err := kiosk.NewValidation(rand.Reader)
	require.NoError(t, err)
	reg := &fakeRegistry{paid: map[string]kiosk.FleetVoucher{}, foreign: map[string]kiosk.FleetVoucher{
		other: {Kiosk: "PH-0007", ID: 1, State: "void", Expires: f.clock.Now().Add(72 * time.Hour)}}}
	f.m.SetVoucherRegistry(reg, 0)

	for _, c := range []struct {
		lang      ui.Lang
		menu      string
		own, fore string
	}{
		{ui.French, "Payer un bon",
			"Bon n°\u00a0000001\u00a0: BON D’ESSAI — ANNULÉ — SANS VALEUR. C’est le bon d’essai imprimé à la mise en service de la borne\u00a0; il ne se paie pas.",
			"Bon n°\u00a0000001 de la borne PH-0007\u00a0: BON D’ESSAI — ANNULÉ — SANS VALEUR, imprimé à la mise en service de cette borne\u00a0; il ne se paie nulle part."},
		{ui.English, "Pay a voucher",
			"Voucher no.\u00a0000001: TEST VOUCHER — VOID — NO VALUE. It is the test voucher printed when the kiosk was commissioned; it is not paid.",
			"Voucher no.\u00a0000001 of kiosk PH-0007: TEST VOUCHER — VOID — NO VALUE, printed when that kiosk was commissioned; it is paid nowhere."},
	} {
		f.open(c.lang)
		f.pin(shStaffPIN)
		f.tap(c.menu)
		f.scan(own)
		assert.Contains(t, f.text(), c.own)
		assert.Equal(t, kiosk.FormatValidation(own), f.field().Text, "a number that pays nothing stays in sight")
		f.scan(other)
		assert.Contains(t, f.text(), c.fore)
	}
	v, err := f.st.Voucher(ctx, tv.ID)
	require.NoError(t, err)
	assert.Equal(t, store.VoucherVoid, v.State)
	m, err := f.st.Meters(ctx)
	require.NoError(t, err)
	assert.Zero(t, m.Get(store.MeterVouchersPaidCount))
}
