package packaging

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runScript runs one of the maintainer scripts as dpkg would, with args,
// without root: the system's commands are stand-ins that record their
// calls, /etc/pharaon/ is a temporary directory, and the machine is a
// running systemd (live) or a chroot. wasEnabled is deb-systemd-helper's
// answer to was-enabled: whether the unit's links it recorded are all still
// there. It returns the calls, one a line.
func runScript(t *testing.T, script string, live, wasEnabled bool, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	calls := filepath.Join(dir, "calls")
	etc := filepath.Join(dir, "etc", "pharaon")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	require.NoError(t, os.MkdirAll(etc, 0o755))
	answer := "1"
	if wasEnabled {
		answer = "0"
	}
	for _, c := range []string{"chgrp", "chmod", "systemd-sysusers", "systemd-tmpfiles", "systemctl", "udevadm", "deb-systemd-helper", "deb-systemd-invoke"} {
		stub := "#!/bin/sh\necho \"" + c + " $*\" >>" + calls + "\n"
		if c == "deb-systemd-helper" {
			stub += "case \"$*\" in *was-enabled*) exit " + answer + ";; esac\n"
		}
		require.NoError(t, os.WriteFile(filepath.Join(bin, c), []byte(stub), 0o755))
	}
	runDir := filepath.Join(dir, "run")
	if live {
		require.NoError(t, os.MkdirAll(filepath.Join(runDir, "systemd", "system"), 0o755))
		require.NoError(t, os.MkdirAll(filepath.Join(runDir, "udev"), 0o755))
	}
	b, err := os.ReadFile("scripts/" + script + ".sh")
	require.NoError(t, err)
	text := strings.NewReplacer(
		"/etc/pharaon/", etc+"/",
		"/run/", runDir+"/",
		// Live: / is PID 1's root; in a chroot it is not.
		"/proc/1/root", map[bool]string{true: "/", false: dir}[live],
	).Replace(string(b))
	path := filepath.Join(dir, script)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o755))
	cmd := exec.Command("sh", append([]string{path}, args...)...)
	cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin"}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s %v: %s", script, args, out)
	got, err := os.ReadFile(calls)
	if os.IsNotExist(err) {
		return ""
	}
	require.NoError(t, err)
	return string(got)
}

// TestMaintainerScriptsUnit: the scripts handle the unit as debhelper's do,
// through deb-systemd-helper (which remembers whether the technician
// disabled it) and deb-systemd-invoke (which obeys policy-rc.d), and as a
// kiosk needs: `pharaon update` upgrades a running kiosk, which must run the
// new binary at once; a kiosk the technician stopped or disabled stays so.
func TestMaintainerScriptsUnit(t *testing.T) {
	const unit = " pharaon.service\n"
	const sock = " pharaon-helper.socket\n"
	for _, c := range []struct {
		name             string
		script           string
		args             []string
		live, wasEnabled bool
		calls, notCalls  []string
	}{
		{"first install", "postinst", []string{"configure", ""}, true, true,
			[]string{"deb-systemd-helper unmask" + unit, "deb-systemd-helper enable" + unit, "systemctl --system daemon-reload\n", "deb-systemd-invoke start" + unit,
				"deb-systemd-helper enable" + sock, "deb-systemd-invoke start" + sock},
			[]string{"try-restart"}},
		{"upgrade of a running kiosk", "postinst", []string{"configure", "0.1.0+git600.abcdef0"}, true, true,
			[]string{"deb-systemd-helper enable" + unit, "deb-systemd-invoke try-restart" + unit, "deb-systemd-invoke start" + sock},
			[]string{"invoke start" + unit, "invoke restart", "pharaon-helper.service"}},
		{"upgrade of a kiosk the technician disabled", "postinst", []string{"configure", "0.1.0+git600.abcdef0"}, true, false,
			[]string{"deb-systemd-helper update-state" + unit, "deb-systemd-invoke try-restart" + unit, "deb-systemd-helper update-state" + sock},
			[]string{"helper enable", "invoke start" + unit, "invoke restart"}},
		{"install in the image's chroot", "postinst", []string{"configure", ""}, false, true,
			[]string{"deb-systemd-helper enable" + unit, "deb-systemd-helper enable" + sock},
			[]string{"deb-systemd-invoke", "systemctl", "udevadm"}},
		{"upgrade: the old package's prerm", "prerm", []string{"upgrade", "0.1.0+git700.abcdef0"}, true, true,
			nil, []string{"stop", "systemctl"}},
		{"removal", "prerm", []string{"remove"}, true, true,
			[]string{"deb-systemd-invoke stop pharaon.service pharaon-helper.socket pharaon-helper.service\n"}, nil},
		{"after a removal", "postrm", []string{"remove"}, true, true,
			[]string{"systemctl --system daemon-reload\n", "deb-systemd-helper mask pharaon.service" + sock}, []string{"purge"}},
		{"after a purge", "postrm", []string{"purge"}, true, true,
			[]string{"deb-systemd-helper purge pharaon.service" + sock}, []string{"mask"}},
		{"after an upgrade", "postrm", []string{"upgrade", "0.1.0+git700.abcdef0"}, true, true,
			nil, []string{"deb-systemd-helper"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			log := runScript(t, c.script, c.live, c.wasEnabled, c.args...)
			for _, s := range c.calls {
				assert.Contains(t, log, s)
			}
			for _, s := range c.notCalls {
				assert.NotContains(t, log, s)
			}
			// Never systemctl for what deb-systemd-helper and
			// deb-systemd-invoke do: an enable would undo the
			// technician's disable, a start would ignore policy-rc.d.
			for _, verb := range []string{"enable", "disable", "start", "restart", "try-restart", "stop"} {
				assert.NotContains(t, log, "systemctl "+verb+" ")
			}
		})
	}
}
