package tpm_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"pharaon/hw/tpm"
	"pharaon/hw/tpm/tpmtest"
)

func open(t *testing.T, e *tpmtest.Emulator) *tpm.Device {
	t.Helper()
	d, err := tpm.Open(e.Socket)
	require.NoError(t, err)
	t.Cleanup(func() { d.Close() })
	return d
}

func TestCounterOnlyGoesUp(t *testing.T) {
	e := tpmtest.Start(t)
	d := open(t, e)
	const idx = tpm.DefaultCounterIndex

	_, err := d.Counter(idx)
	require.ErrorIs(t, err, tpm.ErrNoCounter)

	require.NoError(t, d.DefineCounter(idx))
	require.Error(t, d.DefineCounter(idx), "a second definition must be refused")
	zero, err := d.Counter(idx)
	require.NoError(t, err)
	require.Zero(t, zero, "a counter that never counted reads 0")
	v0, err := d.Increment(idx)
	require.NoError(t, err)
	require.NotZero(t, v0)

	v1, err := d.Increment(idx)
	require.NoError(t, err)
	require.Equal(t, v0+1, v1)
	got, err := d.Counter(idx)
	require.NoError(t, err)
	require.Equal(t, v1, got)

	// A reboot keeps it.
	d.Close()
	e.Restart(t)
	d = open(t, e)
	got, err = d.Counter(idx)
	require.NoError(t, err)
	require.Equal(t, v1, got)

	// Undefined and defined again, it does not start below where it was:
	// deleting the counter does not set it back.
	require.NoError(t, d.DeleteCounter(idx))
	_, err = d.Counter(idx)
	require.ErrorIs(t, err, tpm.ErrNoCounter)
	require.NoError(t, d.DefineCounter(idx))
	again, err := d.Increment(idx)
	require.NoError(t, err)
	require.Greater(t, again, v1)
}

func TestSealOnlyThisTPMUnseals(t *testing.T) {
	e := tpmtest.Start(t)
	d := open(t, e)
	secret := bytes.Repeat([]byte{0x5a}, 32)
	blob, err := d.Seal(secret)
	require.NoError(t, err)
	require.False(t, bytes.Contains(blob, secret), "the blob must not hold the secret in clear")

	got, err := d.Unseal(blob)
	require.NoError(t, err)
	require.Equal(t, secret, got)

	// After a reboot too.
	d.Close()
	e.Restart(t)
	d = open(t, e)
	got, err = d.Unseal(blob)
	require.NoError(t, err)
	require.Equal(t, secret, got)

	// Another machine's TPM cannot.
	other := open(t, tpmtest.Start(t))
	_, err = other.Unseal(blob)
	require.ErrorIs(t, err, tpm.ErrUnseal)

	// A damaged blob is refused, not a panic.
	for _, bad := range [][]byte{nil, blob[:10], blob[:len(blob)-1], append(bytes.Clone(blob), 0)} {
		_, err = d.Unseal(bad)
		require.ErrorIs(t, err, tpm.ErrUnseal)
	}
	flipped := bytes.Clone(blob)
	flipped[len(flipped)-5] ^= 1
	_, err = d.Unseal(flipped)
	require.ErrorIs(t, err, tpm.ErrUnseal)
}

func TestOpenWithoutTPM(t *testing.T) {
	_, err := tpm.Open(filepath.Join(t.TempDir(), "tpmrm0"))
	require.ErrorIs(t, err, tpm.ErrNoTPM)
	f := filepath.Join(t.TempDir(), "plain")
	require.NoError(t, os.WriteFile(f, nil, 0o600))
	_, err = tpm.Open(f)
	require.True(t, errors.Is(err, tpm.ErrNoTPM))
}
