package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Credentials and the PIN pad's lock (DESIGN.md §1, §4): both are chains
// of changes, hash-chained and anchored like the ledger (maintenance
// schema), so that what decides who may open the maintenance screen is as
// hard to edit unseen as the money. A role's credential is its newest row
// (set or revoke); the pad's lock is the newest row of pin_lock. Reading
// either checks it: the credentials' chain is walked whole (it is a few
// rows per change of PIN), the lock's newest row is checked against its
// hash, and while the anchor holds, each chain's last row must be the one
// the store committed and anchored: a row deleted or rewritten behind the
// store's back is ErrIntegrity or ErrAnchor, never a kiosk without PINs.

// Roles of the maintenance screen (DESIGN.md §1).
const (
	RoleStaff      = "staff"
	RoleTechnician = "technician"
)

// Codes of the maintenance access events (source "maintenance").
const (
	EventPINSet     = "pin_set"
	EventPINRevoked = "pin_revoked"
	EventLogin      = "login"
	EventLogout     = "logout"
	EventPINWrong   = "pin_wrong"
	EventPINLocked  = "pin_locked"
	EventPINRefused = "pin_refused" // a PIN typed while the pad is locked, or refused for the kiosk's state
)

// Credential is what the kiosk keeps of a role's PIN: a slow key-derivation
// hash, its salt and the derivation's parameters (KDF), never the PIN.
type Credential struct {
	Role  string
	KDF   string
	Salt  []byte
	Hash  []byte
	SetAt time.Time
	By    string // who set it: a role, or "setup"
}

// Actions of a row of credentials.
const (
	credentialSet    = "set"
	credentialRevoke = "revoke"
)

const (
	domainCredential       = "pharaon/credential/v1"
	domainCredentialSecret = "pharaon/credential-secret/v1"
	domainPINLock          = "pharaon/pin_lock/v1"
)

type credentialRow struct {
	id, at           int64
	role, action, by string
	kdf              string
	salt, pinHash    []byte
	digest           []byte // secretDigest(kdf, salt, pinHash); empty for a revoke
	prevHash, hash   []byte
}

// secretDigest is what the chain hashes of a credential's secret: the
// outbox carries it instead of the salt and hash of the PIN, and whoever
// holds the records can still recompute the row's hash, but cannot test a
// PIN against it.
func secretDigest(kdf string, salt, pinHash []byte) []byte {
	return newRowHash(domainCredentialSecret, nil).str(kdf).bytes(salt).bytes(pinHash).sum()
}

func credentialHash(prev []byte, r *credentialRow) []byte {
	return newRowHash(domainCredential, prev).int(r.id).int(r.at).str(r.role).str(r.action).str(r.by).bytes(r.digest).sum()
}

type pinLockRow struct {
	id, at             int64
	failures, lockouts int64
	remaining, quiet   int64 // nanoseconds
	prevHash, hash     []byte
}

func pinLockHash(prev []byte, r *pinLockRow) []byte {
	return newRowHash(domainPINLock, prev).int(r.id).int(r.at).int(r.failures).int(r.lockouts).
		int(r.remaining).int(r.quiet).sum()
}

// anchoredHead is chain c's last row as this store committed and anchored
// it; ok is false when the store has no anchor or its anchor failed
// (nothing outside the database then says which row is the last).
func (s *Store) anchoredHead(c chainID) (h head, ok bool) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.anc == nil || s.anc.err != nil {
		return head{}, false
	}
	return s.anc.heads[c], true
}

// checkHead compares the last row of chain c read in a snapshot with the
// head the store anchored. A difference is a chain cut, extended or
// rewritten behind the store while it runs: the anchor is marked failed
// (every write is refused from then on) and the difference is ErrAnchor.
func (s *Store) checkHead(c chainID, id int64, hash []byte) error {
	want, ok := s.anchoredHead(c)
	if !ok {
		return nil
	}
	err := headDiffers(c, id, hash, want)
	if err != nil {
		s.wmu.Lock()
		if s.anc.err == nil {
			s.anc.err = err
		}
		s.wmu.Unlock()
	}
	return err
}

// headDiffers is ErrAnchor, saying how, when the last row of chain c (id
// and hash as read) is not want.
func headDiffers(c chainID, id int64, hash []byte, want head) error {
	var got head
	got.id = id
	copy(got.hash[:], hash)
	if got == want {
		return nil
	}
	var db, a heads
	db[c], a[c] = got, want
	return fmt.Errorf("%s: %w", describe(db, a), ErrAnchor)
}

// chainTail is the last row of chain c (0 and the genesis hash when it is
// empty), read to chain a new row after it. With an anchor it must be the
// row the store committed: a row cut, added or rewritten behind the store
// while it runs is ErrAnchor, and the store then refuses every write. It
// costs nothing more than the read the new row needs anyway.
func (t *wtx) chainTail(c chainID) (int64, []byte, error) {
	id, prev := int64(0), genesis
	err := t.rowQ(`SELECT id, hash FROM `+chainTables[c]+` ORDER BY id DESC LIMIT 1`).Scan(&id, &prev)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, nil, err
	}
	if a := t.s.anc; a != nil {
		hash := prev
		if id == 0 {
			hash = nil
		}
		if err := headDiffers(c, id, hash, t.heads[c]); err != nil {
			a.err = err
			return 0, nil, err
		}
	}
	return id, prev, nil
}

// Credentials returns the credential of each role that has one (its
// newest row sets it), after walking the credentials' chain and, while
// the anchor holds, checking its last row against the anchor: an edited
// chain is *IntegrityError, a chain cut or rewritten since it was anchored
// ErrAnchor. With a failed anchor the walked chain is all that can be
// checked (the kiosk is then out of service and the store refuses writes).
func (s *Store) Credentials(ctx context.Context) (map[string]Credential, error) {
	var out map[string]Credential
	err := s.read(ctx, func(tx *rtx) error {
		var last credentialRow
		var err error
		if out, last, err = readCredentials(tx, true); err != nil {
			return err
		}
		return s.checkHead(chCredentials, last.id, last.hash)
	})
	if err != nil {
		return nil, fmt.Errorf("credentials: %w", err)
	}
	return out, nil
}

// CredentialsAsStored returns each role's newest credential as the file
// holds it, without checking the chain or the anchor. It exists for one
// use: a technician reading the diagnosis of a kiosk whose data failed
// their checks (kiosk.Access), in a session that changes nothing.
func (s *Store) CredentialsAsStored(ctx context.Context) (map[string]Credential, error) {
	var out map[string]Credential
	err := s.read(ctx, func(tx *rtx) error {
		var err error
		out, _, err = readCredentials(tx, false)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("credentials as stored: %w", err)
	}
	return out, nil
}

// readCredentials reads the credentials' chain in order, walking it when
// verify, and returns the newest credential of each role and the last row.
func readCredentials(tx *rtx, verify bool) (map[string]Credential, credentialRow, error) {
	out := map[string]Credential{}
	var last credentialRow
	err := walkCredentials(tx, verify, func(r *credentialRow) {
		last = *r
		switch r.action {
		case credentialSet:
			out[r.role] = Credential{Role: r.role, KDF: r.kdf, Salt: r.salt, Hash: r.pinHash,
				SetAt: time.Unix(0, r.at).UTC(), By: r.by}
		case credentialRevoke:
			delete(out, r.role)
		}
	})
	return out, last, err
}

// walkCredentials calls f on every row of the credentials' chain in
// order; with verify, each row must follow the one before it and hash to
// its hash, its secret to its digest.
func walkCredentials(tx *rtx, verify bool, f func(*credentialRow)) error {
	rows, err := tx.query(`SELECT id, at, role, action, by, kdf, salt, pin_hash, secret_digest, prev_hash, hash FROM credentials ORDER BY id`)
	if err != nil {
		return fmt.Errorf("read credentials: %w", err)
	}
	defer rows.Close()
	var id int64
	prev := genesis
	for rows.Next() {
		var r credentialRow
		if err := rows.Scan(&r.id, &r.at, &r.role, &r.action, &r.by, &r.kdf, &r.salt, &r.pinHash, &r.digest, &r.prevHash, &r.hash); err != nil {
			return fmt.Errorf("read credentials: %w", err)
		}
		if verify {
			var want []byte
			if r.action == credentialSet {
				want = secretDigest(r.kdf, r.salt, r.pinHash)
			}
			switch {
			case r.id != id+1:
				return integrity("chain", "credentials", r.id, "follows row %d", id)
			case string(r.prevHash) != string(prev):
				return integrity("chain", "credentials", r.id, "previous hash does not match row %d", id)
			case string(r.digest) != string(want):
				return integrity("chain", "credentials", r.id, "the PIN's hash or salt does not match its digest")
			case string(credentialHash(prev, &r)) != string(r.hash):
				return integrity("chain", "credentials", r.id, "content does not match its hash")
			}
		}
		id, prev = r.id, r.hash
		f(&r)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read credentials: %w", err)
	}
	return nil
}

// verifyCredentials is Verify's walk of the credentials' chain.
func verifyCredentials(tx *rtx) error { return walkCredentials(tx, true, func(*credentialRow) {}) }

// SetCredentials sets (or replaces) the credentials given, in one
// transaction, and logs for each who set it (by: a role, or "setup" at the
// first start); the events name the role, never the PIN or its hash. The
// first start's setup gives both roles at once: a power cut never leaves
// a kiosk with one PIN of the two.
func (s *Store) SetCredentials(ctx context.Context, by string, cs ...Credential) error {
	seen := map[string]bool{}
	for _, c := range cs {
		if (c.Role != RoleStaff && c.Role != RoleTechnician) || seen[c.Role] || by == "" || c.KDF == "" || len(c.Salt) < 16 || len(c.Hash) < 32 {
			return fmt.Errorf("set credential of %q: %w", c.Role, ErrBadRequest)
		}
		seen[c.Role] = true
	}
	if len(cs) == 0 {
		return fmt.Errorf("set credentials: none: %w", ErrBadRequest)
	}
	err := s.write(ctx, func(t *wtx) error {
		for _, c := range cs {
			r := credentialRow{role: c.Role, action: credentialSet, by: by, kdf: c.KDF, salt: c.Salt, pinHash: c.Hash,
				digest: secretDigest(c.KDF, c.Salt, c.Hash)}
			if err := t.insertCredential(&r); err != nil {
				return err
			}
			if _, err := t.logEvent(LevelInfo, "maintenance", EventPINSet, fmt.Sprintf("PIN of role %s set by %s", c.Role, by)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("set credentials: %w", err)
	}
	return nil
}

// RevokeCredential revokes role's credential (its PIN no longer opens
// anything) and logs who revoked it. A role without a credential is
// ErrNotFound.
func (s *Store) RevokeCredential(ctx context.Context, by, role string) error {
	if (role != RoleStaff && role != RoleTechnician) || by == "" {
		return fmt.Errorf("revoke credential of %q: %w", role, ErrBadRequest)
	}
	err := s.write(ctx, func(t *wtx) error {
		var action string
		err := t.rowQ(`SELECT action FROM credentials WHERE role = ? ORDER BY id DESC LIMIT 1`, role).Scan(&action)
		switch {
		case errors.Is(err, sql.ErrNoRows) || action == credentialRevoke:
			return fmt.Errorf("no PIN of %s to revoke: %w", role, ErrNotFound)
		case err != nil:
			return err
		}
		if err := t.insertCredential(&credentialRow{role: role, action: credentialRevoke, by: by}); err != nil {
			return err
		}
		_, err = t.logEvent(LevelInfo, "maintenance", EventPINRevoked, fmt.Sprintf("PIN of role %s revoked by %s", role, by))
		return err
	})
	if err != nil {
		return fmt.Errorf("revoke credential of %s: %w", role, err)
	}
	return nil
}

// insertCredential appends r to the credentials' chain.
func (t *wtx) insertCredential(r *credentialRow) error {
	r.at = t.now
	var err error
	if r.id, r.prevHash, err = t.chainTail(chCredentials); err != nil {
		return err
	}
	r.id++
	r.hash = credentialHash(r.prevHash, r)
	if r.salt == nil {
		r.salt, r.pinHash, r.digest = []byte{}, []byte{}, []byte{}
	}
	if _, err := t.execQ(`INSERT INTO credentials(id, at, role, action, by, kdf, salt, pin_hash, secret_digest, prev_hash, hash)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.id, r.at, r.role, r.action, r.by, r.kdf, r.salt, r.pinHash, r.digest, r.prevHash, r.hash); err != nil {
		return fmt.Errorf("insert credential: %w", err)
	}
	t.heads.set(chCredentials, r.id, r.hash)
	return nil
}

// PINLock is the PIN pad's state (kiosk.Access): the wrong PINs since the
// last lockout, the lockouts that set the next one's length, the lock's
// time left (time that runs, not a wall-clock instant: a clock set back or
// forward changes nothing) and the quiet time since the last wrong PIN,
// as they stood when the state was last written.
type PINLock struct {
	Failures  int
	Lockouts  int
	Remaining time.Duration
	Quiet     time.Duration
}

func (l PINLock) valid() bool {
	return l.Failures >= 0 && l.Lockouts >= 0 && l.Remaining >= 0 && l.Quiet >= 0
}

// PINLock returns the PIN pad's state: its newest row (the zero state when
// none was written), checked against its hash and, while the anchor
// holds, against the anchor (a row deleted or rewritten is ErrAnchor or
// *IntegrityError).
func (s *Store) PINLock(ctx context.Context) (PINLock, error) {
	var l PINLock
	err := s.read(ctx, func(tx *rtx) error {
		var r pinLockRow
		err := tx.queryRow(`SELECT id, at, failures, lockouts, remaining, quiet, prev_hash, hash FROM pin_lock ORDER BY id DESC LIMIT 1`).
			Scan(&r.id, &r.at, &r.failures, &r.lockouts, &r.remaining, &r.quiet, &r.prevHash, &r.hash)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		case string(pinLockHash(r.prevHash, &r)) != string(r.hash):
			return integrity("chain", "pin_lock", r.id, "content does not match its hash")
		}
		l = PINLock{Failures: int(r.failures), Lockouts: int(r.lockouts), Remaining: time.Duration(r.remaining), Quiet: time.Duration(r.quiet)}
		return s.checkHead(chPINLock, r.id, r.hash)
	})
	if err != nil {
		return PINLock{}, fmt.Errorf("pin lock: %w", err)
	}
	return l, nil
}

// RecordPINAttempt stores the PIN pad's new state (nil: unchanged) and the
// attempt's event in one transaction: what an attempt changed is never
// kept without its trace.
func (s *Store) RecordPINAttempt(ctx context.Context, l *PINLock, e Event) error {
	if (l != nil && !l.valid()) || !e.Level.valid() || e.Source == "" || e.Code == "" {
		return fmt.Errorf("record PIN attempt: %w", ErrBadRequest)
	}
	err := s.write(ctx, func(t *wtx) error {
		if l != nil {
			r := pinLockRow{at: t.now, failures: int64(l.Failures), lockouts: int64(l.Lockouts),
				remaining: int64(l.Remaining), quiet: int64(l.Quiet)}
			var err error
			if r.id, r.prevHash, err = t.chainTail(chPINLock); err != nil {
				return err
			}
			r.id++
			r.hash = pinLockHash(r.prevHash, &r)
			if _, err := t.execQ(`INSERT INTO pin_lock(id, at, failures, lockouts, remaining, quiet, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
				r.id, r.at, r.failures, r.lockouts, r.remaining, r.quiet, r.prevHash, r.hash); err != nil {
				return fmt.Errorf("insert pin lock: %w", err)
			}
			t.heads.set(chPINLock, r.id, r.hash)
		}
		_, err := t.logEvent(e.Level, e.Source, e.Code, e.Detail)
		return err
	})
	if err != nil {
		return fmt.Errorf("record PIN attempt: %w", err)
	}
	return nil
}

// verifyPINLock is Verify's walk of the PIN pad lock's chain.
func verifyPINLock(tx *rtx) error {
	rows, err := tx.query(`SELECT id, at, failures, lockouts, remaining, quiet, prev_hash, hash FROM pin_lock ORDER BY id`)
	if err != nil {
		return fmt.Errorf("verify pin lock: %w", err)
	}
	defer rows.Close()
	var id int64
	prev := genesis
	for rows.Next() {
		var r pinLockRow
		if err := rows.Scan(&r.id, &r.at, &r.failures, &r.lockouts, &r.remaining, &r.quiet, &r.prevHash, &r.hash); err != nil {
			return fmt.Errorf("verify pin lock: %w", err)
		}
		switch {
		case r.id != id+1:
			return integrity("chain", "pin_lock", r.id, "follows row %d", id)
		case string(r.prevHash) != string(prev) || string(pinLockHash(prev, &r)) != string(r.hash):
			return integrity("chain", "pin_lock", r.id, "content or previous hash does not match its hash")
		}
		id, prev = r.id, r.hash
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("verify pin lock: %w", err)
	}
	return nil
}

// historyTables are the chains whose rows say a kiosk has been in
// service: money moved, a play sold, a PIN set or tried. The events and
// the meter snapshots are not among them: a kiosk's first start writes
// both (its anchor's creation, its boot snapshot) before its setup.
var historyTables = []string{"ledger", "plays", "vouchers", "bill_intents", "credentials", "pin_lock"}

// HasHistory reports whether the kiosk has been in service (a row in any
// of historyTables): such a kiosk with no credential is a fault, never a
// kiosk to set up afresh (kiosk.Access.NeedsSetup).
func (s *Store) HasHistory(ctx context.Context) (bool, error) {
	var found bool
	err := s.read(ctx, func(tx *rtx) error {
		for _, t := range historyTables {
			var n int64
			if err := tx.queryRow(`SELECT EXISTS (SELECT 1 FROM ` + t + `)`).Scan(&n); err != nil {
				return err
			}
			if n != 0 {
				found = true
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("history: %w", err)
	}
	return found, nil
}
