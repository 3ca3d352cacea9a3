package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// openCash opens an empty store on a clock the test can move on (expiry
// needs it).
func openCash(t *testing.T) (*Store, *clock) {
	t.Helper()
	c := newClock()
	s, err := Open(filepath.Join(t.TempDir(), "pharaon.db"), WithClock(c.now))
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s, c
}

// creditNote takes a note through its intent, as the kiosk does.
func creditNote(t *testing.T, s *Store, denom game.Money) Entry {
	t.Helper()
	in, err := s.RecordBillIntent(context.Background(), denom)
	require.NoError(t, err)
	e, err := s.CreditBillIntent(context.Background(), in.ID)
	require.NoError(t, err)
	return e
}

// writeAround writes a cash movement with the store's own transaction
// code but around the checks of its API, as a bug or an older software
// could have: what Verify and the cash operations must still catch.
func writeAround(t *testing.T, s *Store, kind Kind, amount game.Money, ref string) {
	t.Helper()
	require.NoError(t, s.write(context.Background(), func(tx *wtx) error {
		_, err := tx.move(kind, amount, ref, "", false)
		return err
	}))
}

const (
	val1 = "123456789012345678"
	val2 = "876543210987654321"
	val3 = "111111111111111111"
)

func TestBillIntentCreditsOnce(t *testing.T) {
	ctx := context.Background()
	s, _ := openCash(t)

	_, err := s.PendingBillIntent(ctx)
	require.ErrorIs(t, err, ErrNotFound)
	_, err = s.LatestBillIntent(ctx)
	require.ErrorIs(t, err, ErrNotFound)

	in, err := s.RecordBillIntent(ctx, 20*game.Euro)
	require.NoError(t, err)
	assert.Equal(t, int64(1), in.ID)
	assert.Equal(t, IntentPending, in.State)
	credit, err := s.Credit(ctx)
	require.NoError(t, err)
	assert.Zero(t, credit, "an intent moves no money")
	p, err := s.PendingBillIntent(ctx)
	require.NoError(t, err)
	assert.Equal(t, in.ID, p.ID)

	e, err := s.CreditBillIntent(ctx, in.ID)
	require.NoError(t, err)
	assert.Equal(t, KindBillIn, e.Kind)
	assert.Equal(t, 20*game.Euro, e.Amount)
	assert.Equal(t, 20*game.Euro, e.Balance)
	assert.Equal(t, "intent:1", e.Ref)

	again, err := s.CreditBillIntent(ctx, in.ID)
	require.ErrorIs(t, err, ErrDuplicateRef, "a second VEND VALID of the same note credits nothing")
	assert.Equal(t, e, again, "the first credit is returned")
	credit, err = s.Credit(ctx)
	require.NoError(t, err)
	assert.Equal(t, 20*game.Euro, credit)

	got, err := s.LatestBillIntent(ctx)
	require.NoError(t, err)
	assert.Equal(t, IntentCredited, got.State)
	assert.Equal(t, e.ID, got.EntryID)
	assert.False(t, got.Resolved.IsZero())
	_, err = s.PendingBillIntent(ctx)
	require.ErrorIs(t, err, ErrNotFound)

	m, err := s.Meters(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(2000), m.Get(MeterBillsIn))
	assert.Equal(t, int64(1), m.Get(MeterBillsInCount))
	assert.Equal(t, int64(1), m.Get(NoteMeter(20*game.Euro)))
	require.NoError(t, s.Verify(ctx))
}

// Two goroutines credit the same intent at once (a host retrying while
// the first commit is in flight): one credit, one duplicate.
func TestBillIntentConcurrentCredits(t *testing.T) {
	ctx := context.Background()
	s, _ := openCash(t)
	for round := 0; round < 20; round++ {
		in, err := s.RecordBillIntent(ctx, 5*game.Euro)
		require.NoError(t, err)
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = s.CreditBillIntent(ctx, in.ID)
			}()
		}
		wg.Wait()
		ok, dup := 0, 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case errors.Is(err, ErrDuplicateRef):
				dup++
			default:
				t.Fatalf("unexpected error: %v", err)
			}
		}
		assert.Equal(t, 1, ok)
		assert.Equal(t, 3, dup)
	}
	credit, err := s.Credit(ctx)
	require.NoError(t, err)
	assert.Equal(t, 20*5*game.Euro, credit)
	require.NoError(t, s.Verify(ctx))
}

func TestNewEscrowVoidsThePendingIntent(t *testing.T) {
	ctx := context.Background()
	s, _ := openCash(t)
	a, err := s.RecordBillIntent(ctx, 10*game.Euro)
	require.NoError(t, err)
	b, err := s.RecordBillIntent(ctx, 50*game.Euro)
	require.NoError(t, err)
	got, err := s.BillIntent(ctx, a.ID)
	require.NoError(t, err)
	assert.Equal(t, IntentVoid, got.State)
	assert.Equal(t, "superseded", got.Reason)
	p, err := s.PendingBillIntent(ctx)
	require.NoError(t, err)
	assert.Equal(t, b.ID, p.ID)

	_, err = s.CreditBillIntent(ctx, a.ID)
	require.ErrorIs(t, err, ErrIntentState, "a superseded note never reached VEND VALID")
	e, err := s.CreditBillIntent(ctx, b.ID)
	require.NoError(t, err)
	assert.Equal(t, 50*game.Euro, e.Balance)

	list, err := s.BillIntents(ctx, 10, 0)
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Equal(t, []int64{b.ID, a.ID}, []int64{list[0].ID, list[1].ID}, "newest first")
	require.NoError(t, s.Verify(ctx))
}

func TestVoidBillIntent(t *testing.T) {
	ctx := context.Background()
	s, _ := openCash(t)
	in, err := s.RecordBillIntent(ctx, 20*game.Euro)
	require.NoError(t, err)
	_, err = s.VoidBillIntent(ctx, in.ID, "  ")
	require.ErrorIs(t, err, ErrBadRequest)
	v, err := s.VoidBillIntent(ctx, in.ID, "note returned: 17 79")
	require.NoError(t, err)
	assert.Equal(t, IntentVoid, v.State)
	assert.Equal(t, "note returned: 17 79", v.Reason)
	_, err = s.VoidBillIntent(ctx, in.ID, "again")
	require.ErrorIs(t, err, ErrIntentState)
	_, err = s.CreditBillIntent(ctx, in.ID)
	require.ErrorIs(t, err, ErrIntentState)
	_, err = s.VoidBillIntent(ctx, 42, "none")
	require.ErrorIs(t, err, ErrNotFound)
	credited := creditNote(t, s, 5*game.Euro)
	_, err = s.VoidBillIntent(ctx, 2, "too late")
	require.ErrorIs(t, err, ErrIntentState, "a credited note is never voided")
	assert.Equal(t, 5*game.Euro, credited.Balance)
	require.NoError(t, s.Verify(ctx))
}

// Bad input is refused with its sentinel and writes nothing.
func TestBillIntentBadInput(t *testing.T) {
	ctx := context.Background()
	s, _ := openCash(t)
	creditNote(t, s, 10*game.Euro)
	tests := []struct {
		name string
		do   func() error
		want error
	}{
		{"7 € note", func() error { _, err := s.RecordBillIntent(ctx, 7*game.Euro); return err }, ErrBadAmount},
		{"zero", func() error { _, err := s.RecordBillIntent(ctx, 0); return err }, ErrBadAmount},
		{"negative", func() error { _, err := s.RecordBillIntent(ctx, -500); return err }, ErrBadAmount},
		{"a coin", func() error { _, err := s.RecordBillIntent(ctx, 200); return err }, ErrBadAmount},
		{"unknown intent", func() error { _, err := s.CreditBillIntent(ctx, 99); return err }, ErrNotFound},
		{"intent zero", func() error { _, err := s.CreditBillIntent(ctx, 0); return err }, ErrNotFound},
		{"read unknown", func() error { _, err := s.BillIntent(ctx, 99); return err }, ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := cashFingerprint(t, s)
			require.ErrorIs(t, tt.do(), tt.want)
			assert.Equal(t, before, cashFingerprint(t, s), "nothing written")
		})
	}
}

// cashFingerprint sums up everything the cash operations write.
func cashFingerprint(t *testing.T, s *Store) string {
	t.Helper()
	var out string
	err := s.read(context.Background(), func(tx *rtx) error {
		var n [5]int64
		var states string
		err := tx.queryRow(`SELECT (SELECT count(*) FROM ledger), (SELECT count(*) FROM bill_intents),
			(SELECT count(*) FROM vouchers), (SELECT count(*) FROM voucher_steps), (SELECT coalesce(sum(value), 0) FROM meters),
			coalesce((SELECT group_concat(state) FROM (SELECT state FROM bill_intents UNION ALL SELECT state FROM vouchers)), '')`).
			Scan(&n[0], &n[1], &n[2], &n[3], &n[4], &states)
		out = fmt.Sprint(n, states)
		return err
	})
	require.NoError(t, err)
	return out
}

func TestVoucherLifecycle(t *testing.T) {
	ctx := context.Background()
	s, clk := openCash(t)
	creditNote(t, s, 20*game.Euro)
	creditNote(t, s, 50*game.Euro)
	expires := clk.now().Add(60 * 24 * time.Hour)

	_, err := s.PendingVoucher(ctx)
	require.ErrorIs(t, err, ErrNotFound)
	_, err = s.LastVoucher(ctx)
	require.ErrorIs(t, err, ErrNotFound)

	v, err := s.IssueVoucher(ctx, VoucherRequest{Amount: 70 * game.Euro, Validation: val1, Expires: expires})
	require.NoError(t, err)
	assert.Equal(t, int64(1), v.ID, "the first voucher is number 1")
	assert.Equal(t, VoucherIssued, v.State)
	assert.Equal(t, 70*game.Euro, v.Amount)
	assert.Equal(t, expires.UnixNano(), v.Expires.UnixNano())
	assert.True(t, v.Printed.IsZero())
	credit, err := s.Credit(ctx)
	require.NoError(t, err)
	assert.Equal(t, 70*game.Euro, credit, "issuing moves no money")
	p, err := s.PendingVoucher(ctx)
	require.NoError(t, err)
	assert.Equal(t, v, p)
	assert.False(t, v.Payable(clk.now()))
	_, err = s.LastVoucher(ctx)
	require.ErrorIs(t, err, ErrNotFound, "an unconfirmed voucher is not the last printed one")

	c, e, err := s.ConfirmVoucher(ctx, v.ID)
	require.NoError(t, err)
	assert.Equal(t, VoucherPrinted, c.State)
	assert.Equal(t, e.ID, c.EntryID)
	assert.False(t, c.Printed.IsZero())
	assert.Equal(t, KindVoucherOut, e.Kind)
	assert.Equal(t, -70*game.Euro, e.Amount)
	assert.Zero(t, e.Balance, "the credit is zeroed")
	assert.Equal(t, val1, e.Ref)
	assert.True(t, c.Payable(clk.now()))

	c2, e2, err := s.ConfirmVoucher(ctx, v.ID)
	require.ErrorIs(t, err, ErrDuplicateRef)
	assert.Equal(t, c, c2)
	assert.Equal(t, e, e2)
	credit, err = s.Credit(ctx)
	require.NoError(t, err)
	assert.Zero(t, credit)

	last, err := s.LastVoucher(ctx)
	require.NoError(t, err)
	assert.Equal(t, c, last)
	r, err := s.RecordReprint(ctx, v.ID)
	require.NoError(t, err)
	assert.Equal(t, 1, r.Reprints)
	r, err = s.RecordReprint(ctx, v.ID)
	require.NoError(t, err)
	assert.Equal(t, 2, r.Reprints)

	byVal, err := s.VoucherByValidation(ctx, val1)
	require.NoError(t, err)
	assert.Equal(t, r, byVal)
	_, err = s.PayVoucher(ctx, val1, " ")
	require.ErrorIs(t, err, ErrBadRequest, "a payment says who paid")
	paid, err := s.PayVoucher(ctx, val1, "staff")
	require.NoError(t, err)
	assert.Equal(t, VoucherPaid, paid.State)
	assert.False(t, paid.Paid.IsZero())
	assert.Equal(t, "staff", paid.PaidBy)
	_, err = s.PayVoucher(ctx, val1, "technician")
	require.ErrorIs(t, err, ErrVoucherPaid, "paid once")
	assert.ErrorContains(t, err, "paid at "+paid.Paid.Format(time.RFC3339)+" by staff", "the refusal says when and by whom")
	var refusal *VoucherRefusal
	require.ErrorAs(t, err, &refusal, "the refusal gives the voucher as it stands")
	assert.Equal(t, paid.Paid, refusal.Voucher.Paid)
	assert.Equal(t, "staff", refusal.Voucher.PaidBy)
	assert.Empty(t, refusal.Voucher.Validation, "never the number that pays it")
	_, err = s.RecordReprint(ctx, v.ID)
	require.ErrorIs(t, err, ErrVoucherState, "a paid voucher is not reprinted")

	m, err := s.Meters(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(7000), m.Get(MeterVouchersOut))
	assert.Equal(t, int64(1), m.Get(MeterVouchersOutCount))
	assert.Equal(t, int64(7000), m.Get(MeterVouchersPaid))
	assert.Equal(t, int64(1), m.Get(MeterVouchersPaidCount))
	assert.Equal(t, int64(2), m.Get(MeterVoucherReprints))
	require.NoError(t, s.Verify(ctx))

	list, err := s.Vouchers(ctx, 10, 0)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, paid, list[0])
}

func TestVoidVoucherKeepsTheCreditAndItsNumber(t *testing.T) {
	ctx := context.Background()
	s, clk := openCash(t)
	creditNote(t, s, 10*game.Euro)
	exp := clk.now().Add(time.Hour)
	v, err := s.IssueVoucher(ctx, VoucherRequest{Amount: 10 * game.Euro, Validation: val1, Expires: exp})
	require.NoError(t, err)
	_, err = s.VoidVoucher(ctx, v.ID, "")
	require.ErrorIs(t, err, ErrBadRequest)
	void, err := s.VoidVoucher(ctx, v.ID, "paper out")
	require.NoError(t, err)
	assert.Equal(t, VoucherVoid, void.State)
	assert.Equal(t, "paper out", void.VoidReason)
	credit, err := s.Credit(ctx)
	require.NoError(t, err)
	assert.Equal(t, 10*game.Euro, credit, "the credit stays")

	_, _, err = s.ConfirmVoucher(ctx, v.ID)
	require.ErrorIs(t, err, ErrVoucherState, "a void voucher is never confirmed")
	_, err = s.VoidVoucher(ctx, v.ID, "again")
	require.ErrorIs(t, err, ErrVoucherState)
	_, err = s.PayVoucher(ctx, val1, "staff")
	require.ErrorIs(t, err, ErrVoucherState, "a void voucher is never paid")

	v2, err := s.IssueVoucher(ctx, VoucherRequest{Amount: 10 * game.Euro, Validation: val2, Expires: exp})
	require.NoError(t, err)
	assert.Equal(t, int64(2), v2.ID, "numbers go on after a void one: no gap, no reuse")
	c, _, err := s.ConfirmVoucher(ctx, v2.ID)
	require.NoError(t, err)
	_, err = s.VoidVoucher(ctx, c.ID, "too late")
	require.ErrorIs(t, err, ErrVoucherState, "a printed voucher is never voided")
	m, err := s.Meters(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(1), m.Get(MeterVouchersVoidCount))
	require.NoError(t, s.Verify(ctx))
}

// A note credited while the voucher prints stays on the credit: the
// voucher debits its own amount.
func TestConfirmVoucherDebitsItsAmountOnly(t *testing.T) {
	ctx := context.Background()
	s, clk := openCash(t)
	creditNote(t, s, 20*game.Euro)
	v, err := s.IssueVoucher(ctx, VoucherRequest{Amount: 20 * game.Euro, Validation: val1, Expires: clk.now().Add(time.Hour)})
	require.NoError(t, err)
	creditNote(t, s, 10*game.Euro)
	_, e, err := s.ConfirmVoucher(ctx, v.ID)
	require.NoError(t, err)
	assert.Equal(t, 10*game.Euro, e.Balance)

	// The credit fell below the amount (a staff adjustment in between):
	// nothing is debited, the voucher stays issued for the kiosk to void.
	v, err = s.IssueVoucher(ctx, VoucherRequest{Amount: 10 * game.Euro, Validation: val2, Expires: clk.now().Add(time.Hour)})
	require.NoError(t, err)
	_, err = s.Adjust(ctx, -5*game.Euro, "", "refund")
	require.NoError(t, err)
	_, _, err = s.ConfirmVoucher(ctx, v.ID)
	require.ErrorIs(t, err, ErrInsufficientCredit)
	p, err := s.PendingVoucher(ctx)
	require.NoError(t, err)
	assert.Equal(t, VoucherIssued, p.State)
	require.NoError(t, s.Verify(ctx))
}

func TestIssueVoucherRefusals(t *testing.T) {
	ctx := context.Background()
	s, clk := openCash(t)
	creditNote(t, s, 20*game.Euro)
	future := clk.now().Add(time.Hour)
	writeAround(t, s, KindVoucherOut, -5*game.Euro, val3) // a number a legacy cash-out used
	// Credit is 15 €.
	tests := []struct {
		name string
		req  VoucherRequest
		want error
	}{
		{"less than the credit", VoucherRequest{10 * game.Euro, val1, future}, ErrBadAmount},
		{"more than the credit", VoucherRequest{20 * game.Euro, val1, future}, ErrBadAmount},
		{"zero", VoucherRequest{0, val1, future}, ErrBadAmount},
		{"17 digits", VoucherRequest{15 * game.Euro, val1[:17], future}, ErrBadRequest},
		{"19 digits", VoucherRequest{15 * game.Euro, val1 + "0", future}, ErrBadRequest},
		{"a letter", VoucherRequest{15 * game.Euro, "12345678901234567A", future}, ErrBadRequest},
		{"spaces", VoucherRequest{15 * game.Euro, "1234 5678 9012 3456", future}, ErrBadRequest},
		{"expired already", VoucherRequest{15 * game.Euro, val1, clk.now().Add(-time.Second)}, ErrBadRequest},
		{"no expiry", VoucherRequest{15 * game.Euro, val1, time.Time{}}, ErrBadRequest},
		{"number used by the ledger", VoucherRequest{15 * game.Euro, val3, future}, ErrDuplicateRef},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := cashFingerprint(t, s)
			_, err := s.IssueVoucher(ctx, tt.req)
			require.ErrorIs(t, err, tt.want)
			assert.Equal(t, before, cashFingerprint(t, s), "nothing written")
		})
	}

	v, err := s.IssueVoucher(ctx, VoucherRequest{15 * game.Euro, val1, future})
	require.NoError(t, err)
	_, err = s.IssueVoucher(ctx, VoucherRequest{15 * game.Euro, val2, future})
	require.ErrorIs(t, err, ErrVoucherPending, "one voucher at a time")
	_, err = s.VoidVoucher(ctx, v.ID, "test")
	require.NoError(t, err)
	_, err = s.IssueVoucher(ctx, VoucherRequest{15 * game.Euro, val1, future})
	require.ErrorIs(t, err, ErrDuplicateRef, "a void voucher's number is never used again")
	// The debit numbered like a voucher with no voucher behind it (written
	// around VoucherOut, which refuses such a number) is what Verify reports.
	var ie *IntegrityError
	require.ErrorAs(t, s.Verify(ctx), &ie)
	assert.Equal(t, "ledger", ie.Table)
	assert.Equal(t, int64(2), ie.ID)
}

func TestIssueVoucherRefusedDuringAPlay(t *testing.T) {
	ctx := context.Background()
	s := openWith(t, block050)
	creditNote(t, s, 5*game.Euro)
	p, err := s.StartPlay(ctx, PlayRequest{Stake: game.Stake050, Mode: ModeAuto, LayoutVersion: 1})
	require.NoError(t, err)
	credit, err := s.Credit(ctx)
	require.NoError(t, err)
	_, err = s.IssueVoucher(ctx, VoucherRequest{credit, val1, time.Now().Add(time.Hour)})
	require.ErrorIs(t, err, ErrPlayInProgress)
	_, err = s.FinishPlay(ctx, p.ID, FinishInfo{Revealed: revealOf(p), Shown: p.Prize})
	require.NoError(t, err)
	credit, err = s.Credit(ctx)
	require.NoError(t, err)
	v, err := s.IssueVoucher(ctx, VoucherRequest{credit, val1, time.Now().Add(time.Hour)})
	require.NoError(t, err)
	_, e, err := s.ConfirmVoucher(ctx, v.ID)
	require.NoError(t, err)
	assert.Zero(t, e.Balance)
	require.NoError(t, s.Verify(ctx))
}

func TestVoucherExpiry(t *testing.T) {
	ctx := context.Background()
	s, clk := openCash(t)
	issue := func(amount game.Money, val string, validity time.Duration) Voucher {
		creditNote(t, s, amount)
		v, err := s.IssueVoucher(ctx, VoucherRequest{amount, val, clk.now().Add(validity)})
		require.NoError(t, err)
		v, _, err = s.ConfirmVoucher(ctx, v.ID)
		require.NoError(t, err)
		return v
	}
	short := issue(5*game.Euro, val1, time.Hour)
	long := issue(10*game.Euro, val2, 48*time.Hour)

	none, err := s.ExpireVouchers(ctx, clk.now())
	require.NoError(t, err)
	assert.Empty(t, none)

	clk.advance(2 * time.Hour)
	_, err = s.PayVoucher(ctx, val1, "staff")
	require.ErrorIs(t, err, ErrVoucherExpired, "past its date, refused before the expiry sweep too")
	got, err := s.Voucher(ctx, short.ID)
	require.NoError(t, err)
	assert.Equal(t, VoucherPrinted, got.State, "a refused payment changes nothing")

	expired, err := s.ExpireVouchers(ctx, clk.now())
	require.NoError(t, err)
	require.Len(t, expired, 1)
	assert.Equal(t, short.ID, expired[0].ID)
	assert.Equal(t, VoucherExpired, expired[0].State)
	_, err = s.PayVoucher(ctx, val1, "staff")
	require.ErrorIs(t, err, ErrVoucherExpired)
	_, err = s.RecordReprint(ctx, short.ID)
	require.ErrorIs(t, err, ErrVoucherState)

	_, err = s.PayVoucher(ctx, val2, "staff")
	require.NoError(t, err, "the other one is still payable")
	again, err := s.ExpireVouchers(ctx, clk.now().Add(72*time.Hour))
	require.NoError(t, err)
	assert.Empty(t, again, "a paid voucher never expires")
	got, err = s.Voucher(ctx, long.ID)
	require.NoError(t, err)
	assert.Equal(t, VoucherPaid, got.State)

	m, err := s.Meters(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(500), m.Get(MeterVouchersExpired))
	assert.Equal(t, int64(1), m.Get(MeterVouchersExpiredCount))
	assert.Equal(t, int64(1000), m.Get(MeterVouchersPaid))
	require.NoError(t, s.Verify(ctx))
}

func TestPayVoucherRefusals(t *testing.T) {
	ctx := context.Background()
	s, clk := openCash(t)
	creditNote(t, s, 5*game.Euro)
	v, err := s.IssueVoucher(ctx, VoucherRequest{5 * game.Euro, val1, clk.now().Add(time.Hour)})
	require.NoError(t, err)
	tests := []struct {
		name, val string
		want      error
	}{
		{"unknown", val2, ErrNotFound},
		{"not digits", "12345678901234567x", ErrBadRequest},
		{"short", "1234", ErrBadRequest},
		{"issued, not printed", val1, ErrVoucherState},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := cashFingerprint(t, s)
			_, err := s.PayVoucher(ctx, tt.val, "staff")
			require.ErrorIs(t, err, tt.want)
			assert.Equal(t, before, cashFingerprint(t, s))
		})
	}
	_, err = s.VoidVoucher(ctx, v.ID, "print failed: paper out")
	require.NoError(t, err)
	_, err = s.PayVoucher(ctx, val1, "staff")
	require.ErrorIs(t, err, ErrVoucherState)
	assert.ErrorContains(t, err, "void (print failed: paper out)", "a void voucher is refused with the reason")
	_, err = s.RecordReprint(ctx, v.ID)
	require.ErrorIs(t, err, ErrVoucherState, "only a printed voucher is reprinted")
	_, _, err = s.ConfirmVoucher(ctx, 99)
	require.ErrorIs(t, err, ErrNotFound)
	_, err = s.Voucher(ctx, 99)
	require.ErrorIs(t, err, ErrNotFound)
}

// cashHistory makes a store with every cash fact: intents credited and
// void, vouchers printed, paid, void and reprinted.
func cashHistory(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	c := newClock()
	s, err := Open(path, WithClock(c.now))
	require.NoError(t, err)
	defer s.Close()
	_, err = s.RecordBillIntent(ctx, 50*game.Euro) // superseded below
	require.NoError(t, err)
	creditNote(t, s, 20*game.Euro)
	creditNote(t, s, 10*game.Euro)
	v, err := s.IssueVoucher(ctx, VoucherRequest{30 * game.Euro, val1, c.now().Add(time.Hour)})
	require.NoError(t, err)
	_, err = s.VoidVoucher(ctx, v.ID, "paper out")
	require.NoError(t, err)
	v, err = s.IssueVoucher(ctx, VoucherRequest{30 * game.Euro, val2, c.now().Add(time.Hour)})
	require.NoError(t, err)
	_, _, err = s.ConfirmVoucher(ctx, v.ID)
	require.NoError(t, err)
	_, err = s.RecordReprint(ctx, v.ID)
	require.NoError(t, err)
	_, err = s.PayVoucher(ctx, val2, "staff")
	require.NoError(t, err)
	creditNote(t, s, 5*game.Euro)
	v, err = s.IssueVoucher(ctx, VoucherRequest{5 * game.Euro, val3, c.now().Add(time.Hour)})
	require.NoError(t, err)
	_, _, err = s.ConfirmVoucher(ctx, v.ID)
	require.NoError(t, err)
	_, err = s.RecordBillIntent(ctx, 5*game.Euro) // left pending
	require.NoError(t, err)
	require.NoError(t, s.Verify(ctx))
}

// TestVerifyDetectsCashTampering edits the cash tables behind the store's
// back and checks Verify names the check and table.
func TestVerifyDetectsCashTampering(t *testing.T) {
	template := filepath.Join(t.TempDir(), "template.db")
	cashHistory(t, template)
	cases := []struct {
		name, sql, check, table string
	}{
		{"a voucher's amount raised", `DROP TRIGGER vouchers_fixed; UPDATE vouchers SET amount = 9000 WHERE id = 3`, "chain", "vouchers"},
		{"a validation number replaced", `DROP TRIGGER vouchers_fixed; DROP TRIGGER vouchers_final; UPDATE vouchers SET validation = '999999999999999999' WHERE id = 1`, "chain", "vouchers"},
		{"a paid voucher made payable again", `DROP TRIGGER vouchers_final; DROP TRIGGER vouchers_forward; UPDATE vouchers SET state = 'printed', paid_at = NULL WHERE id = 2`, "chain", "vouchers"},
		{"a void voucher made payable", `DROP TRIGGER vouchers_final; DROP TRIGGER vouchers_forward;
			UPDATE vouchers SET state = 'printed', void_reason = '', printed_at = 1, entry_id = 1 WHERE id = 1`, "chain", "vouchers"},
		{"a voucher step removed", `DROP TRIGGER voucher_steps_no_delete; DELETE FROM voucher_steps WHERE id = (SELECT max(id) FROM voucher_steps)`, "chain", "vouchers"},
		{"a voucher step rewritten", `DROP TRIGGER voucher_steps_no_update; UPDATE voucher_steps SET detail = 'x' WHERE id = 1`, "chain", "voucher_steps"},
		{"a reprint hidden", `DROP TRIGGER vouchers_final; UPDATE vouchers SET reprints = 0 WHERE id = 2`, "chain", "vouchers"},
		{"a voucher removed", `DROP TRIGGER vouchers_no_delete; DROP TRIGGER voucher_steps_no_delete; DELETE FROM voucher_steps WHERE voucher_id = 3; DELETE FROM vouchers WHERE id = 3`, "cash", "ledger"},
		{"a credited intent made pending", `UPDATE bill_intents SET state = 'void', resolved_at = 1, reason = 'x' WHERE id = 5; DROP TRIGGER bill_intents_final;
			DROP TRIGGER bill_intents_forward; UPDATE bill_intents SET state = 'pending', entry_id = NULL, resolved_at = NULL WHERE id = 2`, "chain", "bill_intents"},
		{"an intent's note changed", `DROP TRIGGER bill_intents_fixed; DROP TRIGGER bill_intents_final; UPDATE bill_intents SET denom = 50000 WHERE id = 2`, "chain", "bill_intents"},
		{"a paid meter lowered", `DROP TRIGGER meters_forward; UPDATE meters SET value = 0 WHERE name = 'vouchers_paid'`, "meters", "meters"},
		{"a void count raised", `UPDATE meters SET value = value + 1 WHERE name = 'vouchers_void.count'`, "meters", "meters"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ie := verifyTampered(t, template, c.sql)
			assert.Equal(t, c.check, ie.Check, ie.Error())
			assert.Equal(t, c.table, ie.Table, ie.Error())
		})
	}
}

// A credit of an intent written around the intents (a bill_in row with an
// "intent:" reference, which BillIn refuses) is refused by CreditBillIntent
// and found by Verify.
func TestForeignIntentCredit(t *testing.T) {
	ctx := context.Background()
	s, _ := openCash(t)
	in, err := s.RecordBillIntent(ctx, 10*game.Euro)
	require.NoError(t, err)
	writeAround(t, s, KindBillIn, 10*game.Euro, IntentRef(in.ID))
	require.ErrorIs(t, s.Verify(ctx), ErrIntegrity)
	_, err = s.CreditBillIntent(ctx, in.ID)
	require.ErrorIs(t, err, ErrIntegrity)
	require.NotErrorIs(t, err, ErrDuplicateRef, "never taken as already credited")
	credit, err := s.Credit(ctx)
	require.NoError(t, err)
	assert.Equal(t, 10*game.Euro, credit)
}

// The schema refuses what the store never does.
func TestCashSchemaRefusesEdits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pharaon.db")
	cashHistory(t, path)
	db, err := sql.Open("sqlite3", "file:"+path+"?_foreign_keys=1")
	require.NoError(t, err)
	defer db.Close()
	for _, q := range []string{
		`INSERT INTO bill_intents(id, at, denom) VALUES (99, 0, 2000)`,                                // a gap
		`INSERT INTO bill_intents(id, at, denom) SELECT max(id) + 1, 0, 700 FROM bill_intents`,        // not a note
		`INSERT INTO bill_intents(id, at, denom) SELECT max(id) + 1, 0, 2000 FROM bill_intents`,       // a second pending
		`UPDATE bill_intents SET state = 'pending', entry_id = NULL, resolved_at = NULL WHERE id = 2`, // credited is final
		`UPDATE bill_intents SET denom = 50000 WHERE id = 5`,
		`DELETE FROM bill_intents WHERE id = 1`,
		`UPDATE vouchers SET amount = 1 WHERE id = 3`,
		`UPDATE vouchers SET state = 'printed' WHERE id = 1`, // void is final
		`UPDATE vouchers SET state = 'issued', printed_at = NULL, entry_id = NULL WHERE id = 3`,
		`UPDATE vouchers SET state = 'paid' WHERE id = 3`, // paid without a time
		`DELETE FROM vouchers WHERE id = 3`,
		`INSERT INTO vouchers(id, at, validation, amount, expires_at, prev_hash, hash, updated_at) VALUES (9, 0, '222222222222222222', 100, 10, zeroblob(32), zeroblob(32), 0)`,
		`INSERT INTO vouchers(id, at, validation, amount, expires_at, prev_hash, hash, updated_at) VALUES (4, 0, '22222222222222222x', 100, 10, zeroblob(32), zeroblob(32), 0)`,
		`INSERT INTO vouchers(id, at, validation, amount, expires_at, prev_hash, hash, updated_at) VALUES (4, 0, '123456789012345678', 100, 10, zeroblob(32), zeroblob(32), 0)`,
		`INSERT INTO vouchers(id, at, validation, amount, expires_at, prev_hash, hash, updated_at) VALUES (4, 10, '222222222222222222', 100, 10, zeroblob(32), zeroblob(32), 0)`,
		`UPDATE voucher_steps SET detail = 'x'`,
		`DELETE FROM voucher_steps`,
	} {
		_, err := db.Exec(q)
		assert.Error(t, err, q)
	}
	s, err := Open(path)
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Verify(context.Background()))
}
