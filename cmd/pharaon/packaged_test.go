package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPackagedConfig starts the configuration as the Debian package's unit
// does (packaging/systemd/pharaon.service) on the configuration it installs
// (packaging/etc/pharaon.conf): a kiosk whose shipped default does not parse
// would stop at every start, and systemd would restart it for ever. The
// template's commented lines, once the technician fills them in, must parse
// too.
func TestPackagedConfig(t *testing.T) {
	unit, err := os.ReadFile("../../packaging/systemd/pharaon.service")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^ExecStart=/usr/bin/pharaon session -- /usr/bin/cage -- /usr/bin/pharaon (.*)$`).FindSubmatch(unit)
	require.NotNil(t, m, "the unit starts pharaon under cage, under the session (cmd/pharaon/session.go)")
	args := strings.Fields(string(m[1]))
	require.Equal(t, []string{"-config", "/etc/pharaon/pharaon.conf", "-first-install"}, args)

	shipped, err := os.ReadFile("../../packaging/etc/pharaon.conf")
	require.NoError(t, err)
	dir := t.TempDir()
	path := filepath.Join(dir, "pharaon.conf")
	require.NoError(t, os.WriteFile(path, shipped, 0o644))
	var stderr bytes.Buffer
	cfg, err := loadConfig([]string{"-config", path}, mapEnv{}, &stderr)
	require.NoError(t, err, stderr.String())
	assert.Equal(t, productionDB, cfg.DB)
	assert.False(t, cfg.Dev, "a production configuration never sets dev")
	assert.Equal(t, "/var/lib/pharaon-install/pharaon.installed", cfg.Installed,
		"the first-install marker lives off the data partition it vouches for, where the kiosk's user may write")
	assert.True(t, cfg.Fullscreen)

	filled := regexp.MustCompile(`(?m)^#([a-z-]+ = )`).ReplaceAll(shipped, []byte("$1"))
	require.NotEqual(t, shipped, filled)
	require.NoError(t, os.WriteFile(path, filled, 0o644))
	cfg, err = loadConfig([]string{"-config", path}, mapEnv{}, &stderr)
	require.NoError(t, err, stderr.String())
	assert.Equal(t, "/dev/pharaon-validator", cfg.Validator)
	assert.Equal(t, "/dev/pharaon-printer", cfg.Printer)
	assert.NotEmpty(t, cfg.KioskID, "a kiosk with a printer needs its name")
}

// TestRunSaysWhyTheKioskStopped: under systemd the journal is all a
// technician has; a kiosk that cannot open its database must say so there,
// not exit with status 1 and nothing else (as it did in the disk image,
// where the data partition was not yet its user's).
func TestRunSaysWhyTheKioskStopped(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	r := runBinary(t, dir, "-db", filepath.Join(file, "pharaon.db"), "-first-install")
	assert.Equal(t, exitStore, r.status, r.stderr)
	assert.Contains(t, r.stderr, "pharaon: cannot start: ")
	assert.Contains(t, r.stderr, file+"/pharaon.installed: not a directory")
	assert.Equal(t, "SCREEN out_of_service store credit=0\n", r.stdout, "and the out-of-service screen says it")
}
