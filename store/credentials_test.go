package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testCredential is a credential as kiosk.Access makes one (the store
// never sees a PIN): fill is the byte its salt and hash repeat.
func testCredential(role string, fill byte) Credential {
	return Credential{Role: role, KDF: "argon2id;t=1;m=64;p=1", Salt: bytes.Repeat([]byte{fill}, 16), Hash: bytes.Repeat([]byte{fill + 1}, 32)}
}

// writeAccess writes a row of each access chain: both credentials set at
// the setup, the staff's changed then revoked, a lock after wrong PINs.
func writeAccess(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, s.SetCredentials(ctx, "setup", testCredential(RoleTechnician, 1), testCredential(RoleStaff, 3)))
	require.NoError(t, s.SetCredentials(ctx, RoleTechnician, testCredential(RoleStaff, 5)))
	require.NoError(t, s.RevokeCredential(ctx, RoleTechnician, RoleStaff))
	require.NoError(t, s.RecordPINAttempt(ctx, &PINLock{Failures: 0, Lockouts: 1, Remaining: time.Minute},
		Event{Level: LevelCritical, Source: "maintenance", Code: EventPINLocked, Detail: "locked"}))
}

func TestCredentials(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	creds, err := s.Credentials(ctx)
	require.NoError(t, err)
	assert.Empty(t, creds)

	c := testCredential(RoleStaff, 1)
	for _, bad := range []Credential{
		{Role: "boss", KDF: c.KDF, Salt: c.Salt, Hash: c.Hash},
		{Role: RoleStaff, KDF: "", Salt: c.Salt, Hash: c.Hash},
		{Role: RoleStaff, KDF: c.KDF, Salt: c.Salt[:8], Hash: c.Hash},
		{Role: RoleStaff, KDF: c.KDF, Salt: c.Salt, Hash: c.Hash[:16]},
	} {
		assert.ErrorIs(t, s.SetCredentials(ctx, "setup", bad), ErrBadRequest)
	}
	assert.ErrorIs(t, s.SetCredentials(ctx, "setup", c, c), ErrBadRequest, "one credential per role at a time")
	assert.ErrorIs(t, s.SetCredentials(ctx, "setup"), ErrBadRequest)
	assert.ErrorIs(t, s.RevokeCredential(ctx, RoleTechnician, RoleStaff), ErrNotFound, "nothing to revoke")

	require.NoError(t, s.SetCredentials(ctx, "setup", c, testCredential(RoleTechnician, 7)))
	c.Hash = bytes.Repeat([]byte{3}, 32)
	require.NoError(t, s.SetCredentials(ctx, RoleTechnician, c))
	creds, err = s.Credentials(ctx)
	require.NoError(t, err)
	require.Len(t, creds, 2)
	assert.Equal(t, c.Hash, creds[RoleStaff].Hash, "a role's credential is its newest row")
	assert.Equal(t, RoleTechnician, creds[RoleStaff].By)

	require.NoError(t, s.RevokeCredential(ctx, RoleTechnician, RoleStaff))
	assert.ErrorIs(t, s.RevokeCredential(ctx, RoleTechnician, RoleStaff), ErrNotFound, "revoked once")
	creds, err = s.Credentials(ctx)
	require.NoError(t, err)
	require.Len(t, creds, 1)
	assert.Contains(t, creds, RoleTechnician)

	events, err := s.Events(ctx, 10, 0)
	require.NoError(t, err)
	require.Len(t, events, 4)
	assert.Equal(t, EventPINRevoked, events[0].Code)
	assert.Equal(t, "PIN of role staff revoked by technician", events[0].Detail)
	assert.Equal(t, "PIN of role staff set by technician", events[1].Detail)
	require.NoError(t, s.Verify(ctx))
}

// The attacks on the credentials as whoever holds the database file would
// make them, with SQLite, dropping and recreating the triggers with their
// own text so that the schema check sees nothing: each is a fault at the
// next start (anchor) or in Verify (chain), never a kiosk without PINs.
func TestCredentialsEditedOnTheDiskAreAFault(t *testing.T) {
	dir := t.TempDir()
	anchoredHistory(t, dir)
	unlocked := func(q string) string {
		return `DROP TRIGGER credentials_no_delete; DROP TRIGGER credentials_no_update;
			DROP TRIGGER pin_lock_no_delete; DROP TRIGGER pin_lock_no_update;` + q +
			strings.Join(schemaTriggers(t, "credentials_no_delete", "credentials_no_update", "pin_lock_no_delete", "pin_lock_no_update"), ";\n") + ";"
	}
	cases := []struct {
		name, sql string
		want      error
		table     string
	}{
		{"every credential deleted", `DELETE FROM credentials;`, ErrAnchor, "credentials"},
		{"the newest credential deleted", `DELETE FROM credentials WHERE id = (SELECT max(id) FROM credentials);`, ErrAnchor, "credentials"},
		{"the technician's hash replaced", `UPDATE credentials SET pin_hash = zeroblob(32) WHERE role = 'technician';`, ErrIntegrity, "credentials"},
		{"the technician's hash replaced with its digest", `UPDATE credentials SET pin_hash = zeroblob(32),
			secret_digest = zeroblob(32) WHERE role = 'technician';`, ErrIntegrity, "credentials"},
		{"the pad's lock deleted", `DELETE FROM pin_lock;`, ErrAnchor, "pin_lock"},
		{"the pad's lock lowered", `UPDATE pin_lock SET lockouts = 0, remaining = 0;`, ErrIntegrity, "pin_lock"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := copyAnchored(t, dir)
			tamper(t, path, unlocked(c.sql))
			s, err := Open(path, WithAnchor(DefaultAnchor(path)))
			require.NoError(t, err, "the store opens to say what is wrong")
			defer s.Close()
			require.NoError(t, s.VerifySchema(context.Background()), "the triggers are back as shipped")
			err = s.Verify(context.Background())
			require.ErrorIs(t, err, c.want)
			assert.Contains(t, err.Error(), c.table)
			_, err = s.VerifyBoot(context.Background())
			require.ErrorIs(t, err, c.want, "the boot check sees it too")
			if c.want == ErrAnchor {
				// Nothing outside the file says which rows were there: the
				// store, out of service, refuses every write.
				assert.ErrorIs(t, s.AnchorErr(), ErrAnchor)
				return
			}
			if c.table == "credentials" {
				_, err = s.Credentials(context.Background())
			} else {
				_, err = s.PINLock(context.Background())
			}
			assert.ErrorIs(t, err, c.want, "reading it says so")
		})
	}
}

// openRaw opens the database at path as an attacker would, beside the
// store.
func openRaw(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_foreign_keys=0")
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

// schemaTriggers are the CREATE statements of the named triggers, as the
// migrations made them.
func schemaTriggers(t *testing.T, names ...string) []string {
	t.Helper()
	want, err := expectedSchema(context.Background(), migrations)
	require.NoError(t, err)
	var out []string
	for _, n := range names {
		for _, o := range want {
			if o.kind == "trigger" && o.name == n {
				out = append(out, o.sql)
			}
		}
	}
	require.Len(t, out, len(names))
	return out
}

// A credential or the lock rewritten while the store runs, hashes
// recomputed: the chain is whole, but its last row is not the one
// anchored; the read says so, and the store writes nothing more.
func TestCredentialRewrittenWhileRunning(t *testing.T) {
	ctx := context.Background()
	s, path := openAnchoredHistory(t)
	_, err := s.Credentials(ctx)
	require.NoError(t, err)

	// The attacker's row: the technician's credential set again to a PIN
	// of theirs, chained after the last row as the store would.
	var r credentialRow
	err = s.read(ctx, func(tx *rtx) error {
		return tx.queryRow(`SELECT id, hash FROM credentials ORDER BY id DESC LIMIT 1`).Scan(&r.id, &r.prevHash)
	})
	require.NoError(t, err)
	mine := testCredential(RoleTechnician, 9)
	r = credentialRow{id: r.id + 1, at: 1, role: RoleTechnician, action: credentialSet, by: "setup", kdf: mine.KDF,
		salt: mine.Salt, pinHash: mine.Hash, digest: secretDigest(mine.KDF, mine.Salt, mine.Hash), prevHash: r.prevHash}
	r.hash = credentialHash(r.prevHash, &r)
	db := openRaw(t, path)
	_, err = db.Exec(`INSERT INTO credentials(id, at, role, action, by, kdf, salt, pin_hash, secret_digest, prev_hash, hash)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.id, r.at, r.role, r.action, r.by, r.kdf, r.salt, r.pinHash, r.digest, r.prevHash, r.hash)
	require.NoError(t, err)

	_, err = s.Credentials(ctx)
	require.ErrorIs(t, err, ErrAnchor, "the credentials end past their anchor")
	_, err = s.Log(ctx, Event{Level: LevelInfo, Source: "test", Code: "x"})
	assert.ErrorIs(t, err, ErrAnchor, "and the store writes nothing more")
}

// The PIN pad's lock: its newest row, the zero state before any; every
// change is a row with its event.
func TestPINLockPersists(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pharaon.db")
	s, err := Open(path, WithAnchor(DefaultAnchor(path)))
	require.NoError(t, err)
	l, err := s.PINLock(ctx)
	require.NoError(t, err)
	assert.Equal(t, PINLock{}, l)

	want := PINLock{Failures: 0, Lockouts: 2, Remaining: 2 * time.Minute, Quiet: time.Second}
	require.NoError(t, s.RecordPINAttempt(ctx, &want, Event{Level: LevelCritical, Source: "maintenance", Code: EventPINLocked, Detail: "locked"}))
	require.NoError(t, s.RecordPINAttempt(ctx, nil, Event{Level: LevelInfo, Source: "maintenance", Code: EventLogin, Detail: "login"}))
	assert.ErrorIs(t, s.RecordPINAttempt(ctx, &PINLock{Failures: -1}, Event{Level: LevelInfo, Source: "maintenance", Code: EventLogin}), ErrBadRequest)
	assert.ErrorIs(t, s.RecordPINAttempt(ctx, &PINLock{Remaining: -time.Second}, Event{Level: LevelInfo, Source: "maintenance", Code: EventLogin}), ErrBadRequest)
	assert.ErrorIs(t, s.RecordPINAttempt(ctx, &PINLock{}, Event{Level: LevelInfo, Source: "maintenance"}), ErrBadRequest, "no change without its event")
	require.NoError(t, s.Close())

	s, err = Open(path, WithAnchor(DefaultAnchor(path)))
	require.NoError(t, err)
	defer s.Close()
	l, err = s.PINLock(ctx)
	require.NoError(t, err)
	assert.Equal(t, want, l)
	require.NoError(t, s.Verify(ctx))

	_, err = openRaw(t, path).Exec(`DELETE FROM pin_lock`)
	assert.ErrorContains(t, err, "never deleted")
}

// A kiosk has history once money moved or a PIN was set or tried; its
// first start's events and boot snapshot are not history.
func TestHasHistory(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	_, err := s.Log(ctx, Event{Level: LevelInfo, Source: "kiosk", Code: "started"})
	require.NoError(t, err)
	_, err = s.SnapshotMeters(ctx, SnapshotBoot)
	require.NoError(t, err)
	h, err := s.HasHistory(ctx)
	require.NoError(t, err)
	assert.False(t, h)
	require.NoError(t, s.RecordPINAttempt(ctx, &PINLock{Failures: 1}, Event{Level: LevelWarning, Source: "maintenance", Code: EventPINWrong}))
	h, err = s.HasHistory(ctx)
	require.NoError(t, err)
	assert.True(t, h)

	s = openTest(t)
	_, err = s.Adjust(ctx, 100, "", "test credit")
	require.NoError(t, err)
	h, err = s.HasHistory(ctx)
	require.NoError(t, err)
	assert.True(t, h)
}

// The centre receives a credential's row without its salt and hash: the
// digest it carries lets RecordHash recompute the row's hash, and a role
// or an action changed in the record is caught.
func TestCredentialRecordCarriesNoPINHash(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	writeAccess(t, s)
	recs, err := s.Outbox(ctx, 0, 1000)
	require.NoError(t, err)
	secrets := []string{}
	for _, fill := range []byte{1, 3, 5} {
		c := testCredential("", fill)
		secrets = append(secrets, hex.EncodeToString(c.Salt), hex.EncodeToString(c.Hash))
	}
	kinds := map[string]int{}
	for _, r := range recs {
		if r.Kind != "credential" && r.Kind != "pin_lock" {
			continue
		}
		kinds[r.Kind]++
		for _, sec := range secrets {
			assert.NotContains(t, strings.ToLower(string(r.Payload)), sec, "a PIN's salt or hash in the outbox")
		}
		stored, computed, err := RecordHash(r.Kind, r.Payload)
		require.NoError(t, err)
		assert.Equal(t, stored, computed, "%s %d", r.Kind, r.RefID)

		var row map[string]any
		require.NoError(t, json.Unmarshal(r.Payload, &row))
		if r.Kind == "credential" {
			row["role"] = RoleTechnician + RoleStaff
		} else {
			row["lockouts"] = 0.0
		}
		changed, err := json.Marshal(row)
		require.NoError(t, err)
		stored, computed, err = RecordHash(r.Kind, changed)
		require.NoError(t, err)
		assert.NotEqual(t, stored, computed, "%s changed under its hash", r.Kind)
	}
	assert.Equal(t, map[string]int{"credential": 4, "pin_lock": 1}, kinds)
}
