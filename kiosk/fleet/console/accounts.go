package console

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
)

// Role is what an operator may do; each role may do what the ones before
// it may.
type Role int

const (
	Viewer        Role = iota + 1 // reads the fleet, the charts, the alarms
	Cashier                       // and looks vouchers up and pays them
	Operator                      // and acknowledges alarms, sends blocks
	Administrator                 // and reads the audit log
)

var roleNames = map[Role]string{Viewer: "viewer", Cashier: "cashier", Operator: "operator", Administrator: "administrator"}

func (r Role) String() string { return roleNames[r] }

// ParseRole reads a role's name.
func ParseRole(s string) (Role, error) {
	for r, n := range roleNames {
		if n == s {
			return r, nil
		}
	}
	return 0, fmt.Errorf("role %q: viewer, cashier, operator or administrator", s)
}

// Account is an operator as the accounts' file keeps it: never the
// password, its argon2id hash.
type Account struct {
	Name    string    `json:"name"`
	Role    string    `json:"role"`
	Hash    string    `json:"hash"` // argon2id$v=19$m=…,t=…,p=…$salt$key, base64 without padding
	Created time.Time `json:"created"`
}

// argon2id's cost: 64 MiB and one pass, as RFC 9106 suggests for a server
// where memory is the cheaper resource; a guess costs an attacker with a
// copy of the file the same memory.
const (
	argonTime    = 1
	argonMemory  = 64 * 1024
	argonThreads = 2
	argonKeyLen  = 32
)

// HashPassword is password's argon2id hash under a random salt, with its
// parameters, so a later change of the cost still verifies older hashes.
func HashPassword(password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// CheckPassword says whether password is the one hash was made from.
func CheckPassword(hash, password string) bool {
	parts := strings.Split(hash, "$")
	if len(parts) != 5 || parts[0] != "argon2id" || parts[1] != fmt.Sprintf("v=%d", argon2.Version) {
		return false
	}
	var m uint32
	var t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[2], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil || m == 0 || t == 0 || p == 0 || m > 1<<22 || t > 16 {
		return false
	}
	b64 := base64.RawStdEncoding
	salt, err := b64.DecodeString(parts[3])
	if err != nil {
		return false
	}
	want, err := b64.DecodeString(parts[4])
	if err != nil || len(want) == 0 {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, t, m, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// Accounts are the console's operators, kept in a file of the centre's
// directory (console/operators.json, mode 0600), beside the fleet's keys:
// whoever can write it can already act as the centre.
type Accounts struct {
	path string
	mu   sync.Mutex
}

// AccountsFile is the accounts' file in the centre's directory dir.
func AccountsFile(dir string) string { return filepath.Join(dir, "console", "operators.json") }

// OpenAccounts is the accounts kept at path (none yet when it does not
// exist).
func OpenAccounts(path string) *Accounts { return &Accounts{path: path} }

// ErrNoAccount: no operator of that name, or not that password (the
// console does not say which).
var ErrNoAccount = errors.New("unknown operator or wrong password")

func (a *Accounts) read() ([]Account, error) {
	b, err := os.ReadFile(a.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Account
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("%s: %w", a.path, err)
	}
	return out, nil
}

// validName: a name the audit log and the pages can show as it is.
func validName(s string) bool {
	if s == "" || len(s) > 64 || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < ' ' || r == 0x7f || strings.ContainsRune("<>&\"'`$", r) {
			return false
		}
	}
	return true
}

// Add makes an operator, or gives an existing one a new password and
// role. A password shorter than 12 characters is refused.
func (a *Accounts) Add(name string, role Role, password string, now time.Time) error {
	if !validName(name) {
		return fmt.Errorf("name %q: 1 to 64 printable characters, without < > & \" ' ` $", name)
	}
	if roleNames[role] == "" {
		return fmt.Errorf("role %d: no such role", role)
	}
	if utf8.RuneCountInString(password) < 12 {
		return errors.New("password: 12 characters at least")
	}
	h, err := HashPassword(password)
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	accounts, err := a.read()
	if err != nil {
		return err
	}
	acc := Account{Name: name, Role: role.String(), Hash: h, Created: now.UTC()}
	if i := slices.IndexFunc(accounts, func(x Account) bool { return x.Name == name }); i >= 0 {
		accounts[i] = acc
	} else {
		accounts = append(accounts, acc)
	}
	b, err := json.MarshalIndent(accounts, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(a.path), 0o700); err != nil {
		return err
	}
	// Written whole then renamed: a crash leaves the old file or the new.
	tmp := a.path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, a.path)
}

// Check returns the operator's role when password is theirs. The file is
// read at each login: an account added or changed by the command counts
// at once, without restarting the console.
func (a *Accounts) Check(name, password string) (Role, error) {
	a.mu.Lock()
	accounts, err := a.read()
	a.mu.Unlock()
	if err != nil {
		return 0, err
	}
	hash := dummyHash()
	var role Role
	for _, acc := range accounts {
		if acc.Name == name {
			hash = acc.Hash
			role, err = ParseRole(acc.Role)
			if err != nil {
				return 0, fmt.Errorf("operator %s: %w", name, err)
			}
		}
	}
	// An unknown name costs the same hash as a known one: the time of the
	// answer does not tell the names.
	ok := CheckPassword(hash, password)
	if !ok || role == 0 || bytes.Equal([]byte(hash), []byte(dummyHash())) {
		return 0, ErrNoAccount
	}
	return role, nil
}

// dummyHash is checked for a name no account has; made at the first
// login, not at every start of the command.
var dummyHash = sync.OnceValue(func() string {
	h, err := HashPassword("no account has this password")
	if err != nil {
		panic(err)
	}
	return h
})
