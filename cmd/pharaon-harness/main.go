// Command pharaon-harness runs the kiosk without its screens under faults
// (package kiosk/harness, docs/fault-harness.md):
//
//	pharaon-harness [-faults N] [-seed N] [-dir DIR] [-tmpfs=false]
//
// causes N faults — kill -9 of the kiosk during cash-in, play, cash-out and
// maintenance, the bill validator and the printer unplugged and garbled,
// the validator's power cut with a note in it, a full disk, a read-only
// file system, clock jumps — restarting the kiosk and checking the money's
// invariants after each, and prints the counts. It exits 1 if an invariant
// broke.
//
//	pharaon-harness kiosk
//
// is one headless kiosk, the harness's child process: its configuration
// in the environment (PHARAON_HARNESS_DB, …), its commands on standard
// input, one a line.
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

	"pharaon/kiosk/harness"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "kiosk" {
		c, err := harness.KioskFromEnv()
		if err != nil {
			fmt.Fprintln(stderr, "pharaon-harness kiosk:", err)
			return 2
		}
		return harness.ServeKiosk(c, stdin, stdout, stderr)
	}
	fs := flag.NewFlagSet("pharaon-harness", flag.ContinueOnError)
	fs.SetOutput(stderr)
	faults := fs.Int("faults", 200, "how many faults to cause")
	seed := fs.Uint64("seed", 1, "the run's randomness")
	dir := fs.String("dir", "", "work directory (default: a new temporary one, removed at the end)")
	tmpfs := fs.Bool("tmpfs", os.Geteuid() == 0, "mount a tmpfs for the data (root): full disk and read-only faults")
	verbose := fs.Bool("v", false, "a line per fault")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *faults < 1 {
		fmt.Fprintln(stderr, "pharaon-harness: -faults must be at least 1")
		return 2
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
	rep, err := harness.Run(ctx, harness.Config{Dir: *dir, Faults: *faults, Seed: *seed, Tmpfs: *tmpfs, Logf: logf,
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
