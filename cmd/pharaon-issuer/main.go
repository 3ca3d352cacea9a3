// Command pharaon-issuer is the issuer's tool for Pharaon ticket blocks:
// it creates the issuer's signing keys, generates and signs blocks of
// 350 000 units (Art. 2, 3 of the regulation), verifies them as a kiosk
// does and prints an audit of their lot table counted from the units. It
// also signs the kiosk's update bundles (update-bundle, kiosk/update), with
// a key kept for that purpose.
//
// It only parses arguments and does the file I/O; the format, the
// generation and the checks are package pharaon/game/block. It never
// overwrites a key, and never leaves a partial block file behind.
//
// Exit status: 0 success, 1 failure, 2 misuse. See `pharaon-issuer help`.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err))
}

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// usageError is a misuse of the command line (exit code 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// usagef is a misuse said in the tool's language: fr and en are the same
// format in French and in English.
func (a *app) usagef(fr, en string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(a.lang.tr(fr, en), args...)}
}

// exitCode maps run's result to the exit status.
func exitCode(err error) int {
	var u *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &u):
		return exitUsage
	}
	return exitFailure
}

// app is one invocation: its outputs, its language and its clock.
type app struct {
	stdout, stderr io.Writer
	lang           lang
	now            func() time.Time
}

// run executes the command line args (without the program name). It prints
// the result on stdout and any problem on stderr, and returns the error
// that decides the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runWith(ctx, args, &app{stdout: stdout, stderr: stderr, now: time.Now})
}

func runWith(ctx context.Context, args []string, a *app) error {
	err := a.dispatch(ctx, args)
	if errors.Is(err, errHelpShown) {
		return nil
	}
	if err != nil {
		var u *usageError
		if errors.As(err, &u) {
			fmt.Fprintf(a.stderr, "%s%v\n%s\n", a.lang.tr("pharaon-issuer : ", "pharaon-issuer: "), err,
				a.lang.tr("« pharaon-issuer help » affiche l'aide.", `"pharaon-issuer help" shows the help.`))
		} else {
			for _, line := range a.lang.failure(err) {
				fmt.Fprintf(a.stderr, "%s%s\n", a.lang.tr("pharaon-issuer : ", "pharaon-issuer: "), line)
			}
		}
	}
	return err
}

func (a *app) dispatch(ctx context.Context, args []string) error {
	flags := newFlagSet("pharaon-issuer")
	langFlag := flags.String("lang", "fr", "")
	if err := flags.Parse(args); err != nil {
		return a.flagErr(err, "")
	}
	l, ok := parseLang(*langFlag)
	if !ok {
		// The language is not known yet: both.
		return &usageError{msg: fmt.Sprintf("-lang « %s » : fr ou en / -lang %q: fr or en", *langFlag, *langFlag)}
	}
	a.lang = l
	rest := flags.Args()
	if len(rest) == 0 {
		fmt.Fprint(a.stderr, a.lang.usage())
		return a.usagef("aucune commande", "no command")
	}
	cmd, cmdArgs := rest[0], rest[1:]
	switch cmd {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(a.stdout, a.lang.usage())
		return nil
	case "keygen":
		return a.keygen(ctx, cmdArgs)
	case "generate":
		return a.generate(ctx, cmdArgs)
	case "verify":
		return a.verify(ctx, cmdArgs)
	case "inspect":
		return a.inspect(ctx, cmdArgs)
	case "update-bundle":
		return a.updateBundle(ctx, cmdArgs)
	case "sign-manifest":
		return a.signManifest(ctx, cmdArgs)
	case "verify-manifest":
		return a.verifyManifest(ctx, cmdArgs)
	}
	return a.usagef("commande inconnue « %s » (keygen, generate, verify, inspect, update-bundle, sign-manifest, verify-manifest, help)",
		"unknown command %q (keygen, generate, verify, inspect, update-bundle, sign-manifest, verify-manifest, help)", cmd)
}

// newFlagSet makes a flag set that prints nothing by itself: the tool
// prints its own bilingual usage.
func newFlagSet(name string) *flag.FlagSet {
	flags := flag.NewFlagSet(name, flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	flags.Usage = func() {}
	return flags
}

// flagErr turns a flag parsing error into a usage error; -h prints the
// help and succeeds.
func (a *app) flagErr(err error, cmd string) error {
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(a.stdout, a.lang.usage())
		return errHelpShown
	}
	msg := a.lang.flagMessage(err)
	if cmd != "" {
		return a.usagef("%s : %s", "%s: %s", cmd, msg)
	}
	return &usageError{msg: msg}
}

// errHelpShown ends a command after -h printed the help; run maps it to
// success.
var errHelpShown = errors.New("help shown")

// parseArgs parses flags and positional arguments in any order (flags may
// follow file names); after "--" everything is positional.
func parseArgs(flags *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := flags.Parse(args); err != nil {
			return nil, err
		}
		rest := flags.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// listFlag is a flag that may be repeated (-key a.pub -key b.pub).
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error {
	*l = append(*l, s)
	return nil
}
