package authority

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nkeys"
)

// Permissions are the subjects a user may publish to and subscribe to:
// the allow lists of its JWT, everything else refused by the server
// (kiosk/fleet's KioskPermissions). A nil *Permissions is a user of the
// account without limits: the centre.
type Permissions struct {
	Publish, Subscribe []string
}

// User is a user of the fleet's account as its JWT says.
type User struct {
	Name      string
	PublicKey string
	IssuedAt  time.Time
	Revoked   bool // its key is revoked in the account's JWT
	// Permissions are its allow lists; nil: no limits.
	Permissions *Permissions
}

// ErrNoUser: no user of that name.
var ErrNoUser = errors.New("no such user")

func (m *Material) accountKey(account string) (nkeys.KeyPair, error) {
	switch account {
	case AccountName:
		return m.account, nil
	case SystemName:
		return m.system, nil
	}
	return nil, fmt.Errorf("account %q: not the fleet's", account)
}

// IssueUser makes a new user name of account with its permissions: a new
// nkey, its JWT signed by the account, and its .creds file (the JWT and
// the seed, what a client connects with). A user of that name already
// there is replaced, its old key revoked in the account's JWT: a kiosk
// given new credentials (new groups, a stolen file) cannot use the old
// ones. It returns the .creds file's path.
func (m *Material) IssueUser(account, name string, p *Permissions, now time.Time) (string, error) {
	if !validName(name) {
		return "", fmt.Errorf("user %q: letters, digits, - and _ only", name)
	}
	signer, err := m.accountKey(account)
	if err != nil {
		return "", err
	}
	old, err := m.readUser(account, name)
	if err != nil && !errors.Is(err, ErrNoUser) {
		return "", err
	}
	kp, err := nkeys.CreateUser()
	if err != nil {
		return "", err
	}
	pub, _ := kp.PublicKey()
	seed, err := kp.Seed()
	if err != nil {
		return "", err
	}
	uc := jwt.NewUserClaims(pub)
	uc.Name = name
	if !now.IsZero() {
		uc.IssuedAt = now.Unix()
	}
	if p != nil {
		uc.Permissions.Pub.Allow.Add(p.Publish...)
		uc.Permissions.Sub.Allow.Add(p.Subscribe...)
		if len(p.Publish) == 0 {
			// An empty allow list would allow everything.
			uc.Permissions.Pub.Deny.Add(">")
		}
		if len(p.Subscribe) == 0 {
			uc.Permissions.Sub.Deny.Add(">")
		}
	}
	token, err := uc.Encode(signer)
	if err != nil {
		return "", err
	}
	creds, err := jwt.FormatUserConfig(token, seed)
	if err != nil {
		return "", err
	}
	if err := m.writeSeed(kp); err != nil {
		return "", err
	}
	if err := WriteFile(m.userJWTFile(account, name), []byte(token), 0o644); err != nil {
		return "", err
	}
	if err := WriteFile(m.CredsFile(account, name), creds, 0o600); err != nil {
		return "", err
	}
	if old != nil && account == AccountName {
		if err := m.revokeKey(old.PublicKey, now); err != nil {
			return "", err
		}
	}
	return m.CredsFile(account, name), nil
}

// Revoke revokes the fleet user name's key in the account's JWT: the
// server refuses its credentials once it has the new JWT (at its start,
// or pushed: PushAccount). It returns the user revoked.
func (m *Material) Revoke(name string, now time.Time) (User, error) {
	u, err := m.readUser(AccountName, name)
	if err != nil {
		return User{}, err
	}
	if err := m.revokeKey(u.PublicKey, now); err != nil {
		return User{}, err
	}
	u.Revoked = true
	return *u, nil
}

func (m *Material) revokeKey(pub string, now time.Time) error {
	if now.IsZero() {
		now = time.Now()
	}
	ac := m.accountClaims
	// Every JWT of that key issued up to now, this second included.
	ac.RevokeAt(pub, now.Add(time.Second))
	token, err := ac.Encode(m.operator)
	if err != nil {
		return err
	}
	return WriteFile(m.accountJWTFile(AccountName), []byte(token), 0o644)
}

// AccountJWT is the fleet account's JWT as it stands (its revocations).
func (m *Material) AccountJWT() (string, error) {
	b, err := os.ReadFile(m.accountJWTFile(AccountName))
	return string(b), err
}

// Users lists the fleet account's users, by name.
func (m *Material) Users() ([]User, error) {
	names, err := filepath.Glob(filepath.Join(m.storeDir(), "accounts", AccountName, "users", "*.jwt"))
	if err != nil {
		return nil, err
	}
	var out []User
	for _, n := range names {
		u, err := m.readUser(AccountName, strings.TrimSuffix(filepath.Base(n), ".jwt"))
		if err != nil {
			return nil, err
		}
		out = append(out, *u)
	}
	slices.SortFunc(out, func(a, b User) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// UserOf reads the fleet user name.
func (m *Material) UserOf(name string) (User, error) {
	u, err := m.readUser(AccountName, name)
	if err != nil {
		return User{}, err
	}
	return *u, nil
}

func (m *Material) readUser(account, name string) (*User, error) {
	b, err := os.ReadFile(m.userJWTFile(account, name))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("user %s: %w", name, ErrNoUser)
	}
	if err != nil {
		return nil, err
	}
	uc, err := jwt.DecodeUserClaims(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.userJWTFile(account, name), err)
	}
	u := &User{Name: uc.Name, PublicKey: uc.Subject, IssuedAt: time.Unix(uc.IssuedAt, 0).UTC()}
	if account == AccountName {
		u.Revoked = m.accountClaims.IsClaimRevoked(uc)
	}
	if len(uc.Permissions.Pub.Allow) > 0 || len(uc.Permissions.Sub.Allow) > 0 || len(uc.Permissions.Pub.Deny) > 0 {
		u.Permissions = &Permissions{Publish: slices.Clone(uc.Permissions.Pub.Allow), Subscribe: slices.Clone(uc.Permissions.Sub.Allow)}
	}
	return u, nil
}

func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}
