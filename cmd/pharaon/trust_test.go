package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/hw/tpm"
	"pharaon/hw/tpm/tpmtest"
	"pharaon/store"
)

// trust = auto chooses the TPM at a kiosk's first start only: from then on
// the trust root keeps its kind, whatever the firmware shows. A kiosk on
// files whose TPM shows later (a firmware update turned it on) keeps its
// files, and its TPM is left alone: a new trust root under its history
// would put it out of service. A kiosk on its TPM whose TPM is gone is
// refused, saying so, never given files.
func TestTrustAutoKeepsItsKind(t *testing.T) {
	emu := tpmtest.Start(t)
	closeTrust := func(a store.AnchorConfig) {
		if c, ok := a.Trust.(io.Closer); ok {
			require.NoError(t, c.Close())
		}
	}

	// A new kiosk with a TPM rests on it.
	onTPM := t.TempDir()
	a, err := anchorConfig(Config{DB: filepath.Join(t.TempDir(), "pharaon.db"), TrustDir: onTPM, TPM: emu.Socket})
	require.NoError(t, err)
	require.IsType(t, &tpm.Root{}, a.Trust)
	_, err = a.Trust.Increment()
	require.NoError(t, err)
	closeTrust(a)

	// Its TPM gone: refused, never files.
	_, err = anchorConfig(Config{DB: filepath.Join(t.TempDir(), "pharaon.db"), TrustDir: onTPM, TPM: filepath.Join(onTPM, "no-tpm")})
	require.ErrorIs(t, err, store.ErrTrust)
	assert.Contains(t, err.Error(), "no TPM")
	assert.NoFileExists(t, filepath.Join(onTPM, "trust.secret"), "no files trust root made beside the sealed secret")

	// A kiosk on files (first started without a TPM), then a TPM shows.
	other := tpmtest.Start(t)
	onFiles := t.TempDir()
	ft, err := store.OpenFileTrust(onFiles)
	require.NoError(t, err)
	_, err = ft.Increment()
	require.NoError(t, err)
	a, err = anchorConfig(Config{DB: filepath.Join(t.TempDir(), "pharaon.db"), TrustDir: onFiles, TPM: other.Socket})
	require.NoError(t, err)
	assert.Nil(t, a.Trust, "the files it started on")
	closeTrust(a)
	assert.NoFileExists(t, filepath.Join(onFiles, tpm.SealedFile), "no secret sealed to the new TPM")
	dev, err := tpm.Open(other.Socket)
	require.NoError(t, err)
	defer dev.Close()
	_, err = dev.Counter(tpm.DefaultCounterIndex)
	assert.ErrorIs(t, err, tpm.ErrNoCounter, "the TPM left as it was")

	// Without a TPM at all, a new kiosk rests on files.
	a, err = anchorConfig(Config{DB: filepath.Join(t.TempDir(), "pharaon.db"), TrustDir: t.TempDir(), TPM: filepath.Join(onFiles, "no-tpm")})
	require.NoError(t, err)
	assert.Nil(t, a.Trust)
	_, err = os.Stat(filepath.Join(onFiles, "no-tpm"))
	require.ErrorIs(t, err, os.ErrNotExist)
}
