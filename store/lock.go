package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// One process owns the store (DESIGN.md §4). Two processes writing one
// database each write from their own idea of the chains' heads: the
// anchor file gets the records of both, and the one whose record is not
// the newest is out of service (fault anchor) at its next commit, for
// good. SQLite's own locks serialize the transactions, not that idea. So
// Open first takes an exclusive flock on a lock file beside the database
// (the database's path with ".lock"), before SQLite or the anchor reads or
// writes anything, and a second opener is refused with ErrLocked.
//
// A flock belongs to the open file: the kernel releases it when the
// process dies however it dies (a kill -9, a power cut), so a crashed
// kiosk never leaves it held, and there is no stale-lock cleanup to get
// wrong. The file is never removed: removing a lock file another opener
// has just opened would let two processes hold "the" lock on two files.
// Go opens it close-on-exec, so no child the kiosk starts inherits it. Two
// Stores of one process on one database conflict too (a flock is per open
// file, not per process as SQLite's fcntl locks are).

// ErrLocked: another process, or another Store of this process, has the
// database open; nothing was read or written. The error is a *LockedError
// that names the holder.
var ErrLocked = errors.New("database is in use by another process")

// LockedError is the refusal of a database another opener holds. It
// matches ErrLocked.
type LockedError struct {
	Path string // the lock file
	// PID is the process that holds it, as the lock file says (0 when it
	// says nothing readable, e.g. a holder that could not write it).
	PID int
	// Command is the holder's program and subcommand as it wrote them
	// ("pharaon", "pharaon import"), empty when unknown.
	Command string
}

func (e *LockedError) Error() string {
	who := "another process"
	if e.PID > 0 {
		who = fmt.Sprintf("process %d", e.PID)
		if e.Command != "" {
			who += fmt.Sprintf(" (%s)", e.Command)
		}
	}
	return fmt.Sprintf("%s holds %s: %v", who, e.Path, ErrLocked)
}

func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// LockPath is the lock file of the database at dbPath: beside the file
// the path leads to, symbolic links followed (as SQLite follows them), so
// that two paths to one database take one lock.
func LockPath(dbPath string) string {
	if real, err := filepath.EvalSymlinks(dbPath); err == nil {
		return real + ".lock"
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(dbPath)); err == nil {
		return filepath.Join(dir, filepath.Base(dbPath)) + ".lock"
	}
	return dbPath + ".lock"
}

// storeLock is the flock a Store holds from Open to Close.
type storeLock struct{ f *os.File }

// lockStore takes the database's lock, or refuses with a *LockedError.
func lockStore(dbPath string) (*storeLock, error) {
	// A directory given for the database would have its lock file made
	// beside it, outside the kiosk's data.
	if fi, err := os.Stat(dbPath); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not a database file", dbPath)
	}
	f, err := openLockFile(LockPath(dbPath))
	if err != nil {
		return nil, fmt.Errorf("lock file: %w", err)
	}
	if err := flockRetry(f); err != nil {
		defer f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			pid, cmd := holder(f)
			return nil, &LockedError{Path: f.Name(), PID: pid, Command: cmd}
		}
		return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	// Say who holds it, for the refusal of the next opener. A file opened
	// read-only (see openLockFile) locks all the same and says nothing.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(holderText()), 0)
	}
	return &storeLock{f: f}, nil
}

// flockRetry takes the exclusive lock without waiting, retrying when a
// signal interrupted the call.
func flockRetry(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// openLockFile opens the lock file, creating it 0600. Created by root (a
// technician's command), it is given to the owner of its directory, as
// SQLite gives its WAL to the database's owner: the kiosk, which runs as
// its own user, must be able to open it after. An existing file the
// caller may not write is opened read-only: the lock works the same.
func openLockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	switch {
	case err == nil:
		if os.Geteuid() == 0 {
			if fi, err := os.Stat(filepath.Dir(path)); err == nil {
				if st, ok := fi.Sys().(*syscall.Stat_t); ok {
					_ = f.Chown(int(st.Uid), int(st.Gid))
				}
			}
		}
		return f, nil
	case !errors.Is(err, os.ErrExist):
		return nil, err
	}
	f, err = os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrPermission) {
		return os.Open(path)
	}
	return f, err
}

// holderText is what the holder writes in the lock file: its process id,
// then its command: the program's name and its subcommand if it has one
// ("pharaon", "pharaon import"), not the files and flags that follow.
func holderText() string {
	cmd := filepath.Base(os.Args[0])
	if len(os.Args) > 1 && os.Args[1] != "" && !strings.HasPrefix(os.Args[1], "-") {
		cmd += " " + os.Args[1]
	}
	return fmt.Sprintf("%d\n%s\n", os.Getpid(), cmd)
}

// holder reads the holder's process id and command line from the lock
// file (zero and empty when it has not written them yet, or could not).
func holder(f *os.File) (int, string) {
	b, err := io.ReadAll(io.NewSectionReader(f, 0, 4096))
	if err != nil {
		return 0, ""
	}
	first, rest, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 0 {
		return 0, ""
	}
	return pid, strings.TrimSpace(rest)
}

// release gives the lock back (closing the file releases the flock). It
// may be called more than once, and on nil.
func (l *storeLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
