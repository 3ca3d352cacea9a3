package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The kiosk's session (packaging/systemd/pharaon.service): the unit's main
// process is `pharaon session -- cage -- pharaon ...`, which runs the
// compositor, which runs the kiosk. It is there for the stop. systemd stops
// a unit by signalling its main process (KillMode=mixed); signalled all at
// once, the compositor and Xwayland went first and the kiosk died with its
// display before it closed its ledger (a WAL left beside pharaon.db), and
// cage, told to end twice (its own SIGTERM, then its child's exit), aborted
// on libwayland's assertion. The session passes the stop to the kiosk
// alone: the kiosk finishes what it prints, closes its store and exits;
// cage ends by itself when its client has, Xwayland with it; the session
// ends last, with the compositor's status. What does not end in
// TimeoutStopSec is killed by systemd, the whole session.
func init() {
	subcommands["session"] = command{
		run:  runSession,
		args: "-- COMPOSITOR [ARG...]",
		what: "the kiosk's session: runs the compositor, which runs the kiosk, and passes a stop to the kiosk first",
		doc:  "packaging/systemd/pharaon.service",
	}
}

// exitStatus is a command's own exit status, given on: the session ends
// with the compositor's.
type exitStatus struct {
	code int
	err  error
}

func (e *exitStatus) Error() string { return e.err.Error() }
func (e *exitStatus) Unwrap() error { return e.err }

func runSession(ctx context.Context, args []string, e env, stdout, stderr io.Writer) error {
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGABRT)
	defer signal.Stop(sig)
	return session{stderr: stderr, signals: sig, abortGrace: abortGrace}.run(args)
}

// abortGrace is how long a kiosk sent the watchdog's SIGABRT has to write
// its goroutines and end before it is killed: a kiosk stopped (SIGSTOP) or
// blocked in the kernel cannot, and systemd would wait TimeoutStopSec
// before it restarts the session.
const abortGrace = 5 * time.Second

// session is the command's work, its signals given (the tests send theirs).
type session struct {
	stderr     io.Writer
	signals    <-chan os.Signal
	abortGrace time.Duration
}

func (s session) run(args []string) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		commandUsage(s.stderr, "session", flag.NewFlagSet("session", flag.ContinueOnError))
		return flag.ErrHelp
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(s.stderr, "usage: pharaon session -- COMPOSITOR [ARG...]")
		return &usageError{"no compositor"}
	}
	self, err := os.Stat("/proc/self/exe")
	if err != nil {
		return fmt.Errorf("session: this program's file: %w", err)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = sessionEnv(os.Environ())
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(s.stderr, "pharaon session: %v\n", err)
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case err := <-done:
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code := ee.ExitCode()
				if st, ok := ee.Sys().(syscall.WaitStatus); ok && st.Signaled() {
					code = 128 + int(st.Signal())
				}
				fmt.Fprintf(s.stderr, "pharaon session: %s ended: %v\n", filepath.Base(args[0]), err)
				return &exitStatus{code, err}
			}
			return err
		case sg := <-s.signals:
			s.pass(sg.(syscall.Signal), cmd.Process.Pid, self)
		}
	}
}

// pass gives a signal the session received to the kiosk: a stop
// (SIGTERM, SIGINT, SIGHUP) as SIGTERM, systemd's watchdog (SIGABRT) as
// SIGABRT, on which the kiosk, a Go program, writes its goroutines to the
// journal and ends (killed if it has not after abortGrace). Before the kiosk runs, or after it ended, the
// compositor is told to end (SIGTERM).
func (s session) pass(sg syscall.Signal, compositor int, self os.FileInfo) {
	to := syscall.SIGTERM
	if sg == syscall.SIGABRT {
		to = syscall.SIGABRT
	}
	kiosks := kioskPIDs(compositor, self)
	for _, pid := range kiosks {
		fmt.Fprintf(s.stderr, "pharaon session: %s: %s to the kiosk (pid %d)\n", unix.SignalName(sg), unix.SignalName(to), pid)
		_ = syscall.Kill(pid, to)
	}
	if to == syscall.SIGABRT && len(kiosks) > 0 {
		time.AfterFunc(s.abortGrace, func() {
			for _, pid := range kioskPIDs(compositor, self) {
				fmt.Fprintf(s.stderr, "pharaon session: the kiosk (pid %d) did not end in %v after SIGABRT: SIGKILL\n", pid, s.abortGrace)
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		})
	}
	if len(kiosks) == 0 {
		fmt.Fprintf(s.stderr, "pharaon session: %s: no kiosk running; SIGTERM to the compositor (pid %d)\n", unix.SignalName(sg), compositor)
		_ = syscall.Kill(compositor, syscall.SIGTERM)
	}
}

// kioskPIDs are the compositor's children that run this program's file
// (the kiosk cage started), found in /proc.
func kioskPIDs(parent int, self os.FileInfo) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 || f[1] != strconv.Itoa(parent) {
			continue
		}
		if fi, err := os.Stat("/proc/" + e.Name() + "/exe"); err == nil && os.SameFile(fi, self) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// sessionEnv is the compositor's environment, so the kiosk's: the
// session's, without WATCHDOG_PID. systemd names the unit's main process,
// the session, in WATCHDOG_PID; the session hands its watchdog down to the
// kiosk, whose screen it watches (cmd/pharaon/notify.go: a watchdog for no
// named process is the receiver's, and NotifyAccess=all lets the kiosk
// ping it).
func sessionEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, "WATCHDOG_PID=") {
			out = append(out, kv)
		}
	}
	return out
}
