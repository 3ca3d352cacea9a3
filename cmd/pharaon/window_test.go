package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// windowEnv makes the test binary's kiosk open its real window (showWindow)
// instead of printing its screen (main_test.go): on the X server DISPLAY
// names, a virtual one in these tests.
const windowEnv = "PHARAON_TEST_WINDOW"

// startXvfb starts a virtual X server and returns its DISPLAY. make test
// installs Xvfb (Makefile DEB_DEPS); a machine without it skips, except
// in CI where that is a failure.
func startXvfb(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("Xvfb"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("Xvfb missing: make deps installs it")
		}
		t.Skip("Xvfb missing (make deps installs it)")
	}
	r, w, err := os.Pipe()
	require.NoError(t, err)
	x := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp")
	x.ExtraFiles = []*os.File{w}
	require.NoError(t, x.Start())
	w.Close()
	t.Cleanup(func() { _ = x.Process.Kill(); _ = x.Wait() })
	got := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(r).ReadString('\n')
		got <- strings.TrimSpace(l)
	}()
	select {
	case n := <-got:
		require.NotEmpty(t, n, "Xvfb gave no display number")
		return ":" + n
	case <-time.After(30 * time.Second):
		t.Fatal("Xvfb did not start within 30 s")
	}
	return ""
}

// SIGTERM (systemctl stop, a reboot, an update) stops a kiosk that shows
// its window as it stops one without: the screens stop, the kiosk closes
// its store (no WAL left, the technician's copy is the database file
// alone) and the process exits 0, with no panic from the window's
// toolkit on the way out. Each stop at another moment of the window's
// life: as soon as the start-up screen is drawn (the kiosk is starting:
// a stop, not a failure to start), on the player's home screen, and on a
// production kiosk's first-start setup (the maintenance side).
func TestWindowStopsCleanlyOnSIGTERM(t *testing.T) {
	display := startXvfb(t)
	dev := t.TempDir()
	devDB := filepath.Join(dev, ".local", "share", "pharaon", "pharaon.db")
	prod := newLockKiosk(t)
	for i, c := range []struct {
		home, db, wait string
		args           []string
	}{
		{dev, devDB, "first frame", []string{"-dev", "-fullscreen=false"}},
		{dev, devDB, "home shown", []string{"-dev", "-fullscreen=false"}},
		{dev, devDB, "home shown", []string{"-dev", "-fullscreen=false"}},
		{dev, devDB, "home shown", []string{"-dev", "-fullscreen=false"}},
		{prod.dir, prod.db, "setup screen shown", []string{"-config", prod.conf, "-fullscreen=false"}},
		{prod.dir, prod.db, "setup screen shown", []string{"-config", prod.conf, "-fullscreen=false"}},
	} {
		t.Run(fmt.Sprintf("%d-after-%s", i, strings.ReplaceAll(c.wait, " ", "-")), func(t *testing.T) {
			cmd := exec.Command(os.Args[0], c.args...)
			cmd.Env = []string{binaryEnv + "=1", windowEnv + "=1", "HOME=" + c.home, "DISPLAY=" + display,
				"LANG=fr_FR.UTF-8", "PATH=" + os.Getenv("PATH")}
			stderr := &syncBuffer{}
			cmd.Stderr = stderr
			require.NoError(t, cmd.Start())
			t.Cleanup(func() { _ = cmd.Process.Kill() })
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			deadline := time.After(3 * time.Minute)
			for !strings.Contains(stderr.String(), c.wait) {
				select {
				case err := <-done:
					t.Fatalf("the kiosk ended before %q: %v\n%s", c.wait, err, stderr.String())
				case <-deadline:
					t.Fatalf("no %q within 3 minutes:\n%s", c.wait, stderr.String())
				case <-time.After(20 * time.Millisecond):
				}
			}
			require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
			select {
			case err := <-done:
				require.NoError(t, err, "a stop exits 0:\n%s", stderr.String())
			case <-time.After(30 * time.Second): // the unit's TimeoutStopSec
				t.Fatalf("the kiosk did not stop within 30 s of SIGTERM:\n%s", stderr.String())
			}
			log := stderr.String()
			assert.NotContains(t, log, "panic", "the stop panicked")
			assert.NotContains(t, log, "cannot start", "a stop is not a failure")
			assert.Contains(t, log, "stopping")
			fi, err := os.Stat(c.db + "-wal")
			if !errors.Is(err, os.ErrNotExist) {
				require.NoError(t, err)
				assert.Zero(t, fi.Size(), "the store was closed: its WAL is empty")
			}
		})
	}
}

// quietStop reaches Fyne's own stop hook through the lifecycle Fyne gives
// (an upgrade that renames it fails here, not in a kiosk being stopped),
// and clears it with the app's.
func TestQuietStopClearsFyneStopHooks(t *testing.T) {
	a := test.NewTempApp(t)
	l, ok := a.Lifecycle().(interface {
		SetOnStoppedHookExecuted(func())
		OnStopped() func()
	})
	require.True(t, ok, "Fyne's lifecycle has no stop hook setter: see quietStop in kiosk.go")
	l.SetOnStoppedHookExecuted(func() {})
	a.Lifecycle().SetOnStopped(func() {})
	require.NotNil(t, l.OnStopped())
	require.True(t, quietStop(a))
	assert.Nil(t, l.OnStopped(), "nothing for Fyne to queue as its loop quits")
}
