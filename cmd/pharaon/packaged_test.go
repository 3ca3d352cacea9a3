package main

import (
	"bytes"
	"io"
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
	assert.Equal(t, "/boot/pharaon/pharaon.conf", cfg.Site, "the image's PHARAON partition (packaging/image/fstab.sh)")

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

// TestImageSiteTemplate: the site file the image puts on its PHARAON
// partition (packaging/image/site/pharaon.conf, written with CRLF line ends
// by packaging/image/build.sh), its example lines filled in as a technician
// would, is a site file the kiosk takes beside the package's configuration:
// every key a site file may set, none the package's file sets too.
func TestImageSiteTemplate(t *testing.T) {
	shipped, err := os.ReadFile("../../packaging/etc/pharaon.conf")
	require.NoError(t, err)
	template, err := os.ReadFile("../../packaging/image/site/pharaon.conf")
	require.NoError(t, err)

	dir := t.TempDir()
	site := filepath.Join(dir, "boot-pharaon")
	require.NoError(t, os.MkdirAll(filepath.Join(site, "fleet"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(site, "fleet", "voucher.key"), bytes.Repeat([]byte{7}, 32), 0o600))
	own := regexp.MustCompile(`(?m)^site = .*$`).ReplaceAll(shipped, []byte("site = "+filepath.Join(site, "pharaon.conf")))
	require.NotEqual(t, shipped, own, "the package's configuration names the site file")
	path := filepath.Join(dir, "pharaon.conf")
	require.NoError(t, os.WriteFile(path, own, 0o600))

	// As the image writes it: nothing set, a configuration all the same.
	crlf := bytes.ReplaceAll(template, []byte("\n"), []byte("\r\n"))
	require.NoError(t, os.WriteFile(filepath.Join(site, "pharaon.conf"), crlf, 0o600))
	cfg, err := loadConfig([]string{"-config", path}, mapEnv{}, io.Discard)
	require.NoError(t, err)
	assert.Empty(t, cfg.KioskID)
	assert.Empty(t, cfg.Keys)

	filled := regexp.MustCompile(`(?m)^#([a-z-]+ = )`).ReplaceAll(crlf, []byte("$1"))
	var keys []string
	for _, m := range regexp.MustCompile(`(?m)^([a-z-]+) = `).FindAllSubmatch(filled, -1) {
		keys = append(keys, string(m[1]))
	}
	assert.ElementsMatch(t, siteKeys, keys, "the template shows every key a site file sets, once")
	require.NoError(t, os.WriteFile(filepath.Join(site, "pharaon.conf"), filled, 0o600))
	cfg, err = loadConfig([]string{"-config", path}, mapEnv{}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "PH-0042", cfg.KioskID)
	assert.NotEmpty(t, cfg.Venue)
	assert.Equal(t, []string{filepath.Join(site, "keys", "issuer-2026.pub")}, cfg.Keys)
	assert.Equal(t, "/dev/pharaon-validator", cfg.Validator)
	assert.Equal(t, "/dev/pharaon-printer", cfg.Printer)
	assert.NotEmpty(t, cfg.Fleet.URL)
	assert.Equal(t, filepath.Join(site, "fleet", "kiosk.creds"), cfg.Fleet.CredsFile)
	assert.Equal(t, filepath.Join(site, "fleet", "ca.pem"), cfg.Fleet.CAFile)
}

// TestImageAgreesOnTheSitePartition: the image's files that name the
// PHARAON partition's mount point name the one the package's
// configuration reads its site file under, with the options the threat
// model counts on (packaging/image/fstab.sh, sshd.conf, ssh.service.conf,
// pharaon-site.conf).
func TestImageAgreesOnTheSitePartition(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile("../../packaging/" + name)
		require.NoError(t, err)
		return string(b)
	}
	m := regexp.MustCompile(`(?m)^site = (.*)$`).FindStringSubmatch(read("etc/pharaon.conf"))
	require.NotNil(t, m)
	mount := filepath.Dir(m[1])
	require.Equal(t, "/boot/pharaon", mount)

	fstab := read("image/fstab.sh")
	assert.Regexp(t, `(?m)^UUID=\$4 `+regexp.QuoteMeta(mount)+` vfat ro,nosuid,nodev,noexec,uid=0,gid=\$gid,fmask=0137,dmask=0027,`, fstab,
		"read-only, no device, no program, no set-id; root's and the kiosk's group's alone")
	assert.Regexp(t, `(?m)^UUID=\$5 /var/lib/pharaon ext4 .*x-systemd\.growfs`, fstab)
	// The first-install marker and the trust root, where the package's
	// configuration names them, are on the state both A/B slots share.
	conf := read("etc/pharaon.conf")
	for _, key := range []string{"trust-dir", "installed-marker"} {
		m := regexp.MustCompile(`(?m)^` + key + ` = (.*)$`).FindStringSubmatch(conf)
		require.NotNil(t, m, key)
		dir := m[1]
		if key == "installed-marker" {
			dir = filepath.Dir(dir)
		}
		assert.Regexp(t, `(?m)^/var/lib/pharaon-state/\S+ `+regexp.QuoteMeta(dir)+` none bind,`, fstab, key)
		assert.Contains(t, read("image/pharaon-site.conf"), "\nAfter="+"var-lib-pharaon", key)
	}

	sshd := read("image/sshd.conf")
	for _, line := range []string{"AuthorizedKeysFile " + mount + "/ssh/authorized_keys", "PasswordAuthentication no",
		"KbdInteractiveAuthentication no", "PermitRootLogin prohibit-password", "AllowUsers root"} {
		assert.Contains(t, sshd, "\n"+line+"\n")
	}
	unit := read("image/ssh.service.conf")
	assert.Contains(t, unit, "\nConditionPathExists="+mount+"/ssh/authorized_keys\n", "SSH off without a key on the partition")
	assert.Contains(t, unit, "\nRequiresMountsFor="+mount+" /var/lib/pharaon-state\n")
	assert.Contains(t, unit, "ssh-keygen -q -t ed25519 -N \"\" -C \"\" -f /var/lib/pharaon-state/ssh/ssh_host_ed25519_key", "each kiosk its own host key, kept by updates")
	assert.Contains(t, sshd, "\nHostKey /var/lib/pharaon-state/ssh/ssh_host_ed25519_key\n")
	assert.Contains(t, read("image/appliance.sh"), `rm -f "$root"/etc/ssh/ssh_host_*`, "no host key in the image")

	kiosk := read("image/pharaon-site.conf")
	assert.Contains(t, kiosk, "\nAfter=boot-pharaon.mount\n", "the kiosk reads its site file once the partition is mounted")
}
