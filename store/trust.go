package store

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// The trust root (DESIGN.md §4): what the anchor rests on, kept off the
// data partition so that whoever holds or copies the data disk cannot put
// it back along with the database. It is two things: the kiosk's secret
// (the anchor's HMAC key, and the keys derived from it: the unsold units'
// and the PINs' pepper), the same for the kiosk's life; and a counter that
// only goes up, which every anchor record carries and which every start
// and the moves of money out of the kiosk count. A data partition put back
// to an earlier copy carries an anchor whose counter is behind the trust
// root's: the fault ErrRollback.
//
// On a kiosk with a TPM 2.0 the secret is sealed to it and the counter is
// one of its NV counters (hw/tpm.Root): nothing on any disk sets it back.
// Without one, FileTrust keeps both in a directory of the root file system
// the technician's guide names, apart from the data partition: a copy of
// the data partition alone is then caught, a copy of the whole disk is not.

// TrustRoot is what the store needs of a trust root.
type TrustRoot interface {
	// Secret is the kiosk's secret: keySize bytes, never changing.
	Secret() []byte
	// Counter is the counter's value: 0 while it never counted (a trust
	// root just made, whose kiosk has not anchored a database yet).
	Counter() (uint64, error)
	// Increment adds one to the counter, durably, and returns its value.
	Increment() (uint64, error)
	// String says what the trust root is and where, in technical terms
	// (for the log, and the technical detail of the identity view).
	String() string
}

// ErrTrust: the trust root cannot be read or is incomplete (a secret
// without its counter, a counter without its secret, a damaged file).
var ErrTrust = errors.New("trust root unusable")

// FileTrust is the trust root of a kiosk without a TPM: the secret and the
// counter in two files (mode 0600) of a directory of their own (0700).
type FileTrust struct {
	dir    string
	secret []byte
	mu     sync.Mutex
	value  uint64
}

const (
	// TrustSecretFile is the files trust root's secret in its directory:
	// where it is, the kiosk's trust root is made of files.
	TrustSecretFile  = "trust.secret"
	trustCounterFile = "trust.counter"
	domainCounter    = "pharaon/trust-counter/v1"
)

// OpenFileTrust opens the files trust root in dir, making it (a new secret,
// the counter at 0) when dir holds neither file. A secret without its
// counter is what a cut during that making leaves: the counter is made
// then. A counter without its secret, or a file damaged, is ErrTrust.
func OpenFileTrust(dir string) (*FileTrust, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("trust root %s: %w", dir, err)
	}
	t := &FileTrust{dir: dir}
	secret, err := os.ReadFile(t.path(TrustSecretFile))
	_, cerr := os.Stat(t.path(trustCounterFile))
	switch {
	case errors.Is(err, os.ErrNotExist) && cerr == nil:
		return nil, fmt.Errorf("trust root %s: a counter without its secret: %w", dir, ErrTrust)
	case errors.Is(err, os.ErrNotExist):
		secret = make([]byte, keySize)
		if _, err := rand.Read(secret); err != nil {
			return nil, fmt.Errorf("trust root %s: secret: %w", dir, err)
		}
		if err := replaceFile(t.path(TrustSecretFile), secret); err != nil {
			return nil, fmt.Errorf("trust root %s: secret: %w", dir, err)
		}
	case err != nil:
		return nil, fmt.Errorf("trust root %s: %v: %w", dir, err, ErrTrust)
	case len(secret) != keySize:
		return nil, fmt.Errorf("trust root %s: a secret of %d bytes, not %d: %w", dir, len(secret), keySize, ErrTrust)
	}
	t.secret = secret
	_, err = os.Stat(t.path(trustCounterFile))
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := t.write(0); err != nil {
			return nil, err
		}
		return t, nil
	case err != nil:
		return nil, fmt.Errorf("trust root %s: counter: %v: %w", dir, err, ErrTrust)
	}
	if t.value, err = t.read(); err != nil {
		return nil, err
	}
	return t, nil
}

// read reads the counter's file and checks its seal.
func (t *FileTrust) read() (uint64, error) {
	b, err := os.ReadFile(t.path(trustCounterFile))
	if err != nil {
		return 0, fmt.Errorf("trust root %s: counter: %v: %w", t.dir, err, ErrTrust)
	}
	if len(b) != 8+sha256.Size || !hmac.Equal(b[8:], t.counterMAC(b[:8])) {
		return 0, fmt.Errorf("trust root %s: the counter file is damaged or not this secret's: %w", t.dir, ErrTrust)
	}
	return binary.BigEndian.Uint64(b), nil
}

func (t *FileTrust) path(name string) string { return filepath.Join(t.dir, name) }

func (t *FileTrust) counterMAC(v []byte) []byte {
	m := hmac.New(sha256.New, t.secret)
	m.Write([]byte(domainCounter))
	m.Write(v)
	return m.Sum(nil)
}

func (t *FileTrust) write(v uint64) error {
	b := binary.BigEndian.AppendUint64(nil, v)
	if err := replaceFile(t.path(trustCounterFile), append(b, t.counterMAC(b)...)); err != nil {
		return fmt.Errorf("trust root %s: counter: %v: %w", t.dir, err, ErrTrust)
	}
	t.value = v
	return nil
}

// Secret implements TrustRoot.
func (t *FileTrust) Secret() []byte { return t.secret }

// Counter implements TrustRoot: the value in the file.
func (t *FileTrust) Counter() (uint64, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	v, err := t.read()
	if err != nil {
		return 0, err
	}
	t.value = v
	return v, nil
}

// Increment implements TrustRoot: the new value is in the file, synced,
// before it returns.
func (t *FileTrust) Increment() (uint64, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	v, err := t.read()
	if err != nil {
		return 0, err
	}
	if err := t.write(v + 1); err != nil {
		return 0, err
	}
	return t.value, nil
}

// String is where the files are.
func (t *FileTrust) String() string { return "files " + t.dir }

// replaceFile writes b to path through a temporary file renamed over it,
// each synced with its directory: after a cut the file is whole, old or new.
func replaceFile(path string, b []byte) error {
	tmp := path + ".new"
	err := writeSynced(tmp, os.O_TRUNC, b)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return syncDir(filepath.Dir(path))
}

// writeSynced creates path (mode 0600, with flag: O_EXCL or O_TRUNC) with
// b, synced.
func writeSynced(path string, flag int, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|flag, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Pepper is the key the maintenance PINs are hashed under before their
// slow hash (kiosk.AccessConfig.Pepper), derived from the trust root's
// secret: a PIN hash read off the data disk then gives nothing to guess
// PINs offline. Nil for a store without a trust root.
func (s *Store) Pepper() []byte {
	if s.anc == nil || s.anc.trust == nil || len(s.anc.trust.Secret()) != keySize {
		return nil
	}
	return deriveKey(s.anc.trust.Secret(), domainPepperKey)
}

// Trust says what the store's trust root is ("" without an anchor), and
// whether it is a TPM's (false: files, or none).
func (s *Store) Trust() (string, bool) {
	if s.anc == nil || s.anc.trust == nil {
		return "", false
	}
	_, files := s.anc.trust.(*FileTrust)
	return s.anc.trust.String(), !files
}
