package packaging

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// buildDeb runs deb.sh on a stand-in for the kiosk binary (the package's
// contents do not depend on what the binary is; building the real one with
// cgo would triple the test's time) and returns the package's path and the
// stand-in's bytes.
func buildDeb(t *testing.T) (deb string, bin []byte) {
	t.Helper()
	dir := t.TempDir()
	bin = []byte("#!/bin/sh\necho stand-in for the pharaon binary\n")
	binPath := filepath.Join(dir, "pharaon")
	require.NoError(t, os.WriteFile(binPath, bin, 0o755))
	return buildDebOf(t, binPath), bin
}

// buildDebOf runs deb.sh on the binary at binPath and returns the package's
// path.
func buildDebOf(t *testing.T, binPath string) string {
	t.Helper()
	if _, err := exec.LookPath("dpkg-deb"); err != nil {
		t.Skip("dpkg-deb not installed: cannot read the package back (apt-get install dpkg)")
	}
	dir := t.TempDir()
	cmd := exec.Command("./deb.sh", binPath, "1.2.3+git4.abcdef0", filepath.Join(dir, "out"))
	cmd.Env = append(os.Environ(), "GOARCH=amd64")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "deb.sh: %s", stderr.String())
	deb := strings.TrimSpace(string(out))
	assert.Equal(t, filepath.Join(dir, "out", "pharaon_1.2.3+git4.abcdef0_amd64.deb"), deb)
	return deb
}

func dpkgDeb(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("dpkg-deb", args...).CombinedOutput()
	require.NoError(t, err, "dpkg-deb %v: %s", args, out)
	return string(out)
}

// TestDeb builds the package and reads it back as dpkg does: its control
// fields, its maintainer scripts, every file it installs, and the manifest
// of their SHA-256 sums.
func TestDeb(t *testing.T) {
	deb, bin := buildDeb(t)

	info := dpkgDeb(t, "--info", deb)
	fields := map[string]string{}
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ": ")
		if ok && !strings.Contains(k, " ") {
			fields[k] = v
		}
	}
	assert.Equal(t, "pharaon", fields["Package"])
	assert.Equal(t, "1.2.3+git4.abcdef0", fields["Version"])
	assert.Equal(t, "amd64", fields["Architecture"])
	depends := map[string]bool{}
	for _, d := range strings.Split(fields["Depends"], ",") {
		depends[strings.TrimSpace(d)] = true
	}
	for _, d := range []string{"libgl1", "libx11-6", "libxcursor1", "libxrandr2", "libxinerama1", "libxi6",
		"libxxf86vm1", "cage", "xwayland", "seatd", "tpm-udev", "fonts-dejavu-core", "locales", "systemd", "udev",
		"espeak-ng"} { // the player's voice (kiosk/speech) runs it
		assert.True(t, depends[d], "Depends lacks %s: %s", d, fields["Depends"])
	}
	for _, script := range []string{"postinst", "prerm", "postrm", "conffiles", "md5sums"} {
		assert.Regexp(t, `(?m)^\s+\d+ bytes,\s+\d+ lines\s+\*?\s*`+script+`\b`, info, "control member %s", script)
	}

	ctrl := t.TempDir()
	dpkgDeb(t, "--control", deb, ctrl)
	conffiles, err := os.ReadFile(filepath.Join(ctrl, "conffiles"))
	require.NoError(t, err)
	// Kept on upgrades once the technician has edited them.
	assert.ElementsMatch(t, []string{"/etc/pharaon/pharaon.conf", "/etc/pharaon/environment"},
		strings.Fields(string(conffiles)))
	postinst, err := os.ReadFile(filepath.Join(ctrl, "postinst"))
	require.NoError(t, err)
	assert.Contains(t, string(postinst), "systemd-sysusers pharaon.conf")
	assert.Contains(t, string(postinst), "systemd-tmpfiles --create pharaon.conf")
	assert.Contains(t, string(postinst), "for unit in pharaon.service pharaon-helper.socket; do")
	assert.NotRegexp(t, `(?m)^\s*systemctl (enable|start|restart|try-restart|stop|disable)`, string(postinst),
		"the unit through deb-systemd-helper and deb-systemd-invoke only (TestMaintainerScriptsUnit)")
	assert.Contains(t, string(postinst), `"$(stat -L -c %d:%i /proc/1/root 2>/dev/null)"`,
		"in the image's chroot, the host's udev and systemd are left alone")
	postrm, err := os.ReadFile(filepath.Join(ctrl, "postrm"))
	require.NoError(t, err)
	assert.NotContains(t, string(postrm), "rm ", "removing the package must never delete the ledger")

	root := t.TempDir()
	dpkgDeb(t, "--extract", deb, root)
	files := map[string]fs.FileMode{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		files["/"+filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))] = fi.Mode()
		return nil
	}))
	want := map[string]fs.FileMode{
		"/usr/bin/pharaon":                               0o755,
		"/usr/lib/systemd/system/pharaon.service":        0o644,
		"/usr/lib/systemd/system/pharaon-helper.socket":  0o644,
		"/usr/lib/systemd/system/pharaon-helper.service": 0o644,
		"/usr/lib/tmpfiles.d/pharaon.conf":               0o644,
		"/usr/lib/sysusers.d/pharaon.conf":               0o644,
		"/usr/lib/udev/rules.d/60-pharaon.rules":         0o644,
		"/etc/pharaon/pharaon.conf":                      0o640,
		"/etc/pharaon/environment":                       0o640,
		"/usr/share/doc/pharaon/kiosk-config.md":         0o644,
		"/usr/share/doc/pharaon/technician.md":           0o644,
		"/usr/share/doc/pharaon/copyright":               0o644,
		"/usr/share/doc/pharaon/changelog.gz":            0o644,
		"/usr/share/man/man1/pharaon.1.gz":               0o644,
		"/usr/share/lintian/overrides/pharaon":           0o644,
		"/usr/share/pharaon/MANIFEST.sha256":             0o644,
	}
	assert.Equal(t, want, files, "the package's files and their modes")

	// The configuration is unreadable by others as dpkg unpacks it, before
	// any script runs: 0640, root's, in the group pharaon (root's group on
	// a first install, where dpkg does not know that name yet).
	contents := dpkgDeb(t, "--contents", deb)
	for _, f := range []string{"pharaon.conf", "environment"} {
		assert.Regexp(t, `(?m)^-rw-r----- root/pharaon .* \./etc/pharaon/`+f+`$`, contents, "%s as unpacked", f)
	}

	// The changelog names the version built (dpkg-parsechangelog's format).
	cl, err := os.ReadFile(filepath.Join(root, "usr/share/doc/pharaon/changelog.gz"))
	require.NoError(t, err)
	zr, err := gzip.NewReader(bytes.NewReader(cl))
	require.NoError(t, err)
	text, err := io.ReadAll(zr)
	require.NoError(t, err)
	assert.Regexp(t, `^pharaon \(1\.2\.3\+git4\.abcdef0\) unstable; urgency=medium\n`, string(text))
	assert.Regexp(t, `(?m)^ -- .+ <.+>  \w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} \+0000$`, string(text))
	copyright, err := os.ReadFile(filepath.Join(root, "usr/share/doc/pharaon/copyright"))
	require.NoError(t, err)
	assert.Regexp(t, `^Format: https://www\.debian\.org/doc/packaging-manuals/copyright-format/1\.0/\n`, string(copyright))
	assert.Contains(t, string(copyright), "All rights reserved", "the source states no licence")

	got, err := os.ReadFile(filepath.Join(root, "usr/bin/pharaon"))
	require.NoError(t, err)
	assert.Equal(t, bin, got, "the binary is shipped as built")

	// The manifest lists every other file with its SHA-256, in the format
	// `sha256sum -c` reads.
	m, err := os.Open(filepath.Join(root, "usr/share/pharaon/MANIFEST.sha256"))
	require.NoError(t, err)
	defer m.Close()
	listed := map[string]bool{}
	sc := bufio.NewScanner(m)
	for sc.Scan() {
		sum, path, ok := strings.Cut(sc.Text(), "  ")
		require.True(t, ok, "manifest line %q", sc.Text())
		b, err := os.ReadFile(filepath.Join(root, path))
		if !assert.NoError(t, err, "manifest names %s", path) {
			continue
		}
		h := sha256.Sum256(b)
		assert.Equal(t, hex.EncodeToString(h[:]), sum, "SHA-256 of %s", path)
		listed[path] = true
	}
	require.NoError(t, sc.Err())
	for path := range files {
		if path != "/usr/share/pharaon/MANIFEST.sha256" {
			assert.True(t, listed[path], "the manifest lacks %s", path)
		}
	}
}

// unitKeys reads the session's unit: each key's values, in order, and the
// file's text.
func unitKeys(t *testing.T) (map[string][]string, []byte) {
	t.Helper()
	b, err := os.ReadFile("systemd/pharaon.service")
	require.NoError(t, err)
	keys := map[string][]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			keys[k] = append(keys[k], v)
		}
	}
	return keys, b
}

// TestUnit checks the session's unit for what the kiosk relies on: systemd
// waits for READY=1, restarts the session when the watchdog pings stop, and
// accepts them from pharaon, which is cage's child and not the main process
// (the session is); a stop goes to the session alone, which passes it to the
// kiosk first (cmd/pharaon/session.go).
func TestUnit(t *testing.T) {
	keys, _ := unitKeys(t)
	for k, v := range map[string]string{
		"Type":          "notify",
		"NotifyAccess":  "all",
		"WatchdogSec":   "30",
		"Restart":       "always",
		"User":          "pharaon",
		"UMask":         "0077",
		"TTYPath":       "/dev/tty1",
		"StandardInput": "tty-fail",
		"ExecStart":     "/usr/bin/pharaon session -- /usr/bin/cage -- /usr/bin/pharaon -config /etc/pharaon/pharaon.conf -first-install",
		"KillMode":      "mixed",
		"WantedBy":      "multi-user.target",
		// Never a new ledger on the root file system when the data
		// partition is missing.
		"RequiresMountsFor": "/var/lib/pharaon",
		// ... and the ledger's directory the kiosk's, even when the data
		// partition was mounted after tmpfiles ran.
		"StateDirectory": "pharaon",
		// The sandbox (TestUnitSandbox).
		"ProtectSystem":           "strict",
		"CapabilityBoundingSet":   "",
		"DevicePolicy":            "closed",
		"PrivateTmp":              "yes",
		"SystemCallArchitectures": "native",
		"RestrictAddressFamilies": "AF_UNIX AF_NETLINK AF_INET AF_INET6",
		// No core file on the data partition (the working directory):
		// the kiosk's memory holds the trust root's unsealed secret.
		"LimitCORE": "0",
	} {
		assert.Equal(t, []string{v}, keys[k], "%s=", k)
	}
	assert.NotContains(t, keys, "PAMName", "cage hangs on a black screen with a PAM login session")

	rules, err := os.ReadFile("udev/60-pharaon.rules")
	require.NoError(t, err)
	for _, name := range []string{"pharaon-validator", "pharaon-printer"} {
		assert.Contains(t, string(rules), `SYMLINK+="`+name+`"`)
	}
	tmp, err := os.ReadFile("systemd/pharaon.tmpfiles")
	require.NoError(t, err)
	assert.Regexp(t, `(?m)^d /var/lib/pharaon 0700 pharaon pharaon -$`, string(tmp))
	assert.Regexp(t, `(?m)^d /var/lib/pharaon-install 0700 pharaon pharaon -$`, string(tmp), "the first-install marker's directory, off the data partition")
	assert.Contains(t, keys["ReadWritePaths"][0], "/var/lib/pharaon-install")
	assert.Regexp(t, `(?m)^d /var/lib/pharaon-trust 0700 pharaon pharaon -$`, string(tmp), "the trust root's directory, off the data partition")
	assert.Contains(t, keys["ReadWritePaths"][0], "/var/lib/pharaon-trust")
}

// TestUnitSandbox: the session's sandbox lets through what the kiosk uses
// (its devices, its directories, software GL's run-time code, the fleet's
// network) and little else.
func TestUnitSandbox(t *testing.T) {
	keys, b := unitKeys(t)
	// @setuid back after @privileged: Xwayland's child that runs xkbcomp
	// sets its own user again and gives up when it cannot (the VM test's
	// boot: no keymap, no keyboard, Xwayland stopped, no display).
	assert.Equal(t, []string{"@system-service", "~@privileged", "@setuid"}, keys["SystemCallFilter"])
	assert.Equal(t, []string{"EPERM"}, keys["SystemCallErrorNumber"], "a call refused fails, it does not kill the kiosk")
	// The screen (DRM), touch and keys, tty1, the cash devices by their
	// kernel group (udev's links name ttyUSB or ttyACM nodes), the TPM's
	// resource manager, and the audio output (the player's voice).
	assert.ElementsMatch(t, []string{"char-drm rw", "char-input rw", "/dev/tty1 rw", "char-ttyUSB rw", "char-ttyACM rw", "/dev/tpmrm0 rw", "char-alsa rw"},
		keys["DeviceAllow"])
	assert.Contains(t, keys["SupplementaryGroups"][0], "tss", "/dev/tpmrm0 is the group tss's (tpm-udev)")
	assert.Contains(t, strings.Fields(keys["SupplementaryGroups"][0]), "audio", "/dev/snd is the group audio's: espeak-ng, the kiosk's child, speaks there")
	for _, k := range []string{"MemoryDenyWriteExecute", "PrivateNetwork", "PrivateUsers", "PrivateDevices"} {
		assert.NotContains(t, keys, k, "software GL, the fleet and the devices need it off")
		assert.Contains(t, string(b), "# - "+k+"=", "why %s is left out", k)
	}
}

// TestUnitSecurityRating rates the unit as systemd does (systemd-analyze
// security, offline) and fails above 4.0; the figure is in the test's log
// (and make test prints it).
func TestUnitSecurityRating(t *testing.T) {
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed (apt-get install systemd, or make deps): the unit's sandbox is not rated")
	}
	out, err := exec.Command(sa, "security", "--offline=yes", "--no-pager", "systemd/pharaon.service").CombinedOutput()
	require.NoError(t, err, "%s", out)
	m := regexp.MustCompile(`Overall exposure level for pharaon\.service: ([0-9]+\.[0-9]+) (\S+)`).FindSubmatch(out)
	require.NotNil(t, m, "no rating in:\n%s", out)
	rating, err := strconv.ParseFloat(string(m[1]), 64)
	require.NoError(t, err)
	t.Logf("systemd-analyze security pharaon.service: %.1f %s", rating, m[2])
	fmt.Printf("systemd-analyze security pharaon.service: %.1f %s\n", rating, m[2])
	assert.LessOrEqual(t, rating, 4.0, "the unit's exposure:\n%s", out)
}

// TestPostinstPermissions runs the post-install script as dpkg runs it
// after unpacking ("configure"), without root: its /etc/pharaon/ is a
// temporary directory holding the configuration with a looser mode than the
// package's 0640 (a file kept from an older package), and the system's commands are stand-ins that
// record how they were called. The configuration and the environment file
// end 0640 and in the group pharaon (root stays their owner: dpkg unpacks
// as root and the script never chowns them); the data directories are the
// kiosk's user's alone (tmpfiles, whose lines the script applies); the
// unit's umask keeps what the kiosk creates (the database, the anchor and
// its secret, store/filemode_test.go) to itself.
func TestPostinstPermissions(t *testing.T) {
	dir := t.TempDir()
	etc := filepath.Join(dir, "etc", "pharaon")
	bin := filepath.Join(dir, "bin")
	calls := filepath.Join(dir, "calls")
	require.NoError(t, os.MkdirAll(etc, 0o755))
	require.NoError(t, os.MkdirAll(bin, 0o755))
	for _, f := range []string{"pharaon.conf", "environment"} {
		require.NoError(t, os.WriteFile(filepath.Join(etc, f), []byte("# installed\n"), 0o644))
	}
	for _, c := range []string{"chgrp", "systemd-sysusers", "systemd-tmpfiles", "systemctl", "udevadm", "deb-systemd-helper", "deb-systemd-invoke"} {
		stub := "#!/bin/sh\necho \"" + c + " $*\" >>" + calls + "\n"
		require.NoError(t, os.WriteFile(filepath.Join(bin, c), []byte(stub), 0o755))
	}
	script, err := os.ReadFile("scripts/postinst.sh")
	require.NoError(t, err)
	require.Contains(t, string(script), "/etc/pharaon/pharaon.conf /etc/pharaon/environment")
	moved := strings.ReplaceAll(string(script), "/etc/pharaon/", etc+"/")
	path := filepath.Join(dir, "postinst")
	require.NoError(t, os.WriteFile(path, []byte(moved), 0o755))

	cmd := exec.Command("sh", path, "configure")
	cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin"}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "postinst: %s", out)

	b, err := os.ReadFile(calls)
	require.NoError(t, err)
	log := string(b)
	for _, f := range []string{"pharaon.conf", "environment"} {
		p := filepath.Join(etc, f)
		fi, err := os.Stat(p)
		require.NoError(t, err)
		assert.Equal(t, fs.FileMode(0o640), fi.Mode().Perm(), "%s: root writes it, the kiosk reads it, nobody else", f)
		assert.Contains(t, log, "chgrp pharaon "+p+"\n", "%s in the kiosk's group", f)
	}
	assert.NotContains(t, log, "chown", "root stays the configuration's owner")
	assert.Contains(t, log, "systemd-sysusers pharaon.conf\n", "the group exists before the chgrp")
	assert.Contains(t, log, "systemd-tmpfiles --create pharaon.conf\n", "the data directories made with their modes")
	assert.Less(t, strings.Index(log, "systemd-sysusers"), strings.Index(log, "chgrp"), "the group before the chgrp")

	// The modes tmpfiles gives the directories, and the unit's umask.
	tmp, err := os.ReadFile("systemd/pharaon.tmpfiles")
	require.NoError(t, err)
	for _, d := range []string{"/var/lib/pharaon", "/var/lib/pharaon-install"} {
		assert.Regexp(t, `(?m)^d `+d+` 0700 pharaon pharaon -$`, string(tmp), "%s: the kiosk's alone", d)
	}
	assert.Regexp(t, `(?m)^d /var/lib/pharaon-update 0700 root root -$`, string(tmp), "the kept package: root's alone")
	unit, err := os.ReadFile("systemd/pharaon.service")
	require.NoError(t, err)
	assert.Regexp(t, `(?m)^UMask=0077$`, string(unit), "the database, anchor and its secret the kiosk creates: 0600")
	assert.Regexp(t, `(?m)^StateDirectoryMode=0700$`, string(unit))

	// The package unpacks the configuration 0640 already (TestDeb); the
	// script puts it in the group pharaon: deb.sh must list both files.
	sh, err := os.ReadFile("deb.sh")
	require.NoError(t, err)
	for _, f := range []string{"pharaon.conf", "environment"} {
		assert.Regexp(t, `"0640 config \$here/etc/`+f+` /etc/pharaon/`+f+`"`, string(sh))
	}
}

// TestConfigurationUnpacked unpacks the package as dpkg does on a first
// install, into an empty root, and stops before its postinst (dpkg
// --unpack): the configuration is already unreadable by others, in root's
// group while the group pharaon does not exist yet. Root only: dpkg sets
// the files' owners.
func TestConfigurationUnpacked(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("dpkg sets the unpacked files' owners as root only")
	}
	deb, _ := buildDeb(t)
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "var/lib/dpkg/info"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "var/lib/dpkg/updates"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "var/lib/dpkg/status"), nil, 0o644))
	out, err := exec.Command("dpkg", "--root="+root, "--force-depends", "--unpack", deb).CombinedOutput()
	require.NoError(t, err, "dpkg --unpack: %s", out)
	for _, f := range []string{"pharaon.conf", "environment"} {
		// A conffile waits under .dpkg-new until the package is configured.
		fi, err := os.Stat(filepath.Join(root, "etc/pharaon", f+".dpkg-new"))
		require.NoError(t, err)
		assert.Equal(t, fs.FileMode(0o640), fi.Mode().Perm(), "%s between unpack and postinst", f)
		st := fi.Sys().(*syscall.Stat_t)
		assert.Equal(t, uint32(0), st.Uid, "%s: root's", f)
		if _, err := user.LookupGroup("pharaon"); err != nil {
			assert.Equal(t, uint32(0), st.Gid, "%s: root's group, no other, while pharaon does not exist", f)
		}
	}
}

// The maintenance helper unmounts the sticks the kiosk sees: in a mount
// namespace of its own it would unmount them for itself alone, and the
// technician would pull out a stick still mounted. No option of its unit
// may make one (systemd.exec(5): each of these sets up a mount namespace).
func TestHelperUnitSharesTheHostsMounts(t *testing.T) {
	b, err := os.ReadFile("systemd/pharaon-helper.service")
	require.NoError(t, err)
	for _, opt := range []string{"PrivateTmp", "PrivateMounts", "PrivateDevices", "ProtectSystem", "ProtectHome",
		"ProtectKernelTunables", "ProtectKernelModules", "ProtectKernelLogs", "ProtectControlGroups", "ProtectHostname",
		"ProtectClock", "ProtectProc", "ProcSubset", "ReadOnlyPaths", "ReadWritePaths", "InaccessiblePaths", "TemporaryFileSystem",
		"BindPaths", "BindReadOnlyPaths", "RootDirectory", "RootImage", "MountFlags"} {
		assert.NotRegexp(t, `(?m)^\s*`+opt+`=`, string(b), "the helper's unit sets %s=", opt)
	}
	assert.Regexp(t, `(?m)^ExecStart=/usr/bin/pharaon helper$`, string(b))
}
