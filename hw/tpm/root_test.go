package tpm_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"pharaon/hw/tpm"
	"pharaon/hw/tpm/tpmtest"
)

// TestRootStates walks the states a trust root can be left in (Root's
// table): every cut of a first start is taken up again, and nothing else
// is made anew.
func TestRootStates(t *testing.T) {
	const idx = tpm.DefaultCounterIndex
	e := tpmtest.Start(t)
	d := open(t, e)
	dir := t.TempDir()

	r, err := tpm.OpenRoot(d, dir, idx)
	require.NoError(t, err)
	secret := r.Secret()
	require.Len(t, secret, 32)
	c, err := r.Counter()
	require.NoError(t, err)
	require.Zero(t, c, "a new trust root never counted")
	fi, err := os.Stat(filepath.Join(dir, tpm.SealedFile))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	// Opened again before its first count: the same secret, still new.
	r, err = tpm.OpenRoot(d, dir, idx)
	require.NoError(t, err)
	require.Equal(t, secret, r.Secret())

	// A cut after the definition, before the blob: sealed now.
	require.NoError(t, os.Remove(filepath.Join(dir, tpm.SealedFile)))
	r, err = tpm.OpenRoot(d, dir, idx)
	require.NoError(t, err)
	secret = r.Secret()

	// Counted: the kiosk ran. The blob removed is refused, not made anew.
	v, err := r.Increment()
	require.NoError(t, err)
	require.NotZero(t, v)
	blob, err := os.ReadFile(filepath.Join(dir, tpm.SealedFile))
	require.NoError(t, err)
	require.NoError(t, os.Remove(filepath.Join(dir, tpm.SealedFile)))
	_, err = tpm.OpenRoot(d, dir, idx)
	require.ErrorIs(t, err, tpm.ErrRootIncomplete)
	_, err = os.Stat(filepath.Join(dir, tpm.SealedFile))
	require.ErrorIs(t, err, os.ErrNotExist, "nothing made anew")

	// Put back, it opens with the same secret and count, after a reboot.
	require.NoError(t, os.WriteFile(filepath.Join(dir, tpm.SealedFile), blob, 0o600))
	d.Close()
	e.Restart(t)
	d = open(t, e)
	r, err = tpm.OpenRoot(d, dir, idx)
	require.NoError(t, err)
	require.Equal(t, secret, r.Secret())
	got, err := r.Counter()
	require.NoError(t, err)
	require.Equal(t, v, got)

	// The counter gone (a cleared TPM) with the blob here: refused.
	require.NoError(t, d.DeleteCounter(idx))
	_, err = tpm.OpenRoot(d, dir, idx)
	require.ErrorIs(t, err, tpm.ErrRootIncomplete)

	// The blob on another machine's TPM: refused.
	other := open(t, tpmtest.Start(t))
	require.NoError(t, other.DefineCounter(idx))
	_, err = other.Increment(idx)
	require.NoError(t, err)
	_, err = tpm.OpenRoot(other, dir, idx)
	require.ErrorIs(t, err, tpm.ErrUnseal)
}
