package kiosk

import (
	"database/sql"
	"sync"
	"testing"

	_ "github.com/mattn/go-sqlite3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/game/breakout"
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

// An unsold unit raised by hand to the top tier is caught at the next boot,
// before it is sold: the kiosk is out of service and sells nothing.
func TestBootCheckCatchesAnEditedUnit(t *testing.T) {
	f := newFixture(t)
	f.boot()
	b, err := f.st.OpenBlock(ctx, game.Stake050)
	require.NoError(t, err)
	require.Equal(t, game.TierLose, scenario()[b.Sold].Tier, "the next unit loses")
	f.stop()
	editDB(t, f.path, `DROP TRIGGER units_no_update; UPDATE units SET tier = 1 WHERE block_id = ? AND idx = ?`, b.ID, b.Sold)

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
	assert.Equal(t, []ev{{BootRecovery, false}, {BootRecovery, true}, {BootCredit, false}, {BootCredit, true}, {BootCash, false}, {BootCash, true}},
		evs[4:], "then one step after the other")
}
