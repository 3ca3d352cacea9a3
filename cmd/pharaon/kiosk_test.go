package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/hw/validator"
	"pharaon/kiosk"
	"pharaon/kiosk/devsim"
)

// fixedClock is a clock that does not move.
type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

var testNow = fixedClock{time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}

func TestOpenKioskDevelopment(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{DB: filepath.Join(dir, "data", "pharaon.db"), Dev: true, KioskID: "PH-DEV", Venue: "Tabac de la Gare"}
	var logs bytes.Buffer
	p, err := openKiosk(context.Background(), cfg, testNow, log.New(&logs, "", 0))
	require.NoError(t, err)
	snap := p.m.Snapshot()
	assert.True(t, snap.Dev, "-dev makes a development kiosk")
	assert.Equal(t, kiosk.Home, snap.State)
	for _, s := range game.Stakes {
		assert.True(t, snap.Available[s], "a demo block for %s", s)
	}
	// Both cash devices are simulated on pseudo-terminals beside the
	// database, and the kiosk's drivers talk to them: a note inserted in
	// the simulated validator is credited.
	require.NotNil(t, p.devs)
	assert.Equal(t, filepath.Join(dir, "data", "run", "validator"), p.devs.ValidatorPath)
	assert.Equal(t, filepath.Join(dir, "data", "run", "printer"), p.devs.PrinterPath)
	insertNote(t, p, 10*game.Euro)
	assert.FileExists(t, filepath.Join(dir, "data", "demo", "demo-issuer.key"))
	assert.DirExists(t, filepath.Join(dir, "data", "vouchers"), "the simulated printer's vouchers land there")
	blocks, err := p.st.Blocks(context.Background())
	require.NoError(t, err)
	assert.Len(t, blocks, len(game.Stakes))
	require.NoError(t, p.Close())

	// The next start keeps the database, the credit and the blocks.
	p, err = openKiosk(context.Background(), cfg, testNow, log.New(&logs, "", 0))
	require.NoError(t, err)
	defer p.Close()
	blocks, err = p.st.Blocks(context.Background())
	require.NoError(t, err)
	assert.Len(t, blocks, len(game.Stakes), "no new demo block while one is open")
	assert.Equal(t, 10*game.Euro, p.m.Snapshot().Credit)

	// A voucher printed by the simulated printer lands under the data
	// directory, as text and as a picture.
	waitFor(t, func() bool { return p.m.Snapshot().Cash.CanCashOut }, "cash-out possible")
	v, err := p.m.CashOut(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 10*game.Euro, v.Amount)
	assert.Zero(t, p.m.Snapshot().Credit)
	txt, err := os.ReadFile(filepath.Join(dir, "data", "vouchers", "0001.txt"))
	require.NoError(t, err)
	assert.Contains(t, string(txt), "Borne : PH-DEV")
	assert.Contains(t, string(txt), "Tabac de la Gare")
	assert.Contains(t, strings.Join(strings.Fields(string(txt)), " "), v.Amount.FrenchWords())
	assert.FileExists(t, filepath.Join(dir, "data", "vouchers", "0001.png"))
}

// insertNote puts a note in a development kiosk's simulated validator once
// it takes notes, and waits for its credit.
func insertNote(t *testing.T, p *parts, amount game.Money) {
	t.Helper()
	want := p.m.Snapshot().Credit + amount
	waitFor(t, func() bool { return p.devs.InsertNote(amount) == nil }, "the validator takes notes")
	waitFor(t, func() bool { return p.m.Snapshot().Credit == want }, "credit %s", want.Plain())
}

// waitFor polls cond (the devices run on their own goroutines).
func waitFor(t *testing.T, cond func() bool, msg string, args ...any) {
	t.Helper()
	require.Eventually(t, cond, 20*time.Second, 5*time.Millisecond, append([]any{msg}, args...)...)
}

// -dev -validator essp simulates an eSSP unit: the kiosk's eSSP driver
// negotiates its key with it, a note is credited, and the devices view says
// what the unit is.
func TestOpenKioskDevelopmentESSP(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{DB: filepath.Join(dir, "data", "pharaon.db"), Dev: true, KioskID: "PH-DEV", Venue: "Tabac de la Gare",
		ValidatorFamily: validator.FamilyESSP}
	var logs bytes.Buffer
	p, err := openKiosk(context.Background(), cfg, testNow, log.New(&logs, "", 0))
	require.NoError(t, err)
	defer p.Close()
	require.NotNil(t, p.devs.ESSP, "an eSSP unit is simulated")
	assert.Nil(t, p.devs.Validator)
	assert.Contains(t, logs.String(), "(eSSP)")
	insertNote(t, p, 20*game.Euro)
	insertNote(t, p, 5*game.Euro)
	assert.Equal(t, 25*game.Euro, p.m.Snapshot().Credit)
	assert.True(t, p.devs.ESSP.Encrypted(), "the line is encrypted")
	// The credit is committed before the unit is told (the acknowledgement
	// follows the commit): the second note's may still be on the line.
	waitFor(t, func() bool { return p.devs.Unit.Counts().Acked >= 2 }, "both credits acknowledged")
	c := p.devs.Unit.Counts()
	assert.Equal(t, []int64{2000, 500}, c.Values)
	assert.Equal(t, 2, c.Acked, "each credit acknowledged once")
}

func TestOpenKioskProduction(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{DB: filepath.Join(dir, "pharaon.db"), FirstInstall: true, Installed: filepath.Join(dir, installedMarker)}
	p, err := openKiosk(context.Background(), cfg, testNow, log.New(&bytes.Buffer{}, "", 0))
	require.NoError(t, err)
	defer p.Close()
	snap := p.m.Snapshot()
	assert.False(t, snap.Dev, "no development features without -dev")
	for _, s := range game.Stakes {
		assert.False(t, snap.Available[s], "no block, no sale at %s", s)
	}
	assert.Nil(t, p.devs, "no simulated device in production")
	assert.False(t, snap.Cash.Validator.Configured, "no validator configured: none")
	assert.False(t, snap.Cash.Printer.Configured, "no printer configured: none")
	assert.NoDirExists(t, filepath.Join(dir, "demo"), "no demo key in production")
	assert.NoDirExists(t, filepath.Join(dir, "run"), "no device links in production")
	assert.NoDirExists(t, filepath.Join(dir, "vouchers"))
}

// The back office at start: a production kiosk without PINs asks for the
// first start's setup and shows no demo PIN; a development database gets
// the demo PINs, which open their roles, once (the next start keeps them).
func TestOpenKioskBackOffice(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	prod, err := openKiosk(ctx, Config{DB: filepath.Join(dir, "prod", "pharaon.db"), FirstInstall: true,
		Installed: filepath.Join(dir, "prod", installedMarker)}, testNow, log.New(&bytes.Buffer{}, "", 0))
	require.NoError(t, err)
	defer prod.Close()
	assert.True(t, prod.bo.setup, "no PINs: the setup comes first")
	assert.Equal(t, [2]string{}, prod.bo.demoPINs)

	cfg := Config{DB: filepath.Join(dir, "dev", "pharaon.db"), Dev: true, KioskID: "PH-DEV"}
	var logs bytes.Buffer
	p, err := openKiosk(ctx, cfg, testNow, log.New(&logs, "", 0))
	require.NoError(t, err)
	assert.False(t, p.bo.setup)
	assert.Equal(t, [2]string{devStaffPIN, devTechnicianPIN}, p.bo.demoPINs)
	for pin, want := range map[string]kiosk.Role{devStaffPIN: kiosk.RoleStaff, devTechnicianPIN: kiosk.RoleTechnician} {
		s, err := p.bo.access.Login(ctx, pin)
		require.NoError(t, err)
		assert.Equal(t, want, s.Role())
	}
	require.NoError(t, p.Close())
	assert.Contains(t, logs.String(), "demo maintenance PINs set")
	logs.Reset()
	p, err = openKiosk(ctx, cfg, testNow, log.New(&logs, "", 0))
	require.NoError(t, err)
	defer p.Close()
	assert.NotContains(t, logs.String(), "demo maintenance PINs set", "set once")
	assert.Equal(t, [2]string{devStaffPIN, devTechnicianPIN}, p.bo.demoPINs)
}

// openFreshKiosk opens a new production kiosk on its first install: no
// PINs yet, the setup to come.
func openFreshKiosk(t *testing.T) (Config, *parts) {
	t.Helper()
	dir := t.TempDir()
	cfg := Config{DB: filepath.Join(dir, "pharaon.db"), FirstInstall: true, Installed: filepath.Join(dir, installedMarker)}
	p, err := openKiosk(context.Background(), cfg, testNow, log.New(&bytes.Buffer{}, "", 0))
	require.NoError(t, err)
	require.True(t, p.bo.setup)
	return cfg, p
}

// A power cut during the first start's guided sequence: the next start
// shows the sequence again (at the step the store keeps) before the
// player's screens, and once it is done, never again.
func TestOpenKioskResumesTheFirstStart(t *testing.T) {
	ctx := context.Background()
	cfg, p := openFreshKiosk(t)
	require.NoError(t, p.m.BeginFirstStart(ctx))
	setup, err := p.bo.access.SetupSession(ctx)
	require.NoError(t, err)
	require.NoError(t, p.bo.access.Setup(ctx, setup, "246800", "135700"))
	require.NoError(t, p.Close())

	var logs bytes.Buffer
	p, err = openKiosk(ctx, cfg, testNow, log.New(&logs, "", 0))
	require.NoError(t, err)
	assert.False(t, p.bo.setup)
	assert.True(t, p.bo.firstStart, "the sequence resumes")
	assert.Contains(t, logs.String(), "first start's sequence is not finished")
	tech, err := p.bo.office.Login(ctx, "246800")
	require.NoError(t, err)
	step, err := p.bo.office.FirstStart(ctx, tech)
	require.NoError(t, err)
	assert.Equal(t, kiosk.StepKeys, step)
	require.NoError(t, p.st.SetSetting(ctx, "technician", kiosk.SettingFirstStart, string(kiosk.StepDone)))
	require.NoError(t, p.Close())

	p, err = openKiosk(ctx, cfg, testNow, log.New(&bytes.Buffer{}, "", 0))
	require.NoError(t, err)
	defer p.Close()
	assert.False(t, p.bo.firstStart, "done: the player's screens at once")
}

// The credentials of a kiosk in service deleted on its disk, as whoever
// holds the disk would (the triggers that refuse it dropped, then put back
// with their own text): the next start is out of service on its anchor,
// and the first start's setup never shows (whoever stands at the screen
// would choose the PINs).
func TestDeletedCredentialsNeverBringTheSetupBack(t *testing.T) {
	ctx := context.Background()
	cfg, p := openFreshKiosk(t)
	setup, err := p.bo.access.SetupSession(ctx)
	require.NoError(t, err)
	require.NoError(t, p.bo.access.Setup(ctx, setup, "246800", "135700"))
	_, err = p.st.BillIn(ctx, 10*game.Euro, "note-1")
	require.NoError(t, err)
	require.NoError(t, p.Close())

	db, err := sql.Open("sqlite3", cfg.DB)
	require.NoError(t, err)
	var names, triggers []string
	rows, err := db.Query(`SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'credentials'`)
	require.NoError(t, err)
	for rows.Next() {
		var n, q string
		require.NoError(t, rows.Scan(&n, &q))
		names, triggers = append(names, n), append(triggers, q)
	}
	require.NoError(t, rows.Err())
	rows.Close()
	_, err = db.Exec(`DROP TRIGGER ` + strings.Join(names, `; DROP TRIGGER `) + `; DELETE FROM credentials;` + strings.Join(triggers, ";") + ";")
	require.NoError(t, err)
	require.NoError(t, db.Close())

	_, err = openKiosk(ctx, cfg, testNow, log.New(&bytes.Buffer{}, "", 0))
	var se *startError
	require.True(t, errors.As(err, &se), "out of service, never the setup: %v", err)
	assert.Equal(t, kiosk.FaultAnchor, se.fault.Code)
	assert.Contains(t, se.fault.Detail, "credentials")
}

// A production kiosk opens its devices at the paths of its configuration
// (here two simulators the test runs, as a real unit would sit there) and
// takes its cash limits from it.
func TestOpenKioskProductionDevices(t *testing.T) {
	dir := t.TempDir()
	d, err := devsim.Start(devsim.Config{Dir: filepath.Join(dir, "dev")})
	require.NoError(t, err)
	defer d.Close()
	cfg := Config{DB: filepath.Join(dir, "pharaon.db"), FirstInstall: true, Installed: filepath.Join(dir, installedMarker),
		Validator: d.ValidatorPath, Printer: d.PrinterPath,
		MaxCredit: 50 * game.Euro, PayoutLimit: 400 * game.Euro, VoucherValidity: 30 * 24 * time.Hour}
	p, err := openKiosk(context.Background(), cfg, testNow, log.New(&bytes.Buffer{}, "", 0))
	require.NoError(t, err)
	defer p.Close()
	assert.Nil(t, p.devs)
	waitFor(t, func() bool {
		c := p.m.Snapshot().Cash
		return c.Validator.OK && c.Printer.OK
	}, "both devices answer")
	assert.Equal(t, 50*game.Euro, p.m.Snapshot().Cash.MaxCredit)
}

func TestOpenKioskBadKeys(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.pub")
	require.NoError(t, os.WriteFile(bad, []byte("not a key"), 0o600))
	for _, keys := range [][]string{{filepath.Join(dir, "missing.pub")}, {bad}} {
		_, err := openKiosk(context.Background(), Config{DB: filepath.Join(dir, "pharaon.db"), Keys: keys, FirstInstall: true},
			testNow, log.New(&bytes.Buffer{}, "", 0))
		assert.Error(t, err, "%v", keys)
		assert.Equal(t, exitKeys, exitCode(err))
		assert.NoFileExists(t, filepath.Join(dir, "pharaon.db"), "no database made for a kiosk that cannot start")
	}
}

// The kiosk keys its PINs with its trust root's pepper before their slow
// hash: the credentials it writes say so, and a hash read off the disk
// checked without the pepper matches no PIN.
func TestKioskPINsAreKeyedWithTheTrustRoot(t *testing.T) {
	ctx := context.Background()
	cfg := Config{DB: filepath.Join(t.TempDir(), "dev", "pharaon.db"), Dev: true, KioskID: "PH-DEV"}
	p, err := openKiosk(ctx, cfg, testNow, log.New(&bytes.Buffer{}, "", 0))
	require.NoError(t, err)
	defer p.Close()
	require.NotNil(t, p.st.Pepper())
	creds, err := p.st.Credentials(ctx)
	require.NoError(t, err)
	require.Len(t, creds, 2)
	for role, c := range creds {
		assert.True(t, strings.HasSuffix(c.KDF, ";keyed"), "%s: %s", role, c.KDF)
	}
	unkeyed := kiosk.NewAccess(p.st, kiosk.SystemClock{}, kiosk.AccessConfig{})
	_, err = unkeyed.Login(ctx, devStaffPIN)
	assert.ErrorIs(t, err, kiosk.ErrPINWrong, "without the pepper the demo PIN matches nothing")
}
