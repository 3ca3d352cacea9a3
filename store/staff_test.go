package store

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCredentials(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	creds, err := s.Credentials(ctx)
	require.NoError(t, err)
	assert.Empty(t, creds)

	c := Credential{Role: RoleStaff, KDF: "argon2id;t=1;m=64;p=1", Salt: bytes.Repeat([]byte{1}, 16), Hash: bytes.Repeat([]byte{2}, 32)}
	for _, bad := range []Credential{
		{Role: "boss", KDF: c.KDF, Salt: c.Salt, Hash: c.Hash},
		{Role: RoleStaff, KDF: "", Salt: c.Salt, Hash: c.Hash},
		{Role: RoleStaff, KDF: c.KDF, Salt: c.Salt[:8], Hash: c.Hash},
		{Role: RoleStaff, KDF: c.KDF, Salt: c.Salt, Hash: c.Hash[:16]},
	} {
		assert.ErrorIs(t, s.SetCredential(ctx, "setup", bad), ErrBadRequest)
	}
	require.NoError(t, s.SetCredential(ctx, "setup", c))
	c.Hash = bytes.Repeat([]byte{3}, 32)
	require.NoError(t, s.SetCredential(ctx, "technician", c))
	creds, err = s.Credentials(ctx)
	require.NoError(t, err)
	require.Len(t, creds, 1, "one credential per role")
	assert.Equal(t, c.Hash, creds[RoleStaff].Hash)

	events, err := s.Events(ctx, 10, 0)
	require.NoError(t, err)
	require.Len(t, events, 2)
	assert.Equal(t, EventPINSet, events[0].Code)
	assert.Equal(t, "PIN of role staff set by technician", events[0].Detail)
}

func TestPINLockPersists(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pharaon.db")
	s, err := Open(path)
	require.NoError(t, err)
	defer s.Close()
	l, err := s.PINLock(ctx)
	require.NoError(t, err)
	assert.Equal(t, PINLock{}, l)

	until := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	want := PINLock{Failures: 0, Lockouts: 2, Until: until}
	require.NoError(t, s.RecordPINAttempt(ctx, want, Event{Level: LevelCritical, Source: "maintenance", Code: EventPINLocked, Detail: "locked"}))
	assert.ErrorIs(t, s.RecordPINAttempt(ctx, PINLock{Failures: -1}, Event{Level: LevelInfo, Source: "maintenance", Code: EventLogin}), ErrBadRequest)
	assert.ErrorIs(t, s.RecordPINAttempt(ctx, PINLock{}, Event{Level: LevelInfo, Source: "maintenance"}), ErrBadRequest, "no change without its event")
	l, err = s.PINLock(ctx)
	require.NoError(t, err)
	assert.Equal(t, want, l)

	db, err := sql.Open("sqlite3", "file:"+path)
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec(`DELETE FROM pin_lock`)
	assert.ErrorContains(t, err, "never deleted")
}
