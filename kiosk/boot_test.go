package kiosk

import (
	"database/sql"
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
