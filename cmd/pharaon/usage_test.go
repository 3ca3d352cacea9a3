package main

import (
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHelp runs the binary's -h as a technician does, in a root shell whose
// locale is C.UTF-8 (a fresh Debian's) or the kiosk's: the kiosk's usage
// names every command, each command's lists its flags, and Fyne logs no
// locale error on the way.
func TestHelp(t *testing.T) {
	home := t.TempDir()
	for _, c := range []struct {
		args []string
		says []string
	}{
		{[]string{"-h"}, []string{"usage:  pharaon [flags]", "pharaon import [flags] FILE...", "pharaon blocks [flags]",
			"pharaon backup [flags] DIR", "pharaon update [flags] BUNDLE", "flags of the kiosk:", "-config string", "-db file"}},
		{[]string{"import", "-h"}, []string{"usage: pharaon import [flags] FILE...", "-config string", "-db file", "-keys files",
			"-first-install", "-installed-marker file"}},
		{[]string{"blocks", "-h"}, []string{"usage: pharaon blocks [flags]", "-config string", "-db file"}},
		{[]string{"backup", "-h"}, []string{"usage: pharaon backup [flags] DIR", "-config string", "-db file", "-lang"}},
		{[]string{"update", "-h"}, []string{"usage: pharaon update [flags] BUNDLE", "-check", "-downgrade", "-no-rollback", "-update-keys string"}},
	} {
		for _, locale := range []string{"LANG=C.UTF-8", "LC_ALL=POSIX.UTF-8", "LANG=fr_FR.UTF-8", "LANG=C"} {
			r := runBinaryEnv(t, home, []string{locale}, c.args...)
			assert.Equal(t, exitOK, r.status, "%v under %s", c.args, locale)
			for _, s := range c.says {
				assert.Contains(t, r.stderr, s, "%v under %s", c.args, locale)
			}
			assert.NotContains(t, r.stderr, "Fyne error", "%v under %s", c.args, locale)
			assert.NotContains(t, r.stderr, "locale", "%v under %s", c.args, locale)
			assert.Empty(t, r.stdout, "%v: the usage goes to stderr", c.args)
		}
	}
	// Every command, whichever file registers it.
	r := runBinary(t, home, "-h")
	require.NotEmpty(t, subcommands)
	for name, cmd := range subcommands {
		assert.Contains(t, r.stderr, "pharaon "+name+" "+cmd.args+"  ", "pharaon -h names %s", name)
		assert.Contains(t, r.stderr, cmd.what, "pharaon -h says what %s does", name)
	}
}

// TestManPageNamesEveryCommand: the package's manual page
// (packaging/man/pharaon.1) has a synopsis line and a paragraph for each
// command the binary runs.
func TestManPageNamesEveryCommand(t *testing.T) {
	b, err := os.ReadFile("../../packaging/man/pharaon.1")
	require.NoError(t, err)
	man := string(b)
	for name := range subcommands {
		assert.Contains(t, man, "\n.B pharaon "+name+"\n", "the synopsis of %s", name)
		assert.Contains(t, man, "\n.TP\n.B "+name+"\n", "what %s does", name)
	}
	for _, m := range regexp.MustCompile(`(?m)^\.B pharaon (\w+)$`).FindAllStringSubmatch(man, -1) {
		assert.Contains(t, subcommands, m[1], "the manual names a command the binary does not have")
	}
}
