package maint

import (
	"context"
	"crypto/rand"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk"
	"pharaon/kiosk/devsim"
	"pharaon/store"
)

// The printer: its state; a refill acknowledged only once the printer
// confirms it; a test page read back from the printer.
func TestPrinterView(t *testing.T) {
	f := newRptFix(t)
	require.NoError(t, f.dev.Cause(devsim.PrinterPaperOut))
	require.Eventually(t, func() bool { return f.m.Snapshot().Cash.Printer.Code == "paper_out" }, 15*time.Second, 5*time.Millisecond)
	f.show("printer", f.staff)
	assert.Contains(t, f.text(), "Plus de papier")
	f.tap("Papier remis")
	assert.Contains(t, f.text(), "L’imprimante ne confirme pas le papier")
	require.Len(t, f.events("paper_not_confirmed"), 1)
	f.golden("maint-printer-paperout.png")

	require.NoError(t, f.dev.Repair())
	f.tap("Papier remis")
	assert.Contains(t, f.text(), "Papier confirmé par l’imprimante.")
	assert.Contains(t, f.text(), "En service")
	require.Len(t, f.events("paper_refilled"), 1)

	f.tap("Page de test")
	assert.Contains(t, f.text(), "Page de test imprimée.")
	r, err := f.dev.Printer.WaitReceipt(context.Background(), 1)
	require.NoError(t, err)
	assert.Contains(t, r.Plain(), "TEST D'IMPRESSION")
	f.golden("maint-printer.png")
}

// The daily report: the day's totals on screen, with the cash paid out
// at the counter by kind, another day, and the printed report read back.
func TestDailyView(t *testing.T) {
	f := newRptFix(t)
	ctx := context.Background()
	f.billIn(50 * game.Euro) // 30/11
	f.clock.Advance(24 * time.Hour)
	f.billIn(20*game.Euro, 10*game.Euro) // 01/12
	val, err := kiosk.NewValidation(rand.Reader)
	require.NoError(t, err)
	v, err := f.st.IssueVoucher(ctx, store.VoucherRequest{Amount: 80 * game.Euro, Validation: val, Expires: f.clock.Now().Add(time.Hour)})
	require.NoError(t, err)
	_, _, err = f.st.ConfirmVoucher(ctx, v.ID)
	require.NoError(t, err)
	_, err = f.o.PayVoucher(ctx, f.staff, val)
	require.NoError(t, err)
	f.show("daily", f.staff)
	txt := f.text()
	assert.Contains(t, txt, "Journée du 01/12/2026")
	assert.Contains(t, txt, "Billets acceptés\n2 · 30\u00a0€\n")
	assert.Contains(t, txt, "Payé au comptoir\nBons de paiement payés\n1 · 80\u00a0€\nPaiements manuels\n0 · 0\u00a0€\nTotal payé au comptoir\n1 · 80\u00a0€\n")
	f.golden("maint-daily.png")
	f.tap("Jour précédent")
	assert.Contains(t, f.text(), "Journée du 30/11/2026")
	assert.Contains(t, f.text(), "Billets acceptés\n1 · 50\u00a0€\n")
	assert.Contains(t, f.text(), "Total payé au comptoir\n0 · 0\u00a0€\n")
	f.tap("Jour suivant")
	f.tap("Imprimer le rapport")
	assert.Contains(t, f.text(), "Rapport du 01/12/2026 imprimé.")
	r, err := f.dev.Printer.WaitReceipt(ctx, 1)
	require.NoError(t, err)
	assert.Contains(t, r.Plain(), "Journée du 01/12/2026")
	assert.Regexp(t, `(?m)^Total\s+2\s+30\x{a0}€$`, r.Plain())
	assert.Regexp(t, `(?m)^Bons payés\s+1\s+80\x{a0}€$`, r.Plain())
}
