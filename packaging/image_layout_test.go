package packaging

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// systemd-repart grows the first partition of the type its file names:
// in the image's partition table exactly one partition has that type, and
// it is the data partition, the disk's last (image/build.sh). A second
// partition of that type before it took the growth in the VM test, and
// the data partition stayed at its image size.
func TestOnlyTheDataPartitionGrows(t *testing.T) {
	conf, err := os.ReadFile("image/repart-data.conf")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^Type=(\S+)$`).FindSubmatch(conf)
	require.NotNil(t, m)
	grown := strings.ToUpper(string(m[1]))

	build, err := os.ReadFile("image/build.sh")
	require.NoError(t, err)
	table := regexp.MustCompile(`(?s)sfdisk -q "\$img" <<SFDISK\n(.*?)\nSFDISK`).FindSubmatch(build)
	require.NotNil(t, table, "the image's partition table in build.sh")
	var parts []string
	for _, line := range strings.Split(string(table[1]), "\n") {
		if strings.Contains(line, "type=") {
			parts = append(parts, line)
		}
	}
	require.Len(t, parts, 6)
	var ofType []int
	for i, p := range parts {
		if strings.Contains(strings.ToUpper(p), "TYPE="+grown) {
			ofType = append(ofType, i)
		}
	}
	assert.Equal(t, []int{len(parts) - 1}, ofType, "one partition of the grown type, the last")
	assert.Contains(t, parts[len(parts)-1], "name=pharaon-data")
}

// The slots' root is mounted read-only and what a running system writes
// goes elsewhere (image/initramfs/pharaon-root; make vm-test checks it on
// a booted image): the kernel's line says "ro", /tmp and /media are in
// memory, the journal is bound from the state partition, and the image's
// initramfs gets the script, the overlay module, and is made again.
func TestTheSlotsRootIsReadOnly(t *testing.T) {
	read := func(p string) string {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		return string(b)
	}
	build := read("image/build.sh")
	// "ro" whatever KERNEL_OPTIONS says, and "rw" refused.
	assert.Regexp(t, `(?m)^KERNEL_OPTIONS="ro \$\{KERNEL_OPTIONS:-`, build)
	assert.NotRegexp(t, `(?m)^KERNEL_OPTIONS=.*\brw\b`, build)
	assert.Regexp(t, `(?m)^\*" rw "\*\)\n.*rw is refused" >&2\n\s+exit 2`, build)
	fstab := read("image/fstab.sh")
	for _, line := range []string{
		"tmpfs /tmp tmpfs mode=1777,nosuid,nodev,",
		"tmpfs /media tmpfs mode=0755,nosuid,nodev,noexec,",
		"/var/lib/pharaon-state/journal /var/log/journal none bind,nofail,x-systemd.requires-mounts-for=/var/lib/pharaon-state ",
	} {
		assert.Contains(t, fstab, "\n"+line, "fstab.sh")
	}
	assert.NotRegexp(t, `(?m)^\S+ / `, fstab, "no line for /: the kernel's ro stands")
	script := read("image/initramfs/pharaon-root")
	assert.Contains(t, script, `mount -t overlay -o "lowerdir=${rootmnt}/var,`)
	assert.Contains(t, script, `mount -o bind "$boot/machine-id" "${rootmnt}/etc/machine-id"`)
	assert.Contains(t, script, "@STATE_UUID@")
	assert.Contains(t, read("image/initramfs/pharaon-hook"), "manual_add_modules overlay")
	for _, p := range []string{"image/initramfs/pharaon-root", "image/initramfs/pharaon-hook"} {
		out, err := exec.Command("sh", "-n", p).CombinedOutput()
		assert.NoError(t, err, "%s: %s", p, out)
	}
	app := read("image/appliance.sh")
	for _, s := range []string{"/etc/initramfs-tools/hooks/pharaon-root", "/etc/initramfs-tools/scripts/init-bottom/pharaon-root",
		"systemctl enable pharaon-machine-id.service", "update-initramfs -u -k all", `: >"$root/etc/machine-id"`} {
		assert.Contains(t, app, s, "appliance.sh")
	}
	assert.Contains(t, read("image/journald.conf"), "Storage=persistent")
}

// The technician names the fitted adapters in PHARAON's cash-devices.conf
// (the slot's root is read-only): image/site-devices makes udev rules of
// its own from it, the laptop's CRLF and comments taken, and refuses a
// file with any other word: what reaches the rules is checked numbers and
// serials only (a rule could run a program as root).
func TestSiteDevicesMakesOnlyNames(t *testing.T) {
	dir := t.TempDir()
	conf, rules := dir+"/cash-devices.conf", dir+"/60-pharaon.rules"
	run := func(text string) (string, error) {
		require.NoError(t, os.WriteFile(conf, []byte(text), 0o644))
		out, err := exec.Command("bash", "image/site-devices", conf, rules).CombinedOutput()
		return string(out), err
	}
	out, err := run("# fitted 2026-12\r\nvalidator 0403:6001 A10K5XYZ\r\nprinter   1A86:7523 # the CH340\r\n\r\n")
	require.NoError(t, err, out)
	b, err := os.ReadFile(rules)
	require.NoError(t, err)
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "SUBSYSTEM") {
			lines = append(lines, l)
		}
	}
	assert.Equal(t, []string{
		`SUBSYSTEM=="tty", ATTRS{idVendor}=="0403", ATTRS{idProduct}=="6001", ATTRS{serial}=="A10K5XYZ", SYMLINK+="pharaon-validator", GROUP="dialout", MODE="0660", ENV{ID_MM_DEVICE_IGNORE}="1"`,
		`SUBSYSTEM=="tty", ATTRS{idVendor}=="1a86", ATTRS{idProduct}=="7523", SYMLINK+="pharaon-printer", GROUP="dialout", MODE="0660", ENV{ID_MM_DEVICE_IGNORE}="1"`,
	}, lines)
	assert.NotContains(t, string(b), "\r")

	for _, bad := range []string{
		"validator 0403:6001 x\", RUN+=\"/bin/sh -c id\"\n",
		"validator 0403:6001\nscanner 0403:6002\n",
		"printer 403:6001\n",
		"printer 0403:6001 SN1 extra\n",
		"# nothing but a comment\n",
	} {
		_ = os.Remove(rules)
		out, err := run(bad)
		assert.Error(t, err, "%q: %s", bad, out)
		assert.Contains(t, out, "the packaged rules stand", bad)
		_, serr := os.Stat(rules)
		assert.ErrorIs(t, serr, os.ErrNotExist, "%q wrote rules", bad)
	}
}

// The drivers a kiosk never uses are refused whatever asks for them (an
// alias, or another module's dependency), and the image installs the
// list; the kiosk's own hardware is never in it: its watchdogs, the cash
// devices' USB-serial adapters, USB sticks, sound, the network's wire.
func TestModprobeLeavesOutOnlyUnusedDrivers(t *testing.T) {
	b, err := os.ReadFile("image/modprobe.conf")
	require.NoError(t, err)
	black, refused := map[string]bool{}, map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) == 0 || strings.HasPrefix(f[0], "#"):
		case f[0] == "blacklist" && len(f) == 2:
			black[f[1]] = true
		case f[0] == "install" && len(f) == 3 && f[2] == "/bin/false":
			refused[f[1]] = true
		default:
			t.Errorf("image/modprobe.conf: a line that is neither blacklist M nor install M /bin/false: %q", l)
		}
	}
	require.NotEmpty(t, black)
	assert.Equal(t, black, refused, "each driver left out is also refused as a dependency")
	for _, m := range []string{"iTCO_wdt", "i6300esb", "usbserial", "ftdi_sio", "ch341", "pl2303", "cp210x", "cdc_acm",
		"usb_storage", "uas", "vfat", "snd_hda_intel", "e1000e", "r8169", "igb", "tpm_tis", "tpm_crb", "i915", "virtio_gpu"} {
		assert.False(t, black[m], "%s is the kiosk's own hardware", m)
	}
	app, err := os.ReadFile("image/appliance.sh")
	require.NoError(t, err)
	assert.Contains(t, string(app), `"$here/modprobe.conf" "$root/etc/modprobe.d/pharaon.conf"`)
}
