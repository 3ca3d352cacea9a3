package tpm

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Root is a kiosk's trust root in a TPM (DESIGN.md §4): its secret sealed
// to the TPM, the blob kept in a file of a directory of the root file
// system, and its counter an NV counter of the TPM. It is what the store
// takes as its TrustRoot.
//
// The kiosk's first start defines the counter, never counted, then seals
// a new secret and writes the blob: a counter that never counted is a new
// kiosk. Every state a cut can leave is taken up again; any other state is
// refused, never made anew:
//
//	counter   blob     means
//	none      none     a new kiosk: define, seal
//	0         none     a first start cut after the definition: seal
//	0         blob     a first start cut before its first count: a new kiosk
//	counted   blob     a kiosk that ran: unseal
//	counted   none     the blob was removed: ErrTrust-like refusal
//	none      blob     the TPM was cleared or is another machine's: refused
type Root struct {
	dev    *Device
	owned  bool // OpenRootAt opened dev: Close closes it
	index  uint32
	blob   string
	secret []byte
}

// SealedFile is the name of the sealed secret in the trust root's
// directory.
const SealedFile = "secret.sealed"

// secretSize is the kiosk's secret's size (the store's keySize).
const secretSize = 32

// ErrRootIncomplete: the TPM and the directory do not hold one whole trust
// root (see Root).
var ErrRootIncomplete = errors.New("the TPM trust root is incomplete")

// OpenRoot opens the trust root of dev's counter at index with its sealed
// secret in dir, making it at a kiosk's first start.
func OpenRoot(dev *Device, dir string, index uint32) (*Root, error) {
	r := &Root{dev: dev, index: index, blob: filepath.Join(dir, SealedFile)}
	blob, err := os.ReadFile(r.blob)
	haveBlob := err == nil
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("trust root %s: %w", r.blob, err)
	}
	counter, err := dev.Counter(index)
	switch {
	case errors.Is(err, ErrNoCounter) && haveBlob:
		return nil, fmt.Errorf("the TPM %s holds no counter at %#08x while the sealed secret %s is here: the TPM was cleared or is another machine's: %w",
			dev.Path(), index, r.blob, ErrRootIncomplete)
	case errors.Is(err, ErrNoCounter):
		if err := dev.DefineCounter(index); err != nil {
			return nil, err
		}
		counter = 0
	case err != nil:
		return nil, err
	}
	switch {
	case haveBlob:
		if r.secret, err = dev.Unseal(blob); err != nil {
			return nil, fmt.Errorf("trust root %s: %w", r.blob, err)
		}
		if len(r.secret) != secretSize {
			return nil, fmt.Errorf("trust root %s: a secret of %d bytes: %w", r.blob, len(r.secret), ErrRootIncomplete)
		}
	case counter != 0:
		return nil, fmt.Errorf("the sealed secret %s is missing, while the TPM's counter at %#08x has counted to %d: %w",
			r.blob, index, counter, ErrRootIncomplete)
	default:
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("trust root %s: %w", dir, err)
		}
		secret := make([]byte, secretSize)
		if _, err := rand.Read(secret); err != nil {
			return nil, fmt.Errorf("trust root: secret: %w", err)
		}
		sealed, err := dev.Seal(secret)
		if err != nil {
			return nil, err
		}
		if err := writeSynced(r.blob, sealed); err != nil {
			return nil, fmt.Errorf("trust root %s: %w", r.blob, err)
		}
		r.secret = secret
	}
	return r, nil
}

// OpenRootAt opens the TPM at path and the trust root in it (OpenRoot);
// Close closes the TPM.
func OpenRootAt(path, dir string, index uint32) (*Root, error) {
	dev, err := Open(path)
	if err != nil {
		return nil, err
	}
	r, err := OpenRoot(dev, dir, index)
	if err != nil {
		dev.Close()
		return nil, err
	}
	r.owned = true
	return r, nil
}

// Close closes the TPM if OpenRootAt opened it.
func (r *Root) Close() error {
	if r.owned {
		return r.dev.Close()
	}
	return nil
}

// Secret is the kiosk's secret, as the TPM unsealed it.
func (r *Root) Secret() []byte { return r.secret }

// Counter is the NV counter's value (0: never counted).
func (r *Root) Counter() (uint64, error) { return r.dev.Counter(r.index) }

// Increment counts the NV counter once.
func (r *Root) Increment() (uint64, error) { return r.dev.Increment(r.index) }

// String is the TPM, its counter's index and the sealed secret's file.
func (r *Root) String() string {
	return fmt.Sprintf("TPM 2.0 %s, NV %#08x, %s", r.dev.Path(), r.index, r.blob)
}

// writeSynced writes b to path through a temporary file renamed over it,
// synced with its directory.
func writeSynced(path string, b []byte) error {
	tmp := path + ".new"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	f, err := os.Open(tmp)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
