package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sessionKioskEnv makes the test binary a stand-in for the kiosk under
// the session's compositor: it writes "started" in the directory named,
// and at SIGTERM takes 300 ms to close (its store), writes "closed" and
// exits 0. SIGABRT it leaves to Go, which writes the goroutines to
// stderr and exits 2.
const sessionKioskEnv = "PHARAON_TEST_SESSION_KIOSK"

func sessionKiosk(dir string) {
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	if err := os.WriteFile(filepath.Join(dir, "started"), nil, 0o600); err != nil {
		os.Exit(1)
	}
	<-term
	time.Sleep(300 * time.Millisecond)
	_ = os.WriteFile(filepath.Join(dir, "closed"), nil, 0o600)
	os.Exit(0)
}

// fakeCompositor is cage as the session sees it: it runs the kiosk (this
// test binary), logs a SIGTERM it receives, and ends when the kiosk has,
// with its status.
const fakeCompositor = `
trap 'echo signalled >> "$DIR/log"' TERM
env > "$DIR/env"
"$KIOSK" -test.run='^$' 2> "$DIR/kiosk.err" &
k=$!
while :; do
	wait $k; st=$?
	kill -0 $k 2>/dev/null || break
done
echo "ended $st" >> "$DIR/log"
exit $st
`

type sessionRun struct {
	ended   bool       // the session's end was received
	log     syncBuffer // the session's own lines
	dir     string
	signals chan os.Signal
	done    chan error
}

func startSession(t *testing.T, script string) *sessionRun {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	r := &sessionRun{dir: t.TempDir(), signals: make(chan os.Signal, 1), done: make(chan error, 1)}
	t.Setenv("DIR", r.dir)
	t.Setenv("KIOSK", self)
	t.Setenv(sessionKioskEnv, r.dir)
	t.Setenv("WATCHDOG_PID", "1")
	t.Setenv("WATCHDOG_USEC", "30000000")
	// A test that fails half-way leaves no kiosk or compositor behind:
	// its kiosk killed, the compositor ends after it, then the session.
	t.Cleanup(func() {
		if r.ended {
			return
		}
		self, err := os.Stat("/proc/self/exe")
		if err != nil {
			return
		}
		for _, c := range childrenOf(t, os.Getpid()) {
			for _, k := range kioskPIDs(c, self) {
				_ = syscall.Kill(k, syscall.SIGKILL)
			}
		}
		select {
		case <-r.done:
		case <-time.After(20 * time.Second):
		}
	})
	go func() {
		r.done <- session{stderr: &r.log, signals: r.signals, abortGrace: time.Second}.run([]string{"--", "/bin/sh", "-c", script})
	}()
	return r
}

func (r *sessionRun) waitFile(t *testing.T, name string) {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(r.dir, name)); err == nil {
			return
		}
	}
	t.Fatalf("no %s in 20 s", name)
}

// signal sends the session a signal and waits for its end.
func (r *sessionRun) signal(t *testing.T, sg syscall.Signal) error {
	t.Helper()
	r.signals <- sg
	select {
	case err := <-r.done:
		r.ended = true
		return err
	case <-time.After(20 * time.Second):
		t.Fatal("the session did not end")
		return nil
	}
}

func (r *sessionRun) read(t *testing.T, name string) string {
	b, err := os.ReadFile(filepath.Join(r.dir, name))
	require.NoError(t, err)
	return string(b)
}

// A stop goes to the kiosk alone: it closes and exits, the compositor ends
// after it, by itself, never signalled (cage told to end twice aborts),
// and the session ends with its status, 0.
func TestSessionStopsTheKioskFirst(t *testing.T) {
	r := startSession(t, fakeCompositor)
	r.waitFile(t, "started")
	require.NoError(t, r.signal(t, syscall.SIGTERM))
	assert.FileExists(t, filepath.Join(r.dir, "closed"), "the kiosk closed before the session ended")
	assert.Equal(t, "ended 0\n", r.read(t, "log"), "the compositor ended after the kiosk, unsignalled")
	assert.Regexp(t, `^pharaon session: SIGTERM: SIGTERM to the kiosk \(pid [0-9]+\)\n$`, r.log.String())
	env := r.read(t, "env")
	assert.NotContains(t, env, "WATCHDOG_PID=", "the watchdog handed down to the kiosk")
	assert.Contains(t, env, "WATCHDOG_USEC=30000000")
}

// systemd's watchdog (SIGABRT to the main process) reaches the kiosk as
// SIGABRT: its goroutines are in the journal, and the session ends with
// the compositor's status, the kiosk's 2.
func TestSessionPassesTheWatchdogsAbortToTheKiosk(t *testing.T) {
	r := startSession(t, fakeCompositor)
	r.waitFile(t, "started")
	err := r.signal(t, syscall.SIGABRT)
	require.Error(t, err)
	assert.Equal(t, 2, exitCode(err))
	assert.Contains(t, r.read(t, "kiosk.err"), "SIGABRT")
	assert.Contains(t, r.read(t, "kiosk.err"), "goroutine ")
	assert.NoFileExists(t, filepath.Join(r.dir, "closed"))
}

// A kiosk that cannot end on the watchdog's SIGABRT (here stopped, as
// the VM test freezes it) is killed after the grace, and the session
// ends: systemd restarts it without waiting for its stop timeout.
func TestSessionKillsAKioskThatDoesNotAbort(t *testing.T) {
	r := startSession(t, fakeCompositor)
	r.waitFile(t, "started")
	self, err := os.Stat("/proc/self/exe")
	require.NoError(t, err)
	var kiosk int
	for _, c := range childrenOf(t, os.Getpid()) {
		if k := kioskPIDs(c, self); len(k) == 1 {
			kiosk = k[0]
		}
	}
	require.NotZero(t, kiosk, "the kiosk under the compositor")
	require.NoError(t, syscall.Kill(kiosk, syscall.SIGSTOP))
	start := time.Now()
	err = r.signal(t, syscall.SIGABRT)
	assert.Equal(t, 128+int(syscall.SIGKILL), exitCode(err), "the compositor's status: its kiosk killed")
	assert.GreaterOrEqual(t, time.Since(start), time.Second)
}

// childrenOf lists a process's children from /proc (each thread's: a Go
// program forks from any of its threads).
func childrenOf(t *testing.T, pid int) []int {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	require.NoError(t, err)
	var out []int
	for _, task := range tasks {
		b, err := os.ReadFile(task)
		require.NoError(t, err)
		for _, f := range strings.Fields(string(b)) {
			n, err := strconv.Atoi(f)
			require.NoError(t, err)
			out = append(out, n)
		}
	}
	return out
}

// Before the kiosk runs, a stop goes to the compositor.
func TestSessionStopsACompositorWithoutKiosk(t *testing.T) {
	r := startSession(t, `trap 'echo signalled >> "$DIR/log"; exit 0' TERM
touch "$DIR/started"
while :; do sleep 1; done`)
	r.waitFile(t, "started")
	require.NoError(t, r.signal(t, syscall.SIGTERM))
	assert.Equal(t, "signalled\n", r.read(t, "log"))
}

// Without a compositor to run, the session says how it is used.
func TestSessionWithoutCompositor(t *testing.T) {
	var out strings.Builder
	err := session{stderr: &out}.run([]string{"--"})
	assert.Equal(t, exitUsage, exitCode(err))
	assert.Contains(t, out.String(), "usage: pharaon session -- COMPOSITOR")
	out.Reset()
	err = session{stderr: &out}.run([]string{"-h"})
	assert.Equal(t, exitOK, exitCode(err))
	assert.Contains(t, out.String(), "usage: pharaon session -- COMPOSITOR [ARG...]\nthe kiosk's session")
}
