package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk"
)

// notifySocket is systemd's side of sd_notify: a unixgram socket named by
// NOTIFY_SOCKET for the test.
func notifySocket(t *testing.T) *net.UnixConn {
	t.Helper()
	// A short path: a socket's name is at most 107 bytes.
	dir, err := os.MkdirTemp("", "sd")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "notify")
	c, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	t.Setenv("NOTIFY_SOCKET", path)
	return c
}

// received is the next datagram, or "" when none is waiting: sd_notify's
// write returns once the datagram is in the socket's queue, so what was sent
// is already there, and a read that does not wait tells.
func received(t *testing.T, c *net.UnixConn) string {
	t.Helper()
	rc, err := c.SyscallConn()
	require.NoError(t, err)
	buf := make([]byte, 4096)
	var n int
	var rerr error
	require.NoError(t, rc.Read(func(fd uintptr) bool {
		n, _, rerr = syscall.Recvfrom(int(fd), buf, syscall.MSG_DONTWAIT)
		return true
	}))
	if errors.Is(rerr, syscall.EAGAIN) {
		return ""
	}
	require.NoError(t, rerr)
	return string(buf[:n])
}

func discard() *log.Logger { return log.New(io.Discard, "", 0) }

func TestReadyAndStopping(t *testing.T) {
	c := notifySocket(t)
	s := newSystemd(t.Context(), osEnv{}, discard(), func(f func()) { f() })
	assert.Zero(t, s.timeout, "no WATCHDOG_USEC: no watchdog")
	s.ready()
	assert.Equal(t, "READY=1\nSTATUS=home screen shown", received(t, c))
	s.ready()
	assert.Empty(t, received(t, c), "ready once")
	s.stop()
	assert.Equal(t, "STOPPING=1", received(t, c))
}

func TestNoNotifySocket(t *testing.T) {
	t.Setenv("NOTIFY_SOCKET", "")
	t.Setenv("WATCHDOG_USEC", "1000")
	var logs bytes.Buffer
	s := newSystemd(t.Context(), osEnv{}, log.New(&logs, "", 0), func(func()) { t.Error("probed the screens") })
	assert.Zero(t, s.timeout, "no watchdog without a socket to ping")
	s.ready()
	s.stop()
	assert.Empty(t, logs.String())
}

func TestWatchdogTimeout(t *testing.T) {
	const pid, ppid = 100, 42
	cases := []struct {
		name string
		env  mapEnv
		want time.Duration
		err  bool
	}{
		{"none", mapEnv{}, 0, false},
		{"for us", mapEnv{"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "100"}, 30 * time.Second, false},
		// The kiosk session: cage is the main process, pharaon its child.
		{"for cage, our parent", mapEnv{"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "42"}, 30 * time.Second, false},
		{"no pid", mapEnv{"WATCHDOG_USEC": "2000"}, 2 * time.Millisecond, false},
		{"another process's", mapEnv{"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "7"}, 0, false},
		{"zero", mapEnv{"WATCHDOG_USEC": "0"}, 0, true},
		{"negative", mapEnv{"WATCHDOG_USEC": "-5"}, 0, true},
		{"not a number", mapEnv{"WATCHDOG_USEC": "30s"}, 0, true},
		{"overflow", mapEnv{"WATCHDOG_USEC": "99999999999999999"}, 0, true},
		{"bad pid", mapEnv{"WATCHDOG_USEC": "1000", "WATCHDOG_PID": "cage"}, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := watchdogTimeout(c.env, pid, ppid)
			assert.Equal(t, c.want, got)
			assert.Equal(t, c.err, err != nil, "error: %v", err)
		})
	}
}

// screens stands for the Fyne loop: fyne.Do either runs at once (healthy)
// or is held until the test releases it (hung).
type screens struct {
	mu    sync.Mutex
	hung  bool
	held  []func()
	posts int
}

func (s *screens) do(f func()) {
	s.mu.Lock()
	s.posts++
	if s.hung {
		s.held = append(s.held, f)
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	f()
}

func (s *screens) setHung(h bool) {
	s.mu.Lock()
	s.hung = h
	held := s.held
	s.held = nil
	s.mu.Unlock()
	if !h {
		for _, f := range held {
			f()
		}
	}
}

// fakeClock is the watchdog's clock, moved by the test.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) set(d time.Duration) {
	c.mu.Lock()
	c.t = time.Unix(1_700_000_000, 0).Add(d)
	c.mu.Unlock()
}

// TestWatchdogFollowsTheScreens: pings go to a real NOTIFY_SOCKET while the
// screens answer a round trip within maxAge, stop when they hang (with one
// round trip outstanding, never a queue of them), and resume when the
// screens answer again.
func TestWatchdogFollowsTheScreens(t *testing.T) {
	c := notifySocket(t)
	var ui screens
	clk := &fakeClock{}
	clk.set(0)
	ticked := make(chan bool)
	w := &uiWatchdog{notify: sdNotify, do: ui.do, now: clk.now, maxAge: 15 * time.Second, logger: discard(),
		onTick: func(p bool) { ticked <- p }}
	ticks := make(chan time.Time)
	done := make(chan struct{})
	go func() { w.run(t.Context(), ticks); close(done) }()
	t.Cleanup(func() { <-done })

	// at: the clock then a tick; want: pinged or not.
	step := func(at time.Duration, want bool, why string) {
		t.Helper()
		clk.set(at)
		ticks <- clk.now()
		assert.Equal(t, want, <-ticked, why)
		if want {
			assert.Equal(t, "WATCHDOG=1", received(t, c), why)
		} else {
			assert.Empty(t, received(t, c), why)
		}
	}
	step(0, false, "no answer yet: the first round trip is posted")
	step(7500*time.Millisecond, true, "answered at 0 s")
	ui.setHung(true)
	step(15*time.Second, true, "answered at 7.5 s, 7.5 s ago")
	step(22500*time.Millisecond, true, "answered 15 s ago: still within maxAge")
	step(30*time.Second, false, "hung: the last answer is 22.5 s old")
	step(37500*time.Millisecond, false, "still hung")
	ui.mu.Lock()
	assert.Equal(t, 3, ui.posts, "one round trip outstanding while hung, not one per tick")
	assert.Len(t, ui.held, 1)
	ui.mu.Unlock()
	clk.set(40 * time.Second)
	ui.setHung(false) // the held round trip answers now
	step(45*time.Second, true, "answered again at 40 s")
}

// TestWatchdogFollowsTheStore: the screens answer all along, but the store
// hangs (its probe, Machine.Health, does not come back: a commit that never
// ends; kiosk.TestHealthStopsWhenTheWriterHangs shows Health waits then):
// the pings stop once its last answer is older than maxAge, so systemd
// restarts the session, and resume when the store answers again.
func TestWatchdogFollowsTheStore(t *testing.T) {
	c := notifySocket(t)
	var ui, st screens // st holds the store's probe while the store hangs
	clk := &fakeClock{}
	clk.set(0)
	ticked := make(chan bool)
	probes := 0
	w := &uiWatchdog{notify: sdNotify, do: ui.do, now: clk.now, maxAge: 15 * time.Second, logger: discard(),
		onTick: func(p bool) { ticked <- p },
		health: func(context.Context) error { probes++; return nil }, spawn: st.do}
	ticks := make(chan time.Time)
	done := make(chan struct{})
	go func() { w.run(t.Context(), ticks); close(done) }()
	t.Cleanup(func() { <-done })

	step := func(at time.Duration, want bool, why string) {
		t.Helper()
		clk.set(at)
		ticks <- clk.now()
		assert.Equal(t, want, <-ticked, why)
		if want {
			assert.Equal(t, "WATCHDOG=1", received(t, c), why)
		} else {
			assert.Empty(t, received(t, c), why)
		}
	}
	step(0, false, "no answer yet")
	step(7500*time.Millisecond, true, "screens and store answered at 0 s")
	st.setHung(true)
	step(15*time.Second, true, "store answered at 7.5 s")
	step(22500*time.Millisecond, true, "store answered 15 s ago: still within maxAge")
	step(30*time.Second, false, "the store hangs: its last answer is 22.5 s old, the screens' is fresh")
	step(37500*time.Millisecond, false, "still hung")
	st.mu.Lock()
	assert.Len(t, st.held, 1, "one store probe outstanding while it hangs, not one per tick")
	st.mu.Unlock()
	clk.set(40 * time.Second)
	st.setHung(false)
	step(45*time.Second, true, "the store answered again at 40 s")
	assert.Equal(t, 4, probes, "0 s, 7.5 s, the one held from 15 s to 40 s, 45 s")
}

func TestNewLoggerUnderTheJournal(t *testing.T) {
	var b bytes.Buffer
	newLogger(&b, mapEnv{"JOURNAL_STREAM": "8:1234"}).Printf("kiosk %s", "home")
	assert.Equal(t, "level=INFO msg=\"kiosk home\"\n", b.String(), "no time: the journal stamps each line")
	b.Reset()
	newLogger(&b, mapEnv{}).Printf("kiosk %s", "home")
	assert.True(t, strings.HasPrefix(b.String(), "time="), b.String())
	assert.Contains(t, b.String(), ` level=INFO msg="kiosk home"`)
}

// A kiosk that starts but does not sell tells systemd it is up, with its
// fault as the status, as a kiosk that could not start at all does: here a
// cash device that fails its self-test; in the VM test, the data partition
// put back behind the trust root's counter (the fault rollback). Without
// READY=1 systemd stops it at TimeoutStartSec and starts it again, every
// three minutes for good: the out-of-service screen never stays up for the
// technician, and each of those starts whose data pass their checks counts
// the TPM's counter once.
func TestBinaryReadyOutOfService(t *testing.T) {
	c := notifySocket(t)
	dir := t.TempDir()
	env := []string{"NOTIFY_SOCKET=" + os.Getenv("NOTIFY_SOCKET")}
	for _, run := range []struct {
		name   string
		args   []string
		status string
	}{
		{"started, out of service", []string{"-dev", "-db", filepath.Join(dir, "data", "pharaon.db"), "-validator", filepath.Join(dir, "missing")},
			"out of service: " + kiosk.FaultValidator},
		{"could not start", []string{"-db", filepath.Join(dir, "none", "pharaon.db")}, "out of service: " + kiosk.FaultNotInstalled},
		{"in service", []string{"-dev", "-db", filepath.Join(dir, "data", "pharaon.db")}, "home screen shown"},
	} {
		r := runBinaryEnv(t, dir, env, run.args...)
		assert.Equal(t, "READY=1\nSTATUS="+run.status, received(t, c), "%s: %s", run.name, r.stderr)
		assert.Equal(t, "STOPPING=1", received(t, c), run.name)
	}
}
