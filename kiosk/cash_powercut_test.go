package kiosk

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"pharaon/store/powercut"
)

// cashInPowerCuts is how many times the power-cut variant of the cash-in
// test cuts: three times at each kill point.
const cashInPowerCuts = 3 * 11

// TestExactlyOnceCashInPowerCut is the cash-in exactly-once test with the
// database on a file system that loses what a power cut loses
// (store/powercut): every time the kiosk is killed, every write it had not
// synced is thrown away before the next kiosk starts. The devices keep
// their power (but at the kill point that cuts the validator's): the test
// is about what the disk keeps. Every stacked note must still be credited
// once, in order, to the cent.
func TestExactlyOnceCashInPowerCut(t *testing.T) {
	if err := powercut.Available(); err != nil {
		t.Skipf("the power-cut tests need a FUSE mount: %v", err)
	}
	backing, mnt := t.TempDir(), t.TempDir()
	fsys, err := powercut.Mount(backing, mnt)
	require.NoError(t, err)
	cuts, dropped := 0, 0
	mounted := true
	t.Cleanup(func() {
		if mounted {
			require.NoError(t, fsys.Unmount())
		}
	})
	exactlyOnceCashIn(t, filepath.Join(mnt, "pharaon.db"), soakRuns(cashInPowerCuts), func() {
		st, err := fsys.Cut()
		require.NoError(t, err)
		cuts++
		dropped += st.PagesDropped
		fsys, err = powercut.Mount(backing, mnt)
		require.NoError(t, err)
	}, func() string {
		// The test's own process serves the file system: its SQLite must
		// not map a file of its own mount (a page fault there would wait
		// for a server that waits for memory). It opens the disk itself.
		require.NoError(t, fsys.Unmount())
		mounted = false
		t.Logf("%d power cuts, %d pending pages thrown away", cuts, dropped)
		return filepath.Join(backing, "pharaon.db")
	})
}
