// Package authority is the fleet's security material as the centre
// (cmd/pharaon-central) makes and keeps it (DESIGN.md §11, docs/fleet.md):
// a NATS operator, a system account and the fleet's account, each an nkey
// and a JWT signed by the one above it; one user per kiosk and one for the
// centre, each an nkey and a JWT carrying its permissions, written as a
// .creds file; a TLS certificate authority and the server's certificate;
// the fleet's voucher key; and the nats-server configuration that trusts
// all of it (operator mode, the accounts preloaded).
//
// The files are laid out as nsc lays out its stores and keys (nsc/stores,
// nsc/keys), so that an operator can read them with nsc. Seeds and
// private keys are written 0600.
//
// What this package must never do: overwrite a key it made (a fleet whose
// operator or account key changed would refuse every kiosk), or write a
// seed or a private key readable by others.
package authority

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nkeys"
)

// The names of the operator, the accounts and the centre's users.
const (
	OperatorName = "pharaon"
	AccountName  = "FLEET" // the kiosks and the centre
	SystemName   = "SYS"   // the server's own account
	CentralUser  = "central"
	SystemUser   = "sys"
)

// VoucherMasterSize is the size of the fleet's voucher key.
const VoucherMasterSize = 32

// Material is the fleet's security material in its directory.
type Material struct {
	Dir string

	operator, system, account nkeys.KeyPair
	operatorClaims            *jwt.OperatorClaims
	accountClaims             *jwt.AccountClaims
	systemJWT                 string
}

// ErrNoMaterial: the directory holds no fleet (pharaon-central init makes
// one).
var ErrNoMaterial = errors.New("no fleet material (pharaon-central init makes it)")

func (m *Material) storeDir() string { return filepath.Join(m.Dir, "nsc", "stores", OperatorName) }
func (m *Material) keysDir() string  { return filepath.Join(m.Dir, "nsc", "keys") }

// OperatorJWTFile is the operator's JWT, the server's trust root.
func (m *Material) OperatorJWTFile() string {
	return filepath.Join(m.storeDir(), OperatorName+".jwt")
}

func (m *Material) accountJWTFile(account string) string {
	return filepath.Join(m.storeDir(), "accounts", account, account+".jwt")
}

func (m *Material) userJWTFile(account, user string) string {
	return filepath.Join(m.storeDir(), "accounts", account, "users", user+".jwt")
}

// CredsFile is where a user's .creds file is (nsc's keys/creds).
func (m *Material) CredsFile(account, user string) string {
	return filepath.Join(m.keysDir(), "creds", OperatorName, account, user+".creds")
}

// seedFile is where nsc keeps the seed of a public key:
// keys/<kind>/<two letters>/<key>.nk.
func (m *Material) seedFile(public string) string {
	return filepath.Join(m.keysDir(), "keys", public[:1], public[1:3], public+".nk")
}

// VoucherMasterFile holds the fleet's voucher key, from which each kiosk's
// is derived (kiosk/fleet's KioskVoucherKey). It never leaves the centre.
func (m *Material) VoucherMasterFile() string { return filepath.Join(m.Dir, "voucher-master.key") }

// Init makes the fleet's material in dir, or opens what is there: an
// operator, the system and fleet accounts, the centre's and the system's
// users, the voucher key, and the TLS files (tls.go) for hosts. A piece
// already there is kept, never made again.
func Init(dir string, tlsIn TLSInput) (*Material, error) {
	m := &Material{Dir: dir}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if _, err := os.Stat(m.OperatorJWTFile()); errors.Is(err, os.ErrNotExist) {
		if err := m.create(); err != nil {
			return nil, fmt.Errorf("fleet material: %w", err)
		}
	} else if err != nil {
		return nil, err
	}
	if err := m.load(); err != nil {
		return nil, err
	}
	for _, u := range []struct{ account, name string }{{AccountName, CentralUser}, {SystemName, SystemUser}} {
		if _, err := os.Stat(m.CredsFile(u.account, u.name)); errors.Is(err, os.ErrNotExist) {
			if _, err := m.IssueUser(u.account, u.name, nil, time.Time{}); err != nil {
				return nil, err
			}
		}
	}
	if _, err := os.Stat(m.VoucherMasterFile()); errors.Is(err, os.ErrNotExist) {
		key := make([]byte, VoucherMasterSize)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		if err := writeNew(m.VoucherMasterFile(), key, 0o600); err != nil {
			return nil, err
		}
	}
	if err := m.initTLS(tlsIn); err != nil {
		return nil, err
	}
	return m, nil
}

// Open reads the fleet's material in dir.
func Open(dir string) (*Material, error) {
	m := &Material{Dir: dir}
	if _, err := os.Stat(m.OperatorJWTFile()); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", dir, ErrNoMaterial)
	}
	if err := m.load(); err != nil {
		return nil, err
	}
	return m, nil
}

// create makes the operator and the two accounts.
func (m *Material) create() error {
	op, err := nkeys.CreateOperator()
	if err != nil {
		return err
	}
	sys, err := nkeys.CreateAccount()
	if err != nil {
		return err
	}
	acc, err := nkeys.CreateAccount()
	if err != nil {
		return err
	}
	for _, kp := range []nkeys.KeyPair{op, sys, acc} {
		if err := m.writeSeed(kp); err != nil {
			return err
		}
	}
	opPub, _ := op.PublicKey()
	sysPub, _ := sys.PublicKey()
	accPub, _ := acc.PublicKey()

	oc := jwt.NewOperatorClaims(opPub)
	oc.Name = OperatorName
	oc.SystemAccount = sysPub
	opJWT, err := oc.Encode(op)
	if err != nil {
		return err
	}
	sc := jwt.NewAccountClaims(sysPub)
	sc.Name = SystemName
	sysJWT, err := sc.Encode(op)
	if err != nil {
		return err
	}
	ac := jwt.NewAccountClaims(accPub)
	ac.Name = AccountName
	// JetStream for the fleet's account, bounded by the server's own
	// limits (its store's disk).
	ac.Limits.JetStreamLimits = jwt.JetStreamLimits{MemoryStorage: -1, DiskStorage: -1, Streams: -1, Consumer: -1}
	accJWT, err := ac.Encode(op)
	if err != nil {
		return err
	}
	// The account's JWTs first: the operator's is what says the material
	// is whole (Init makes it all again while it is missing).
	if err := WriteFile(m.accountJWTFile(SystemName), []byte(sysJWT), 0o644); err != nil {
		return err
	}
	if err := WriteFile(m.accountJWTFile(AccountName), []byte(accJWT), 0o644); err != nil {
		return err
	}
	return WriteFile(m.OperatorJWTFile(), []byte(opJWT), 0o644)
}

// load reads the JWTs and the seeds that sign them.
func (m *Material) load() error {
	opJWT, err := os.ReadFile(m.OperatorJWTFile())
	if err != nil {
		return err
	}
	if m.operatorClaims, err = jwt.DecodeOperatorClaims(string(opJWT)); err != nil {
		return fmt.Errorf("%s: %w", m.OperatorJWTFile(), err)
	}
	accJWT, err := os.ReadFile(m.accountJWTFile(AccountName))
	if err != nil {
		return err
	}
	if m.accountClaims, err = jwt.DecodeAccountClaims(string(accJWT)); err != nil {
		return fmt.Errorf("%s: %w", m.accountJWTFile(AccountName), err)
	}
	sysJWT, err := os.ReadFile(m.accountJWTFile(SystemName))
	if err != nil {
		return err
	}
	sc, err := jwt.DecodeAccountClaims(string(sysJWT))
	if err != nil {
		return fmt.Errorf("%s: %w", m.accountJWTFile(SystemName), err)
	}
	m.systemJWT = string(sysJWT)
	if m.operator, err = m.readSeed(m.operatorClaims.Subject); err != nil {
		return err
	}
	if m.account, err = m.readSeed(m.accountClaims.Subject); err != nil {
		return err
	}
	if m.system, err = m.readSeed(sc.Subject); err != nil {
		return err
	}
	if m.operatorClaims.SystemAccount != sc.Subject || m.accountClaims.Issuer != m.operatorClaims.Subject {
		return fmt.Errorf("%s: the accounts are not the operator's", m.Dir)
	}
	return nil
}

func (m *Material) writeSeed(kp nkeys.KeyPair) error {
	pub, err := kp.PublicKey()
	if err != nil {
		return err
	}
	seed, err := kp.Seed()
	if err != nil {
		return err
	}
	return writeNew(m.seedFile(pub), seed, 0o600)
}

func (m *Material) readSeed(public string) (nkeys.KeyPair, error) {
	seed, err := os.ReadFile(m.seedFile(public))
	if err != nil {
		return nil, fmt.Errorf("the seed of %s: %w", public, err)
	}
	kp, err := nkeys.FromSeed(seed)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.seedFile(public), err)
	}
	if pub, _ := kp.PublicKey(); pub != public {
		return nil, fmt.Errorf("%s is not the seed of %s", m.seedFile(public), public)
	}
	return kp, nil
}

// AccountPublicKey is the fleet account's public key.
func (m *Material) AccountPublicKey() string { return m.accountClaims.Subject }

// VoucherMaster reads the fleet's voucher key.
func (m *Material) VoucherMaster() ([]byte, error) {
	key, err := os.ReadFile(m.VoucherMasterFile())
	if err != nil {
		return nil, err
	}
	if len(key) != VoucherMasterSize {
		return nil, fmt.Errorf("%s is %d bytes, the voucher key %d", m.VoucherMasterFile(), len(key), VoucherMasterSize)
	}
	return key, nil
}

// WriteFile writes data to name through a temporary file renamed over
// it, so that a crash leaves the old file or the new one, with mode
// whatever the file had.
func WriteFile(name string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
		return err
	}
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, data, mode); err != nil {
		return err
	}
	if err := os.Chmod(tmp, mode); err != nil { // WriteFile keeps an existing file's mode
		return err
	}
	return os.Rename(tmp, name)
}

// writeNew writes a file that must not exist yet: a key is never
// overwritten.
func writeNew(name string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
