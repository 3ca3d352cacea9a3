package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// The totals of a period count only the rows dated in it: a note of the
// day before and one of the day after are left out; a test movement is a
// kind of its own, apart from the notes.
func TestTotalsBetween(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	s := openTest(t, WithClock(c.now))
	note := 0
	in := func(denom game.Money) {
		note++
		_, err := s.BillIn(ctx, denom, fmt.Sprint("note-", note))
		require.NoError(t, err)
	}
	in(50 * game.Euro) // the day before
	c.advance(24 * time.Hour)
	from := c.now()
	in(5 * game.Euro)
	in(20 * game.Euro)
	in(20 * game.Euro)
	_, err := s.TestModeMovement(ctx, 10*game.Euro, "", "test")
	require.NoError(t, err)
	_, err = s.Collect(ctx, "staff")
	require.NoError(t, err)
	to := c.now()
	c.advance(time.Hour)
	in(10 * game.Euro) // after

	tot, err := s.TotalsBetween(ctx, from, to)
	require.NoError(t, err)
	assert.Equal(t, int64(3), tot.Count[KindBillIn])
	assert.Equal(t, 45*game.Euro, tot.Amount[KindBillIn])
	assert.Equal(t, map[game.Money]int64{5 * game.Euro: 1, 20 * game.Euro: 2}, tot.Notes)
	assert.Equal(t, int64(1), tot.Count[KindTest])
	assert.Equal(t, int64(1), tot.Collections)
	assert.Equal(t, 95*game.Euro, tot.CollectedCash, "the collection took the note of the day before too")

	_, err = s.TotalsBetween(ctx, to, from)
	require.ErrorIs(t, err, ErrBadRequest)
}

// The vouchers paid at the counter in a period are counted from their
// payment, not their print: one printed the day before and paid in the
// period counts, one paid the day after does not; the sums are the paid
// meters' growth over the period.
func TestTotalsCountTheVouchersPaidInThePeriod(t *testing.T) {
	ctx := context.Background()
	s, clk := openCash(t)
	printed := func(amount game.Money, validation string) {
		t.Helper()
		creditNote(t, s, amount)
		v, err := s.IssueVoucher(ctx, VoucherRequest{Amount: amount, Validation: validation, Expires: clk.now().Add(72 * time.Hour)})
		require.NoError(t, err)
		_, _, err = s.ConfirmVoucher(ctx, v.ID)
		require.NoError(t, err)
	}
	pay := func(validation string) {
		t.Helper()
		_, err := s.PayVoucher(ctx, validation, "staff")
		require.NoError(t, err)
	}
	printed(20*game.Euro, val1)
	printed(5*game.Euro, val2)
	printed(50*game.Euro, val3)
	pay(val2) // the day before
	clk.advance(24 * time.Hour)
	from := clk.now()
	before, err := s.Meters(ctx)
	require.NoError(t, err)
	pay(val1)
	to := clk.now()
	after, err := s.Meters(ctx)
	require.NoError(t, err)
	clk.advance(time.Hour)
	pay(val3) // after

	tot, err := s.TotalsBetween(ctx, from, to)
	require.NoError(t, err)
	assert.Equal(t, int64(1), tot.VouchersPaid)
	assert.Equal(t, 20*game.Euro, tot.VouchersPaidAmount)
	assert.Equal(t, after.Get(MeterVouchersPaidCount)-before.Get(MeterVouchersPaidCount), tot.VouchersPaid)
	assert.Equal(t, after.Get(MeterVouchersPaid)-before.Get(MeterVouchersPaid), int64(tot.VouchersPaidAmount))
	assert.Zero(t, tot.Count[KindVoucherOut], "printed the day before")
}
