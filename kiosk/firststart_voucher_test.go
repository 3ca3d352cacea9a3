package kiosk

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/kiosk/devsim"
	"pharaon/store"
)

// The first start's last step prints a test voucher: the kiosk's next
// voucher number and a validation number of the normal form, on the
// voucher's layout, marked as a void test of no value; recorded before the
// print, so that a print that fails (the paper runs out in the middle)
// leaves it void and the next try prints the same number and says so. It
// moves no money: the credit, the meters and the whole reconciliation are
// as before, and no payment path pays it.
func TestFirstStartTestVoucher(t *testing.T) {
	f, d, o := newCashOffice(t)
	insertAll(t, f, d, 10*game.Euro)
	require.NoError(t, f.m.BeginFirstStart(ctx))
	require.NoError(t, f.st.SetSetting(ctx, "setup", SettingFirstStart, string(StepVoucher)))
	meters, err := f.st.Meters(ctx)
	require.NoError(t, err)
	tech, err := o.Login(ctx, testTechPIN)
	require.NoError(t, err)

	require.NoError(t, d.Cause(devsim.PrinterPaperRunsOut))
	next, c, err := o.PassFirstStep(ctx, tech, StepVoucher)
	require.NoError(t, err)
	assert.False(t, c.OK)
	assert.Equal(t, "voucher.failed", c.Code)
	assert.Equal(t, MsgPaperOut, c.Printer.Code, "what kept the printer from printing")
	assert.Equal(t, StepVoucher, next, "a failed print stays at its step")
	assert.Equal(t, 1, c.N, "the kiosk's first voucher number")
	require.True(t, ValidValidation(c.Validation), "a validation number of the normal form: %q", c.Validation)
	failed := c.Validation
	tv, err := f.st.VoucherByValidation(ctx, failed)
	require.NoError(t, err)
	assert.True(t, tv.Test())
	assert.Equal(t, store.VoucherVoid, tv.State, "recorded void before the print: nothing payable was left")

	require.NoError(t, d.Repair())
	waitFor(t, func() bool { return f.m.Snapshot().Cash.Printer.OK }, "printer repaired")
	printed := len(d.Printer.Receipts())
	next, c, err = o.PassFirstStep(ctx, tech, StepVoucher)
	require.NoError(t, err)
	require.True(t, c.OK, "%+v", c)
	assert.Equal(t, "voucher.again", c.Code, "the number recorded before, printed again, and said")
	assert.Equal(t, failed, c.Validation, "never two numbers")
	assert.Equal(t, 1, c.N)
	assert.Equal(t, StepDone, next)
	r, err := d.Printer.WaitReceipt(ctx, printed+1)
	require.NoError(t, err)
	paper := r.Plain()
	for _, want := range []string{"BON DE PAIEMENT", "BON D'ESSAI", "ANNULÉ", "SANS VALEUR", "BON D'ESSAI - ANNULÉ - SANS VALEUR",
		"TEST VOUCHER - VOID - NO VALUE", "NE SE PAIE PAS", "Bon n° 000001", "Borne : PH-0042", FormatValidation(failed)} {
		assert.Contains(t, paper, want)
	}
	assert.NotContains(t, paper, "€", "no amount to misread")
	assert.NotContains(t, paper, "Valable jusqu'au")
	assert.NotContains(t, paper, "Payable au comptoir")
	assert.True(t, strings.Contains(paper, failed), "the barcode carries the number: %s", paper)

	got, err := f.st.Meters(ctx)
	require.NoError(t, err)
	assert.Equal(t, meters, got, "no meter moved")
	assert.Equal(t, 10*game.Euro, f.m.Snapshot().Credit, "the credit stayed")
	require.NoError(t, f.st.Verify(ctx), "the whole reconciliation stays exact")
	require.NoError(t, f.st.VerifyMeters(ctx))
	require.Len(t, eventsCoded(t, f, "test_voucher"), 1, "recorded once, in the event log")
	require.Len(t, eventsCoded(t, f, "test_voucher_printed"), 1)

	// The counter: its check says it is not payable and a test voucher,
	// its payment is refused as such; the duplicate does not offer it.
	staff, err := o.Login(ctx, testStaffPIN)
	require.NoError(t, err)
	chk, err := o.CheckVoucher(ctx, staff, FormatValidation(failed))
	require.NoError(t, err)
	assert.False(t, chk.Payable)
	assert.True(t, chk.Test)
	_, err = o.PayVoucher(ctx, staff, failed)
	require.ErrorIs(t, err, store.ErrVoucherTest)
	reg := &claimCounter{}
	f.m.SetVoucherRegistry(reg, 0)
	_, err = o.PayVoucher(ctx, staff, failed)
	require.ErrorIs(t, err, store.ErrVoucherTest, "joined to a fleet, too")
	assert.Zero(t, reg.claims, "nothing claimed at the centre")
	var refusal *store.VoucherRefusal
	require.True(t, errors.As(err, &refusal))
	_, err = o.LastVoucher(ctx, staff)
	require.ErrorIs(t, err, ErrNoVoucher, "the test voucher is no voucher to reprint")
	require.NoError(t, f.st.Verify(ctx))

	// A cash-out after it takes the next number.
	v, err := f.m.CashOut(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(2), v.Number)
	require.NoError(t, f.st.VerifyMeters(ctx))
}

// eventsCoded are the kiosk's events of code.
func eventsCoded(t *testing.T, f *fixture, code string) []store.Event {
	t.Helper()
	var out []store.Event
	waitFor(t, func() bool {
		ev, err := f.st.EventsWhere(ctx, store.EventQuery{N: 200})
		require.NoError(t, err)
		out = out[:0]
		for _, e := range ev {
			if e.Code == code {
				out = append(out, e)
			}
		}
		return len(out) > 0
	}, "event %s logged", code)
	return out
}

// claimCounter is a fleet registry that counts the claims made to it.
type claimCounter struct{ claims int }

func (r *claimCounter) Claim(context.Context, VoucherClaim) (func(context.Context) error, error) {
	r.claims++
	return func(context.Context) error { return nil }, nil
}

func (r *claimCounter) Lookup(context.Context, string) (FleetVoucher, error) {
	return FleetVoucher{}, store.ErrNotFound
}
