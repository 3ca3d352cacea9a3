package harness

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"pharaon/store/powercut"
)

// The fault harness on the power-cut file system (store/powercut): the
// database, its WAL and the anchor files are on it, and every kill -9 of
// the kiosk is a power cut (half of them torn). make test cuts 30 times
// (-short 10), make soak 1 000 (PHARAON_SOAK=1; PHARAON_HARNESS_CUTS=n to
// choose); PHARAON_HARNESS_SEED=n replays a run's choices.
const (
	harnessCuts     = 30
	harnessSoakCuts = 1000
)

func TestFaultHarnessPowerCut(t *testing.T) {
	if err := powercut.Available(); err != nil {
		t.Skipf("the power-cut harness needs a FUSE mount (root and /dev/fuse): %v", err)
	}
	cuts := harnessCuts
	if testing.Short() {
		cuts = harnessCuts / 3
	}
	if os.Getenv("PHARAON_SOAK") != "" {
		cuts = harnessSoakCuts
	}
	cuts = envInt(t, "PHARAON_HARNESS_CUTS", cuts)
	seed := uint64(envInt(t, "PHARAON_HARNESS_SEED", 1))
	rep, err := Run(context.Background(), Config{
		Dir:      t.TempDir(),
		Faults:   cuts,
		Seed:     seed,
		Command:  kioskCommand(t),
		PowerCut: true,
		Logf:     t.Logf,
	})
	if rep != nil {
		t.Logf("power-cut harness:\n%s", rep)
	}
	require.NoError(t, err)
	require.True(t, rep.OK(), "broken invariants:\n%s", rep)
	require.Zero(t, rep.CentsLost)
	require.Zero(t, rep.DoubleCredits)
	require.Zero(t, rep.UnitsLost)
	require.Zero(t, rep.AckLost)
	require.Equal(t, cuts, rep.Cuts, "every fault is a power cut")
	require.Positive(t, rep.PagesDropped, "the cuts threw pending writes away")
}

// TestFaultHarnessPowerCutSeesLossWithoutSync: the same harness with the
// kiosk's store at synchronous=OFF (a test-only build, store.WeakenSync)
// must report what one cut lost: the harness can see a loss. (The kiosk
// sees it too: its database is behind its anchor, and it is out of
// service.)
func TestFaultHarnessPowerCutSeesLossWithoutSync(t *testing.T) {
	if err := powercut.Available(); err != nil {
		t.Skipf("the power-cut harness needs a FUSE mount (root and /dev/fuse): %v", err)
	}
	rep, err := Run(context.Background(), Config{
		Dir:      t.TempDir(),
		Faults:   1, // the first cut already loses what the start wrote
		Seed:     uint64(envInt(t, "PHARAON_HARNESS_SEED", 1)),
		Command:  kioskCommand(t),
		PowerCut: true,
		Sync:     "OFF",
		Logf:     t.Logf,
	})
	if rep != nil {
		t.Logf("power-cut harness, synchronous=OFF:\n%s", rep)
	}
	require.NoError(t, err)
	require.False(t, rep.OK(), "synchronous=OFF and power cuts, and no invariant broke: the harness cannot see a loss")
	require.Positive(t, rep.AckLost, "acknowledged operations lost")
	require.Positive(t, rep.CentsLost, "cents lost")
}
