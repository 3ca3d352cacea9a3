package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/hw/tpm"
	"pharaon/hw/tpm/tpmtest"
)

// A kiosk's disks as the rollback tests see them: the data partition
// (the database and its anchor) and, apart from it, the trust root.
type kioskDisks struct {
	data, trustDir string
	trust          TrustRoot // nil: the files trust root in trustDir
}

func (k kioskDisks) db() string { return filepath.Join(k.data, "pharaon.db") }

func (k kioskDisks) anchor() AnchorConfig {
	return AnchorConfig{Trust: k.trust, TrustDir: k.trustDir, Path: filepath.Join(k.data, "pharaon.anchor")}
}

func (k kioskDisks) open(t *testing.T, clk *clock) *Store {
	t.Helper()
	s, err := Open(k.db(), WithClock(clk.now), WithAnchor(k.anchor()))
	require.NoError(t, err)
	return s
}

// copyDir copies the regular files of a directory (a partition's image).
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	ents, err := os.ReadDir(from)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(to, 0o700))
	for _, e := range ents {
		if e.Type().IsRegular() {
			copyFile(t, filepath.Join(from, e.Name()), filepath.Join(to, e.Name()))
		}
	}
}

// putBack replaces the directory dir by the copy saved.
func putBack(t *testing.T, saved, dir string) {
	t.Helper()
	require.NoError(t, os.RemoveAll(dir))
	copyDir(t, saved, dir)
}

// paidVoucherKiosk makes a kiosk with a printed voucher not paid yet, stopped.
func paidVoucherKiosk(t *testing.T, k kioskDisks, clk *clock) string {
	t.Helper()
	ctx := context.Background()
	s := k.open(t, clk)
	defer s.Close()
	_, err := s.BillIn(ctx, 50*game.Euro, "note-1")
	require.NoError(t, err)
	v, err := s.IssueVoucher(ctx, VoucherRequest{Amount: 50 * game.Euro, Validation: "123456789012345678", Expires: clk.now().Add(48 * time.Hour)})
	require.NoError(t, err)
	_, _, err = s.ConfirmVoucher(ctx, v.ID)
	require.NoError(t, err)
	return v.Validation
}

// TestRollbackAndPayAgain is the insider's attack on a payout: a copy of
// the data partition taken before a voucher is paid, put back after the
// payout, to have it paid a second time. The trust root, off the data
// partition, has counted the start and the payout since: the kiosk comes
// up with the fault ErrRollback and pays nothing. Made to look never
// anchored (the anchor removed), it is a fault too, never anchored afresh.
func TestRollbackAndPayAgain(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	k := kioskDisks{data: t.TempDir(), trustDir: t.TempDir()}
	number := paidVoucherKiosk(t, k, clk)
	saved := filepath.Join(t.TempDir(), "data")
	copyDir(t, k.data, saved) // the disk out of the stopped kiosk, copied

	s := k.open(t, clk)
	_, err := s.PayVoucher(ctx, number, "staff")
	require.NoError(t, err)
	require.NoError(t, s.Close())

	putBack(t, saved, k.data)
	s = k.open(t, clk)
	err = s.AnchorErr()
	require.ErrorIs(t, err, ErrRollback)
	require.ErrorIs(t, err, ErrAnchor)
	assert.Contains(t, err.Error(), "put back to an earlier copy")
	_, err = s.PayVoucher(ctx, number, "staff")
	require.ErrorIs(t, err, ErrRollback, "paid twice")
	require.NoError(t, s.Close())

	t.Run("made to look never anchored", func(t *testing.T) {
		putBack(t, saved, k.data)
		require.NoError(t, os.Remove(filepath.Join(k.data, "pharaon.anchor")))
		tamper(t, k.db(), `DELETE FROM meta WHERE key = 'anchored'`)
		s := k.open(t, clk)
		defer s.Close()
		require.ErrorIs(t, s.AnchorErr(), ErrAnchor)
		_, err := s.PayVoucher(ctx, number, "staff")
		require.ErrorIs(t, err, ErrAnchor)
		_, err = os.Stat(filepath.Join(k.data, "pharaon.anchor"))
		require.ErrorIs(t, err, os.ErrNotExist, "not anchored afresh")
	})
}

// TestRollbackOfTheWholeDiskWithATPM: with the secret sealed to a TPM and
// the counter in it, even the whole disk put back (the data partition and
// the trust root's directory with the sealed secret) is caught: the
// counter is in the TPM, which no disk sets back.
func TestRollbackOfTheWholeDiskWithATPM(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	e := tpmtest.Start(t)
	dev, err := tpm.Open(e.Socket)
	require.NoError(t, err)
	defer dev.Close()
	disk := t.TempDir()
	k := kioskDisks{data: filepath.Join(disk, "data"), trustDir: filepath.Join(disk, "trust")}
	require.NoError(t, os.MkdirAll(k.data, 0o700))
	root := func() TrustRoot {
		r, err := tpm.OpenRoot(dev, k.trustDir, tpm.DefaultCounterIndex)
		require.NoError(t, err)
		return r
	}
	k.trust = root()
	number := paidVoucherKiosk(t, k, clk)
	saved := filepath.Join(t.TempDir(), "disk")
	copyDir(t, k.data, filepath.Join(saved, "data"))
	copyDir(t, k.trustDir, filepath.Join(saved, "trust"))

	s := k.open(t, clk)
	what, isTPM := s.Trust()
	assert.True(t, isTPM)
	assert.Contains(t, what, "TPM 2.0")
	_, err = s.PayVoucher(ctx, number, "staff")
	require.NoError(t, err)
	require.NoError(t, s.Close())

	putBack(t, filepath.Join(saved, "data"), k.data)
	putBack(t, filepath.Join(saved, "trust"), k.trustDir)
	k.trust = root()
	s = k.open(t, clk)
	defer s.Close()
	require.ErrorIs(t, s.AnchorErr(), ErrRollback)
	_, err = s.PayVoucher(ctx, number, "staff")
	require.ErrorIs(t, err, ErrRollback)
}

// TestRollbackNeedsAWholeCopyWithoutTPM is the limit the technician's
// guide states for a kiosk without a TPM: the data partition and the trust
// root's directory put back together are a consistent pair (the counter
// is a file). The test pins the limit down, so that a change that closes
// it, or one that makes the data partition alone enough, shows.
func TestRollbackNeedsAWholeCopyWithoutTPM(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	k := kioskDisks{data: t.TempDir(), trustDir: t.TempDir()}
	number := paidVoucherKiosk(t, k, clk)
	saved := t.TempDir()
	copyDir(t, k.data, filepath.Join(saved, "data"))
	copyDir(t, k.trustDir, filepath.Join(saved, "trust"))
	s := k.open(t, clk)
	_, err := s.PayVoucher(ctx, number, "staff")
	require.NoError(t, err)
	require.NoError(t, s.Close())
	putBack(t, filepath.Join(saved, "data"), k.data)
	putBack(t, filepath.Join(saved, "trust"), k.trustDir)
	s = k.open(t, clk)
	defer s.Close()
	require.NoError(t, s.AnchorErr(), "without a TPM, the whole disk put back is not seen by the kiosk itself")
}

// TestCounterPace: every start counts the trust root; a transaction moving
// money out counts it at most once per pace (the TPM's NV memory wears);
// plays and notes never count; a clock set back counts at once.
func TestCounterPace(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	k := kioskDisks{data: t.TempDir(), trustDir: t.TempDir()}
	a := k.anchor()
	a.Pace = 10 * time.Minute
	s, err := Open(k.db(), WithClock(clk.now), WithAnchor(a))
	require.NoError(t, err)
	defer s.Close()
	tr, err := OpenFileTrust(k.trustDir)
	require.NoError(t, err)
	count := func() uint64 {
		t.Helper()
		c, err := tr.Counter()
		require.NoError(t, err)
		return c
	}
	start := count()
	require.NotZero(t, start, "the first start counted")

	_, err = s.BillIn(ctx, 100*game.Euro, "n1")
	require.NoError(t, err)
	_, err = s.Log(ctx, Event{Level: LevelInfo, Source: "test", Code: "x"})
	require.NoError(t, err)
	assert.Equal(t, start, count(), "a note and an event do not count")

	// The first money out within the pace of the start: no count.
	_, err = s.HandPay(ctx, 10*game.Euro, "hp-1")
	require.NoError(t, err)
	assert.Equal(t, start, count())
	clk.advance(10 * time.Minute)
	_, err = s.HandPay(ctx, 10*game.Euro, "hp-2")
	require.NoError(t, err)
	assert.Equal(t, start+1, count(), "a hand-pay after the pace counts")
	_, err = s.Collect(ctx, "staff")
	require.NoError(t, err)
	assert.Equal(t, start+1, count(), "within the pace")
	clk.advance(-time.Hour)
	_, err = s.HandPay(ctx, 10*game.Euro, "hp-3")
	require.NoError(t, err)
	assert.Equal(t, start+2, count(), "a clock set back counts at once")
	h, err := s.Anchor()
	require.NoError(t, err)
	assert.Equal(t, start+2, h.Counter, "the anchor carries the count")
}
