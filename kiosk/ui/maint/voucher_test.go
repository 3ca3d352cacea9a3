package maint

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
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

// fixedVoucher prints a voucher of amount straight in the store, as a
// cash-out does, with a validation number drawn from seed rather than
// crypto/rand: a number refused stays on the screen, and a golden image
// draws the same digits at each run.
func (f *shFix) fixedVoucher(amount game.Money, seed string) string {
	f.t.Helper()
	ctx := context.Background()
	sum := sha256.Sum256([]byte(seed))
	val, err := kiosk.NewValidation(bytes.NewReader(append(sum[:], sum[:]...)))
	require.NoError(f.t, err)
	f.notes++
	_, err = f.st.BillIn(ctx, amount, fmt.Sprint("test-note-", f.notes))
	require.NoError(f.t, err)
	v, err := f.st.IssueVoucher(ctx, store.VoucherRequest{Amount: amount, Validation: val, Expires: f.clock.Now().Add(kiosk.DefaultVoucherValidity)})
	require.NoError(f.t, err)
	_, _, err = f.st.ConfirmVoucher(ctx, v.ID)
	require.NoError(f.t, err)
	return val
}

// A voucher scanned at the counter is paid once: the screen says the
// amount to hand over; the same voucher again is refused, saying when and
// by whom it was paid, and the paid meter counts it once. A number typed on
// the keypad works the same way; an unknown number and a short one are
// refused with the reason.
func TestVoucherPaidOnceSecondRefused(t *testing.T) {
	f := newShFix(t, true)
	number := f.fixedVoucher(20*game.Euro, "paid once")
	f.clock.Advance(time.Hour)
	f.open(ui.French)
	f.pin(shStaffPIN)
	f.tap("Payer un bon")
	require.Equal(t, "voucher", f.sh.Current())

	f.scan(number)
	assert.Contains(t, f.text(), "Bon n°\u00a0000001 payé.")
	assert.Contains(t, f.text(), "Remettez 20\u00a0€ au joueur")
	paidAt := f.clock.Now()

	f.clock.Advance(5 * time.Minute)
	for _, r := range number {
		f.tap(string(r))
	}
	f.tap("Payer")
	assert.Contains(t, f.text(), "Bon n°\u00a0000001 de 20\u00a0€\u00a0: déjà payé le "+
		paidAt.In(f.m.Location()).Format("02/01/2006 15:04:05")+" par le personnel. Ne le payez pas une seconde fois.")
	f.golden("maint-voucher.png")

	m, err := f.st.Meters(context.Background())
	require.NoError(t, err)
	assert.Equal(t, int64(2000), m.Get(store.MeterVouchersPaid), "paid once")
	assert.Equal(t, int64(1), m.Get(store.MeterVouchersPaidCount))
	assert.Len(t, f.events("voucher_paid"), 1)
	assert.Len(t, f.events("voucher_refused"), 1)

	unknown, err := kiosk.NewValidation(rand.Reader)
	require.NoError(t, err)
	f.scan(unknown)
	assert.Contains(t, f.text(), "Numéro inconnu\u00a0: il est bien formé, mais aucun bon de paiement connu de cette borne ne le porte.")
	f.scan("1234")
	assert.Contains(t, f.text(), "Numéro mal saisi\u00a0: 4\u00a0chiffres tapés, un numéro de validation en a 18.")
}

// field is the voucher view's number field.
func (f *shFix) field() *widget.Entry {
	f.t.Helper()
	var found *widget.Entry
	shWalk(f.w.Content(), func(o fyne.CanvasObject) {
		if e, ok := o.(*widget.Entry); ok && found == nil {
			found = e
		}
	})
	require.NotNil(f.t, found, "no field")
	return found
}

// After a refusal the number typed stays in the field, in groups of four
// as printed: a number one digit short says so and is completed on the
// keypad; a number whose check digits fail is "mal saisi", naming the
// groups of four the check narrows the mistake to, and a scan then starts
// a new number; a number that checks but that no voucher carries is
// "inconnu". Neither pays anything.
func TestVoucherFieldKeepsTheNumberAndTellsMistypedFromUnknown(t *testing.T) {
	f := newShFix(t, true)
	first := f.cashOut(10 * game.Euro)
	second := f.fixedVoucher(5*game.Euro, "mistyped")
	f.open(ui.French)
	f.pin(shStaffPIN)
	f.tap("Payer un bon")
	keys := func(digits string) {
		t.Helper()
		for _, r := range digits {
			f.tap(string(r))
		}
	}

	keys(first[:17])
	f.tap("Payer")
	assert.Contains(t, f.text(), "Numéro mal saisi\u00a0: 17\u00a0chiffres tapés, un numéro de validation en a 18. Corrigez-le ci-dessus.")
	assert.Equal(t, kiosk.FormatValidation(first[:17]), f.field().Text, "what was typed stays in sight")
	keys(first[17:])
	assert.Equal(t, kiosk.FormatValidation(first), f.field().Text, "the keypad completes the number refused")
	f.tap("Payer")
	assert.Contains(t, f.text(), "Bon n°\u00a0000001 payé.")
	assert.Empty(t, f.field().Text, "a number paid does not stay in sight")

	// A one-digit typo the check narrows to one or two groups.
	var typo string
	var groups []int
	for p := 0; p < len(second) && groups == nil; p++ {
		w := []byte(second)
		w[p] = '0' + (w[p]-'0'+3)%10
		_, err := kiosk.ParseValidation(string(w))
		var me *kiosk.MistypedError
		require.ErrorAs(t, err, &me)
		typo, groups = string(w), me.Groups
	}
	require.NotEmpty(t, groups)
	keys(typo)
	f.tap("Payer")
	txt := f.text()
	assert.Contains(t, txt, "Numéro mal saisi\u00a0: ses chiffres ne concordent pas avec ses deux derniers, qui les contrôlent. Vérifiez surtout le groupe ")
	for _, g := range groups {
		assert.Contains(t, txt, fmt.Sprintf("le groupe %d (%s)", g, typo[(g-1)*4:min(g*4, len(typo))]))
	}
	assert.NotContains(t, txt, "inconnu")
	assert.Equal(t, kiosk.FormatValidation(typo), f.field().Text)
	v, err := f.st.VoucherByValidation(context.Background(), second)
	require.NoError(t, err)
	assert.Equal(t, store.VoucherPrinted, v.State, "a mistyped number pays nothing")
	f.golden("maint-voucher-mistyped.png")
	f.scan(second)
	assert.Contains(t, f.text(), "Bon n°\u00a0000002 payé.", "a scan after a refusal is a new number")

	unknown, err := kiosk.NewValidation(rand.Reader)
	require.NoError(t, err)
	keys(unknown)
	f.tap("Payer")
	assert.Contains(t, f.text(), "Numéro inconnu")
	assert.NotContains(t, f.text(), "mal saisi")
	assert.Equal(t, kiosk.FormatValidation(unknown), f.field().Text)
	f.tap("Effacer")
	assert.Equal(t, kiosk.FormatValidation(unknown[:17]), f.field().Text, "Effacer corrects the number refused")
	refused := f.events("voucher_refused")
	require.Len(t, refused, 3)
	for _, e := range refused {
		assert.NotContains(t, e.Detail, typo[:10])
	}
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
	f.tap("Payer un bon")
	paidMeter := func() int64 {
		m, err := f.st.Meters(context.Background())
		require.NoError(t, err)
		return m.Get(store.MeterVouchersPaid)
	}

	f.scan(big)
	assert.Contains(t, f.text(), "Bon n°\u00a0000001 de 20\u00a0€\u00a0: au-dessus du plafond de paiement au comptoir (15\u00a0€).")
	assert.NotContains(t, f.text(), "Remettez")
	assert.Zero(t, paidMeter(), "nothing paid before staff confirm")
	f.golden("maint-voucher-above-limit.png")
	f.tap("Ne pas payer")
	assert.Contains(t, f.text(), "Bon non payé.")
	assert.Zero(t, paidMeter())
	v, err := f.st.VoucherByValidation(context.Background(), big)
	require.NoError(t, err)
	assert.Equal(t, store.VoucherPrinted, v.State, "still payable")

	f.scan(big)
	f.tap("Payer quand même")
	assert.Contains(t, f.text(), "Bon n°\u00a0000001 payé.")
	assert.Contains(t, f.text(), "Remettez 20\u00a0€ au joueur")
	assert.Equal(t, int64(2000), paidMeter())
	paid := f.events("voucher_paid")
	require.Len(t, paid, 1)
	assert.Contains(t, paid[0].Detail, "above the counter's payout limit of "+(15*game.Euro).Plain())

	f.scan(small)
	assert.Contains(t, f.text(), "Bon n°\u00a0000002 payé.", "under the limit: paid at once")
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
	assert.Contains(t, f.text(), "Voucher no.\u00a0000001 of €10: expired on 2027-01-29 11:00:00, it can no longer be paid.")
	f.scan(void.Validation)
	assert.Contains(t, f.text(), "Voucher no.\u00a0000002 of €5: void: its print was not confirmed, the credit stayed with the player. It cannot be paid.\n"+
		"Technical detail: "+void.VoidReason)
}

// The duplicate's view shows the last voucher before printing: its
// number, amount, time, validation number masked and state. The duplicate
// is printed once asked and counted; once the voucher is paid the view
// says so, and a duplicate asked is refused naming when and by whom.
func TestReprintLastVoucherAsDuplicate(t *testing.T) {
	f := newShFix(t, true)
	number := f.fixedVoucher(10*game.Euro, "duplicate")
	v, err := f.st.VoucherByValidation(context.Background(), number)
	require.NoError(t, err)
	printed := f.printer.count()
	loc := f.m.Location()
	f.open(ui.French)
	f.pin(shStaffPIN)
	f.tap("Duplicata du dernier bon")
	assert.Contains(t, f.text(), "Dernier bon imprimé\u00a0: bon n°\u00a0000001 de 10\u00a0€, imprimé le "+
		v.Issued.In(loc).Format("02/01/2006 15:04:05")+"\n"+
		"Numéro de validation\u00a0: "+kiosk.MaskValidation(number)+"\n"+
		"État\u00a0: payable jusqu’au "+v.Expires.In(loc).Format("02/01/2006 15:04:05"))
	assert.NotContains(t, f.text(), number[:14], "the number that pays it is not shown")
	f.tap("Imprimer le duplicata")
	assert.Contains(t, f.text(), "Duplicata du bon n°\u00a0000001 de 10\u00a0€ imprimé (duplicata n°\u00a01).")
	assert.Equal(t, printed+1, f.printer.count())
	f.golden("maint-reprint.png")

	f.clock.Advance(time.Minute)
	_, err = f.o.PayVoucher(context.Background(), f.sh.Session(), number)
	require.NoError(t, err)
	paidAt := f.clock.Now().In(loc).Format("02/01/2006 15:04:05")
	f.tap("Imprimer le duplicata")
	assert.Contains(t, f.text(), "Pas de duplicata\u00a0: le bon n°\u00a0000001 de 10\u00a0€ n’est plus payable, payé le "+paidAt+" par le personnel.")
	assert.Contains(t, f.text(), "État\u00a0: payé le "+paidAt+" par le personnel", "the view shows the voucher as it is now")
	assert.Equal(t, printed+1, f.printer.count())
	assert.True(t, f.button("Imprimer le duplicata").Disabled(), "no duplicate of a paid voucher is offered")
	f.tap("Payer un bon")
	f.tap("Duplicata du dernier bon")
	assert.Contains(t, f.text(), "État\u00a0: payé le "+paidAt)
	assert.True(t, f.button("Imprimer le duplicata").Disabled(), "opened again: its state says why there is no duplicate")
}

// A scanner's digits typed once staff left the voucher view pay nothing:
// the view gives the keyboard back.
func TestVoucherScannerOnlyInItsView(t *testing.T) {
	f := newShFix(t, true)
	number := f.cashOut(10 * game.Euro)
	f.open(ui.French)
	f.pin(shStaffPIN)
	f.tap("Payer un bon")
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
