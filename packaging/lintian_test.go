package packaging

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lintianTag is one line of lintian's output: "E: pharaon: tag [context]".
var lintianTag = regexp.MustCompile(`^([EWIPXO]): pharaon(?: \w+)?: (\S+)(.*)$`)

// TestLintian lints the package as Debian checks its own, on a stand-in for
// the kiosk's binary built with make deb's flags (make deb-standin: the
// kiosk itself takes minutes to build in PIE mode). It fails on an error, a
// warning, or any hardening tag, even an informational one: the binary is
// PIE, bound at load (RELRO, BIND_NOW), and its C fortified and
// stack-protected. A tag that does not apply to the kiosk is overridden in
// the package (debian/lintian-overrides), each with its reason. Its output
// is printed (make test shows it); outside CI the test is skipped when
// lintian is not installed, in CI (make deps installs it) it fails.
func TestLintian(t *testing.T) {
	lintian, err := exec.LookPath("lintian")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("lintian is not installed, and CI must lint the package: make deps installs it (apt-get install lintian)")
		}
		t.Skip("lintian is not installed (apt-get install lintian, or make deps): the package is not linted")
	}
	bin := filepath.Join(t.TempDir(), "pharaon")
	out, err := exec.Command("make", "-s", "--no-print-directory", "-C", "..", "deb-standin", "OUT="+bin).CombinedOutput()
	require.NoError(t, err, "make deb-standin: %s", out)
	deb := buildDebOf(t, bin)

	cmd := exec.Command(lintian, "--display-info", "--show-overrides", "--fail-on", "none", deb)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "lintian: %s", stderr.String())

	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if stdout.Len() == 0 {
		lines = nil
	}
	var bad []string
	tags := 0
	for _, l := range lines {
		fmt.Println("lintian:", l)
		t.Log("lintian:", l)
		if strings.HasPrefix(l, "N: ") {
			continue // an override's comment, shown with it
		}
		m := lintianTag.FindStringSubmatch(l)
		require.NotNil(t, m, "lintian line %q", l)
		tags++
		switch kind, tag := m[1], m[2]; {
		case kind == "E", kind == "W":
			bad = append(bad, l)
		case kind != "O" && strings.HasPrefix(tag, "hardening-"):
			bad = append(bad, l)
		}
	}
	fmt.Printf("lintian %s: %d tags (overridden ones included), %d errors, warnings or hardening tags\n", filepath.Base(deb), tags, len(bad))
	assert.Empty(t, bad, "lintian's errors, warnings and hardening tags on the package")
}
