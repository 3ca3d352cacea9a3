package store

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/game"
)

// lockHolderEnv makes TestLockHolderProcess, run as a child, hold the
// database it names.
const lockHolderEnv = "PHARAON_STORE_LOCK_HOLDER"

// storeFiles reads the database, its WAL and its anchor's files, for a
// byte-for-byte comparison (a missing file reads as nil).
func storeFiles(t *testing.T, path string) map[string][]byte {
	t.Helper()
	a := DefaultAnchor(path)
	files := map[string][]byte{}
	for _, p := range []string{path, path + "-wal", a.Path, filepath.Join(a.TrustDir, TrustSecretFile), filepath.Join(a.TrustDir, trustCounterFile)} {
		b, err := os.ReadFile(p)
		if !errors.Is(err, os.ErrNotExist) {
			require.NoError(t, err)
		}
		files[filepath.Base(p)] = b
	}
	return files
}

// A second opener of a database another Store holds, in this process,
// is refused with ErrLocked naming this process, and changes no byte of
// the database or of its anchor; the first goes on writing, its anchor
// intact; once it is closed the database opens again.
func TestLockRefusesSecondOpener(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pharaon.db")
	anchor := WithAnchor(DefaultAnchor(path))
	first, err := Open(path, anchor, WithClock(newClock().now))
	require.NoError(t, err)
	t.Cleanup(func() { first.Close() })
	clk := newClock()
	_, err = first.BillIn(ctx, 10*game.Euro, "note-1")
	require.NoError(t, err)
	v, err := first.IssueVoucher(ctx, VoucherRequest{Amount: 10 * game.Euro, Validation: "123456789012345678", Expires: clk.now().Add(time.Hour)})
	require.NoError(t, err)
	_, _, err = first.ConfirmVoucher(ctx, v.ID)
	require.NoError(t, err)

	before := storeFiles(t, path)
	for _, opts := range [][]Option{{anchor}, {anchor, WithCreate(false)}, nil} {
		second, err := Open(path, opts...)
		require.ErrorIs(t, err, ErrLocked)
		assert.Nil(t, second)
		var le *LockedError
		require.ErrorAs(t, err, &le)
		assert.Equal(t, os.Getpid(), le.PID, "the lock file names its holder")
		assert.Equal(t, filepath.Base(os.Args[0]), le.Command)
		assert.Equal(t, LockPath(path), le.Path)
		assert.Contains(t, err.Error(), fmt.Sprintf("process %d", os.Getpid()))
	}
	assert.Equal(t, before, storeFiles(t, path), "the refused opener wrote nothing")

	// A payout re-reads the heads and the anchor file: with a second
	// writer in between it would find them moved behind its back, and the
	// store would refuse every write after (fault anchor).
	_, err = first.PayVoucher(ctx, v.Validation, "staff")
	require.NoError(t, err, "the first opener goes on writing")
	_, err = first.BillIn(ctx, 20*game.Euro, "note-2")
	require.NoError(t, err)
	require.NoError(t, first.AnchorErr())
	_, err = first.VerifyBoot(ctx)
	require.NoError(t, err)
	require.NoError(t, first.Close())

	again, err := Open(path, anchor)
	require.NoError(t, err, "closed, the database opens again")
	t.Cleanup(func() { again.Close() })
	_, err = again.VerifyBoot(ctx)
	require.NoError(t, err)
	fi, err := os.Stat(LockPath(path))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
}

// A database held by another process is refused with that process's id,
// and left as it was; when that process is killed (kill -9, no Close) the
// kernel releases the lock and the database opens at once, its anchor
// matching: a crashed kiosk never leaves the lock behind.
func TestLockHeldByAnotherProcess(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pharaon.db")
	child := startLockHolder(t, path)

	before := storeFiles(t, path)
	_, err := Open(path, WithAnchor(DefaultAnchor(path)), WithCreate(false))
	var le *LockedError
	require.ErrorAs(t, err, &le)
	require.ErrorIs(t, err, ErrLocked)
	assert.Equal(t, child.cmd.Process.Pid, le.PID)
	assert.Equal(t, filepath.Base(os.Args[0]), le.Command)
	assert.Equal(t, before, storeFiles(t, path))

	child.say(t, "write", "wrote")
	require.NoError(t, child.cmd.Process.Signal(syscall.SIGKILL))
	_ = child.cmd.Wait()

	s, err := Open(path, WithAnchor(DefaultAnchor(path)), WithCreate(false))
	require.NoError(t, err, "the killed holder's lock went with it")
	defer s.Close()
	_, err = s.VerifyBoot(ctx)
	require.NoError(t, err, "the holder's writes are anchored")
	events, err := s.Events(ctx, 10, 0)
	require.NoError(t, err)
	require.NotEmpty(t, events)
	assert.Equal(t, "held-write", events[0].Code)
}

// lockHolder is a child process holding a store.
type lockHolder struct {
	cmd   *exec.Cmd
	in    *os.File
	lines chan string
}

// startLockHolder starts a child that opens the database at path (anchored
// beside it) and holds it until it is killed or its input ends.
func startLockHolder(t *testing.T, path string) *lockHolder {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHolderProcess$")
	cmd.Env = append(os.Environ(), lockHolderEnv+"="+path)
	r, w, err := os.Pipe()
	require.NoError(t, err)
	cmd.Stdin = r
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	r.Close()
	h := &lockHolder{cmd: cmd, in: w, lines: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			h.lines <- sc.Text()
		}
		close(h.lines)
	}()
	t.Cleanup(func() {
		w.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	h.wait(t, "held")
	return h
}

// say sends a line to the holder and waits for its answer.
func (h *lockHolder) say(t *testing.T, line, answer string) {
	t.Helper()
	_, err := fmt.Fprintln(h.in, line)
	require.NoError(t, err)
	h.wait(t, answer)
}

func (h *lockHolder) wait(t *testing.T, want string) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-h.lines:
			require.True(t, ok, "the holder ended before %q", want)
			if l == want {
				return
			}
			require.NotContains(t, l, "error", "the holder failed")
		case <-timeout:
			t.Fatalf("the holder did not say %q", want)
		}
	}
}

// TestLockHolderProcess is the holder's side, in the child process that
// startLockHolder starts (skipped in a normal run).
func TestLockHolderProcess(t *testing.T) {
	path := os.Getenv(lockHolderEnv)
	if path == "" {
		t.Skip("the child of TestLockHeldByAnotherProcess")
	}
	fail := func(err error) {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	ctx := context.Background()
	s, err := Open(path, WithAnchor(DefaultAnchor(path)))
	if err != nil {
		fail(err)
	}
	if _, err := s.BillIn(ctx, 5*game.Euro, "held-note"); err != nil {
		fail(err)
	}
	fmt.Println("held")
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		if _, err := s.Log(ctx, Event{Level: LevelInfo, Source: "test", Code: "held-write"}); err != nil {
			fail(err)
		}
		fmt.Println("wrote")
	}
	s.Close()
	os.Exit(0)
}

// A lock file made by root (a technician's command run as root) belongs
// to the owner of the database's directory, the kiosk's user, which must
// open it after.
func TestLockFileMadeByRootIsTheKiosks(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file away")
	}
	dir := filepath.Join(t.TempDir(), "data")
	require.NoError(t, os.Mkdir(dir, 0o700))
	const kioskUID, kioskGID = 4242, 4243
	require.NoError(t, os.Chown(dir, kioskUID, kioskGID))
	path := filepath.Join(dir, "pharaon.db")
	l, err := lockStore(path)
	require.NoError(t, err)
	defer l.release()
	fi, err := os.Stat(LockPath(path))
	require.NoError(t, err)
	st := fi.Sys().(*syscall.Stat_t)
	assert.Equal(t, [2]uint32{kioskUID, kioskGID}, [2]uint32{st.Uid, st.Gid})
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
}

// A directory given as the database is refused before a lock file is made
// beside it.
func TestLockRefusesDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	require.NoError(t, os.Mkdir(dir, 0o700))
	_, err := Open(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is a directory")
	assert.NoFileExists(t, LockPath(dir))
}

// Two paths to one database (a symbolic link to it, or to its directory)
// take one lock.
func TestLockFollowsSymbolicLinks(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	require.NoError(t, os.Mkdir(data, 0o700))
	path := filepath.Join(data, "pharaon.db")
	first, err := Open(path)
	require.NoError(t, err)
	defer first.Close()
	require.NoError(t, os.Symlink(path, filepath.Join(dir, "db-link")))
	require.NoError(t, os.Symlink(data, filepath.Join(dir, "data-link")))
	for _, other := range []string{filepath.Join(dir, "db-link"), filepath.Join(dir, "data-link", "pharaon.db")} {
		_, err := Open(other)
		assert.ErrorIs(t, err, ErrLocked, "%s", other)
	}
}
