package powercut

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// mount mounts a power-cut file system over a fresh backing directory, or
// skips the test where FUSE cannot be mounted.
func mount(t *testing.T) (*FS, string) {
	t.Helper()
	if err := Available(); err != nil {
		t.Skipf("no power-cut file system here: %v", err)
	}
	backing, mnt := t.TempDir(), t.TempDir()
	f, err := Mount(backing, mnt)
	require.NoError(t, err)
	t.Cleanup(func() {
		if !f.isCut() {
			_ = f.Unmount()
		}
	})
	return f, backing
}

func (f *FS) isCut() bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.dead
}

// TestCutDropsWhatWasNotSynced: written and closed is not durable; synced
// is, pending writes over it are not, and a truncation is pending too.
func TestCutDropsWhatWasNotSynced(t *testing.T) {
	f, backing := mount(t)
	mnt := f.Dir()
	synced := bytes.Repeat([]byte("s"), 3*pageSize+100)

	a, err := os.Create(filepath.Join(mnt, "a"))
	require.NoError(t, err)
	_, err = a.Write(synced)
	require.NoError(t, err)
	require.NoError(t, a.Sync())
	_, err = a.WriteAt([]byte("pending"), 10)
	require.NoError(t, err)
	require.NoError(t, a.Truncate(pageSize+5))
	_, err = a.WriteAt([]byte("tail"), 2*pageSize)
	require.NoError(t, err)
	require.NoError(t, a.Close())

	// Before the cut, processes see their writes.
	got, err := os.ReadFile(filepath.Join(mnt, "a"))
	require.NoError(t, err)
	want := append([]byte{}, synced[:pageSize+5]...)
	copy(want[10:], "pending")
	want = append(want, make([]byte, 2*pageSize-len(want))...)
	want = append(want, "tail"...)
	require.Equal(t, want, got)

	require.NoError(t, os.WriteFile(filepath.Join(mnt, "b"), []byte("never synced"), 0o600))

	st, err := f.Cut()
	require.NoError(t, err)
	require.Positive(t, st.PagesDropped)
	require.Equal(t, 1, st.Syncs)

	got, err = os.ReadFile(filepath.Join(backing, "a"))
	require.NoError(t, err)
	require.Equal(t, synced, got, "the synced content, nothing after it")
	got, err = os.ReadFile(filepath.Join(backing, "b"))
	require.NoError(t, err)
	require.Empty(t, got, "the entry is durable at once, its content is not")

	// After the power comes back, the mount shows the durable content.
	g, err := Mount(backing, mnt)
	require.NoError(t, err)
	got, err = os.ReadFile(filepath.Join(mnt, "a"))
	require.NoError(t, err)
	require.Equal(t, synced, got)
	require.NoError(t, g.Unmount())
}

// TestSyncMakesTruncationDurable: a shrink then a write past it, synced,
// leaves zeros between, not the old content.
func TestSyncMakesTruncationDurable(t *testing.T) {
	f, backing := mount(t)
	p := filepath.Join(f.Dir(), "a")
	require.NoError(t, os.WriteFile(p, bytes.Repeat([]byte("x"), 3*pageSize), 0o600))
	a, err := os.OpenFile(p, os.O_RDWR, 0)
	require.NoError(t, err)
	require.NoError(t, a.Sync())
	require.NoError(t, a.Truncate(100))
	_, err = a.WriteAt([]byte("y"), 2*pageSize)
	require.NoError(t, err)
	require.NoError(t, a.Sync())
	require.NoError(t, a.Close())
	_, err = f.Cut()
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(backing, "a"))
	require.NoError(t, err)
	want := append(bytes.Repeat([]byte("x"), 100), make([]byte, 2*pageSize-100)...)
	require.Equal(t, append(want, 'y'), got)
}

// TestUnlinkedFileKeepsItsContent: a file unlinked while open reads on,
// and a new file of the same name starts empty.
func TestUnlinkedFileKeepsItsContent(t *testing.T) {
	f, _ := mount(t)
	p := filepath.Join(f.Dir(), "a")
	a, err := os.Create(p)
	require.NoError(t, err)
	_, err = a.Write([]byte("old"))
	require.NoError(t, err)
	require.NoError(t, os.Remove(p))
	require.NoError(t, os.WriteFile(p, []byte("new"), 0o600))
	buf := make([]byte, 3)
	_, err = a.ReadAt(buf, 0)
	require.NoError(t, err)
	require.Equal(t, "old", string(buf))
	require.NoError(t, a.Close())
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, "new", string(got))
	require.NoError(t, f.Unmount())
}

// TestCutTornKeepsWhatTheDiskWrote: a torn cut writes the pages keep
// chooses, over the synced content, and drops the others.
func TestCutTornKeepsWhatTheDiskWrote(t *testing.T) {
	f, backing := mount(t)
	p := filepath.Join(f.Dir(), "a")
	a, err := os.Create(p)
	require.NoError(t, err)
	_, err = a.Write(bytes.Repeat([]byte("s"), 4*pageSize))
	require.NoError(t, err)
	require.NoError(t, a.Sync())
	_, err = a.WriteAt(bytes.Repeat([]byte("p"), 4*pageSize), 0)
	require.NoError(t, err)
	require.NoError(t, a.Close())
	n := 0
	st, err := f.CutTorn(func() bool { n++; return n%2 == 1 }) // pages 0 and 2
	require.NoError(t, err)
	require.Equal(t, 2, st.PagesKept)
	require.Equal(t, 2, st.PagesDropped)
	got, err := os.ReadFile(filepath.Join(backing, "a"))
	require.NoError(t, err)
	var want []byte
	for _, c := range "psps" {
		want = append(want, bytes.Repeat([]byte{byte(c)}, pageSize)...)
	}
	require.Equal(t, want, got)
}

// TestRenameKeepsPendingWrites: a rename is durable at once and the
// renamed file's pending writes follow it (and are lost at a cut).
func TestRenameKeepsPendingWrites(t *testing.T) {
	f, backing := mount(t)
	a, b := filepath.Join(f.Dir(), "a"), filepath.Join(f.Dir(), "b")
	require.NoError(t, os.WriteFile(a, []byte("from a"), 0o600))
	require.NoError(t, os.WriteFile(b, []byte("from b"), 0o600))
	require.NoError(t, os.Rename(a, b))
	got, err := os.ReadFile(b)
	require.NoError(t, err)
	require.Equal(t, "from a", string(got))
	_, err = os.Stat(a)
	require.ErrorIs(t, err, os.ErrNotExist)
	_, err = f.Cut()
	require.NoError(t, err)
	got, err = os.ReadFile(filepath.Join(backing, "b"))
	require.NoError(t, err)
	require.Empty(t, got, "renamed, never synced")
	_, err = os.Stat(filepath.Join(backing, "a"))
	require.ErrorIs(t, err, os.ErrNotExist)
}
