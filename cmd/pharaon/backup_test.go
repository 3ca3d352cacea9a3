package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pharaon/kiosk"
	"pharaon/kiosk/update"
)

// The technician's backup of a stopped kiosk: DIR made 0700, the ledger,
// its anchor and the manifest 0600, the manifest's sums those of the
// files; restored into a fresh directory beside the same trust root, the
// kiosk starts on it in service with its blocks. The trust root is not in
// the backup.
func TestBackupRestoresAKiosk(t *testing.T) {
	k := newLockKiosk(t)
	out := filepath.Join(t.TempDir(), "save")
	stdout, stderr, err := k.command("backup", out)
	require.NoError(t, err, stderr)
	assert.Contains(t, stdout, "sauvegarde vérifiée écrite dans "+out+"\u00a0:")

	fi, err := os.Stat(out)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm())
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		fi, err := os.Stat(filepath.Join(out, e.Name()))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), e.Name())
	}
	assert.ElementsMatch(t, []string{backupDB, backupAnchor, backupManifest}, names, "the three files and nothing else: no trust root, no temporary")
	manifest, err := os.ReadFile(filepath.Join(out, backupManifest))
	require.NoError(t, err)
	for _, name := range []string{backupDB, backupAnchor} {
		sum, err := update.FileSum(filepath.Join(out, name))
		require.NoError(t, err)
		assert.Contains(t, string(manifest), sum+"  "+name+"\n")
	}
	assert.Contains(t, string(manifest), "version: "+kiosk.Version+"\n")
	assert.Regexp(t, `(?m)^anchor count: [1-9][0-9]*$`, string(manifest))
	assert.Regexp(t, `(?m)^time: 20[0-9-]{8}T[0-9:]{8}\+0[12]:00$`, string(manifest), "the kiosk's zone")

	// Restored on a new data partition, the same trust root beside the
	// configuration.
	fresh := filepath.Join(t.TempDir(), "data")
	require.NoError(t, os.MkdirAll(fresh, 0o700))
	for _, name := range []string{backupDB, backupAnchor} {
		copyTo(t, filepath.Join(out, name), filepath.Join(fresh, name))
	}
	restored := filepath.Join(filepath.Dir(k.conf), "restored.conf")
	conf, err := os.ReadFile(k.conf)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(restored, []byte(strings.Replace(string(conf), k.db, filepath.Join(fresh, backupDB), 1)), 0o600))
	r := runBinary(t, k.dir, "-config", restored)
	assert.Equal(t, exitOK, r.status, r.stderr)
	assert.Equal(t, "SCREEN home  credit=0\n", r.stdout, "no fault: %s", r.stderr)
	out2, _, err := (lockKiosk{dir: k.dir, conf: restored}).command("blocks", "-lang", "en")
	require.NoError(t, err)
	assert.Contains(t, out2, "7/11")
}

// copyTo copies the file src to dst, 0600.
func copyTo(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(dst, b, 0o600))
}

// A backup is refused, saying why on stderr, and writes nothing: over an
// existing backup (left byte for byte), into a DIR that cannot be made,
// and without a database.
func TestBackupRefusals(t *testing.T) {
	k := newLockKiosk(t)
	out := filepath.Join(t.TempDir(), "save")
	_, stderr, err := k.command("backup", out)
	require.NoError(t, err, stderr)
	before := map[string][]byte{}
	for _, name := range []string{backupDB, backupAnchor, backupManifest} {
		b, err := os.ReadFile(filepath.Join(out, name))
		require.NoError(t, err)
		before[name] = b
	}
	notADir := filepath.Join(t.TempDir(), "a-file")
	require.NoError(t, os.WriteFile(notADir, []byte("x"), 0o600))
	missing := newLockKiosk(t)
	require.NoError(t, os.Remove(missing.db))

	for _, c := range []struct {
		name   string
		k      lockKiosk
		args   []string
		status int
		says   string
	}{
		{"an existing backup", k, []string{out}, exitUsage,
			fmt.Sprintf("pharaon backup: %s contient déjà une sauvegarde (pharaon.db), qui n’est jamais remplacée\u00a0: donnez un autre répertoire\u00a0; rien n’a été écrit\n", out)},
		{"an existing backup, in English", k, []string{"-lang", "en", out}, exitUsage,
			fmt.Sprintf("pharaon backup: %s already holds a backup (pharaon.db), which is never replaced: give another directory; nothing was written\n", out)},
		{"a DIR that cannot be made", k, []string{filepath.Join(notADir, "save")}, exitFailure,
			fmt.Sprintf("pharaon backup: la sauvegarde n’a pas pu être écrite dans %s (rien n’y est resté)", filepath.Join(notADir, "save"))},
		{"no DIR", k, nil, exitUsage, "pharaon backup: donnez un répertoire, et un seul, où écrire la sauvegarde\n"},
		{"no database", missing, []string{filepath.Join(t.TempDir(), "save")}, exitNoDatabase, "pharaon backup: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, err := c.k.command("backup", c.args...)
			assert.Equal(t, c.status, exitCode(err), "%v: %s", err, stderr)
			assert.Contains(t, stderr, c.says)
			assert.Empty(t, stdout)
		})
	}
	for name, b := range before {
		now, err := os.ReadFile(filepath.Join(out, name))
		require.NoError(t, err)
		assert.Equal(t, b, now, "%s left as it was", name)
	}
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	assert.Len(t, entries, 3, "no temporary left")
	assert.NoFileExists(t, missing.db, "no database created")
}

// A backup onto a disk too small for it (a 64 KiB tmpfs, where the test
// may mount one) fails saying so, and leaves nothing on that disk.
func TestBackupOnAFullDisk(t *testing.T) {
	k := newLockKiosk(t)
	full := filepath.Join(t.TempDir(), "stick")
	require.NoError(t, os.Mkdir(full, 0o700))
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", full).CombinedOutput(); err != nil {
		t.Skipf("no tmpfs to fill here: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", full).Run() })
	_, stderr, err := k.command("backup", full)
	assert.Equal(t, exitFailure, exitCode(err), "%v: %s", err, stderr)
	assert.Contains(t, stderr, "pharaon backup: la sauvegarde n’a pas pu être écrite dans "+full+" (rien n’y est resté)")
	assert.Contains(t, stderr, "full")
	entries, err := os.ReadDir(full)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing half-written")
}
