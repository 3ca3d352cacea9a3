package kiosk

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/store"
)

// fastKDF keeps the tests quick; the kiosk's own is DefaultKDF.
var fastKDF = KDF{Time: 1, MemoryKiB: 64, Threads: 1}

type accessRig struct {
	t     *testing.T
	path  string
	clock *fakeClock
	st    *store.Store
	a     *Access
}

func newAccessRig(t *testing.T) *accessRig {
	r := &accessRig{t: t, path: filepath.Join(t.TempDir(), "pharaon.db"),
		clock: &fakeClock{now: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}}
	r.open()
	return r
}

// open opens (or reopens, as a restarted kiosk does) the database.
func (r *accessRig) open() {
	if r.st != nil {
		require.NoError(r.t, r.st.Close())
	}
	st, err := store.Open(r.path, store.WithClock(r.clock.Now))
	require.NoError(r.t, err)
	r.t.Cleanup(func() { st.Close() })
	r.st = st
	r.a = NewAccess(st, r.clock, AccessConfig{KDF: fastKDF})
}

func (r *accessRig) setup() {
	r.t.Helper()
	require.NoError(r.t, r.a.SetPIN(ctx, "", RoleTechnician, "24680"))
	require.NoError(r.t, r.a.SetPIN(ctx, RoleTechnician, RoleStaff, "1357"))
}

func (r *accessRig) events(code string) []store.Event {
	r.t.Helper()
	all, err := r.st.Events(ctx, 1000, 0)
	require.NoError(r.t, err)
	var out []store.Event
	for _, e := range all {
		if e.Code == code {
			out = append(out, e)
		}
	}
	return out
}

func TestFirstStartAsksForTheTechnicianPIN(t *testing.T) {
	r := newAccessRig(t)
	need, err := r.a.NeedsSetup(ctx)
	require.NoError(t, err)
	assert.True(t, need)
	require.ErrorIs(t, r.a.SetPIN(ctx, "", RoleTechnician, "12a4"), ErrPINFormat)
	require.ErrorIs(t, r.a.SetPIN(ctx, "", RoleTechnician, "123"), ErrPINFormat)
	r.setup()
	need, err = r.a.NeedsSetup(ctx)
	require.NoError(t, err)
	assert.False(t, need)
	assert.ErrorIs(t, r.a.SetPIN(ctx, "", RoleTechnician, "99999"), ErrNotAllowed, "the setup is done once")
	assert.Len(t, r.events(store.EventPINSet), 2)
}

func TestPINNamesItsRole(t *testing.T) {
	r := newAccessRig(t)
	r.setup()
	role, err := r.a.Login(ctx, "1357")
	require.NoError(t, err)
	assert.Equal(t, RoleStaff, role)
	role, err = r.a.Login(ctx, "24680")
	require.NoError(t, err)
	assert.Equal(t, RoleTechnician, role)
	assert.True(t, RoleTechnician.Can(RoleStaff))
	assert.False(t, RoleStaff.Can(RoleTechnician))

	// Staff change their own PIN, not the technician's; no two roles share one.
	assert.ErrorIs(t, r.a.SetPIN(ctx, RoleStaff, RoleTechnician, "1111"), ErrNotAllowed)
	assert.ErrorIs(t, r.a.SetPIN(ctx, RoleStaff, RoleStaff, "24680"), ErrPINFormat)
	require.NoError(t, r.a.SetPIN(ctx, RoleStaff, RoleStaff, "8642"))
	_, err = r.a.Login(ctx, "1357")
	assert.ErrorIs(t, err, ErrPINWrong, "the old PIN no longer opens")
	role, err = r.a.Login(ctx, "8642")
	require.NoError(t, err)
	assert.Equal(t, RoleStaff, role)

	logins := r.events(store.EventLogin)
	require.Len(t, logins, 3)
	assert.Contains(t, logins[0].Detail, "staff")
}

// Five wrong PINs lock the pad, for longer at each lockout; a restart keeps
// the lock; a right PIN afterwards starts the count afresh.
func TestWrongPINsLockThePadAcrossRestarts(t *testing.T) {
	r := newAccessRig(t)
	r.setup()
	for i := 1; i <= 4; i++ {
		_, err := r.a.Login(ctx, "0000")
		var pe *PINError
		require.ErrorAs(t, err, &pe)
		require.ErrorIs(t, err, ErrPINWrong)
		assert.Equal(t, 5-i, pe.Left)
	}
	_, err := r.a.Login(ctx, "0000")
	var pe *PINError
	require.ErrorAs(t, err, &pe)
	require.ErrorIs(t, err, ErrPINLocked)
	assert.Equal(t, r.clock.Now().Add(time.Minute), pe.Until)

	r.open() // the kiosk restarts
	_, err = r.a.Login(ctx, "1357")
	require.ErrorIs(t, err, ErrPINLocked, "a right PIN is refused while the pad is locked, restart or not")

	r.clock.Advance(time.Minute)
	for i := 0; i < 5; i++ {
		_, err = r.a.Login(ctx, "0000")
	}
	require.ErrorAs(t, err, &pe)
	require.ErrorIs(t, err, ErrPINLocked)
	assert.Equal(t, r.clock.Now().Add(2*time.Minute), pe.Until, "the second lockout lasts twice as long")

	r.clock.Advance(2 * time.Minute)
	role, err := r.a.Login(ctx, "1357")
	require.NoError(t, err)
	assert.Equal(t, RoleStaff, role)
	l, err := r.a.Lock(ctx)
	require.NoError(t, err)
	assert.Equal(t, store.PINLock{}, l, "a right PIN clears the count and the lockouts")

	assert.Len(t, r.events(store.EventPINLocked), 2)
	assert.Len(t, r.events(store.EventPINRefused), 1)
	assert.Len(t, r.events(store.EventPINWrong), 8)
}

func TestLockoutIsCapped(t *testing.T) {
	r := newAccessRig(t)
	r.a = NewAccess(r.st, r.clock, AccessConfig{KDF: fastKDF, Tries: 1, Lockout: time.Minute, MaxLockout: 5 * time.Minute})
	r.setup()
	want := []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute, 5 * time.Minute, 5 * time.Minute}
	for i, d := range want {
		_, err := r.a.Login(ctx, "0000")
		var pe *PINError
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, r.clock.Now().Add(d), pe.Until, "lockout %d", i+1)
		r.clock.Advance(d)
	}
}

// Neither the database nor the event log holds a PIN: only its argon2id
// hash, salted, with its parameters.
func TestNoPINIsKept(t *testing.T) {
	r := newAccessRig(t)
	r.setup()
	_, _ = r.a.Login(ctx, "97531")
	creds, err := r.st.Credentials(ctx)
	require.NoError(t, err)
	require.Len(t, creds, 2)
	for _, c := range creds {
		assert.Equal(t, fastKDF.String(), c.KDF)
		assert.Len(t, c.Salt, 16)
		assert.Len(t, c.Hash, 32)
	}
	assert.NotEqual(t, creds["staff"].Salt, creds["technician"].Salt)
	all, err := r.st.Events(ctx, 1000, 0)
	require.NoError(t, err)
	for _, e := range all {
		for _, pin := range []string{"1357", "24680", "97531"} {
			assert.False(t, strings.Contains(e.Detail, pin), "event %s holds a PIN: %q", e.Code, e.Detail)
		}
	}
}

func TestKDFParameters(t *testing.T) {
	k, err := parseKDF(DefaultKDF.String())
	require.NoError(t, err)
	assert.Equal(t, DefaultKDF, k)
	for _, bad := range []string{"", "bcrypt;t=1;m=1;p=1", "argon2id;t=0;m=64;p=1", "argon2id;t=1;m=64", "argon2id;t=1;m=64;p=300", "argon2id;t=1;m=x;p=1"} {
		_, err := parseKDF(bad)
		assert.Error(t, err, bad)
	}
	// A PIN set under other parameters is checked with its own.
	r := newAccessRig(t)
	r.setup()
	r.a = NewAccess(r.st, r.clock, AccessConfig{KDF: KDF{Time: 2, MemoryKiB: 128, Threads: 1}})
	role, err := r.a.Login(ctx, "24680")
	require.NoError(t, err)
	assert.Equal(t, RoleTechnician, role)
	assert.False(t, errors.Is(err, ErrPINWrong))
}

// BenchmarkDefaultKDF is the cost of one PIN check at the pad (a login
// checks both roles' PINs: twice this).
func BenchmarkDefaultKDF(b *testing.B) {
	salt := make([]byte, 16)
	for i := 0; i < b.N; i++ {
		DefaultKDF.hash("1357", salt)
	}
}
