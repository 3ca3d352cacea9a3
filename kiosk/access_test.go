package kiosk

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/store"
)

// fastKDF keeps the tests quick; the kiosk's own is DefaultKDF.
var fastKDF = KDF{Time: 1, MemoryKiB: 64, Threads: 1}

// The tests' PINs.
const (
	testTechPIN  = "246800"
	testStaffPIN = "135700"
)

// setPINs runs the first start's setup of a: the tests' PINs. A fixture
// that made history before (which a kiosk never does before its setup)
// gets them written as the setup would have.
func setPINs(t testing.TB, a *Access) {
	t.Helper()
	s, err := a.SetupSession(ctx)
	if errors.Is(err, ErrNoCredential) {
		tc, err := a.credential(RoleTechnician, testTechPIN)
		require.NoError(t, err)
		sc, err := a.credential(RoleStaff, testStaffPIN)
		require.NoError(t, err)
		require.NoError(t, a.st.SetCredentials(ctx, string(roleSetup), tc, sc))
		return
	}
	require.NoError(t, err)
	require.NoError(t, a.Setup(ctx, s, testTechPIN, testStaffPIN))
}

type accessRig struct {
	t     *testing.T
	path  string
	clock *fakeClock
	st    *store.Store
	a     *Access
	cfg   AccessConfig
	// logs is what Access wrote on the kiosk's log.
	logs *logBuffer
}

// logBuffer is a kiosk's log the tests read.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(&l.b, format+"\n", args...)
}

func (l *logBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

func newAccessRig(t *testing.T, opts ...store.Option) *accessRig {
	r := &accessRig{t: t, path: filepath.Join(t.TempDir(), "pharaon.db"),
		clock: &fakeClock{now: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}, logs: &logBuffer{}}
	r.cfg = AccessConfig{KDF: fastKDF, Logf: r.logs.printf}
	r.open(opts...)
	return r
}

// open opens (or reopens, as a restarted kiosk does) the database.
func (r *accessRig) open(opts ...store.Option) {
	if r.st != nil {
		require.NoError(r.t, r.st.Close())
	}
	st, err := store.Open(r.path, append([]store.Option{store.WithClock(r.clock.Now), store.WithAnchor(store.DefaultAnchor(r.path))}, opts...)...)
	require.NoError(r.t, err)
	r.t.Cleanup(func() { st.Close() })
	r.st = st
	r.a = NewAccess(st, r.clock, r.cfg)
}

func (r *accessRig) setup() { r.t.Helper(); setPINs(r.t, r.a) }

func (r *accessRig) login(pin string) (*Session, error) { return r.a.Login(ctx, pin) }

func (r *accessRig) events(code string) []store.Event {
	r.t.Helper()
	all, err := r.st.Events(ctx, 100_000, 0)
	require.NoError(r.t, err)
	var out []store.Event
	for _, e := range all {
		if e.Code == code {
			out = append(out, e)
		}
	}
	return out
}

// wait is the time the pad's lock still runs.
func (r *accessRig) wait() time.Duration {
	r.t.Helper()
	w, err := r.a.Locked(ctx)
	require.NoError(r.t, err)
	return w
}

func TestFirstStartSetsBothPINsOnce(t *testing.T) {
	r := newAccessRig(t)
	need, err := r.a.NeedsSetup(ctx)
	require.NoError(t, err)
	assert.True(t, need)
	s, err := r.a.SetupSession(ctx)
	require.NoError(t, err)
	for _, bad := range [][2]string{{"24680", testStaffPIN}, {testTechPIN, "12345678901"}, {"24a800", testStaffPIN}, {testTechPIN, testTechPIN}} {
		require.ErrorIs(t, r.a.Setup(ctx, s, bad[0], bad[1]), ErrPINFormat, "%q", bad)
	}
	assert.ErrorIs(t, r.a.SetPIN(ctx, s, RoleStaff, testStaffPIN), ErrNotAllowed, "the setup session only sets up")
	require.NoError(t, r.a.Setup(ctx, s, testTechPIN, testStaffPIN))
	need, err = r.a.NeedsSetup(ctx)
	require.NoError(t, err)
	assert.False(t, need)
	assert.ErrorIs(t, r.a.Setup(ctx, s, "999999", "888888"), ErrSessionEnded, "the setup session is used once")
	_, err = r.a.SetupSession(ctx)
	assert.ErrorIs(t, err, ErrNotAllowed, "the setup is done once")
	set := r.events(store.EventPINSet)
	require.Len(t, set, 2)
	assert.Contains(t, set[0].Detail, "set by setup")

	tech, err := r.login(testTechPIN)
	require.NoError(t, err)
	assert.Equal(t, RoleTechnician, tech.Role())
	assert.False(t, tech.Diagnosis())
	staff, err := r.login(testStaffPIN)
	require.NoError(t, err)
	assert.Equal(t, RoleStaff, staff.Role())
	assert.True(t, RoleTechnician.Can(RoleStaff))
	assert.False(t, RoleStaff.Can(RoleTechnician))
	assert.False(t, roleSetup.Can(RoleStaff))
}

// A kiosk that has been in service and has no credential is a fault with
// its reason, never a setup: whoever stands at the screen would choose
// the PINs.
func TestNoSetupOnAKioskWithHistory(t *testing.T) {
	r := newAccessRig(t)
	_, err := r.st.Adjust(ctx, 500, "", "test credit")
	require.NoError(t, err)
	need, err := r.a.NeedsSetup(ctx)
	assert.False(t, need)
	require.ErrorIs(t, err, ErrNoCredential)
	require.ErrorIs(t, err, store.ErrIntegrity, "an integrity fault")
	_, err = r.a.SetupSession(ctx)
	assert.ErrorIs(t, err, ErrNoCredential)
}

// asAttacker runs q on the database at path with the triggers of tables
// dropped, then puts them back with their very text: the schema check sees
// nothing.
func asAttacker(t *testing.T, path, q string, tables ...string) {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	require.NoError(t, err)
	defer db.Close()
	var triggers []string
	for _, table := range tables {
		rows, err := db.Query(`SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ?`, table)
		require.NoError(t, err)
		for rows.Next() {
			var name, text string
			require.NoError(t, rows.Scan(&name, &text))
			_, err = db.Exec(`DROP TRIGGER ` + name)
			require.NoError(t, err)
			triggers = append(triggers, text)
		}
		require.NoError(t, rows.Err())
		rows.Close()
	}
	require.NotEmpty(t, triggers)
	_, err = db.Exec(q)
	require.NoError(t, err)
	for _, text := range triggers {
		_, err = db.Exec(text)
		require.NoError(t, err)
	}
}

// The credentials deleted on the disk of a kiosk in service: at the next
// start the kiosk is out of service on its anchor, and the setup does not
// come back.
func TestDeletedCredentialsAreAFaultNeverASetup(t *testing.T) {
	f := newAnchoredFixture(t)
	f.boot()
	a := NewAccess(f.st, f.clock, AccessConfig{KDF: fastKDF})
	setPINs(t, a)
	f.credit(5 * game.Euro)
	f.stop()
	asAttacker(t, f.path, `DELETE FROM credentials`, "credentials")

	f.start()
	f.boot()
	snap := f.m.Snapshot()
	require.Equal(t, OutOfService, snap.State)
	assert.Equal(t, FaultAnchor, snap.Fault.Code)
	assert.Contains(t, snap.Fault.Detail, "credentials")
	a = NewAccess(f.st, f.clock, AccessConfig{KDF: fastKDF})
	need, err := a.NeedsSetup(ctx)
	assert.False(t, need, "never the setup")
	require.ErrorIs(t, err, store.ErrAnchor)
	_, err = a.SetupSession(ctx)
	assert.Error(t, err)
}

// Staff change their own PIN, not the technician's; the technician changes
// both and revokes the staff's; the role that changes a PIN is the
// session's. Each change and revoke is an event with the role, never the
// PIN.
func TestPINChangesAndRevokes(t *testing.T) {
	r := newAccessRig(t)
	r.setup()
	r.a = NewAccess(r.st, r.clock, AccessConfig{KDF: fastKDF, Tries: 10}) // not about the lock
	staff, err := r.login(testStaffPIN)
	require.NoError(t, err)
	assert.ErrorIs(t, r.a.SetPIN(ctx, staff, RoleTechnician, "111111"), ErrNotAllowed)
	assert.ErrorIs(t, r.a.RevokePIN(ctx, staff, RoleTechnician), ErrNotAllowed)
	assert.ErrorIs(t, r.a.SetPIN(ctx, staff, RoleStaff, "8642"), ErrPINFormat, "6 to 10 digits")
	require.NoError(t, r.a.SetPIN(ctx, staff, RoleStaff, "864200"))
	_, err = r.login(testStaffPIN)
	assert.ErrorIs(t, err, ErrPINWrong, "the old PIN no longer opens")
	s, err := r.login("864200")
	require.NoError(t, err)
	assert.Equal(t, RoleStaff, s.Role())

	tech, err := r.login(testTechPIN)
	require.NoError(t, err)
	assert.ErrorIs(t, r.a.SetPIN(ctx, tech, RoleStaff, testTechPIN), ErrPINFormat, "no two roles share a PIN")
	require.NoError(t, r.a.SetPIN(ctx, tech, RoleStaff, "975310"))
	require.NoError(t, r.a.SetPIN(ctx, tech, RoleTechnician, "2468024680"))
	_, err = r.login(testTechPIN)
	assert.ErrorIs(t, err, ErrPINWrong)
	require.ErrorIs(t, r.a.RevokePIN(ctx, tech, RoleTechnician), ErrNotAllowed, "the technician's PIN is changed, never revoked")
	require.NoError(t, r.a.RevokePIN(ctx, tech, RoleStaff))
	assert.False(t, r.a.alive(s), "the staff's sessions end with their PIN")
	assert.True(t, r.a.alive(tech))
	_, err = r.login("975310")
	assert.ErrorIs(t, err, ErrPINWrong, "a revoked PIN opens nothing")
	assert.ErrorIs(t, r.a.RevokePIN(ctx, tech, RoleStaff), store.ErrNotFound)

	set := r.events(store.EventPINSet)
	require.Len(t, set, 5)
	assert.Equal(t, "PIN of role technician set by technician", set[0].Detail)
	assert.Equal(t, "PIN of role staff set by technician", set[1].Detail)
	assert.Equal(t, "PIN of role staff set by staff", set[2].Detail)
	revoked := r.events(store.EventPINRevoked)
	require.Len(t, revoked, 1)
	assert.Equal(t, "PIN of role staff revoked by technician", revoked[0].Detail)
	noPINIn(t, r.st, testTechPIN, testStaffPIN, "864200", "975310", "2468024680")
	require.NoError(t, r.st.Verify(ctx))
}

// A staff session is no way to test the technician's PIN without the
// pad's lockout: each change of PIN by staff takes a try, and a change to
// the technician's PIN is refused as a wrong PIN is.
func TestStaffPINChangesTakeTries(t *testing.T) {
	r := newAccessRig(t)
	r.setup()
	staff, err := r.login(testStaffPIN)
	require.NoError(t, err)
	require.NoError(t, r.a.SetPIN(ctx, staff, RoleStaff, "111111"))
	err = r.a.SetPIN(ctx, staff, RoleStaff, testTechPIN)
	require.ErrorIs(t, err, ErrPINFormat)
	require.ErrorIs(t, err, ErrPINWrong, "counted as a wrong PIN")
	err = r.a.SetPIN(ctx, staff, RoleStaff, "222222")
	require.NoError(t, err, "the third change is made, and locks the pad")
	assert.Equal(t, time.Minute, r.wait())
	assert.ErrorIs(t, r.a.SetPIN(ctx, staff, RoleStaff, "333333"), ErrPINLocked)
	_, err = r.login("222222")
	assert.ErrorIs(t, err, ErrPINLocked)
}

// Three wrong PINs in a row lock the pad for a minute, then for twice as
// long at each lockout; a restart resumes the lock from what the store
// kept (never shorter); a right PIN changes nothing of the lock's growth.
func TestWrongPINsLockThePadAcrossRestarts(t *testing.T) {
	r := newAccessRig(t)
	r.setup()
	for i := 1; i <= 2; i++ {
		_, err := r.login("000000")
		var pe *PINError
		require.ErrorAs(t, err, &pe)
		require.ErrorIs(t, err, ErrPINWrong)
		assert.Equal(t, 3-i, pe.Left)
	}
	_, err := r.login("000000")
	var pe *PINError
	require.ErrorAs(t, err, &pe)
	require.ErrorIs(t, err, ErrPINLocked)
	assert.Equal(t, time.Minute, pe.Wait)

	r.clock.Advance(40 * time.Second)
	r.open() // the kiosk restarts
	assert.Equal(t, time.Minute, r.wait(), "a restart resumes the lock from the time the store kept: longer, never shorter")
	_, err = r.login(testStaffPIN)
	require.ErrorIs(t, err, ErrPINLocked, "a right PIN is refused while the pad is locked")

	r.clock.Advance(time.Minute)
	_, err = r.login(testStaffPIN)
	require.NoError(t, err)
	for i := 0; i < 3; i++ {
		_, err = r.login("000000")
	}
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, 2*time.Minute, pe.Wait, "the second lockout lasts twice as long: the right PIN between reset nothing")
	r.clock.Advance(2 * time.Minute)
	for i := 0; i < 2; i++ {
		_, err = r.login("000000")
		require.ErrorIs(t, err, ErrPINWrong)
		_, err = r.login(testStaffPIN)
		require.NoError(t, err)
	}
	_, err = r.login("000000")
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, 4*time.Minute, pe.Wait, "wrong PINs between right ones are still in a row")

	assert.Len(t, r.events(store.EventPINLocked), 3)
	assert.Len(t, r.events(store.EventPINRefused), 1)
	assert.Len(t, r.events(store.EventPINWrong), 6)
	require.NoError(t, r.st.Verify(ctx))
}

// The lock counts time that runs: the wall clock set forward or back, by a
// day or a year, neither opens the pad nor keeps it shut.
func TestLockIgnoresTheWallClock(t *testing.T) {
	for _, jump := range []time.Duration{24 * time.Hour, -24 * time.Hour, 365 * 24 * time.Hour, -365 * 24 * time.Hour} {
		t.Run(jump.String(), func(t *testing.T) {
			r := newAccessRig(t)
			r.setup()
			for i := 0; i < 3; i++ {
				_, _ = r.login("000000")
			}
			r.clock.SetWall(r.clock.Now().Add(jump))
			assert.Equal(t, time.Minute, r.wait())
			_, err := r.login(testStaffPIN)
			require.ErrorIs(t, err, ErrPINLocked)
			r.clock.Advance(time.Minute)
			_, err = r.login(testStaffPIN)
			require.NoError(t, err, "a minute's lock lasts a minute of time that runs")
		})
	}
}

// The growth comes down one step per quiet day (no wrong PIN), the wrong
// PINs in a row are forgotten then; never sooner.
func TestQuietTimeBringsTheGrowthDown(t *testing.T) {
	r := newAccessRig(t)
	r.setup()
	lockout := func() time.Duration {
		var pe *PINError
		var err error
		for i := 0; i < 3; i++ {
			_, err = r.login("000000")
		}
		require.ErrorAs(t, err, &pe)
		require.ErrorIs(t, err, ErrPINLocked)
		r.clock.Advance(pe.Wait)
		return pe.Wait
	}
	for i := 0; i < 12; i++ {
		lockout()
	}
	assert.Equal(t, 8*time.Hour, lockout(), "capped at 8 hours")
	r.clock.Advance(24*time.Hour - 8*time.Hour - time.Second)
	assert.Equal(t, 8*time.Hour, lockout(), "not a quiet day yet")
	r.clock.Advance(24*time.Hour - 8*time.Hour)
	assert.Equal(t, 256*time.Minute, lockout(), "a quiet day, the lock's time included: one step down")
	_, err := r.login("000000")
	require.ErrorIs(t, err, ErrPINWrong)
	_, err = r.login(testStaffPIN)
	require.NoError(t, err)
	r.clock.Advance(48 * time.Hour)
	_, err = r.login("000000")
	var pe *PINError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, 2, pe.Left, "the wrong PIN before the quiet days is forgotten")
	_, _ = r.login("000000")
	_, err = r.login("000000")
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, 128*time.Minute, pe.Wait, "two quiet days: two steps down")
}

// The guess rate (DESIGN.md §7): a person typing a wrong PIN whenever the
// pad takes one, for a year of time that runs, tries fewer PINs than give
// a 1 % chance of finding either of the two PINs (each guess is one of the
// 10^6 PINs of 6 digits, the shortest allowed; two PINs: twice the
// chance). The same person restarting the kiosk during every lock, or
// setting its clock back and forward, gets no more.
func TestGuessRateUnderOnePercentAYear(t *testing.T) {
	if testing.Short() {
		t.Skip("a simulated year of guesses")
	}
	const year = 365 * 24 * time.Hour
	const space = 1_000_000
	guessers := []struct {
		name string
		// during is what the guesser does while the pad is locked for w,
		// before waiting what is left of it.
		during func(r *accessRig, w time.Duration)
	}{
		{"without pause", nil},
		{"restarting the kiosk", func(r *accessRig, w time.Duration) {
			r.clock.Advance(w / 2)
			r.open()
		}},
		{"setting the clock back and forward", func(r *accessRig, w time.Duration) {
			r.clock.SetWall(r.clock.Now().Add(-48 * time.Hour))
			r.clock.Advance(w / 3)
			r.clock.SetWall(r.clock.Now().Add(72 * time.Hour))
		}},
	}
	// The arithmetic: three guesses, then a lock of 1, 2, 4 … 256 minutes,
	// then of 8 hours each, until the year is over.
	want, lock := 0, time.Minute
	for at := time.Duration(0); at < year; {
		want += 3
		at += lock
		lock = min(2*lock, 8*time.Hour)
	}
	for _, g := range guessers {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			r := newAccessRig(t)
			r.setup()
			start := r.clock.Running()
			guesses := 0
			for r.clock.Running()-start < year {
				if w := r.wait(); w > 0 {
					if g.during != nil {
						g.during(r, w)
					}
					r.clock.Advance(r.wait())
					continue
				}
				_, err := r.login(fmt.Sprintf("%06d", guesses))
				require.Error(t, err)
				require.False(t, errors.Is(err, ErrPINLocked) && r.wait() == 0)
				guesses++
			}
			chance := 2 * float64(guesses) / space
			t.Logf("%d guesses in a year: %.2f %% chance of finding either PIN", guesses, 100*chance)
			assert.Less(t, chance, 0.01)
			if g.during == nil {
				assert.Equal(t, want, guesses, "the arithmetic of DESIGN.md §7")
			} else {
				assert.LessOrEqual(t, guesses, want, "no more than without pause")
			}
		})
	}
}

// The technician logs in whatever the fault: on a kiosk whose anchor
// failed (the store refuses every write), the PIN is checked against the
// credentials read, a diagnosis session opens, a wrong PIN still counts
// toward the lock, staff are refused, and the kiosk's log says why the
// attempts are not recorded.
func TestTechnicianLogsInDuringAnAnchorFault(t *testing.T) {
	f := newAnchoredFixture(t)
	f.boot()
	setPINs(t, NewAccess(f.st, f.clock, AccessConfig{KDF: fastKDF}))
	f.credit(5 * game.Euro)
	f.stop()
	editDB(t, f.path, `DROP TRIGGER ledger_no_delete; DELETE FROM ledger WHERE id = (SELECT max(id) FROM ledger)`)
	f.start()
	f.boot()
	require.ErrorIs(t, f.st.AnchorErr(), store.ErrAnchor)
	require.Equal(t, FaultAnchor, f.m.Snapshot().Fault.Code)
	logs := &logBuffer{}
	a := NewAccess(f.st, f.clock, AccessConfig{KDF: fastKDF, Logf: logs.printf})
	o := NewOffice(f.m, a, time.Minute)

	_, err := o.Login(ctx, "000000")
	require.ErrorIs(t, err, ErrPINWrong)
	_, err = o.Login(ctx, testStaffPIN)
	require.ErrorIs(t, err, ErrNotAllowed, "staff wait for the technician")
	tech, err := o.Login(ctx, testTechPIN)
	require.NoError(t, err)
	assert.True(t, tech.Diagnosis())
	fault, err := o.Fault(ctx, tech)
	require.NoError(t, err)
	assert.Equal(t, FaultAnchor, fault.Code)
	_, err = o.Events(ctx, tech, store.EventQuery{N: 10})
	require.NoError(t, err)
	_, err = o.Identity(ctx, tech)
	require.NoError(t, err)
	_, err = o.Settings(ctx, tech)
	assert.ErrorIs(t, err, ErrNotAllowed, "a diagnosis session only reads the diagnosis")
	assert.ErrorIs(t, o.SetPIN(ctx, tech, RoleStaff, "111111"), ErrNotAllowed)
	_, err = o.Login(ctx, "000001")
	require.ErrorIs(t, err, ErrPINWrong)
	var pe *PINError
	_, err = o.Login(ctx, "000002")
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, time.Minute, pe.Wait, "the wrong PINs count, in memory")
	assert.Contains(t, logs.String(), "login not recorded")
	assert.Contains(t, logs.String(), "database does not match its anchor")
}

// The store refuses writes for a while (another process holds its write
// lock past the busy timeout), then takes them again: the attempts made
// meanwhile counted all the same, and are recorded then, in order, saying
// so; the kiosk's log said why they waited.
func TestAttemptsRecordedOnceTheStoreTakesWrites(t *testing.T) {
	r := newAccessRig(t, store.WithBusyTimeout(20*time.Millisecond))
	r.setup()
	db, err := sql.Open("sqlite3", r.path)
	require.NoError(t, err)
	defer db.Close()
	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.ExecContext(ctx, `BEGIN IMMEDIATE`)
	require.NoError(t, err)

	_, err = r.login("000000")
	require.ErrorIs(t, err, ErrPINWrong)
	tech, err := r.login(testTechPIN)
	require.NoError(t, err, "the technician logs in though the store takes no write")
	assert.True(t, tech.Diagnosis(), "the login is not recorded yet: the diagnosis only")
	assert.Contains(t, r.logs.String(), "login not recorded")
	_, err = conn.ExecContext(ctx, `ROLLBACK`)
	require.NoError(t, err)

	_, err = r.login("000001")
	var pe *PINError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, 1, pe.Left, "the wrong PIN typed meanwhile counted")
	all, err := r.st.Events(ctx, 10, 0)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(all), 3)
	assert.Equal(t, []string{store.EventPINWrong, store.EventLogin, store.EventPINWrong}, []string{all[2].Code, all[1].Code, all[0].Code})
	assert.Contains(t, all[2].Detail, "recorded late")
	assert.Contains(t, all[1].Detail, "recorded late")
	assert.NotContains(t, all[0].Detail, "recorded late")
	l, err := r.st.PINLock(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, l.Failures)
}

// noPINIn checks that neither the database's text nor the event log holds
// one of pins.
func noPINIn(t *testing.T, st *store.Store, pins ...string) {
	t.Helper()
	all, err := st.Events(ctx, 100_000, 0)
	require.NoError(t, err)
	for _, e := range all {
		for _, pin := range pins {
			assert.False(t, strings.Contains(e.Detail, pin), "event %s holds a PIN: %q", e.Code, e.Detail)
		}
	}
	recs, err := st.Outbox(ctx, 0, 100_000)
	require.NoError(t, err)
	for _, rec := range recs {
		for _, pin := range pins {
			assert.False(t, strings.Contains(string(rec.Payload), pin), "outbox record %d holds a PIN", rec.Seq)
		}
	}
}

// Neither the database nor the event log holds a PIN: only its argon2id
// hash, salted, with its parameters.
func TestNoPINIsKept(t *testing.T) {
	r := newAccessRig(t)
	r.setup()
	_, _ = r.login("975310")
	creds, err := r.st.Credentials(ctx)
	require.NoError(t, err)
	require.Len(t, creds, 2)
	for _, c := range creds {
		assert.Equal(t, fastKDF.String(), c.KDF)
		assert.Len(t, c.Salt, 16)
		assert.Len(t, c.Hash, 32)
	}
	assert.NotEqual(t, creds["staff"].Salt, creds["technician"].Salt)
	noPINIn(t, r.st, testStaffPIN, testTechPIN, "975310")
}

func TestKDFParameters(t *testing.T) {
	k, keyedKDF, err := parseKDF(DefaultKDF.String())
	require.NoError(t, err)
	assert.Equal(t, DefaultKDF, k)
	assert.False(t, keyedKDF)
	k, keyedKDF, err = parseKDF(DefaultKDF.String() + ";keyed")
	require.NoError(t, err)
	assert.Equal(t, DefaultKDF, k)
	assert.True(t, keyedKDF)
	for _, bad := range []string{"", "bcrypt;t=1;m=1;p=1", "argon2id;t=0;m=64;p=1", "argon2id;t=1;m=64", "argon2id;t=1;m=64;p=300",
		"argon2id;t=1;m=x;p=1", "argon2id;t=1;m=64;p=1;salted"} {
		_, _, err := parseKDF(bad)
		assert.Error(t, err, bad)
	}
	// A PIN set under other parameters is checked with its own.
	r := newAccessRig(t)
	r.setup()
	r.a = NewAccess(r.st, r.clock, AccessConfig{KDF: KDF{Time: 2, MemoryKiB: 128, Threads: 1}})
	s, err := r.login(testTechPIN)
	require.NoError(t, err)
	assert.Equal(t, RoleTechnician, s.Role())
}

// With a pepper, a PIN is keyed before argon2id, and its KDF string says
// so: the hash alone no longer checks a PIN, nor does another pepper.
func TestPepperKeysThePINs(t *testing.T) {
	pepper := bytes.Repeat([]byte{0x5a}, 32)
	r := newAccessRig(t)
	r.cfg.Pepper = pepper
	r.a = NewAccess(r.st, r.clock, r.cfg)
	r.setup()
	creds, err := r.st.Credentials(ctx)
	require.NoError(t, err)
	for _, c := range creds {
		assert.Equal(t, fastKDF.String()+";keyed", c.KDF)
		salt := c.Salt
		assert.NotEqual(t, fastKDF.hash([]byte(testTechPIN), salt), c.Hash)
		assert.NotEqual(t, fastKDF.hash([]byte(testStaffPIN), salt), c.Hash)
	}
	s, err := r.login(testTechPIN)
	require.NoError(t, err)
	assert.Equal(t, RoleTechnician, s.Role())

	for _, other := range [][]byte{nil, bytes.Repeat([]byte{0xa5}, 32)} {
		a := NewAccess(r.st, r.clock, AccessConfig{KDF: fastKDF, Pepper: other})
		_, err = a.Login(ctx, testTechPIN)
		assert.ErrorIs(t, err, ErrPINWrong, "pepper %x", other)
	}
	// A credential set before the pepper is checked as it was set, and
	// the next change keys it.
	r2 := newAccessRig(t)
	r2.setup()
	r2.cfg.Pepper = pepper
	r2.a = NewAccess(r2.st, r2.clock, r2.cfg)
	tech, err := r2.login(testTechPIN)
	require.NoError(t, err)
	require.NoError(t, r2.a.SetPIN(ctx, tech, RoleStaff, "864200"))
	creds, err = r2.st.Credentials(ctx)
	require.NoError(t, err)
	assert.Equal(t, fastKDF.String()+";keyed", creds[store.RoleStaff].KDF)
	assert.Equal(t, fastKDF.String(), creds[store.RoleTechnician].KDF)
	_, err = r2.login("864200")
	require.NoError(t, err)
}

// BenchmarkDefaultKDF is the cost of one PIN check at the pad (a login
// checks both roles' PINs: twice this).
func BenchmarkDefaultKDF(b *testing.B) {
	salt := make([]byte, 16)
	for i := 0; i < b.N; i++ {
		DefaultKDF.hash([]byte("135700"), salt)
	}
}
