package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"pharaon/hw/tpm"
	"pharaon/store"
)

// anchorConfig is where the database's chain heads are anchored and what
// they rest on (DESIGN.md §4): the anchor file (by default beside the
// database) and the trust root, off the data partition: the TPM's (its
// sealed secret in TrustDir) or, without a TPM, the files in TrustDir. The
// trust root is opened here and closed with the store.
func anchorConfig(c Config) (store.AnchorConfig, error) {
	a := store.DefaultAnchor(c.DB)
	if c.Anchor != "" {
		a.Path = c.Anchor
	}
	a.TrustDir = c.trustDir()
	dev := c.TPM
	if dev == "" {
		dev = tpm.DefaultPath
	}
	useTPM := false
	switch c.Trust {
	case "tpm":
		useTPM = true
	case "files":
	default:
		useTPM = autoTPM(a.TrustDir, dev)
	}
	if !useTPM {
		return a, nil
	}
	if err := os.MkdirAll(a.TrustDir, 0o700); err != nil {
		return a, fmt.Errorf("trust root %s: %w: %w", a.TrustDir, err, store.ErrTrust)
	}
	r, err := tpm.OpenRootAt(dev, a.TrustDir, tpm.DefaultCounterIndex)
	if err != nil {
		return a, fmt.Errorf("%w: %w", err, store.ErrTrust)
	}
	a.Trust = r
	return a, nil
}

// autoTPM is trust = auto's choice. A kiosk's first start takes the TPM when
// there is one; from then on the trust root keeps its kind for the kiosk's
// life, as its directory says (the secret sealed to the TPM, or the files'
// secret), whatever the firmware shows: a TPM turned on later (a firmware
// update may do it) must not give a kiosk on files a new, empty trust root
// under its history, and a kiosk on its TPM whose TPM is gone is told so,
// never given files.
func autoTPM(dir, dev string) bool {
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	switch {
	case exists(filepath.Join(dir, tpm.SealedFile)):
		return true
	case exists(filepath.Join(dir, store.TrustSecretFile)):
		return false
	}
	return exists(dev)
}

// trustDir is the trust root's directory: the configured one, else the
// first-install marker's (which must not be on the data partition either),
// else the database's (a development run).
func (c Config) trustDir() string {
	switch {
	case c.TrustDir != "":
		return c.TrustDir
	case c.Installed != "":
		return filepath.Dir(c.Installed)
	}
	return filepath.Dir(c.DB)
}

// trustLine says at start what the trust root is: a kiosk without a TPM
// says what it then does not see.
func trustLine(st *store.Store) string {
	what, isTPM := st.Trust()
	if isTPM {
		return "trust root: " + what
	}
	return "trust root: no TPM (" + what + "): the data partition put back to an earlier copy is seen, " +
		"the whole disk put back with the trust root's files is not (a fleet's centre sees it)"
}

// trustFailure is the start-up failure of a trust root that cannot be
// opened: the anchor's fault, its reason on the screen and stderr.
func trustFailure(err error) *startError {
	if !errors.Is(err, store.ErrTrust) {
		err = fmt.Errorf("%w: %w", err, store.ErrTrust)
	}
	return storeFailure(fmt.Errorf("%w: %w", err, store.ErrAnchor))
}
