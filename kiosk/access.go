package kiosk

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/argon2"

	"pharaon/store"
)

// Access to the maintenance screen (DESIGN.md §1, §7): a PIN names a role,
// staff or technician, and opens a Session; nothing else makes one. The
// kiosk keeps only an argon2id hash of each PIN, in the store's anchored
// chain of credentials. The PIN pad's lock (DESIGN.md §7 gives the
// arithmetic): Tries wrong PINs in a row lock the pad for Lockout,
// doubling at each lockout up to MaxLockout; the growth comes down one
// step after each Quiet time without a wrong PIN, never with a right one.
// The lock counts time that runs (the clock's Stopwatch), not wall-clock
// instants: setting the clock back or forward changes nothing; its state
// is a chain of the store, read back at a restart (which may make the lock
// longer, never shorter). Every login, wrong PIN, refusal and change of
// PIN is in the event log with the role, never with the PIN.
//
// The technician always logs in, whatever the fault, to read the
// diagnosis: when the store refuses to record the attempt (an anchor
// fault) or the credentials fail their checks, the PIN is checked against
// the credentials as read, the lock is kept in memory, the attempt's
// record waits until the store takes writes again (the kiosk's log says
// why it waits), and the session opened reads the diagnosis only.

// Role is who is at the maintenance screen.
type Role string

const (
	RoleStaff      Role = store.RoleStaff      // shop staff: vouchers, cash box, paper, reports, recall
	RoleTechnician Role = store.RoleTechnician // technician: staff's views, plus blocks, devices, settings
	// roleSetup is the first start's setup session: it sets both PINs
	// once (Access.Setup), and may do nothing else.
	roleSetup Role = "setup"
)

// Can reports whether r may use what needs role need: a technician may do
// what staff do.
func (r Role) Can(need Role) bool {
	return r == RoleTechnician || (r == need && r == RoleStaff)
}

// PIN lengths: 6 to 10 digits (DESIGN.md §7: with the lockout, a guesser
// at the pad has under 1 % chance a year of finding either PIN).
const (
	PINMinLen = 6
	PINMaxLen = 10
)

var (
	// ErrPINWrong: the PIN is no role's. errors.As gives the *PINError with
	// the tries left before the pad locks.
	ErrPINWrong = errors.New("wrong PIN")
	// ErrPINLocked: the pad refuses every PIN for a while (PINError.Wait).
	ErrPINLocked = errors.New("PIN pad locked")
	// ErrPINFormat: a new PIN is not PINMinLen to PINMaxLen digits, or is
	// refused (another role's).
	ErrPINFormat = errors.New("PIN refused")
	// ErrNotAllowed: the role (or the session) may not do that.
	ErrNotAllowed = errors.New("not allowed for this role")
	// ErrNoCredential: a kiosk that has been in service has no technician
	// PIN: its credentials were lost or removed. A fault, never a first
	// start (it wraps store.ErrIntegrity).
	ErrNoCredential = fmt.Errorf("no technician PIN on a kiosk that has been in service: %w", store.ErrIntegrity)
)

// PINError says what a refused PIN left: the tries before the pad locks,
// or the time the lock still runs.
type PINError struct {
	Err  error // ErrPINWrong or ErrPINLocked
	Left int
	Wait time.Duration
}

func (e *PINError) Error() string {
	if errors.Is(e.Err, ErrPINLocked) {
		return fmt.Sprintf("%v for %s", e.Err, e.Wait.Round(time.Second))
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

// kdfKeyed ends the KDF string of a credential whose PIN was keyed with
// the pepper before argon2id (AccessConfig.Pepper).
const kdfKeyed = ";keyed"

// parseKDF reads what KDF.String wrote, and whether the PIN was keyed.
func parseKDF(s string) (KDF, bool, error) {
	body, keyed := strings.CutSuffix(s, kdfKeyed)
	parts := strings.Split(body, ";")
	if len(parts) != 4 || parts[0] != "argon2id" {
		return KDF{}, false, fmt.Errorf("unknown key derivation %q", s)
	}
	var k KDF
	for _, p := range parts[1:] {
		name, val, ok := strings.Cut(p, "=")
		n, err := strconv.ParseUint(val, 10, 32)
		if !ok || err != nil || n == 0 {
			return KDF{}, false, fmt.Errorf("key derivation %q: bad %q", s, p)
		}
		switch name {
		case "t":
			k.Time = uint32(n)
		case "m":
			k.MemoryKiB = uint32(n)
		case "p":
			if n > 255 {
				return KDF{}, false, fmt.Errorf("key derivation %q: bad %q", s, p)
			}
			k.Threads = uint8(n)
		default:
			return KDF{}, false, fmt.Errorf("key derivation %q: bad %q", s, p)
		}
	}
	if k.Time == 0 || k.MemoryKiB == 0 || k.Threads == 0 {
		return KDF{}, false, fmt.Errorf("key derivation %q: incomplete", s)
	}
	return k, keyed, nil
}

func (k KDF) hash(secret, salt []byte) []byte {
	return argon2.IDKey(secret, salt, k.Time, k.MemoryKiB, k.Threads, 32)
}

// AccessConfig are the PIN pad's rules.
type AccessConfig struct {
	// KDF hashes new PINs (DefaultKDF if zero); a PIN set with other
	// parameters is checked with its own.
	KDF KDF
	// Tries is how many wrong PINs in a row lock the pad (default 3).
	Tries int
	// Lockout is the first lock's length (default 1 minute); each further
	// lockout doubles it, up to MaxLockout (default 8 hours).
	Lockout, MaxLockout time.Duration
	// Quiet is the time without a wrong PIN after which the lockouts'
	// growth comes down one step and the wrong PINs in a row are
	// forgotten (default 24 hours). A right PIN never does.
	Quiet time.Duration
	// Pepper, when set, keys each PIN (HMAC-SHA256) before argon2id, for
	// the PINs set from then on (their KDF string ends ";keyed"): the
	// hash on the disk alone no longer allows an offline guess. It must
	// come from outside the data disk (the kiosk's trust root); a keyed
	// credential cannot be checked without it.
	Pepper []byte
	// Rand gives the salts (crypto/rand if nil).
	Rand io.Reader
	// Logf is the kiosk's log, for what the event log cannot take (an
	// attempt the store refused to record); log.Printf if nil.
	Logf func(format string, args ...any)
}

func (c *AccessConfig) fill() {
	if c.KDF == (KDF{}) {
		c.KDF = DefaultKDF
	}
	if c.Tries <= 0 {
		c.Tries = 3
	}
	if c.Lockout <= 0 {
		c.Lockout = time.Minute
	}
	if c.MaxLockout < c.Lockout {
		c.MaxLockout = max(8*time.Hour, c.Lockout)
	}
	if c.Quiet <= 0 {
		c.Quiet = 24 * time.Hour
	}
	if c.Rand == nil {
		c.Rand = rand.Reader
	}
	if c.Logf == nil {
		c.Logf = log.Printf
	}
}

// padLock is the PIN pad's state (store.PINLock): the wrong PINs since the
// last lockout, the lockouts that set the next one's length, the lock's
// time left and the quiet time since the last wrong PIN, as of the last
// reading of the running clock (Access.mark).
type padLock struct {
	fails, level     int
	remaining, quiet time.Duration
}

func (l padLock) record() store.PINLock {
	return store.PINLock{Failures: l.fails, Lockouts: l.level, Remaining: l.remaining, Quiet: l.quiet}
}

// pendingRecord is an attempt's record the store refused, kept to record
// once it takes writes again.
type pendingRecord struct {
	lock  *store.PINLock
	event store.Event
}

// maxPending bounds the records kept for a store that refuses writes: a
// guesser at a kiosk out of service fills no memory.
const maxPending = 1000

// Access checks PINs against the store's credentials and opens the
// maintenance sessions. Its methods are safe for concurrent use; attempts
// and changes are taken one at a time.
type Access struct {
	st  *store.Store
	clk Clock
	cfg AccessConfig
	sessions

	mu sync.Mutex // one attempt or change at a time: the lock is read, then written
	// Under mu: the pad's lock in memory (loaded: read from the store
	// once), brought up to the running clock's reading mark; stored is
	// the state last written, pending the records the store refused.
	loaded  bool
	lock    padLock
	stored  padLock
	mark    time.Duration
	running func() time.Duration
	pending []pendingRecord
	dropped int
}

// NewAccess makes the PIN pad's checker on an open store.
func NewAccess(st *store.Store, clk Clock, cfg AccessConfig) *Access {
	cfg.fill()
	return &Access{st: st, clk: clk, cfg: cfg, running: runningOf(clk)}
}

// NeedsSetup reports whether the kiosk needs its first start's setup: it
// has no credential and no history at all (store.HasHistory). A kiosk
// that has been in service and has no technician PIN is a fault
// (ErrNoCredential, or the anchor's error when the credentials' chain
// was cut), never a setup: whoever stands at the screen would choose the
// PINs.
func (a *Access) NeedsSetup(ctx context.Context) (bool, error) {
	creds, err := a.st.Credentials(ctx)
	if err != nil {
		// Edited credentials: the kiosk is out of service (the store's
		// checks say why), and its technician logs in for the diagnosis.
		if stored, serr := a.st.CredentialsAsStored(ctx); serr == nil {
			if _, ok := stored[store.RoleTechnician]; ok {
				return false, nil
			}
		}
		return false, err
	}
	if _, ok := creds[store.RoleTechnician]; ok {
		return false, nil
	}
	if aerr := a.st.AnchorErr(); aerr != nil {
		return false, fmt.Errorf("no technician PIN, and %w", aerr)
	}
	hist, err := a.st.HasHistory(ctx)
	switch {
	case err != nil:
		return false, err
	case hist:
		return false, ErrNoCredential
	}
	return true, nil
}

// SetupSession opens the first start's setup session, only while
// NeedsSetup: the one session that sets both PINs (Setup), once.
func (a *Access) SetupSession(ctx context.Context) (*Session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	need, err := a.NeedsSetup(ctx)
	if err != nil {
		return nil, err
	}
	if !need {
		return nil, fmt.Errorf("setup session: the PINs are set: %w", ErrNotAllowed)
	}
	return a.issue(roleSetup, a.clk.Now(), false), nil
}

// Setup sets the technician's and the staff's PINs of the first start, in
// one transaction, with the setup session s, which then ends.
func (a *Access) Setup(ctx context.Context, s *Session, technician, staff string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.alive(s) {
		return fmt.Errorf("setup: %w", ErrSessionEnded)
	}
	if s.role != roleSetup {
		return fmt.Errorf("setup by %s: %w", s.role, ErrNotAllowed)
	}
	need, err := a.NeedsSetup(ctx)
	if err != nil {
		return err
	}
	if !need {
		a.end(s)
		return fmt.Errorf("setup: the PINs are set: %w", ErrNotAllowed)
	}
	switch {
	case !validPIN(technician):
		return fmt.Errorf("PIN of technician must be %d to %d digits: %w", PINMinLen, PINMaxLen, ErrPINFormat)
	case !validPIN(staff):
		return fmt.Errorf("PIN of staff must be %d to %d digits: %w", PINMinLen, PINMaxLen, ErrPINFormat)
	case technician == staff:
		return fmt.Errorf("the two PINs are the same: %w", ErrPINFormat)
	}
	tc, err := a.credential(RoleTechnician, technician)
	if err != nil {
		return err
	}
	sc, err := a.credential(RoleStaff, staff)
	if err != nil {
		return err
	}
	if err := a.st.SetCredentials(ctx, string(roleSetup), tc, sc); err != nil {
		return err
	}
	a.end(s)
	return nil
}

// validPIN: PINMinLen to PINMaxLen digits.
func validPIN(pin string) bool {
	if len(pin) < PINMinLen || len(pin) > PINMaxLen {
		return false
	}
	for _, r := range pin {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// credential hashes pin for role with a new salt, keyed with the pepper
// when there is one.
func (a *Access) credential(role Role, pin string) (store.Credential, error) {
	salt := make([]byte, 16)
	if _, err := io.ReadFull(a.cfg.Rand, salt); err != nil {
		return store.Credential{}, fmt.Errorf("salt: %w", err)
	}
	kdf := a.cfg.KDF.String()
	if a.cfg.Pepper != nil {
		kdf += kdfKeyed
	}
	return store.Credential{Role: string(role), KDF: kdf, Salt: salt, Hash: a.cfg.KDF.hash(secretOf(pin, a.cfg.Pepper), salt)}, nil
}

// secretOf is what argon2id hashes of pin: the PIN itself, or, with a
// pepper, the PIN keyed with it (HMAC-SHA256).
func secretOf(pin string, pepper []byte) []byte {
	if pepper == nil {
		return []byte(pin)
	}
	m := hmac.New(sha256.New, pepper)
	m.Write([]byte(pin))
	return m.Sum(nil)
}

// matches reports whether pin is c's, in constant time for a given KDF. A
// keyed credential without the pepper matches nothing.
func (a *Access) matches(c store.Credential, pin string) bool {
	k, isKeyed, err := parseKDF(c.KDF)
	if err != nil || (isKeyed && a.cfg.Pepper == nil) {
		return false
	}
	var pepper []byte
	if isKeyed {
		pepper = a.cfg.Pepper
	}
	return subtle.ConstantTimeCompare(k.hash(secretOf(pin, pepper), c.Salt), c.Hash) == 1
}

// match is the role whose credential pin is ("" if none). Every
// credential is checked, whatever matched first: the time taken does not
// say which role a PIN nearly was.
func (a *Access) match(creds map[string]store.Credential, pin string) Role {
	var role Role
	for _, r := range []Role{RoleTechnician, RoleStaff} {
		if c, ok := creds[string(r)]; ok && validPIN(pin) && a.matches(c, pin) && role == "" {
			role = r
		}
	}
	return role
}

// credentials reads the credentials; verified is false when they could
// not be checked against their chain and anchor (the store's data are in
// fault): they are then read as the file holds them, for a diagnosis
// session only.
func (a *Access) credentials(ctx context.Context) (creds map[string]store.Credential, verified bool, err error) {
	creds, err = a.st.Credentials(ctx)
	switch {
	case err == nil:
		return creds, a.st.AnchorErr() == nil, nil
	case errors.Is(err, store.ErrIntegrity) || errors.Is(err, store.ErrAnchor):
		a.cfg.Logf("maintenance: the credentials failed their check (%v): the technician's PIN opens the diagnosis only", err)
		creds, err = a.st.CredentialsAsStored(ctx)
		return creds, false, err
	}
	return nil, false, err
}

// load reads the pad's lock from the store, once. A lock whose chain
// fails its check is taken as the strictest of normal use (the next
// lockout the longest): the fault is the store's to report, and a guesser
// gains nothing by editing it.
func (a *Access) load(ctx context.Context) error {
	if a.loaded {
		return nil
	}
	l, err := a.st.PINLock(ctx)
	switch {
	case errors.Is(err, store.ErrIntegrity) || errors.Is(err, store.ErrAnchor):
		a.cfg.Logf("maintenance: the PIN pad's lock failed its check (%v): the next lockout is the longest", err)
		a.lock = padLock{level: a.maxLevel()}
	case err != nil:
		return err
	default:
		a.lock = padLock{fails: l.Failures, level: l.Lockouts, remaining: l.Remaining, quiet: l.Quiet}
		a.stored = a.lock
	}
	a.loaded, a.mark = true, a.running()
	return nil
}

// maxLevel is the growth at which a lockout lasts MaxLockout.
func (a *Access) maxLevel() int {
	n := 0
	for d := a.cfg.Lockout; d < a.cfg.MaxLockout; d *= 2 {
		n++
	}
	return n
}

// lockoutAt is the length of a lockout at growth level.
func (a *Access) lockoutAt(level int) time.Duration {
	d := a.cfg.Lockout
	for i := 0; i < level && d < a.cfg.MaxLockout; i++ {
		d *= 2
	}
	return min(d, a.cfg.MaxLockout)
}

// advance brings the lock to the running clock's reading: its time left
// runs down, the quiet time up, and each Quiet time without a wrong PIN
// forgets the wrong PINs in a row and brings the growth down one step.
func (a *Access) advance() {
	now := a.running()
	el := max(0, now-a.mark)
	a.mark = now
	l := &a.lock
	l.remaining = max(0, l.remaining-el)
	l.quiet += el
	for l.quiet >= a.cfg.Quiet && (l.level > 0 || l.fails > 0) {
		l.quiet -= a.cfg.Quiet
		l.fails = 0
		l.level = max(0, l.level-1)
	}
	if l.level == 0 && l.fails == 0 {
		l.quiet = 0 // nothing left to forgive
	}
}

// record writes the lock's state (when it changed) and the event of an
// attempt in one transaction. A store that refuses it keeps the kiosk's
// access: the record waits (pending) and the log says why; record reports
// whether it was written.
func (a *Access) record(ctx context.Context, level store.Level, code, detail string) bool {
	e := store.Event{Level: level, Source: "maintenance", Code: code, Detail: detail}
	var l *store.PINLock
	if a.lock != a.stored {
		r := a.lock.record()
		l = &r
	}
	err := a.flush(ctx)
	if err == nil {
		if err = a.st.RecordPINAttempt(ctx, l, e); err == nil {
			a.stored = a.lock
			return true
		}
	}
	if len(a.pending) >= maxPending {
		a.dropped++
		a.cfg.Logf("maintenance: %s not recorded (%v): %d records wait already, %d dropped", code, err, len(a.pending), a.dropped)
		return false
	}
	a.cfg.Logf("maintenance: %s not recorded (%v): kept to record once the store takes writes", code, err)
	e.Detail += fmt.Sprintf(" (at %s, recorded late)", a.clk.Now().UTC().Format(time.RFC3339))
	a.pending = append(a.pending, pendingRecord{lock: l, event: e})
	a.stored = a.lock
	return false
}

// flush records the attempts the store refused before, oldest first,
// while it takes them; it returns why it stopped.
func (a *Access) flush(ctx context.Context) error {
	for len(a.pending) > 0 {
		p := a.pending[0]
		if err := a.st.RecordPINAttempt(ctx, p.lock, p.event); err != nil {
			return err
		}
		a.pending = a.pending[1:]
	}
	if a.dropped > 0 {
		err := a.st.RecordPINAttempt(ctx, nil, store.Event{Level: store.LevelWarning, Source: "maintenance", Code: EventAttemptsLost,
			Detail: fmt.Sprintf("%d PIN attempts made while the store refused writes were not recorded", a.dropped)})
		if err != nil {
			return err
		}
		a.dropped = 0
	}
	return nil
}

// EventAttemptsLost is logged when attempts made while the store refused
// writes were more than the kiosk keeps to record later.
const EventAttemptsLost = "pin_attempts_lost"

// Flush records the attempts that wait for the store (the store takes
// writes again: a fault cleared).
func (a *Access) Flush(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.flush(ctx)
}

// Login checks a PIN typed at the pad and opens a session of its role. A
// locked pad refuses it without looking (*PINError wrapping ErrPINLocked,
// with the time left); a wrong PIN counts (*PINError wrapping ErrPINWrong,
// with the tries left), and the Tries-th in a row locks the pad. A right
// PIN changes nothing of the lock. Every outcome is in the event log.
func (a *Access) Login(ctx context.Context, pin string) (*Session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.load(ctx); err != nil {
		return nil, err
	}
	a.advance()
	if err := a.locked(ctx); err != nil {
		return nil, err
	}
	creds, verified, err := a.credentials(ctx)
	if err != nil {
		return nil, err
	}
	role := a.match(creds, pin)
	if role == "" {
		return nil, a.wrong(ctx, "wrong PIN")
	}
	if !verified && role != RoleTechnician {
		a.record(ctx, store.LevelWarning, store.EventPINRefused, "staff PIN refused: the kiosk's data failed their checks, only the technician logs in, to read the diagnosis")
		return nil, fmt.Errorf("login as %s while the data are in fault: %w", role, ErrNotAllowed)
	}
	detail := "login as " + string(role)
	if !verified {
		detail += ", to read the diagnosis only: the kiosk's data failed their checks"
	}
	recorded := a.record(ctx, store.LevelInfo, store.EventLogin, detail)
	return a.issue(role, a.clk.Now(), !verified || !recorded), nil
}

// locked refuses an attempt while the pad is locked, and records it.
func (a *Access) locked(ctx context.Context) error {
	w := a.lock.remaining
	if w <= 0 {
		return nil
	}
	a.record(ctx, store.LevelWarning, store.EventPINRefused, fmt.Sprintf("PIN typed while the pad is locked for %s more", w.Round(time.Second)))
	return &PINError{Err: ErrPINLocked, Wait: w}
}

// wrong counts a wrong PIN (what says what it was) and locks the pad at
// the Tries-th in a row.
func (a *Access) wrong(ctx context.Context, what string) error {
	l := &a.lock
	l.fails++
	l.quiet = 0
	if l.fails < a.cfg.Tries {
		a.record(ctx, store.LevelWarning, store.EventPINWrong, fmt.Sprintf("%s, %d of %d", what, l.fails, a.cfg.Tries))
		return &PINError{Err: ErrPINWrong, Left: a.cfg.Tries - l.fails}
	}
	d := a.lockoutAt(l.level)
	*l = padLock{level: min(l.level+1, a.maxLevel()), remaining: d}
	a.record(ctx, store.LevelCritical, store.EventPINLocked,
		fmt.Sprintf("%s, %d in a row: pad locked for %s (lockout %d)", what, a.cfg.Tries, d, l.level))
	return &PINError{Err: ErrPINLocked, Wait: d}
}

// check refuses a session that is not alive, or a diagnosis session, to
// change credentials.
func (a *Access) check(s *Session, action string) error {
	if !a.alive(s) {
		return fmt.Errorf("%s: %w", action, ErrSessionEnded)
	}
	if s.diagnosis || s.role == roleSetup {
		return fmt.Errorf("%s in a %s session: %w", action, sessionKind(s), ErrNotAllowed)
	}
	return nil
}

func sessionKind(s *Session) string {
	if s.diagnosis {
		return "diagnosis"
	}
	return string(s.role)
}

// SetPIN sets role's PIN with the session s: a technician sets any PIN,
// staff only their own (the role that changes comes from the session,
// never from the caller). Two roles never share a PIN (it would not say
// who typed it). A change by staff is checked against the technician's
// PIN as a PIN typed at the pad would be, and takes one of its tries: a
// staff session would otherwise be a way to test the technician's PIN
// without a lockout.
func (a *Access) SetPIN(ctx context.Context, s *Session, role Role, pin string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.check(s, "set the PIN of "+string(role)); err != nil {
		return err
	}
	by := s.role
	if (role != RoleStaff && role != RoleTechnician) || (by != RoleTechnician && by != role) {
		return fmt.Errorf("set the PIN of %s by %s: %w", role, by, ErrNotAllowed)
	}
	if !validPIN(pin) {
		return fmt.Errorf("PIN of %s must be %d to %d digits: %w", role, PINMinLen, PINMaxLen, ErrPINFormat)
	}
	creds, verified, err := a.credentials(ctx)
	if err != nil {
		return err
	}
	if !verified {
		return fmt.Errorf("set the PIN of %s while the data are in fault: %w", role, ErrNotAllowed)
	}
	taken := false
	for r, c := range creds {
		if Role(r) != role && a.matches(c, pin) {
			taken = true
		}
	}
	if by != RoleTechnician {
		// A try of the pad, taken or not: a refusal says the PIN is
		// another role's, and a success that it is not.
		if err := a.load(ctx); err != nil {
			return err
		}
		a.advance()
		if err := a.locked(ctx); err != nil {
			return err
		}
		what := "a PIN change by staff, counted as a try"
		if taken {
			what = "a PIN change by staff refused"
		}
		if werr := a.wrong(ctx, what); taken {
			return errors.Join(fmt.Errorf("PIN of %s refused: %w", role, ErrPINFormat), werr)
		}
	}
	if taken {
		return fmt.Errorf("PIN of %s is another role's: %w", role, ErrPINFormat)
	}
	c, err := a.credential(role, pin)
	if err != nil {
		return err
	}
	return a.st.SetCredentials(ctx, string(by), c)
}

// RevokePIN revokes role's PIN with the session s: a technician revokes
// the staff's, staff their own; the sessions of that role end (but s).
// The technician's PIN is changed, never revoked: a kiosk without it
// could never be maintained, and its setup never comes back.
func (a *Access) RevokePIN(ctx context.Context, s *Session, role Role) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.check(s, "revoke the PIN of "+string(role)); err != nil {
		return err
	}
	by := s.role
	switch {
	case role == RoleTechnician:
		return fmt.Errorf("the technician's PIN is changed, never revoked: %w", ErrNotAllowed)
	case role != RoleStaff || (by != RoleTechnician && by != role):
		return fmt.Errorf("revoke the PIN of %s by %s: %w", role, by, ErrNotAllowed)
	}
	if _, verified, err := a.credentials(ctx); err != nil || !verified {
		return errors.Join(err, fmt.Errorf("revoke the PIN of %s while the data are in fault: %w", role, ErrNotAllowed))
	}
	if err := a.st.RevokeCredential(ctx, string(by), string(role)); err != nil {
		return err
	}
	a.endRole(role, s)
	return nil
}

// Logout ends s and logs it (why: "idle", "done"); an ended session is
// left as it is. A session Access did not open is ErrSessionEnded.
func (a *Access) Logout(ctx context.Context, s *Session, why string) error {
	if s.isEnded() {
		return nil
	}
	if !a.end(s) {
		return fmt.Errorf("logout: %w", ErrSessionEnded)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.record(ctx, store.LevelInfo, store.EventLogout, fmt.Sprintf("logout of %s (%s)", sessionKind(s), why))
	return nil
}

// Locked is the time the pad's lock still runs (0: the pad takes PINs).
func (a *Access) Locked(ctx context.Context) (time.Duration, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.load(ctx); err != nil {
		return 0, err
	}
	a.advance()
	return a.lock.remaining, nil
}
