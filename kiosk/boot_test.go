package kiosk

import (
	"database/sql"
	"sync"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
	"pharaon/store"
)

// editDB changes the stopped kiosk's database behind the store's back, as
// someone with the file in hand would (dropping the triggers in the way).
func editDB(t *testing.T, path, stmts string, args ...any) {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Exec(stmts, args...)
	require.NoError(t, err)
}

// An unsold unit replaced by hand with a winning one (its sealed bytes
// copied from the next unit, a top prize: the units are sealed, so that is
// all an editor can do) is caught at the next boot, before it is sold: the
// kiosk is out of service and sells nothing.
func TestBootCheckCatchesAnEditedUnit(t *testing.T) {
	f := newFixture(t)
	f.boot()
	b, err := f.st.OpenBlock(ctx, game.Stake050)
	require.NoError(t, err)
	require.Equal(t, game.TierLose, scenario()[b.Sold].Tier, "the next unit loses")
	require.Equal(t, game.Tier(1), scenario()[b.Sold+1].Tier, "the one after wins the top prize")
	f.stop()
	editDB(t, f.path, `DROP TRIGGER units_no_update;
		UPDATE units SET sealed = (SELECT sealed FROM units WHERE block_id = ?1 AND idx = ?2 + 1) WHERE block_id = ?1 AND idx = ?2`, b.ID, b.Sold)

	f.start()
	f.boot()
	snap := f.m.Snapshot()
	require.Equal(t, OutOfService, snap.State, "the edited unit is not sold")
	assert.Equal(t, FaultIntegrity, snap.Fault.Code)
	assert.Contains(t, snap.Fault.Detail, "units")
	f.credit(game.Euro)
	_, err = f.m.Play(ctx, game.Stake050, breakout.Auto)
	assert.ErrorIs(t, err, ErrOutOfService)

	// And it stays caught: the next boot is no cleaner.
	f.restart()
	assert.Equal(t, OutOfService, f.m.Snapshot().State)
}

// The out-of-service screen after a failed integrity check shows no figure
// of the data that failed it: no credit, no stake on sale.
func TestBootCheckShowsNothingOfRejectedData(t *testing.T) {
	f := newFixture(t)
	f.boot()
	f.credit(5 * game.Euro)
	f.stop()
	editDB(t, f.path, `DROP TRIGGER ledger_no_update;
		UPDATE ledger SET amount = 100000, balance_after = 100000 WHERE id = (SELECT max(id) FROM ledger)`)

	f.start()
	f.boot()
	snap := f.m.Snapshot()
	require.Equal(t, OutOfService, snap.State)
	assert.Equal(t, FaultIntegrity, snap.Fault.Code)
	assert.Zero(t, snap.Credit, "the rejected ledger's credit is not shown")
	for _, s := range game.Stakes {
		assert.False(t, snap.Available[s], "%s not shown on sale", s)
	}
}

// Start tells the start-up screen of each step as it begins and ends: the
// two checks of the store first (side by side), then the recovery, the
// credit and the cash, each ended before the next begins and all ended
// before Start returns.
func TestStartReportsBootSteps(t *testing.T) {
	f := newFixture(t)
	f.stop()
	type ev struct {
		step BootStep
		done bool
	}
	var mu sync.Mutex
	var evs []ev
	f.cfg.OnBootStep = func(s BootStep, done bool) {
		mu.Lock()
		evs = append(evs, ev{s, done})
		mu.Unlock()
	}
	f.start()
	f.boot()
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, evs, 2*(NumBootSteps-1), "every step of Start begins and ends once (BootOpen is the caller's)")
	pos := map[ev]int{}
	for i, e := range evs {
		pos[e] = i
	}
	for s := BootStore; s <= BootCash; s++ {
		assert.Less(t, pos[ev{s, false}], pos[ev{s, true}], "%d begins before it ends", s)
	}
	assert.Less(t, pos[ev{BootStore, true}], pos[ev{BootRecovery, false}], "the store is checked before anything of it is used")
	assert.Less(t, pos[ev{BootBlocks, true}], pos[ev{BootRecovery, false}], "the blocks are checked before anything of them is used")
	assert.Less(t, pos[ev{BootDevices, true}], pos[ev{BootRecovery, false}], "the devices are checked before the kiosk serves")
	assert.Equal(t, []ev{{BootRecovery, false}, {BootRecovery, true}, {BootCredit, false}, {BootCredit, true}, {BootCash, false}, {BootCash, true}},
		evs[6:], "then one step after the other")
}

// newAnchoredFixture is newFixture with the store anchored from its first
// start, as the kiosk binary opens it.
func newAnchoredFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{t: t, path: anchoredCopy(t), clock: &fakeClock{now: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)},
		cfg: Config{Dev: true, Keys: testKeys, Protection: noProtection}, anchored: true}
	f.start()
	t.Cleanup(f.stop)
	return f
}

// Cutting the newest rows of the history (which leaves every chain whole)
// is caught at the next boot by the anchor: out of service with its own
// fault, nothing of the data shown.
func TestBootCheckCatchesACutTail(t *testing.T) {
	for _, c := range []struct{ name, sql, table string }{
		{"the newest ledger row", `DROP TRIGGER ledger_no_delete; DELETE FROM ledger WHERE id = (SELECT max(id) FROM ledger)`, "ledger"},
		{"the newest critical event", `DROP TRIGGER events_rotation_only;
			DELETE FROM events WHERE id = (SELECT max(id) FROM events WHERE level = 'critical')`, "events"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newAnchoredFixture(t)
			f.boot()
			f.credit(5 * game.Euro)
			_, err := f.st.Log(ctx, store.Event{Level: store.LevelCritical, Source: "kiosk", Code: "door_open"})
			require.NoError(t, err)
			f.stop()
			editDB(t, f.path, c.sql)

			f.start()
			f.boot()
			snap := f.m.Snapshot()
			require.Equal(t, OutOfService, snap.State)
			assert.Equal(t, FaultAnchor, snap.Fault.Code)
			assert.Contains(t, snap.Fault.Detail, c.table)
			assert.Zero(t, snap.Credit, "nothing of the rejected data is shown")
		})
	}
}

// A trigger dropped is caught at boot by the schema check.
func TestBootCheckCatchesADroppedTrigger(t *testing.T) {
	f := newAnchoredFixture(t)
	f.boot()
	f.stop()
	editDB(t, f.path, `DROP TRIGGER plays_no_delete`)
	f.start()
	f.boot()
	snap := f.m.Snapshot()
	require.Equal(t, OutOfService, snap.State)
	assert.Equal(t, FaultIntegrity, snap.Fault.Code)
	assert.Contains(t, snap.Fault.Detail, "plays_no_delete")
}

// The boot check verifies what was written since the last full
// verification; the full one runs in the background after the start and
// takes the kiosk out of service when it fails: an edit older than the
// checkpoint is caught there.
func TestBackgroundFullVerification(t *testing.T) {
	f := newAnchoredFixture(t)
	f.credit(5 * game.Euro)
	f.credit(5 * game.Euro) // the checkpoint's row: the second
	f.boot()
	<-f.m.FullCheckDone()
	require.Equal(t, Home, f.m.Snapshot().State, "a clean history: the checkpoint is written")
	f.credit(5 * game.Euro)
	f.stop()
	editDB(t, f.path, `DROP TRIGGER ledger_no_update; UPDATE ledger SET note = 'x' WHERE id = 1;
		CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger
BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END`)

	f.start()
	f.boot()
	require.Equal(t, Home, f.m.Snapshot().State, "older than the checkpoint: not the boot check's: %+v", f.m.Snapshot().Fault)
	<-f.m.FullCheckDone()
	snap := f.m.Snapshot()
	require.Equal(t, OutOfService, snap.State)
	assert.Equal(t, FaultIntegrity, snap.Fault.Code)
	assert.Contains(t, snap.Fault.Detail, "full verification")
	assert.Contains(t, snap.Fault.Detail, "ledger")
}
