package esspsim_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/hw/sim/esspsim"
)

// nodeHost installs the independent host (testdata/node) once into a cache directory outside the
// tree and returns that directory: its code is never committed, its version is pinned by the
// lockfile. The test skips, saying why, when Node or npm is absent or the registry cannot be
// reached.
func nodeHost(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (make deps installs nodejs and npm): the third-party eSSP host cannot run", tool)
		}
	}
	cache, err := os.UserCacheDir()
	require.NoError(t, err)
	if d := os.Getenv("PHARAON_NODE_CACHE"); d != "" {
		cache = d
	}
	dir := filepath.Join(cache, "pharaon", "esspsim-node")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	changed := false
	for _, f := range []string{"package.json", "package-lock.json", "host.js"} {
		b, err := os.ReadFile(filepath.Join("testdata", "node", f))
		require.NoError(t, err)
		if old, err := os.ReadFile(filepath.Join(dir, f)); err != nil || string(old) != string(b) {
			changed = changed || f != "host.js"
			require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "encrypted-smiley-secure-protocol")); err != nil || changed {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		// --ignore-scripts: the native serial module is not built (host.js replaces it).
		cmd := exec.CommandContext(ctx, "npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("npm could not install the third-party eSSP host (registry unreachable?): %v\n%s", err, out)
		}
	}
	return dir
}

// The simulator against an eSSP host written by others for real NV units: it negotiates the key,
// reads the unit's table, enables it and is credited one note, all encrypted.
func TestThirdPartyHostTakesANote(t *testing.T) {
	dir := nodeHost(t)
	s := esspsim.New(esspsim.Config{RequireEncryption: true})
	require.NoError(t, s.Start(""))
	defer s.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(dir, "host.js"), s.Path(), "2000")
	cmd.Dir = dir
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	lines := bufio.NewScanner(stdout)

	var ready struct {
		Ready    bool
		Serial   int64
		Channels int
		Error    string
	}
	require.True(t, lines.Scan(), "the host said nothing")
	require.NoError(t, json.Unmarshal(lines.Bytes(), &ready), lines.Text())
	require.True(t, ready.Ready, "host failed: %s", ready.Error)
	assert.Equal(t, int64(10203040), ready.Serial)
	assert.Equal(t, 7, ready.Channels)
	assert.True(t, s.Encrypted(), "the key was negotiated")
	on, inh := s.Enabled()
	assert.True(t, on)
	assert.Equal(t, [2]byte{0x7F, 0x00}, inh, "0x7F crossed the line stuffed")

	require.NoError(t, s.InsertNote(2000))
	var credit struct {
		Credit  int
		Cents   int64
		Country string
		Seen    []string
		Error   string
	}
	require.True(t, lines.Scan(), "no credit reported")
	require.NoError(t, json.Unmarshal(lines.Bytes(), &credit), lines.Text())
	require.Empty(t, credit.Error)
	assert.Equal(t, 3, credit.Credit)
	assert.Equal(t, int64(2000), credit.Cents)
	assert.Equal(t, "EUR", credit.Country)
	assert.Contains(t, credit.Seen, "READ_NOTE")
	require.NoError(t, cmd.Wait(), "the host's own check of the value")
	c := s.Counts()
	assert.Equal(t, []int64{2000}, c.Values)
	assert.Equal(t, 1, c.Credits)
	assert.Zero(t, s.Commands()[0x56], "this host polls with plain POLL")
}
