package packaging

import (
	"archive/zip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGoToolchainRefusesAnotherZip serves gotoolchain.sh, from a stand-in
// proxy, a zip under the name of the Go toolchain it fetches but whose
// files are not the release's (a proxy or a network that lies): the script
// refuses it with both hashes and leaves no toolchain where make looks.
// (That it accepts the real one is what `make deps` does on a machine whose
// go is too old; docs/DESIGN.md §10 says how it was tried.)
func TestGoToolchainRefusesAnotherZip(t *testing.T) {
	for _, tool := range []string{"curl", "unzip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (make deps installs it when it fetches Go)", tool)
		}
	}
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skip("gotoolchain.sh records amd64 and arm64 only")
	}
	script, err := os.ReadFile("gotoolchain.sh")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^TOOLCHAIN=(\S+)$`).FindSubmatch(script)
	require.NotNil(t, m)
	mod := "v0.0.1-go" + string(m[1]) + ".linux-" + runtime.GOARCH

	proxy := t.TempDir()
	at := filepath.Join(proxy, "golang.org", "toolchain", "@v")
	require.NoError(t, os.MkdirAll(at, 0o755))
	f, err := os.Create(filepath.Join(at, mod+".zip"))
	require.NoError(t, err)
	zw := zip.NewWriter(f)
	w, err := zw.Create("golang.org/toolchain@" + mod + "/bin/go")
	require.NoError(t, err)
	_, err = w.Write([]byte("#!/bin/sh\necho not go\n"))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())

	dir := filepath.Join(t.TempDir(), "cache", "go-toolchain")
	cmd := exec.Command("./gotoolchain.sh", dir)
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN_PROXY=file://"+proxy)
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "%s", out)
	assert.Regexp(t, `has hash h1:\S+, the checksum database's is h1:\S+: not used`, string(out))
	assert.NoDirExists(t, dir, "no toolchain where make looks for it")
	left, err := filepath.Glob(filepath.Join(filepath.Dir(dir), "*"))
	require.NoError(t, err)
	assert.Empty(t, left, "nothing left of the download")
}
