package store

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

func TestCashMovements(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	type step struct {
		name    string
		do      func() (Entry, error)
		kind    Kind
		amount  game.Money
		balance game.Money
	}
	steps := []step{
		{"bill 20 €", func() (Entry, error) { return s.BillIn(ctx, 20*game.Euro, "seq-1") }, KindBillIn, 20 * game.Euro, 20 * game.Euro},
		{"bill 5 €", func() (Entry, error) { return s.BillIn(ctx, 5*game.Euro, "seq-2") }, KindBillIn, 5 * game.Euro, 25 * game.Euro},
		{"bill 20 € again", func() (Entry, error) { return s.BillIn(ctx, 20*game.Euro, "seq-3") }, KindBillIn, 20 * game.Euro, 45 * game.Euro},
		{"adjust down", func() (Entry, error) { return s.Adjust(ctx, -250, "", "jammed note refunded by hand") }, KindAdjustment, -250, 4250},
		{"test credit", func() (Entry, error) { return s.TestModeMovement(ctx, 1000, "t-1", "validator test") }, KindTest, 1000, 5250},
		{"test debit", func() (Entry, error) { return s.TestModeMovement(ctx, -1000, "t-2", "validator test") }, KindTest, -1000, 4250},
		{"hand pay", func() (Entry, error) { return s.HandPay(ctx, 40*game.Euro, "hp-1") }, KindHandPay, -40 * game.Euro, 250},
		{"voucher", func() (Entry, error) { return s.VoucherOut(ctx, 250, "V000001") }, KindVoucherOut, -250, 0},
	}
	var last int64
	for _, st := range steps {
		e, err := st.do()
		require.NoError(t, err, st.name)
		assert.Equal(t, last+1, e.ID, st.name)
		assert.Equal(t, st.kind, e.Kind, st.name)
		assert.Equal(t, st.amount, e.Amount, st.name)
		assert.Equal(t, st.balance, e.Balance, st.name)
		c, err := s.Credit(ctx)
		require.NoError(t, err)
		assert.Equal(t, st.balance, c, st.name)
		last = e.ID
	}
	m, err := s.Meters(ctx)
	require.NoError(t, err)
	assert.Equal(t, Meters{
		MeterBillsIn: 4500, MeterBillsInCount: 3, NoteMeter(2000): 2, NoteMeter(500): 1,
		MeterAdjustOut: 250, MeterAdjustCount: 1,
		MeterTestIn: 1000, MeterTestOut: 1000, MeterTestCount: 2,
		MeterHandPays: 4000, MeterHandPaysCount: 1,
		MeterVouchersOut: 250, MeterVouchersOutCount: 1,
	}, m)
	entries, err := s.Entries(ctx, 3, 0)
	require.NoError(t, err)
	require.Len(t, entries, 3)
	assert.Equal(t, []Kind{KindVoucherOut, KindHandPay, KindTest}, []Kind{entries[0].Kind, entries[1].Kind, entries[2].Kind})
	assert.Equal(t, "V000001", entries[0].Ref)
	older, err := s.Entries(ctx, 10, entries[2].ID)
	require.NoError(t, err)
	assert.Len(t, older, 5)
	require.NoError(t, s.Verify(ctx))
}

func TestCashMovementsRefuse(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		do   func(s *Store) (Entry, error)
		want error
	}{
		{"bill of 7 €", func(s *Store) (Entry, error) { return s.BillIn(ctx, 7*game.Euro, "x") }, ErrBadAmount},
		{"bill of 0", func(s *Store) (Entry, error) { return s.BillIn(ctx, 0, "x") }, ErrBadAmount},
		{"bill without reference", func(s *Store) (Entry, error) { return s.BillIn(ctx, 10*game.Euro, "") }, ErrBadRequest},
		{"same bill twice", func(s *Store) (Entry, error) { return s.BillIn(ctx, 50*game.Euro, "seq-1") }, ErrDuplicateRef},
		{"same note sequence, other amount", func(s *Store) (Entry, error) { return s.BillIn(ctx, 10*game.Euro, "seq-1") }, ErrDuplicateRef},
		{"voucher above the credit", func(s *Store) (Entry, error) { return s.VoucherOut(ctx, 50*game.Euro+1, "V2") }, ErrInsufficientCredit},
		{"voucher of nothing", func(s *Store) (Entry, error) { return s.VoucherOut(ctx, 0, "V2") }, ErrBadAmount},
		{"voucher printed twice", func(s *Store) (Entry, error) { return s.VoucherOut(ctx, 100, "V1") }, ErrDuplicateRef},
		{"voucher without number", func(s *Store) (Entry, error) { return s.VoucherOut(ctx, 100, "") }, ErrBadRequest},
		{"bill with an intent's reference", func(s *Store) (Entry, error) { return s.BillIn(ctx, 10*game.Euro, IntentRef(1)) }, ErrBadRequest},
		{"bill with an intent's reference in capitals", func(s *Store) (Entry, error) { return s.BillIn(ctx, 10*game.Euro, "INTENT:7") }, ErrBadRequest},
		{"voucher with a validation number", func(s *Store) (Entry, error) { return s.VoucherOut(ctx, 100, "123456789012345678") }, ErrBadRequest},
		{"negative hand pay", func(s *Store) (Entry, error) { return s.HandPay(ctx, -5, "h") }, ErrBadAmount},
		{"hand pay above the credit", func(s *Store) (Entry, error) { return s.HandPay(ctx, 60*game.Euro, "h") }, ErrInsufficientCredit},
		{"hand pay without reference", func(s *Store) (Entry, error) { return s.HandPay(ctx, 5*game.Euro, "") }, ErrBadRequest},
		{"adjustment without reason", func(s *Store) (Entry, error) { return s.Adjust(ctx, 100, "", "") }, ErrBadRequest},
		{"adjustment below zero", func(s *Store) (Entry, error) { return s.Adjust(ctx, -60*game.Euro, "", "oops") }, ErrInsufficientCredit},
		{"zero adjustment", func(s *Store) (Entry, error) { return s.Adjust(ctx, 0, "", "nothing") }, ErrBadAmount},
		{"zero test movement", func(s *Store) (Entry, error) { return s.TestModeMovement(ctx, 0, "", "") }, ErrBadAmount},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := openTest(t)
			first, err := s.BillIn(ctx, 50*game.Euro, "seq-1")
			require.NoError(t, err)
			_, err = s.VoucherOut(ctx, 100, "V1")
			require.NoError(t, err)
			before := counts(t, s)
			e, err := c.do(s)
			assert.ErrorIs(t, err, c.want)
			if c.want == ErrDuplicateRef && e.Kind == KindBillIn {
				assert.Equal(t, first, e, "the first movement is returned")
			}
			assert.Equal(t, before, counts(t, s), "nothing written")
		})
	}
}

// The same reference under two kinds is two movements: a voucher number
// may equal a note sequence.
func TestRefIsPerKind(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	_, err := s.BillIn(ctx, 10*game.Euro, "42")
	require.NoError(t, err)
	_, err = s.VoucherOut(ctx, 10*game.Euro, "42")
	require.NoError(t, err)
	require.NoError(t, s.Verify(ctx))
}
