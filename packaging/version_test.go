package packaging

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk/update"
)

// debVersion is the version make deb gives the package with these
// arguments (make deb-version).
func debVersion(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("make", append([]string{"-s", "--no-print-directory", "-C", "..", "deb-version"}, args...)...)
	// Not the caller's: the test says which it gives.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "UPDATE_KEY=") && !strings.HasPrefix(kv, "DEB_VERSION=") && !strings.HasPrefix(kv, "MAKEFLAGS=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "make deb-version: %s", out)
	return strings.TrimSpace(string(out))
}

// TestDebVersionSaysSigned: a package built without an update key says so
// in its version, which the software identity view shows, and sorts
// before the signed package of the same commit: a signed update made at an
// unsigned image's commit is newer than it (the kiosk takes it), and its
// package file is not the image's.
func TestDebVersionSaysSigned(t *testing.T) {
	unsigned := debVersion(t)
	signed := debVersion(t, "UPDATE_KEY=/nonexistent/update.key")
	require.NoError(t, update.ValidVersion(unsigned))
	require.NoError(t, update.ValidVersion(signed))
	assert.True(t, strings.HasSuffix(unsigned, "~unsigned"), unsigned)
	assert.NotContains(t, signed, "unsigned")
	assert.Equal(t, signed+"~unsigned", unsigned, "the same commit")
	assert.Negative(t, update.CompareVersions(unsigned, signed), "the signed package of the commit is newer")
	assert.Equal(t, "1.0", debVersion(t, "DEB_VERSION=1.0"), "a version given is kept as it is")
}
