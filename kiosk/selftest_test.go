package kiosk

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/block"
	"pharaon/kiosk/update"
	"pharaon/store"
)

// selfTestFiles makes a binary and an update key in a temporary
// directory, and returns the check and a function that writes its
// manifest with the binary's sum (good) or another, signed.
func selfTestFiles(t *testing.T) (SoftwareCheck, func(good bool)) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "pharaon")
	require.NoError(t, os.WriteFile(exe, []byte("the kiosk's binary"), 0o755))
	priv := ed25519.NewKeyFromSeed([]byte("pharaon kiosk self-test key 32b!"))
	c := SoftwareCheck{Manifest: filepath.Join(dir, "MANIFEST.sha256"), Keys: block.NewKeySet(priv.Public().(ed25519.PublicKey)),
		Executable: exe, Installed: "/usr/bin/pharaon"}
	write := func(good bool) {
		sum := sha256.Sum256([]byte("the kiosk's binary"))
		if !good {
			sum = sha256.Sum256([]byte("another binary"))
		}
		text := []byte(hex.EncodeToString(sum[:]) + "  /usr/bin/pharaon\n")
		sig, err := update.SignManifest(text, priv)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(c.Manifest, text, 0o644))
		require.NoError(t, os.WriteFile(c.Manifest+update.SignatureSuffix, sig, 0o644))
	}
	return c, write
}

func kioskEvents(t *testing.T, f *fixture, code string) []store.Event {
	t.Helper()
	ev, err := f.st.EventsWhere(ctx, store.EventQuery{N: 100, Source: "kiosk"})
	require.NoError(t, err)
	var out []store.Event
	for _, e := range ev {
		if e.Code == code {
			out = append(out, e)
		}
	}
	return out
}

// A binary that is not the one of the signed manifest is caught at boot:
// out of service (fault software), nothing of the data shown, a critical
// event logged, the data kept. A technician's clear runs the checks again:
// refused while the binary still differs (logged with the role), the kiosk
// back in service with its credit once the package is reinstalled. Staff
// cannot clear.
func TestSelfTestSoftwareAndTheTechniciansClear(t *testing.T) {
	f := newFixture(t)
	f.boot()
	f.credit(5 * game.Euro)
	f.stop()
	sw, write := selfTestFiles(t)
	write(false)
	f.cfg.Software = sw
	f.start()
	f.boot()
	snap := f.m.Snapshot()
	require.Equal(t, OutOfService, snap.State)
	assert.Equal(t, FaultSoftware, snap.Fault.Code)
	assert.Contains(t, snap.Fault.Detail, update.ErrBinaryChanged.Error())
	assert.Zero(t, snap.Credit, "nothing of the data is shown")
	ev := kioskEvents(t, f, FaultSoftware)
	require.Len(t, ev, 1)
	assert.Equal(t, store.LevelCritical, ev[0].Level)

	a := NewAccess(f.st, f.clock, AccessConfig{KDF: fastKDF})
	setPINs(t, a)
	o := NewOffice(f.m, a, time.Hour)
	staff, err := o.Login(ctx, "135700")
	require.NoError(t, err)
	require.ErrorIs(t, o.ClearFault(ctx, staff), ErrNotAllowed)
	tech, err := o.Login(ctx, "246800")
	require.NoError(t, err)
	fault, err := o.Fault(ctx, tech)
	require.NoError(t, err)
	assert.Equal(t, FaultSoftware, fault.Code)

	require.ErrorIs(t, o.ClearFault(ctx, tech), update.ErrBinaryChanged, "never a reset: the checks run again")
	assert.Equal(t, OutOfService, f.m.Snapshot().State)
	require.Len(t, officeEvents(t, f, "fault_not_cleared"), 1)
	assert.Contains(t, officeEvents(t, f, "fault_not_cleared")[0].Detail, "technician")

	write(true) // the package reinstalled
	require.NoError(t, o.ClearFault(ctx, tech))
	snap = f.m.Snapshot()
	assert.Equal(t, Home, snap.State)
	assert.Equal(t, 5*game.Euro, snap.Credit, "the credit kept")
	assert.True(t, snap.Available[game.Stake050], "on sale again")
	cleared := officeEvents(t, f, "fault_cleared")
	require.Len(t, cleared, 1)
	assert.Contains(t, cleared[0].Detail, "software cleared by the technician")
	require.ErrorIs(t, o.ClearFault(ctx, tech), ErrNoFault)

	// The next boot checks again, and passes.
	f.restart()
	assert.Equal(t, Home, f.m.Snapshot().State)
}

// An edited history is not cleared by the technician's clear: the checks
// fail again and the kiosk stays out of service.
func TestTechniciansClearKeepsAnEditedHistoryOut(t *testing.T) {
	f := newFixture(t)
	f.boot()
	f.credit(5 * game.Euro)
	f.stop()
	editDB(t, f.path, `DROP TRIGGER ledger_no_update;
		UPDATE ledger SET amount = 100000, balance_after = 100000 WHERE id = (SELECT max(id) FROM ledger)`)
	f.start()
	f.boot()
	require.Equal(t, FaultIntegrity, f.m.Snapshot().Fault.Code)
	a := NewAccess(f.st, f.clock, AccessConfig{KDF: fastKDF})
	setPINs(t, a)
	o := NewOffice(f.m, a, time.Hour)
	tech, err := o.Login(ctx, "246800")
	require.NoError(t, err)
	require.Error(t, o.ClearFault(ctx, tech))
	snap := f.m.Snapshot()
	assert.Equal(t, OutOfService, snap.State)
	assert.Equal(t, FaultIntegrity, snap.Fault.Code)
	assert.Zero(t, snap.Credit)
	require.Len(t, officeEvents(t, f, "fault_not_cleared"), 1)
}
