package kiosk

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
	"pharaon/hw/sim/id003sim"
	"pharaon/kiosk/devsim"
	"pharaon/store"
)

// newPowerFixture is newCashFixture with a validator that keeps a note in
// STACKING until it is powered off (the moment a power cut hurts most).
func newPowerFixture(t *testing.T, vcfg id003sim.Config) (*fixture, *devsim.Devices) {
	t.Helper()
	path := templateCopy(t)
	dir := t.TempDir()
	d, err := devsim.Start(devsim.Config{Dir: filepath.Join(dir, "dev"), Validator: vcfg})
	require.NoError(t, err)
	t.Cleanup(func() { d.Close() })
	cfg := Config{Dev: true, Keys: testKeys, KioskID: "PH-0042", Venue: "Banc d'essai", Cash: testCashConfig(d), Protection: noProtection}
	f := &fixture{t: t, path: path, clock: &fakeClock{now: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}, cfg: cfg}
	f.start()
	t.Cleanup(f.stop)
	return f, d
}

// events returns the event log's lines "level source code detail".
func logLines(t *testing.T, st *store.Store) string {
	t.Helper()
	es, err := st.Events(ctx, 1000, 0)
	require.NoError(t, err)
	var b strings.Builder
	for _, e := range es {
		b.WriteString(string(e.Level) + " " + e.Source + " " + e.Code + " " + e.Detail + "\n")
	}
	return b.String()
}

// assertCashBalances: the notes credited are exactly the notes stacked.
func assertCashBalances(t *testing.T, st *store.Store, d *devsim.Devices) {
	t.Helper()
	credit, err := st.Credit(ctx)
	require.NoError(t, err)
	assert.Equal(t, game.Money(d.Validator.Counts().StackedSum), credit, "credited = stacked, to the cent")
	require.NoError(t, st.Verify(ctx))
}
