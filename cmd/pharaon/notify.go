package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"github.com/coreos/go-systemd/v22/daemon"
)

// The kiosk's side of systemd's service protocol (sd_notify(3)), for the
// session's unit packaging/systemd/pharaon.service (Type=notify,
// WatchdogSec): READY=1 once the boot checks passed and the home screen is
// shown, WATCHDOG=1 while the screens answer, STOPPING=1 at the stop.
// Without NOTIFY_SOCKET (a development run, a test) it sends nothing.

// newLogger is the kiosk's log: log/slog's key=value lines on stderr, which
// the journal keeps (journalctl -u pharaon); under the journal
// (JOURNAL_STREAM set) without the time, which the journal stamps itself.
func newLogger(stderr io.Writer, e env) *log.Logger {
	opts := &slog.HandlerOptions{}
	if e.Getenv("JOURNAL_STREAM") != "" {
		opts.ReplaceAttr = func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}
	}
	return slog.NewLogLogger(slog.NewTextHandler(stderr, opts), slog.LevelInfo)
}

// sdNotify sends one state to systemd; without NOTIFY_SOCKET, nothing.
func sdNotify(state string) error {
	_, err := daemon.SdNotify(false, state)
	return err
}

// systemd tells the service manager how the kiosk is.
type systemd struct {
	ctx    context.Context
	logger *log.Logger
	notify func(state string) error
	do     func(func()) // fyne.Do: runs a function on the screens' goroutine
	// health answers once the store answers the kiosk (Machine.Health);
	// nil: the screens alone are watched (a kiosk that could not start).
	health func(context.Context) error
	// timeout is systemd's WatchdogSec (WATCHDOG_USEC); 0: no watchdog.
	timeout time.Duration

	once   sync.Once
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// newSystemd reads the watchdog's timeout from the environment; a bad one is
// logged and leaves the watchdog off (systemd then restarts the kiosk, which
// is what a broken unit deserves to show).
func newSystemd(ctx context.Context, e env, logger *log.Logger, do func(func())) *systemd {
	s := &systemd{ctx: ctx, logger: logger, notify: sdNotify, do: do}
	if e.Getenv("NOTIFY_SOCKET") == "" {
		return s
	}
	t, err := watchdogTimeout(e, os.Getpid(), os.Getppid())
	if err != nil {
		logger.Printf("systemd watchdog off: %v", err)
	}
	s.timeout = t
	return s
}

// watchdogTimeout is the watchdog's timeout systemd gives this process:
// WATCHDOG_USEC, for the process WATCHDOG_PID names, if it names one. In
// the kiosk session the service's main process is `pharaon session`
// (cmd/pharaon/session.go), which drops WATCHDOG_PID for cage, whose child
// pharaon is: systemd accepts pharaon's pings as the unit sets
// NotifyAccess=all (go-systemd's SdWatchdogEnabled would see a foreign pid
// and say no watchdog). A unit whose main process is cage names it, the
// parent. Any other pid is another process's watchdog: 0.
func watchdogTimeout(e env, pid, ppid int) (time.Duration, error) {
	usec := e.Getenv("WATCHDOG_USEC")
	if usec == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(usec, 10, 64)
	if err != nil || n <= 0 || n > int64(time.Duration(1<<62)/time.Microsecond) {
		return 0, fmt.Errorf("WATCHDOG_USEC=%q is not a positive number of microseconds", usec)
	}
	if s := e.Getenv("WATCHDOG_PID"); s != "" {
		p, err := strconv.Atoi(s)
		if err != nil {
			return 0, fmt.Errorf("WATCHDOG_PID=%q is not a process id", s)
		}
		if p != pid && p != ppid {
			return 0, nil
		}
	}
	return time.Duration(n) * time.Microsecond, nil
}

// nextFrame runs f in the next frame the screens draw (an animation's first
// tick): the home screen is built before it is drawn, and on a slow machine
// (software rendering) the first frame can come many seconds later. A
// variable for the tests of the binary, which draw no frame.
var nextFrame = func(f func()) {
	done := false
	fyne.NewAnimation(time.Millisecond, func(float32) {
		if done {
			return
		}
		done = true
		f()
	}).Start()
}

// ready tells systemd the kiosk is up (the boot checks passed before the
// window opened; the home screen is drawn: call it in nextFrame) and starts
// the watchdog's pings. Only the first call counts.
func (s *systemd) ready() { s.readyStatus("home screen shown") }

// readyStatus is ready with the status systemctl shows (a kiosk that could
// not start is up, out of service, and says why).
func (s *systemd) readyStatus(status string) {
	s.once.Do(func() {
		if err := s.notify(daemon.SdNotifyReady + "\nSTATUS=" + status); err != nil {
			s.logger.Printf("systemd ready: %v", err)
		}
		if s.timeout <= 0 {
			return
		}
		// Ping at a quarter of the timeout, and only while the screens
		// answered within half of it: a hung screen is restarted at most
		// 1.5 timeouts after its last answer.
		w := &uiWatchdog{notify: s.notify, do: s.do, now: time.Now, maxAge: s.timeout / 2, logger: s.logger,
			health: s.health, spawn: func(f func()) { go f() }}
		ctx, cancel := context.WithCancel(s.ctx)
		s.cancel = cancel
		tk := time.NewTicker(s.timeout / 4)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer tk.Stop()
			w.run(ctx, tk.C)
		}()
	})
}

// stop tells systemd the kiosk is stopping (it may still finish a voucher)
// and stops the pings.
func (s *systemd) stop() {
	s.once.Do(func() {}) // a ready after the stop starts nothing
	if s.cancel != nil {
		s.cancel()
	}
	s.wg.Wait()
	if err := s.notify(daemon.SdNotifyStopping); err != nil {
		s.logger.Printf("systemd stopping: %v", err)
	}
}

// uiWatchdog pings systemd's watchdog while the screens and the store
// answer: on each tick it asks the screens' goroutine to note the time (a
// fyne.Do round trip) and, on a goroutine of its own, the store to answer
// (health: a write handed to the play writer is taken, the credit is
// read), and pings only if both last answers are recent. A hung frame
// loop, a deadlock on the screens' goroutine, a flood of work that never
// lets it breathe, a store blocked in a commit all stop the pings, and
// systemd restarts the session.
type uiWatchdog struct {
	notify func(state string) error
	do     func(func())
	now    func() time.Time
	maxAge time.Duration
	logger *log.Logger
	onTick func(pinged bool) // tests: after each tick
	// health is the store's probe (nil: none); spawn runs it off the
	// watchdog's goroutine (go f()).
	health func(context.Context) error
	spawn  func(func())

	start    time.Time
	answered atomic.Int64 // since start, +1; 0: never
	probing  atomic.Bool  // a round trip is on its way: never queue a second
	healthy  atomic.Int64 // the store's last answer, as answered
	checking atomic.Bool  // a store probe is on its way
}

func (w *uiWatchdog) run(ctx context.Context, ticks <-chan time.Time) {
	w.start = w.now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticks:
			pinged := w.tick()
			if w.onTick != nil {
				w.onTick(pinged)
			}
		}
	}
}

// recent: an answer noted as a (since start, +1) is within maxAge.
func (w *uiWatchdog) recent(a int64) bool {
	return a != 0 && w.now().Sub(w.start)-time.Duration(a-1) <= w.maxAge
}

func (w *uiWatchdog) tick() bool {
	pinged := false
	if w.recent(w.answered.Load()) && (w.health == nil || w.recent(w.healthy.Load())) {
		if err := w.notify(daemon.SdNotifyWatchdog); err != nil {
			w.logger.Printf("systemd watchdog: %v", err)
		} else {
			pinged = true
		}
	}
	if w.probing.CompareAndSwap(false, true) {
		w.do(func() {
			w.answered.Store(int64(w.now().Sub(w.start)) + 1)
			w.probing.Store(false)
		})
	}
	if w.health != nil && w.checking.CompareAndSwap(false, true) {
		w.spawn(func() {
			// No deadline: a store that answers late answers (and the
			// pings stop meanwhile); one probe at a time.
			if err := w.health(context.Background()); err != nil {
				w.logger.Printf("systemd watchdog: %v", err)
			} else {
				w.healthy.Store(int64(w.now().Sub(w.start)) + 1)
			}
			w.checking.Store(false)
		})
	}
	return pinged
}
