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
	assert.Regexp(t, `(?m)^KERNEL_OPTIONS=\$\{KERNEL_OPTIONS:-"ro `, build)
	assert.NotRegexp(t, `(?m)^KERNEL_OPTIONS=.*\brw\b`, build)
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
