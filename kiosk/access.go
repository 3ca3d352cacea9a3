package kiosk

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/argon2"

	"pharaon/store"
)

// Access to the maintenance screen (DESIGN.md §1): a PIN names a role, staff
// or technician. The kiosk keeps only an argon2id hash of each PIN; five
// wrong PINs in a row lock the pad for a delay that doubles at each lockout
// until a right PIN is typed, and the lock lives in the database, so a
// restart gives a guesser nothing. Every login, wrong PIN and refusal is in
// the event log with the role, never with the PIN.

// Role is who is at the maintenance screen.
type Role string

const (
	RoleStaff      Role = store.RoleStaff      // shop staff: vouchers, cash box, paper, reports, recall
	RoleTechnician Role = store.RoleTechnician // technician: staff's views, plus blocks, devices, settings
)

// Can reports whether r may use what needs role need: a technician may do
// what staff do.
func (r Role) Can(need Role) bool { return r == need || r == RoleTechnician }

var (
	// ErrPINWrong: the PIN is no role's. errors.As gives the *PINError with
	// the tries left before the pad locks.
	ErrPINWrong = errors.New("wrong PIN")
	// ErrPINLocked: the pad refuses every PIN until a time (PINError.Until).
	ErrPINLocked = errors.New("PIN pad locked")
	// ErrPINFormat: a new PIN is not 4 to 8 digits, or is another role's.
	ErrPINFormat = errors.New("PIN refused")
	// ErrNotAllowed: the role may not do that.
	ErrNotAllowed = errors.New("not allowed for this role")
)

// PINError says what a refused PIN left: the tries before the pad locks, or
// the time the lock ends.
type PINError struct {
	Err   error // ErrPINWrong or ErrPINLocked
	Left  int
	Until time.Time
}

func (e *PINError) Error() string {
	if errors.Is(e.Err, ErrPINLocked) {
		return fmt.Sprintf("%v until %s", e.Err, e.Until.Format(time.RFC3339))
	}
	return fmt.Sprintf("%v (%d left)", e.Err, e.Left)
}

func (e *PINError) Unwrap() error { return e.Err }

// KDF are argon2id's parameters (RFC 9106).
type KDF struct {
	Time      uint32
	MemoryKiB uint32
	Threads   uint8
}

// DefaultKDF is OWASP's recommended argon2id setting (19 MiB, 2 passes, one
// lane): each guess costs a guesser holding the database that much memory
// and time, while a login (two checks, one per role) stays under a second
// for the person at the pad even on a busy kiosk (BenchmarkDefaultKDF).
var DefaultKDF = KDF{Time: 2, MemoryKiB: 19 * 1024, Threads: 1}

func (k KDF) String() string {
	return fmt.Sprintf("argon2id;t=%d;m=%d;p=%d", k.Time, k.MemoryKiB, k.Threads)
}

// parseKDF reads what KDF.String wrote.
func parseKDF(s string) (KDF, error) {
	parts := strings.Split(s, ";")
	if len(parts) != 4 || parts[0] != "argon2id" {
		return KDF{}, fmt.Errorf("unknown key derivation %q", s)
	}
	var k KDF
	for _, p := range parts[1:] {
		name, val, ok := strings.Cut(p, "=")
		n, err := strconv.ParseUint(val, 10, 32)
		if !ok || err != nil || n == 0 {
			return KDF{}, fmt.Errorf("key derivation %q: bad %q", s, p)
		}
		switch name {
		case "t":
			k.Time = uint32(n)
		case "m":
			k.MemoryKiB = uint32(n)
		case "p":
			if n > 255 {
				return KDF{}, fmt.Errorf("key derivation %q: bad %q", s, p)
			}
			k.Threads = uint8(n)
		default:
			return KDF{}, fmt.Errorf("key derivation %q: bad %q", s, p)
		}
	}
	if k.Time == 0 || k.MemoryKiB == 0 || k.Threads == 0 {
		return KDF{}, fmt.Errorf("key derivation %q: incomplete", s)
	}
	return k, nil
}

func (k KDF) hash(pin string, salt []byte) []byte {
	return argon2.IDKey([]byte(pin), salt, k.Time, k.MemoryKiB, k.Threads, 32)
}

// AccessConfig are the PIN pad's rules.
type AccessConfig struct {
	// KDF hashes new PINs (DefaultKDF if zero); a PIN set with other
	// parameters is checked with its own.
	KDF KDF
	// Tries is how many wrong PINs in a row lock the pad (default 5).
	Tries int
	// Lockout is the first lock's length (default 1 minute); each further
	// lockout before a right PIN doubles it, up to MaxLockout (default 1
	// hour).
	Lockout, MaxLockout time.Duration
	// Rand gives the salts (crypto/rand if nil).
	Rand io.Reader
}

func (c *AccessConfig) fill() {
	if c.KDF == (KDF{}) {
		c.KDF = DefaultKDF
	}
	if c.Tries <= 0 {
		c.Tries = 5
	}
	if c.Lockout <= 0 {
		c.Lockout = time.Minute
	}
	if c.MaxLockout < c.Lockout {
		c.MaxLockout = max(time.Hour, c.Lockout)
	}
	if c.Rand == nil {
		c.Rand = rand.Reader
	}
}

// Access checks PINs against the store's credentials. Its methods are safe
// for concurrent use; attempts are taken one at a time.
type Access struct {
	st  *store.Store
	clk Clock
	cfg AccessConfig
	mu  sync.Mutex // one attempt or change at a time: the lock's count is read, then written
}

// NewAccess makes the PIN pad's checker on an open store.
func NewAccess(st *store.Store, clk Clock, cfg AccessConfig) *Access {
	cfg.fill()
	return &Access{st: st, clk: clk, cfg: cfg}
}

// NeedsSetup reports whether the kiosk has no technician PIN yet: its first
// start asks a technician to set the PINs before anything else.
func (a *Access) NeedsSetup(ctx context.Context) (bool, error) {
	creds, err := a.st.Credentials(ctx)
	if err != nil {
		return false, err
	}
	_, ok := creds[store.RoleTechnician]
	return !ok, nil
}

// validPIN: 4 to 8 digits.
func validPIN(pin string) bool {
	if len(pin) < 4 || len(pin) > 8 {
		return false
	}
	for _, r := range pin {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// SetPIN sets role's PIN. by is the role of whoever sets it: a technician
// sets any PIN, staff only their own; by "" is the first start's setup,
// allowed only while NeedsSetup. Two roles never share a PIN (it would not
// say who typed it).
func (a *Access) SetPIN(ctx context.Context, by Role, role Role, pin string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if role != RoleStaff && role != RoleTechnician {
		return fmt.Errorf("set PIN of %q: %w", role, ErrNotAllowed)
	}
	creds, err := a.st.Credentials(ctx)
	if err != nil {
		return err
	}
	who := string(by)
	switch {
	case by == "":
		if _, set := creds[store.RoleTechnician]; set {
			return fmt.Errorf("set PIN of %s at setup: %w", role, ErrNotAllowed)
		}
		who = "setup"
	case by == RoleTechnician, by == role:
	default:
		return fmt.Errorf("set PIN of %s by %s: %w", role, by, ErrNotAllowed)
	}
	if !validPIN(pin) {
		return fmt.Errorf("PIN of %s must be 4 to 8 digits: %w", role, ErrPINFormat)
	}
	for r, c := range creds {
		if Role(r) != role && a.matches(c, pin) {
			return fmt.Errorf("PIN of %s is another role's: %w", role, ErrPINFormat)
		}
	}
	salt := make([]byte, 16)
	if _, err := io.ReadFull(a.cfg.Rand, salt); err != nil {
		return fmt.Errorf("salt: %w", err)
	}
	return a.st.SetCredential(ctx, who, store.Credential{
		Role: string(role), KDF: a.cfg.KDF.String(), Salt: salt, Hash: a.cfg.KDF.hash(pin, salt),
	})
}

// matches reports whether pin is c's, in constant time for a given KDF.
func (a *Access) matches(c store.Credential, pin string) bool {
	k, err := parseKDF(c.KDF)
	if err != nil {
		return false
	}
	return subtle.ConstantTimeCompare(k.hash(pin, c.Salt), c.Hash) == 1
}

// Login checks a PIN typed at the pad and returns its role. A locked pad
// refuses it without looking (*PINError wrapping ErrPINLocked); a wrong PIN
// counts (*PINError wrapping ErrPINWrong, with the tries left), and the
// Tries-th in a row locks the pad. Every outcome is in the event log.
func (a *Access) Login(ctx context.Context, pin string) (Role, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.clk.Now()
	l, err := a.st.PINLock(ctx)
	if err != nil {
		return "", err
	}
	if now.Before(l.Until) {
		err := &PINError{Err: ErrPINLocked, Until: l.Until}
		a.record(ctx, l, store.LevelWarning, store.EventPINRefused, "PIN typed while the pad is locked until "+l.Until.Format(time.RFC3339))
		return "", err
	}
	creds, err := a.st.Credentials(ctx)
	if err != nil {
		return "", err
	}
	var role Role
	// Every credential is checked, whatever matched first: the time taken
	// does not say which role a PIN nearly was.
	for _, r := range []Role{RoleTechnician, RoleStaff} {
		if c, ok := creds[string(r)]; ok && validPIN(pin) && a.matches(c, pin) && role == "" {
			role = r
		}
	}
	if role != "" {
		if err := a.st.RecordPINAttempt(ctx, store.PINLock{}, store.Event{
			Level: store.LevelInfo, Source: "maintenance", Code: store.EventLogin, Detail: "login as " + string(role),
		}); err != nil {
			return "", err
		}
		return role, nil
	}
	l.Failures++
	if l.Failures < a.cfg.Tries {
		err := &PINError{Err: ErrPINWrong, Left: a.cfg.Tries - l.Failures}
		if rerr := a.record(ctx, l, store.LevelWarning, store.EventPINWrong, fmt.Sprintf("wrong PIN, %d of %d", l.Failures, a.cfg.Tries)); rerr != nil {
			return "", rerr
		}
		return "", err
	}
	delay := a.cfg.Lockout
	for i := 0; i < l.Lockouts && delay < a.cfg.MaxLockout; i++ {
		delay *= 2
	}
	delay = min(delay, a.cfg.MaxLockout)
	l = store.PINLock{Failures: 0, Lockouts: l.Lockouts + 1, Until: now.Add(delay)}
	if rerr := a.record(ctx, l, store.LevelCritical, store.EventPINLocked,
		fmt.Sprintf("%d wrong PINs in a row: pad locked for %s (lockout %d)", a.cfg.Tries, delay, l.Lockouts)); rerr != nil {
		return "", rerr
	}
	return "", &PINError{Err: ErrPINLocked, Until: l.Until}
}

func (a *Access) record(ctx context.Context, l store.PINLock, level store.Level, code, detail string) error {
	return a.st.RecordPINAttempt(ctx, l, store.Event{Level: level, Source: "maintenance", Code: code, Detail: detail})
}

// Logout logs the end of a maintenance session (why: "idle", "done").
func (a *Access) Logout(ctx context.Context, role Role, why string) error {
	_, err := a.st.Log(ctx, store.Event{Level: store.LevelInfo, Source: "maintenance", Code: store.EventLogout,
		Detail: fmt.Sprintf("logout of %s (%s)", role, why)})
	return err
}

// Lock returns the pad's state (a locked pad shows until when).
func (a *Access) Lock(ctx context.Context) (store.PINLock, error) { return a.st.PINLock(ctx) }
