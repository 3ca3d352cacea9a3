package maint

import (
	"context"
	"errors"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk"
	"pharaon/kiosk/ui"
	"pharaon/store"
)

// scan types number and Enter as a barcode scanner does: a keyboard
// typing into the window, whatever has the focus.
func (f *shFix) scan(number string) {
	f.t.Helper()
	test.TypeOnCanvas(f.w.Canvas(), number)
	f.w.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyReturn})
}

// A voucher scanned at the counter is paid once: the screen says the
// amount to hand over; the same voucher again is refused, saying when and
// by whom it was paid, and the paid meter counts it once. A number typed on
// the keypad works the same way; an unknown number and a short one are
// refused with the reason.
func TestVoucherPaidOnceSecondRefused(t *testing.T) {
	f := newShFix(t, true)
	number := f.cashOut(20 * game.Euro)
	f.clock.Advance(time.Hour)
	f.open(ui.French)
	f.pin(shStaffPIN)
	f.tap("Payer un ticket")
	require.Equal(t, "voucher", f.sh.Current())

	f.scan(number)
	assert.Contains(t, f.text(), "Ticket n°\u00a01 payé.")
	assert.Contains(t, f.text(), "Remettez 20\u00a0€ au client")
	paidAt := f.clock.Now()

	f.clock.Advance(5 * time.Minute)
	for _, r := range number {
		f.tap(string(r))
	}
	f.tap("Payer")
	assert.Contains(t, f.text(), "Ticket n°\u00a01 de 20\u00a0€\u00a0: déjà payé le "+
		paidAt.In(f.m.Location()).Format("02/01/2006 15:04:05")+" par le personnel. Ne le payez pas une seconde fois.")
	f.golden("maint-voucher.png")

	m, err := f.st.Meters(context.Background())
	require.NoError(t, err)
	assert.Equal(t, int64(2000), m.Get(store.MeterVouchersPaid), "paid once")
	assert.Equal(t, int64(1), m.Get(store.MeterVouchersPaidCount))
	assert.Len(t, f.events("voucher_paid"), 1)
	assert.Len(t, f.events("voucher_refused"), 1)

	f.scan("123456789012345678")
	assert.Contains(t, f.text(), "Aucun ticket de cette borne ne porte ce numéro")
	f.scan("1234")
	assert.Contains(t, f.text(), "Un numéro de validation a 18 chiffres.")
}

// A voucher above the counter's payout limit (its paper sends the customer
// to a payment centre) is not paid at a scan: the view warns with the
// amount and the limit, and pays only once staff confirm; "Ne pas payer"
// leaves it payable. A voucher under the limit is paid at once.
func TestVoucherAbovePayoutLimitAsksFirst(t *testing.T) {
	f := newShFix(t, true, func(c *kiosk.Config) { c.Cash.PayoutLimit = 15 * game.Euro })
	big := f.cashOut(20 * game.Euro)
	small := f.cashOut(10 * game.Euro)
	f.open(ui.French)
	f.pin(shStaffPIN)
	f.tap("Payer un ticket")
	paidMeter := func() int64 {
		m, err := f.st.Meters(context.Background())
		require.NoError(t, err)
		return m.Get(store.MeterVouchersPaid)
	}

	f.scan(big)
	assert.Contains(t, f.text(), "Ticket n°\u00a01 de 20\u00a0€\u00a0: au-dessus du plafond de paiement au comptoir (15\u00a0€).")
	assert.NotContains(t, f.text(), "Remettez")
	assert.Zero(t, paidMeter(), "nothing paid before staff confirm")
	f.golden("maint-voucher-above-limit.png")
	f.tap("Ne pas payer")
	assert.Contains(t, f.text(), "Ticket non payé.")
	assert.Zero(t, paidMeter())
	v, err := f.st.VoucherByValidation(context.Background(), big)
	require.NoError(t, err)
	assert.Equal(t, store.VoucherPrinted, v.State, "still payable")

	f.scan(big)
	f.tap("Payer quand même")
	assert.Contains(t, f.text(), "Ticket n°\u00a01 payé.")
	assert.Contains(t, f.text(), "Remettez 20\u00a0€ au client")
	assert.Equal(t, int64(2000), paidMeter())
	paid := f.events("voucher_paid")
	require.Len(t, paid, 1)
	assert.Contains(t, paid[0].Detail, "above the counter's payout limit of "+(15*game.Euro).Plain())

	f.scan(small)
	assert.Contains(t, f.text(), "Ticket n°\u00a02 payé.", "under the limit: paid at once")
	assert.Equal(t, int64(3000), paidMeter())
}

// An expired voucher and a void one are refused with the reason.
func TestVoucherExpiredAndVoidRefused(t *testing.T) {
	f := newShFix(t, true)
	expired := f.cashOut(10 * game.Euro)
	f.printer.mu.Lock()
	f.printer.fail = errors.New("paper jam")
	f.printer.mu.Unlock()
	ctx := context.Background()
	_, err := f.st.BillIn(ctx, 5*game.Euro, "test-note-void")
	require.NoError(t, err)
	require.Eventually(t, func() bool { return f.m.Snapshot().Credit == 5*game.Euro }, 15*time.Second, 2*time.Millisecond)
	_, err = f.m.CashOut(ctx)
	require.ErrorIs(t, err, kiosk.ErrPrintFailed)
	var pf *kiosk.PrintFailure
	require.ErrorAs(t, err, &pf)
	void, err := f.st.Voucher(ctx, pf.Voucher)
	require.NoError(t, err)
	require.Equal(t, store.VoucherVoid, void.State)

	f.clock.Advance(kiosk.DefaultVoucherValidity + time.Hour)
	f.open(ui.English)
	f.pin(shStaffPIN)
	f.tap("Pay a voucher")
	f.scan(expired)
	assert.Contains(t, f.text(), "Voucher no. 1 of €10: expired on 2027-01-29 11:00:00, it can no longer be paid.")
	f.scan(void.Validation)
	assert.Contains(t, f.text(), "Voucher no. 2 of €5: void (")
	assert.Contains(t, f.text(), "it cannot be paid.")
}

// The duplicate of the last voucher is printed once asked, counted, and
// refused once the voucher is paid.
func TestReprintLastVoucherAsDuplicate(t *testing.T) {
	f := newShFix(t, true)
	number := f.cashOut(10 * game.Euro)
	printed := f.printer.count()
	f.open(ui.French)
	f.pin(shStaffPIN)
	f.tap("Duplicata du dernier ticket")
	f.tap("Imprimer le duplicata")
	assert.Contains(t, f.text(), "Duplicata du ticket n°\u00a01 de 10\u00a0€ imprimé (duplicata n°\u00a01).")
	assert.Equal(t, printed+1, f.printer.count())
	f.golden("maint-reprint.png")

	_, err := f.o.PayVoucher(context.Background(), f.sh.Session(), number)
	require.NoError(t, err)
	f.tap("Imprimer le duplicata")
	assert.Contains(t, f.text(), "Aucun ticket à réimprimer\u00a0: le dernier est payé, expiré ou annulé.")
	assert.Equal(t, printed+1, f.printer.count())
}

// A scanner's digits typed once staff left the voucher view pay nothing:
// the view gives the keyboard back.
func TestVoucherScannerOnlyInItsView(t *testing.T) {
	f := newShFix(t, true)
	number := f.cashOut(10 * game.Euro)
	f.open(ui.French)
	f.pin(shStaffPIN)
	f.tap("Payer un ticket")
	f.tap("Billets en attente")
	if r := f.w.Canvas().OnTypedRune(); r != nil {
		test.TypeOnCanvas(f.w.Canvas(), number)
	}
	if k := f.w.Canvas().OnTypedKey(); k != nil {
		k(&fyne.KeyEvent{Name: fyne.KeyReturn})
	}
	v, err := f.st.LastVoucher(context.Background())
	require.NoError(t, err)
	assert.Equal(t, store.VoucherPrinted, v.State, "not paid")
}
