package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Roles of the maintenance screen (DESIGN.md §1).
const (
	RoleStaff      = "staff"
	RoleTechnician = "technician"
)

// Codes of the maintenance access events (source "maintenance").
const (
	EventPINSet     = "pin_set"
	EventLogin      = "login"
	EventLogout     = "logout"
	EventPINWrong   = "pin_wrong"
	EventPINLocked  = "pin_locked"
	EventPINRefused = "pin_refused" // a PIN typed while the pad is locked
)

// Credential is what the kiosk keeps of a role's PIN: a slow key-derivation
// hash, its salt and the derivation's parameters (KDF), never the PIN.
type Credential struct {
	Role  string
	KDF   string
	Salt  []byte
	Hash  []byte
	SetAt time.Time
}

// PINLock is the PIN pad's state: the wrong PINs since the last right one
// (or the last lockout), the lockouts since the last right PIN, and the time
// before which the pad refuses every PIN.
type PINLock struct {
	Failures int
	Lockouts int
	Until    time.Time
}

// Credentials returns the credentials set, by role.
func (s *Store) Credentials(ctx context.Context) (map[string]Credential, error) {
	out := map[string]Credential{}
	err := s.read(ctx, func(tx *rtx) error {
		rows, err := tx.query(`SELECT role, kdf, salt, hash, set_at FROM staff`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c Credential
			var at int64
			if err := rows.Scan(&c.Role, &c.KDF, &c.Salt, &c.Hash, &at); err != nil {
				return err
			}
			c.SetAt = time.Unix(0, at).UTC()
			out[c.Role] = c
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("credentials: %w", err)
	}
	return out, nil
}

// SetCredential sets (or replaces) a role's credential and logs who set it
// (by: a role, or "setup" at the first start); the event names the role,
// never the PIN or its hash.
func (s *Store) SetCredential(ctx context.Context, by string, c Credential) error {
	if (c.Role != RoleStaff && c.Role != RoleTechnician) || by == "" || c.KDF == "" || len(c.Salt) < 16 || len(c.Hash) < 32 {
		return fmt.Errorf("set credential of %q: %w", c.Role, ErrBadRequest)
	}
	err := s.write(ctx, func(t *wtx) error {
		if _, err := t.execQ(`INSERT INTO staff(role, kdf, salt, hash, set_at) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT(role) DO UPDATE SET kdf = excluded.kdf, salt = excluded.salt, hash = excluded.hash, set_at = excluded.set_at`,
			c.Role, c.KDF, c.Salt, c.Hash, t.now); err != nil {
			return err
		}
		_, err := t.logEvent(LevelInfo, "maintenance", EventPINSet, fmt.Sprintf("PIN of role %s set by %s", c.Role, by))
		return err
	})
	if err != nil {
		return fmt.Errorf("set credential of %s: %w", c.Role, err)
	}
	return nil
}

// PINLock returns the PIN pad's state.
func (s *Store) PINLock(ctx context.Context) (PINLock, error) {
	var l PINLock
	var until int64
	err := s.read(ctx, func(tx *rtx) error {
		return tx.queryRow(`SELECT failures, lockouts, until FROM pin_lock WHERE id = 1`).Scan(&l.Failures, &l.Lockouts, &until)
	})
	if errors.Is(err, sql.ErrNoRows) {
		err = integrity("schema", "pin_lock", 1, "the PIN pad's lock is missing")
	}
	if err != nil {
		return PINLock{}, fmt.Errorf("pin lock: %w", err)
	}
	if until != 0 {
		l.Until = time.Unix(0, until).UTC()
	}
	return l, nil
}

// RecordPINAttempt stores the PIN pad's new state and its event in one
// transaction: what an attempt changed is never kept without its trace.
func (s *Store) RecordPINAttempt(ctx context.Context, l PINLock, e Event) error {
	if l.Failures < 0 || l.Lockouts < 0 || !e.Level.valid() || e.Source == "" || e.Code == "" {
		return fmt.Errorf("record PIN attempt: %w", ErrBadRequest)
	}
	var until int64
	if !l.Until.IsZero() {
		until = l.Until.UnixNano()
	}
	err := s.write(ctx, func(t *wtx) error {
		if _, err := t.execQ(`UPDATE pin_lock SET failures = ?, lockouts = ?, until = ? WHERE id = 1`, l.Failures, l.Lockouts, until); err != nil {
			return err
		}
		_, err := t.logEvent(e.Level, e.Source, e.Code, e.Detail)
		return err
	})
	if err != nil {
		return fmt.Errorf("record PIN attempt: %w", err)
	}
	return nil
}
