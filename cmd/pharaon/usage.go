package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
)

// command is a command the kiosk binary runs instead of the kiosk
// (`pharaon NAME ...`). Each registers itself in subcommands from an init
// function: the table is read by the usage the commands print, so it cannot
// be a variable's initial value.
type command struct {
	run  func(ctx context.Context, args []string, e env, stdout, stderr io.Writer) error
	args string // what follows the command's name: "[flags] FILE..."
	what string // what it does, in one line
	doc  string // the document that tells more
}

// subcommands are the commands, by name.
var subcommands = map[string]command{}

// kioskUsage is `pharaon -h`: the kiosk's own line, then every command's,
// then the kiosk's flags.
func kioskUsage(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "usage:\tpharaon [flags]\tthe kiosk (docs/kiosk-config.md)")
	names := make([]string, 0, len(subcommands))
	for n := range subcommands {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		c := subcommands[n]
		fmt.Fprintf(tw, "\tpharaon %s %s\t%s (%s)\n", n, c.args, c.what, c.doc)
	}
	tw.Flush()
	fmt.Fprintln(w, "`pharaon COMMAND -h` lists a command's flags.")
	fmt.Fprintln(w, "\nflags of the kiosk:")
	fs := kioskFlags()
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// commandUsage is `pharaon NAME -h`: its line, then its flags.
func commandUsage(w io.Writer, name string, fs *flag.FlagSet) {
	c := subcommands[name]
	fmt.Fprintf(w, "usage: pharaon %s %s\n%s (%s)\n\nflags:\n", name, c.args, c.what, c.doc)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// kioskFlags is a flag set of the kiosk's flags, for their usage; the
// block commands take the same (they read the kiosk's configuration).
func kioskFlags() *flag.FlagSet {
	var cfg Config
	var configPath string
	fs := flag.NewFlagSet("pharaon", flag.ContinueOnError)
	bindFlags(fs, &cfg, &configPath)
	return fs
}
