package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// A test voucher takes the next number, is void from its commit, moves no
// money and no meter, and no path pays it: the payment says it is a test
// voucher, a confirmation and a duplicate are refused, and the whole
// reconciliation stays exact. A cash-out after it takes the number after.
func TestTestVoucherMovesNothing(t *testing.T) {
	ctx := context.Background()
	s, c := openCash(t)
	creditNote(t, s, 10*game.Euro)
	before, err := s.Meters(ctx)
	require.NoError(t, err)
	credit, err := s.Credit(ctx)
	require.NoError(t, err)

	tv, err := s.RecordTestVoucher(ctx, val1, c.now().Add(24*time.Hour))
	require.NoError(t, err)
	assert.Equal(t, int64(1), tv.ID, "the kiosk's numbering")
	assert.True(t, tv.Test())
	assert.Equal(t, VoucherVoid, tv.State)
	assert.Equal(t, TestVoucherReason, tv.VoidReason)
	assert.Zero(t, tv.Amount)
	assert.Zero(t, tv.EntryID)
	_, err = s.RecordTestVoucher(ctx, val1, c.now().Add(24*time.Hour))
	require.ErrorIs(t, err, ErrDuplicateRef, "a number is never used twice")

	_, err = s.PayVoucher(ctx, val1, "staff")
	require.ErrorIs(t, err, ErrVoucherTest)
	require.ErrorIs(t, err, ErrVoucherState)
	var r *VoucherRefusal
	require.True(t, errors.As(err, &r))
	assert.True(t, r.Voucher.Test())
	assert.Empty(t, r.Voucher.Validation)
	_, _, err = s.ConfirmVoucher(ctx, tv.ID)
	require.ErrorIs(t, err, ErrVoucherState, "never printed as a cash-out")
	_, err = s.VoidVoucher(ctx, tv.ID, "again")
	require.ErrorIs(t, err, ErrVoucherState)
	_, err = s.LastVoucher(ctx)
	require.ErrorIs(t, err, ErrNotFound, "no duplicate of it")
	_, err = s.PendingVoucher(ctx)
	require.ErrorIs(t, err, ErrNotFound, "nothing left to void at the next start")
	last, err := s.LastTestVoucher(ctx)
	require.NoError(t, err)
	assert.Equal(t, tv.ID, last.ID)
	byNumber, err := s.VoucherByValidation(ctx, val1)
	require.NoError(t, err)
	assert.True(t, byNumber.Test())

	after, err := s.Meters(ctx)
	require.NoError(t, err)
	assert.Equal(t, before, after, "no meter moves")
	got, err := s.Credit(ctx)
	require.NoError(t, err)
	assert.Equal(t, credit, got, "no credit moves")
	require.NoError(t, s.Verify(ctx))
	require.NoError(t, s.VerifyMeters(ctx))

	v, err := s.IssueVoucher(ctx, VoucherRequest{Amount: credit, Validation: val2, Expires: c.now().Add(24 * time.Hour)})
	require.NoError(t, err)
	assert.Equal(t, int64(2), v.ID)
	_, err = s.RecordTestVoucher(ctx, val3, c.now().Add(24*time.Hour))
	require.ErrorIs(t, err, ErrVoucherPending, "a cash-out's voucher is printing")
	_, _, err = s.ConfirmVoucher(ctx, v.ID)
	require.NoError(t, err)
	require.NoError(t, s.Verify(ctx))
	require.NoError(t, s.VerifyMeters(ctx))
}

// An insider who edits the test voucher's row behind the store (its state
// to printed with a debit row, its amount too, or a printed step added)
// does not make it payable: the voucher's hash and its steps, which every
// payment and Verify check, catch it as they would for any voucher.
func TestTestVoucherEditedIsCaught(t *testing.T) {
	ctx := context.Background()
	const drop = `DROP TRIGGER IF EXISTS vouchers_final; DROP TRIGGER IF EXISTS vouchers_forward;
		DROP TRIGGER IF EXISTS vouchers_test_void; DROP TRIGGER IF EXISTS vouchers_fixed; `
	const printed = `UPDATE vouchers SET state = 'printed', void_reason = '', entry_id = (SELECT max(id) FROM ledger),
		printed_at = at WHERE id = 1`
	for _, tc := range []struct{ name, sql string }{
		{"its state made printed", drop + printed},
		{"its state made printed and an amount given", drop + printed + `; UPDATE vouchers SET amount = 500 WHERE id = 1`},
		{"a printed step appended, its hash recomputed", drop + printed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClock()
			path := filepath.Join(t.TempDir(), "pharaon.db")
			s, err := Open(path, WithClock(c.now))
			require.NoError(t, err)
			creditNote(t, s, 5*game.Euro)
			_, err = s.RecordTestVoucher(ctx, val1, c.now().Add(24*time.Hour))
			require.NoError(t, err)
			require.NoError(t, s.Close())

			tamper(t, path, tc.sql)
			if strings.Contains(tc.name, "step appended") {
				appendStep(t, path, voucherStepRow{voucherID: 1, at: c.now().UnixNano(), state: string(VoucherPrinted), entryID: 1})
			}
			s, err = Open(path, WithClock(c.now))
			require.NoError(t, err)
			defer s.Close()
			_, err = s.PayVoucher(ctx, val1, "staff")
			require.Error(t, err)
			t.Logf("refused: %v", err)
			assert.True(t, errors.Is(err, ErrIntegrity) || errors.Is(err, ErrVoucherTest), "refused: %v", err)
			assert.NotErrorIs(t, err, ErrVoucherPaid)
			verr := s.VerifyCash(ctx)
			require.ErrorIs(t, verr, ErrIntegrity)
			assert.Contains(t, verr.Error(), "voucher")
		})
	}
}

// appendStep appends s to the voucher steps' chain of the database at
// path behind the store, with the hashes the store would write.
func appendStep(t *testing.T, path string, s voucherStepRow) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_foreign_keys=0")
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.QueryRow(`SELECT id + 1, hash FROM voucher_steps ORDER BY id DESC LIMIT 1`).Scan(&s.id, &s.prevHash))
	s.hash = voucherStepHash(s.prevHash, &s)
	_, err = db.Exec(`INSERT INTO voucher_steps(id, voucher_id, at, state, entry_id, detail, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		s.id, s.voucherID, s.at, s.state, s.entryID, s.detail, s.prevHash, s.hash)
	require.NoError(t, err)
}
