// Command pharaon-harness runs the kiosk without its screens under faults
// (package kiosk/harness, docs/fault-harness.md):
//
//	pharaon-harness [-faults N] [-seed N] [-dir DIR] [-tmpfs=false] [-powercut [-sync OFF]]
//
// causes N faults — kill -9 of the kiosk during cash-in, play, cash-out and
// maintenance, the bill validator and the printer unplugged and garbled,
// the validator's power cut with a note in it, a full disk, a read-only
// file system, clock jumps — restarting the kiosk and checking the money's
// invariants after each, and prints the counts. It exits 1 if an invariant
// broke.
//
// With -powercut the data directory (database, WAL, anchor files) is on the
// power-cut file system (store/powercut, root and /dev/fuse) and every
// fault is a kill -9 followed by a power cut: the writes not synced are
// thrown away, or some written (torn). -sync OFF (or NORMAL) weakens the
// kiosk's store to show the harness sees the loss; only a binary built
// with -tags pharaon_weaksync can.
//
//	pharaon-harness kiosk
//
// is one headless kiosk, the harness's child process: its configuration
// in the environment (PHARAON_HARNESS_DB, …), its commands on standard
// input, one a line; or, with PHARAON_HARNESS_POWERCUT_DISK, the power-cut
// file system of a -powercut run.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"pharaon/hw/validator"
	"pharaon/kiosk/harness"
	"pharaon/store"
	"pharaon/store/powercut"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "kiosk" {
		return harness.ServeChild(stdin, stdout, stderr)
	}
	fs := flag.NewFlagSet("pharaon-harness", flag.ContinueOnError)
	fs.SetOutput(stderr)
	faults := fs.Int("faults", 200, "how many faults to cause")
	seed := fs.Uint64("seed", 1, "the run's randomness")
	dir := fs.String("dir", "", "work directory (default: a new temporary one, removed at the end)")
	tmpfs := fs.Bool("tmpfs", os.Geteuid() == 0, "mount a tmpfs for the data (root): full disk and read-only faults")
	verbose := fs.Bool("v", false, "a line per fault")
	powerCut := fs.Bool("powercut", false, "every fault a kill -9 and a power cut, on the power-cut file system (root, /dev/fuse)")
	syncMode := fs.String("sync", "", "OFF or NORMAL: the kiosk's store does not sync (with -powercut, a binary built with -tags pharaon_weaksync)")
	family := fs.String("validator", "id003", "the simulated bill validator's `family`: id003 or essp")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fam, err := validator.ParseFamily(*family)
	if err != nil {
		fmt.Fprintln(stderr, "pharaon-harness: -validator:", err)
		return 2
	}
	if *faults < 1 {
		fmt.Fprintln(stderr, "pharaon-harness: -faults must be at least 1")
		return 2
	}
	if *syncMode != "" {
		if *syncMode != "OFF" && *syncMode != "NORMAL" {
			fmt.Fprintf(stderr, "pharaon-harness: -sync %q: OFF or NORMAL\n", *syncMode)
			return 2
		}
		if !store.WeakSyncBuilt {
			fmt.Fprintln(stderr, "pharaon-harness: -sync needs a binary built with -tags pharaon_weaksync (tests only)")
			return 2
		}
	}
	if *powerCut {
		if err := powercut.Available(); err != nil {
			fmt.Fprintln(stderr, "pharaon-harness: -powercut:", err)
			return 2
		}
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "pharaon-harness:", err)
		return 2
	}
	if *dir == "" {
		d, err := os.MkdirTemp("", "pharaon-harness-")
		if err != nil {
			fmt.Fprintln(stderr, "pharaon-harness:", err)
			return 2
		}
		defer os.RemoveAll(d)
		*dir = d
	}
	logf := func(string, ...any) {}
	if *verbose {
		logf = func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := harness.Run(ctx, harness.Config{Dir: *dir, Family: fam, Faults: *faults, Seed: *seed, Tmpfs: *tmpfs, Logf: logf,
		PowerCut: *powerCut, Sync: *syncMode,
		Command: func() *exec.Cmd { return exec.Command(self, "kiosk") }})
	if rep != nil {
		fmt.Fprint(stdout, rep)
	}
	if err != nil {
		fmt.Fprintln(stderr, "pharaon-harness:", err)
		return 2
	}
	if !rep.OK() {
		return 1
	}
	return 0
}
