#!/bin/bash
# vm-test.sh IMAGE OUTDIR: boots a copy of the kiosk's disk image (raw, or
# .xz) in QEMU with software emulation (no KVM needed), with an emulated
# TPM 2.0 (swtpm) and the two cash devices simulated on this machine
# (cashdevices: the validator and the printer of kiosk/devsim, given to the
# guest as two USB-serial adapters), and checks from the serial console:
#
# 1. main: the kiosk's service reaches READY=1 and draws its first screen, its
#    database is on the data partition, it rests on the TPM ("trust root: TPM
#    2.0"), it stays up past the watchdog's limit, systemd's watchdog restarts
#    a frozen kiosk, and `pharaon update` refuses a tampered bundle and applies
#    a good one, the kiosk back on it and its database kept (UPDATE=no skips
#    this; WATCHDOG=no the watchdog's two steps; MAIN_ONLY=yes stops after
#    this boot). A fresh image's first start shows the technician's setup: its
#    screen is saved (OUTDIR/vm-setup.ppm), then completed with keys typed
#    through QEMU's monitor (the PINs below, each twice), and the home screen
#    saved (OUTDIR/vm-home.ppm); then a block made and signed here is imported
#    with `pharaon import` from a USB stick (mounted read-only by the
#    image): refused while the kiosk runs (one process owns the
#    store), imported once the kiosk is stopped, and sold once it is back
#    (OUTDIR/vm-block.ppm). The probe prints the running systemd's rating of
#    the unit's sandbox, and every system call the sandbox refused.
#    The appliance, at that boot: the virtual disk is GROW_MB (1024) larger
#    than the image, and systemd-repart must have grown the data partition
#    to it (the backup GPT at the disk's end, its ext4 grown too); an
#    address by DHCP on QEMU's user network (restricted: no way out), names
#    through systemd-resolved, systemd-timesyncd running; the PHARAON
#    partition mounted read-only, the site file there readable by the
#    kiosk's group alone; SSH, enabled by the key this script put on that
#    partition, lets root in with the key and refuses any password (SSH=no:
#    no key put there, and SSH must be off).
# 2. money: a 10 € note put in the simulated validator, the player's
#    « Encaisser » and « Imprimer » touched (a USB tablet: QEMU's absolute
#    pointer): a voucher printed by the simulated printer (its text read back
#    here). The machine is powered off (ACPI), and the data partition copied
#    whole (dd): the copy an insider who holds the disk keeps, the voucher in
#    it printed and not paid.
# 3. pay: staff pay that voucher on the maintenance screen (the hidden corner
#    held, the staff's PIN typed on the keyboard, « Payer un bon » touched,
#    the voucher's number typed as a scanner types it). Powered off; the
#    database read off the disk says the voucher is paid.
# 4. rollback: the copy written back over the data partition, byte for byte
#    (dd), and the machine started: the kiosk must be out of service with the
#    fault `rollback` (OUTDIR/vm-rollback.ppm); the technician holds the corner
#    and types the technician's PIN: a diagnosis session's menu
#    (OUTDIR/vm-diagnosis.ppm), where « Hors service » shows why
#    (OUTDIR/vm-fault.ppm).
#
# The screens are told apart, and the menus' entries found, by the colours
# of the kiosk's theme (vmtest/vmscreen), not by pixels at fixed places: the
# PIN pad, a session's menu, the entry chosen. The PINs, the voucher's
# number and the setup are typed on the keyboard (QEMU's monitor), which the
# maintenance screen takes as it takes a scanner's.
# 5. cleared: the same machine with its TPM cleared (a new TPM state): the
#    kiosk must refuse its data, fault `anchor` (OUTDIR/vm-cleared.ppm).
#
# The TPM's state lives in this run's directory from one boot to the next,
# as a TPM's does across power cycles. Saves the console's log
# (OUTDIR/vm-serial.log) and the screens (OUTDIR/vm-*.ppm, each with a
# .png). Exit status 0
# when all passed.
#
# The copy gets a probe (vmtest/), written into its root file system with
# debugfs (no mount), and WLR_RENDERER=pixman in /etc/pharaon/environment:
# the virtual GPU has no 3D; and the watchdog's limit at 120 s
# (vmtest/watchdog.conf): emulated frames are slow. The copy's configuration
# gets what a technician sets before the first start (docs/technician.md),
# written on its PHARAON partition as a laptop writes it (mtools, CRLF): the
# site file with a kiosk id, the public key of the issuer of the test's
# block, and the two cash devices; cash-devices.conf naming QEMU's adapters
# (both FTDI FT232, told apart by their serial numbers, as the guide says);
# and an SSH public key made here. The kernel's
# line gets SYSTEMD_LOG_SECCOMP=1: systemd then has the kernel log every call
# a seccomp filter of a unit refuses. Needs: qemu-system-x86 ovmf e2fsprogs
# fdisk mtools swtpm python3 openssh-client, and Go (the helpers are built
# here).
set -euo pipefail
# The whole script is read before it runs (the braces): a run takes tens of
# minutes, and bash would otherwise read an edit made meanwhile.
{
if [ $# -ne 2 ]; then
	echo "usage: $0 IMAGE OUTDIR" >&2
	exit 2
fi
image=$(realpath "$1")
out=$(realpath -m "$2")
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$(dirname "$here")")
TIMEOUT=${TIMEOUT:-900}
OVMF=${OVMF:-/usr/share/ovmf/OVMF.fd}
# The PINs the test types, at the setup and on the maintenance screen's pad.
TECH_PIN=${TECH_PIN:-246802}
STAFF_PIN=${STAFF_PIN:-135791}
# The screen's size, for the pointer (cage's mode on QEMU's virtio-vga).
SCREEN_W=1280
SCREEN_H=800
# The menus' entries the test opens, counted from the top (the group titles
# are not entries): « Payer un bon », the staff's first; « Hors service »,
# the fault view, the third of the technician's diagnosis menu (after
# « Périphériques » and « Identité du logiciel »: kiosk/ui/maint's views'
# Order).
STAFF_VOUCHER_ENTRY=${STAFF_VOUCHER_ENTRY:-1}
FAULT_ENTRY=${FAULT_ENTRY:-3}
mkdir -p "$out"
work=$(mktemp -d /var/tmp/pharaon-vmtest.XXXXXX)
qemu= swtpm= devices=
cleanup() {
	for p in $qemu $swtpm $devices; do kill "$p" 2>/dev/null || true; done
	for p in $qemu $swtpm $devices; do wait "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT
# set -e ends the run on a failed command: say which (twice a run ended
# silently during the cash-out's wait for its voucher).
trap 'echo "vm-test: ${SECONDS} s: ended on line $LINENO, status $?: $BASH_COMMAND" >&2' ERR
SECONDS=0
say() { echo "vm-test: ${SECONDS} s: $*"; }
failures=()
failed() {
	say "FAIL $*"
	failures+=("$*")
}

vm=$work/vm.img
case $image in
*.xz) xz -dc "$image" | dd of="$vm" bs=1M conv=sparse status=none ;;
*) cp --sparse=always "$image" "$vm" ;;
esac

# part N FIELD: partition N's start or size, in bytes.
part() {
	sfdisk -d "$vm" | awk -v p="${vm}$1" -v f="$2=" '$1 == p { for (i = 1; i <= NF; i++) if ($i == f) { gsub(",", "", $(i+1)); printf "%.0f\n", $(i+1) * 512 } }'
}
# layout: the partitions' places (after a boot too: systemd-repart may have
# grown the data partition). 1 EFI, 2 root-a (the image's system: the
# probe goes there), 3 root-b, 4 state, 5 PHARAON, 6 data
# (packaging/image/build.sh).
layout() {
	esp_off=$(part 1 start)
	root_off=$(part 2 start)
	site_off=$(part 5 start)
	data_off=$(part 6 start)
	data_size=$(part 6 size)
	[ -n "$root_off" ] && [ -n "$site_off" ] && [ -n "$data_size" ] || { echo "vm-test: no partitions 2, 5 and 6 in $image" >&2; exit 1; }
	rootfs="$vm?offset=$root_off"
	datafs="$vm?offset=$data_off"
	sitefs="$vm@@$site_off"
}
layout
image_data_size=$data_size
# The disk larger than the image, as a kiosk's disk is: the first boot
# grows the data partition (packaging/image/repart-data.conf).
GROW_MB=${GROW_MB:-1024}
truncate -s +"${GROW_MB}M" "$vm"

printf 'WLR_RENDERER=pixman\n' >"$work/environment"
# The cash devices' names, adjusted as the technician's guide says: the
# adapters (QEMU's usb-serial is an FTDI FT232, 0403:6001, for both) told
# apart by their serial numbers in cash-devices.conf on the PHARAON
# partition, as a laptop writes it (below; packaging/image/site-devices
# makes the rules from it at boot).
printf '# vm-test.sh: QEMU'"'"'s two USB-serial adapters\r\nvalidator 0403:6001 PHVMVALIDATOR\r\nprinter   0403:6001 PHVMPRINTER\r\n' >"$work/cash-devices.conf"
# debugfs's write names the new file in its current directory: cd first.
debugfs -w -f - "$rootfs" >/dev/null <<DEBUGFS
cd /etc/pharaon
rm environment
write $work/environment environment
cd /etc/systemd/system
write $here/vmtest/pharaon-vmtest.service pharaon-vmtest.service
mkdir /etc/systemd/system/pharaon.service.d
cd /etc/systemd/system/pharaon.service.d
write $here/vmtest/watchdog.conf vmtest.conf
cd /usr/local/sbin
write $here/vmtest/pharaon-vmtest pharaon-vmtest
sif pharaon-vmtest mode 0100755
symlink /etc/systemd/system/multi-user.target.wants/pharaon-vmtest.service /etc/systemd/system/pharaon-vmtest.service
DEBUGFS

# The kernel's line: SYSTEMD_LOG_SECCOMP=1 reaches systemd's environment
# (the kernel gives init the words with "=" it does not know); and
# no_timer_check: an emulated CPU on a loaded host runs the kernel's check
# of the timer's interrupt so slowly that it panics ("IO-APIC + timer
# doesn't work", seen at load 19); the check is for broken hardware, which
# the emulated one is not.
mtype -i "$vm@@$esp_off" ::/loader/entries/pharaon-0001-a.conf | tr -d '\r' |
	sed 's/^options .*/& SYSTEMD_LOG_SECCOMP=1 no_timer_check/' >"$work/pharaon.entry"
grep -q 'SYSTEMD_LOG_SECCOMP=1' "$work/pharaon.entry" || { echo "vm-test: no options line in the boot entry" >&2; exit 1; }
mcopy -o -i "$vm@@$esp_off" "$work/pharaon.entry" ::/loader/entries/pharaon-0001-a.conf

# The data partition's mount waits 10 min for its device rather than
# systemd's 90 s (x-systemd.device-timeout in the copy's fstab): on a host
# loaded to 25, the emulated machine's udev took longer to show it, and the
# kiosk did not start. (systemd.default_device_timeout_sec= on the kernel's
# line did not change it: the same 90 s.)
debugfs -R "dump /etc/fstab $work/fstab" "$rootfs" >/dev/null 2>&1
awk '$2 == "/var/lib/pharaon" { $4 = $4 ",x-systemd.device-timeout=10min" } { print }' "$work/fstab" >"$work/fstab.new"
grep -q 'x-systemd.device-timeout=10min' "$work/fstab.new" || { echo "vm-test: no /var/lib/pharaon line in the copy's fstab" >&2; exit 1; }
chmod 0644 "$work/fstab.new"
debugfs -w -f - "$rootfs" >/dev/null 2>&1 <<DEBUGFS
cd /etc
rm fstab
write $work/fstab.new fstab
DEBUGFS

# The block to import (vmtest/pharaon-vmtest), signed by an issuer key made
# here and trusted by the copy's configuration; the cash devices' simulator.
(cd "$top" && ${GO:-go} build -o "$work/pharaon-issuer" ./cmd/pharaon-issuer &&
	${GO:-go} build -o "$work/cashdevices" ./packaging/image/vmtest/cashdevices &&
	${GO:-go} build -o "$work/vmscreen" ./packaging/image/vmtest/vmscreen)
"$work/pharaon-issuer" keygen -out "$work/vmtest-issuer" >/dev/null
"$work/pharaon-issuer" generate -emission 9 -block 1 -stake 1 -key "$work/vmtest-issuer.key" -out "$work/vmtest.pblk"
# The site file, as the technician writes it on the PHARAON partition from
# a laptop (docs/technician.md): the image's template, with the kiosk's
# lines after it, CRLF; the issuer's key in keys/, the SSH key in ssh/.
mtype -i "$sitefs" ::/pharaon.conf >"$work/site.conf" || { echo "vm-test: no site file on the PHARAON partition" >&2; exit 1; }
printf '\r\n# vm-test.sh\r\nkiosk-id = PH-VM01\r\nkeys = keys/vmtest-issuer.pub\r\nvalidator = /dev/pharaon-validator\r\nprinter = /dev/pharaon-printer\r\n' >>"$work/site.conf"
mcopy -o -i "$sitefs" "$work/site.conf" ::/pharaon.conf
mcopy -o -i "$sitefs" "$work/vmtest-issuer.pub" ::/keys/vmtest-issuer.pub
mcopy -o -i "$sitefs" "$work/cash-devices.conf" ::/cash-devices.conf
ssh-keygen -q -t ed25519 -N '' -C vm-test -f "$work/ssh-key"
# SSH=no: no key on PHARAON, as the image comes: the probe checks SSH is off.
[ "${SSH:-yes}" = no ] || mcopy -o -i "$sitefs" "$work/ssh-key.pub" ::/ssh/authorized_keys
debugfs -w -f - "$rootfs" >/dev/null <<DEBUGFS
mkdir /usr/local/share/pharaon-vmtest
DEBUGFS
# The block on a USB stick, as the issuer sends it: one FAT32 partition
# (MBR), the file at its top. The probe imports it from where the image
# mounts it (packaging/image/usb-media.rules: /media/sda1).
# With the switch step (SWITCH=no skips it) the stick has room for a
# system bundle too.
stick=$work/stick.img
stick_mb=64
[ "${SWITCH:-yes}" = no ] || stick_mb=704
truncate -s "${stick_mb}M" "$stick"
printf 'label: dos\nstart=2048, type=c\n' | sfdisk -q "$stick"
mkfs.vfat -F 32 -n BLOCS -C "$work/stick-fat.img" $(((stick_mb - 1) * 1024)) >/dev/null
mcopy -i "$work/stick-fat.img" "$work/vmtest.pblk" ::/vmtest.pblk
dd if="$work/stick-fat.img" of="$stick" bs=1M seek=1 conv=notrunc status=none
rm -f "$work/stick-fat.img"
# The update step's bundles (vmtest/pharaon-vmtest): the package the image
# keeps, rebuilt with a newer version, signed by a key made here; and a copy
# with one byte of the package changed. Skipped (UPDATE=no) or when the image
# keeps no package.
if [ "${UPDATE:-yes}" != no ] && debugfs -R "stat /var/lib/pharaon-update/installed.deb" "$rootfs" 2>/dev/null | grep -q Inode; then
	u=$work/update
	mkdir -p "$u"
	debugfs -R "dump /var/lib/pharaon-update/installed.deb $u/installed.deb" "$rootfs" >/dev/null 2>&1
	dpkg-deb -R "$u/installed.deb" "$u/tree"
	old=$(sed -n 's/^Version: //p' "$u/tree/DEBIAN/control")
	arch=$(sed -n 's/^Architecture: //p' "$u/tree/DEBIAN/control")
	sed -i "s/^Version: .*/Version: ${old}+vmtest1/" "$u/tree/DEBIAN/control"
	deb=$u/pharaon_${old}+vmtest1_${arch}.deb
	dpkg-deb --root-owner-group -b "$u/tree" "$deb" >/dev/null
	"$work/pharaon-issuer" keygen -out "$u/vmtest-update" >/dev/null
	"$work/pharaon-issuer" update-bundle -key "$u/vmtest-update.key" -deb "$deb" -out "$u/good.update"
	cp "$u/good.update" "$u/tampered.update"
	# One byte inside the package, 4 KiB before its end (the tar's own end
	# is 1 KiB of zeros after it).
	size=$(stat -c %s "$u/tampered.update")
	python3 -c 'import sys; f=open(sys.argv[1],"r+b"); f.seek(int(sys.argv[2])); b=f.read(1); f.seek(int(sys.argv[2])); f.write(bytes([b[0]^1]))' "$u/tampered.update" $((size - 4096))
	debugfs -w -f - "$rootfs" >/dev/null <<DEBUGFS
cd /usr/local/share/pharaon-vmtest
write $u/good.update good.update
write $u/tampered.update tampered.update
mkdir /etc/pharaon/update-keys
cd /etc/pharaon/update-keys
write $u/vmtest-update.pub vmtest-update.pub
DEBUGFS
	echo "vm-test: update bundles of $old+vmtest1 written into the copy"
fi
# The switch step (vmtest/pharaon-vmtest, the end of the main boot): a
# system bundle made from the copy's own slot a with a newer version,
# signed by an update key the copy trusts, on the stick. The probe writes
# it into slot b with `pharaon update`, as the field team does over SSH,
# and nobody restarts the machine: the kiosk, at home and idle, must. The
# probe on slot b says so; the host then removes slot b's entries, and the
# next boots start slot a again.
if [ "${SWITCH:-yes}" != no ]; then
	sw=$work/switch
	mkdir -p "$sw"
	if [ ! -f "$work/update/vmtest-update.key" ]; then
		mkdir -p "$work/update"
		"$work/pharaon-issuer" keygen -out "$work/update/vmtest-update" >/dev/null
		debugfs -w -f - "$rootfs" >/dev/null 2>&1 <<DEBUGFS
mkdir /etc/pharaon/update-keys
cd /etc/pharaon/update-keys
write $work/update/vmtest-update.pub vmtest-update.pub
DEBUGFS
	fi
	sversion=$(mtype -i "$vm@@$esp_off" ::/loader/entries/pharaon-0001-a.conf | tr -d '\r' | sed -n 's/^version //p')
	blocks=$(dumpe2fs -h "$rootfs" 2>/dev/null | awk -F: '/^Block count/ { gsub(/ /, "", $2); print $2 }')
	bsize=$(dumpe2fs -h "$rootfs" 2>/dev/null | awk -F: '/^Block size/ { gsub(/ /, "", $2); print $2 }')
	dd if="$vm" of="$sw/root.img" bs=1M iflag=skip_bytes,count_bytes skip="$root_off" count=$((blocks * bsize)) conv=sparse status=none
	mcopy -i "$vm@@$esp_off" ::/a/vmlinuz "$sw/vmlinuz"
	mcopy -i "$vm@@$esp_off" ::/a/initrd.img "$sw/initrd.img"
	"$work/pharaon-issuer" update-bundle -key "$work/update/vmtest-update.key" -root "$sw/root.img" -kernel "$sw/vmlinuz" -initrd "$sw/initrd.img" \
		-version "${sversion}+switch1" -arch amd64 -out "$sw/system.update" >/dev/null
	mcopy -i "$stick@@1048576" "$sw/system.update" ::/system.update
	rm -rf "$sw"
	echo "vm-test: a system bundle of ${sversion}+switch1 on the stick"
fi
if [ "${WATCHDOG:-yes}" = no ]; then
	: >"$work/no-watchdog"
	printf 'cd /usr/local/share/pharaon-vmtest\nwrite %s no-watchdog\n' "$work/no-watchdog" | debugfs -w -f - "$rootfs" >/dev/null 2>&1
fi
debugfs -R "stat /usr/local/sbin/pharaon-vmtest" "$rootfs" 2>/dev/null | grep -q "Mode:  0755" ||
	{ echo "vm-test: the probe was not written into the copy" >&2; exit 1; }

# set_phase NAME: which boot the probe is in (vmtest/pharaon-vmtest).
set_phase() {
	echo "$1" >"$work/phase"
	debugfs -w -f - "$rootfs" >/dev/null 2>&1 <<DEBUGFS
cd /usr/local/share/pharaon-vmtest
rm phase
write $work/phase phase
DEBUGFS
}

# The cash devices, for the whole run: their pseudo-terminals outlive each
# boot as a cabinet's units outlive the PC's power cycles. Their standard
# input is a pipe this script holds: they stop when it ends, however it ends.
mkdir -p "$work/devices"
mkfifo "$work/devices.in"
"$work/cashdevices" -dir "$work/devices" <"$work/devices.in" >"$work/devices.out" 2>"$work/devices.log" &
devices=$!
exec 4>"$work/devices.in"
for i in $(seq 50); do grep -q '^ready' "$work/devices.out" 2>/dev/null && break; sleep 0.2; done
grep -q '^ready' "$work/devices.out" || { cat "$work/devices.log" >&2; exit 1; }
validator_pty=$(awk '$1 == "validator" { print $2 }' "$work/devices.out")
printer_pty=$(awk '$1 == "printer" { print $2 }' "$work/devices.out")
echo "vm-test: cash devices on $validator_pty (validator) and $printer_pty (printer)"

# devctl JSON: one command to the validator's control (id003sim), its answer.
devctl() {
	python3 - "$work/devices/control" "$1" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall((sys.argv[2] + "\n").encode())
print(s.makefile().readline().strip())
PY
}

# monitor COMMAND...: runs each command on QEMU's human monitor.
monitor() {
	python3 - "$work/monitor" "$@" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.settimeout(10)
s.recv(4096)  # the monitor's banner
for c in sys.argv[2:]:
    s.sendall((c + "\n").encode())
    time.sleep(0.3)  # one key at a time, as a hand types
    s.recv(4096)
s.close()
PY
}
# typekeys STRING: each character as a key (digits, and "\n" for Enter).
typekeys() {
	local k=() c i
	for ((i = 0; i < ${#1}; i++)); do
		c=${1:i:1}
		case $c in
		$'\n') k+=("sendkey ret") ;;
		*) k+=("sendkey $c") ;;
		esac
	done
	monitor "${k[@]}"
}
# qmp ACTION...: the pointer and the power button, through QEMU's QMP:
# "at X Y" (the USB tablet's absolute position, in screen pixels), "down",
# "up" (the left button), "wait S", "powerdown".
qmp() {
	python3 - "$work/qmp" "$SCREEN_W" "$SCREEN_H" "$@" <<'PY'
import json, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
f = s.makefile("rw")
w, h = int(sys.argv[2]), int(sys.argv[3])
def execute(cmd, **args):
    f.write(json.dumps({"execute": cmd, "arguments": args} if args else {"execute": cmd}) + "\n")
    f.flush()
    while True:
        r = json.loads(f.readline())
        if "error" in r:
            sys.exit("qmp %s: %s" % (cmd, r["error"]))
        if "return" in r:
            return r["return"]
f.readline()  # the greeting
execute("qmp_capabilities")
def events(*ev):
    execute("input-send-event", events=list(ev))
a = sys.argv[4:]
while a:
    op, a = a[0], a[1:]
    if op == "at":
        x, y, a = int(a[0]), int(a[1]), a[2:]
        # QEMU's absolute axes run from 0 to 0x7fff across the screen.
        events({"type": "abs", "data": {"axis": "x", "value": x * 0x7fff // (w - 1)}},
               {"type": "abs", "data": {"axis": "y", "value": y * 0x7fff // (h - 1)}})
    elif op in ("down", "up"):
        events({"type": "btn", "data": {"down": op == "down", "button": "left"}})
    elif op == "wait":
        time.sleep(float(a[0]))
        a = a[1:]
    elif op == "powerdown":
        execute("system_powerdown")
    else:
        sys.exit("qmp: unknown action " + op)
PY
}
# tap X Y: a finger's touch; press X Y S: held S seconds.
tap() { qmp at "$1" "$2" wait 0.2 down wait 0.2 up || say "tap $1 $2 failed"; }
press() { qmp at "$1" "$2" wait 0.2 down wait "$3" up || say "press $1 $2 failed"; }
# away: the pointer where nothing is (the head's middle), seconds after a
# touch (a move right after the release makes the kiosk take the release
# off the button: no tap): a USB tablet is a mouse to the kiosk, and a
# button under it is drawn hovered, in other colours.
away() { qmp at 640 38 || say "pointer move failed"; }
# shot NAME: the screen, as OUTDIR/NAME.ppm.
shot() { monitor "screendump $out/$1.ppm" || say "screen dump $1 failed"; }
# kind NAME: what the screen OUTDIR/NAME.ppm shows, told by the kiosk's
# theme's colours rather than pixels at fixed places (vmtest/vmscreen): pad
# (the PIN pad), menu (a maintenance session's menu), other.
kind() { "$work/vmscreen" kind "$out/$1.ppm" 2>/dev/null || echo unreadable; }
# wait_screen KIND NAME SECONDS: dumps the screen (OUTDIR/NAME.ppm) until it
# shows KIND.
wait_screen() {
	local deadline=$((SECONDS + $3)) k
	while [ "$SECONDS" -lt "$deadline" ]; do
		shot "$2"
		k=$(kind "$2")
		[ "$k" = "$1" ] && return 0
		pause 5
	done
	say "$2: the screen shows $k, not $1"
	return 1
}
# login NAME PIN SECONDS: the hidden corner held until the PIN pad shows
# (NAME-pin.ppm; the kiosk asks for 3 s: 8 s here, as the emulated screen
# may take the press and the release late, and again if it did not see
# it), the PIN typed on the keyboard (the pad takes a keyboard's digits and
# Enter), and the menu waited for (NAME.ppm); NAME-typed.ppm is the screen
# 20 s after Enter (what the pad said of the PIN, or the menu already).
login() {
	local try
	for try in 1 2 3; do
		press 20 20 8
		wait_screen pad "$1-pin" 40 && break
		say "$1: no PIN pad after the corner held ($try)"
	done
	typekeys "$2"$'\n'
	pause 20
	shot "$1-typed"
	wait_screen menu "$1" "$3"
}
# open_entry NAME N VIEW: touches the N-th entry of the menu on the screen
# OUTDIR/NAME.ppm (vmscreen finds the entries down the menu), and waits for
# that entry to show as the one chosen (OUTDIR/VIEW.ppm); touched again
# once if it does not.
open_entry() {
	local at try i
	at=$("$work/vmscreen" entries "$out/$1.ppm" | awk -v n="$2" '$1 == n { print $2, $3 }')
	if [ -z "$at" ]; then
		say "$1: no entry $2 in the menu: $("$work/vmscreen" entries "$out/$1.ppm" | wc -l) entries"
		return 1
	fi
	for try in 1 2; do
		# shellcheck disable=SC2086 # "X Y"
		tap $at
		pause 5
		away
		for i in 1 2 3 4 5 6; do
			pause 5
			shot "$3"
			"$work/vmscreen" entries "$out/$3.ppm" | grep -q "^$2 .* chosen$" && return 0
		done
		say "$3: entry $2 of the menu not chosen after a touch at $at ($try)"
	done
	return 1
}

# wait_for SECONDS REGEX: prints the first console line matching REGEX,
# looking first at the probe's lines a pause read (pending), in their order.
# Lines before the match are dropped, as they are when read from the console.
wait_for() {
	local deadline=$((SECONDS + $1)) l n=0
	if [ -s "$work/pending" ]; then
		while IFS= read -r l; do
			n=$((n + 1))
			if [[ $l =~ $2 ]]; then
				sed -i "1,${n}d" "$work/pending"
				echo "$l"
				return 0
			fi
		done <"$work/pending"
		: >"$work/pending"
	fi
	while [ "$SECONDS" -lt "$deadline" ] && IFS= read -r -t $((deadline - SECONDS)) l <&3; do
		l=${l%$'\r'}
		if [[ $l =~ $2 ]]; then
			echo "$l"
			return 0
		fi
	done
	return 1
}
# pause SECONDS: waits, the console read meanwhile (it is in vm-serial.log).
# The probe's lines read meanwhile are kept for the next wait_for: a step
# the kiosk reached while the host was touching the one before must not be
# missed (it was, and the host waited for the probe to say it again 150 s
# later, by which time the maintenance session had timed out).
pause() {
	local deadline=$((SECONDS + ${1%.*} + 1)) l rc
	while [ "$SECONDS" -lt "$deadline" ]; do
		rc=0
		IFS= read -r -t $((deadline - SECONDS)) l <&3 || rc=$?
		if [ "$rc" = 1 ]; then # the console ended: QEMU is gone
			sleep $((deadline - SECONDS > 0 ? deadline - SECONDS : 0))
			return 0
		fi
		if [ "$rc" -gt 128 ]; then
			# Timed out mid-line: its end comes within a moment.
			[ -n "$l" ] || continue
			local rest=
			IFS= read -r -t 2 rest <&3 || true
			l=$l$rest
		fi
		l=${l%$'\r'}
		case $l in *"VMTEST "*) printf '%s\n' "$l" >>"$work/pending" ;; esac
	done
}

# The TPM: swtpm's state in $work/tpm, kept from one boot to the next; each
# boot starts the emulator anew (QEMU ends it when it quits), as a TPM is
# powered with its machine.
mkdir -p "$work/tpm"
start_tpm() {
	rm -f "$work/swtpm.sock"
	swtpm socket --tpm2 --tpmstate dir="$work/tpm" --ctrl type=unixio,path="$work/swtpm.sock" \
		--log file="$work/swtpm.log",level=1 &
	swtpm=$!
	# Ready once it takes a connection (it makes the socket's file before
	# it listens: QEMU's connect in between would be refused).
	for i in $(seq 100); do
		python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])' "$work/swtpm.sock" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "vm-test: swtpm did not start" >&2
	cat "$work/swtpm.log" >&2
	exit 1
}
stop_tpm() {
	for i in $(seq 50); do kill -0 "$swtpm" 2>/dev/null || break; sleep 0.1; done
	kill "$swtpm" 2>/dev/null || true
	wait "$swtpm" 2>/dev/null || true
	swtpm=
}

# powerdown: the power button (ACPI): systemd stops the kiosk and powers
# off. QEMU is stopped after 180 s if it has not.
powerdown() {
	say "power button"
	qmp powerdown
	local deadline=$((SECONDS + 180))
	while [ "$SECONDS" -lt "$deadline" ] && kill -0 "$qemu" 2>/dev/null; do pause 2; done
	if kill -0 "$qemu" 2>/dev/null; then
		failed "no power-off within 180 s of the power button: QEMU stopped"
		kill "$qemu"
	fi
}

# The data partition, as the insider who holds the disk takes it (the
# machine off): its bytes, whole.
data_copy() { dd if="$vm" of="$1" bs=1M iflag=skip_bytes,count_bytes skip="$data_off" count="$data_size" conv=sparse status=none; }
data_sum() { dd if="$vm" bs=1M iflag=skip_bytes,count_bytes skip="$data_off" count="$data_size" status=none | sha256sum | cut -c1-16; }
# db SQL [ARG...]: the rows of a query of the database on the data
# partition, read off the disk (the machine off), one a line.
db() {
	local d=$work/db
	rm -rf "$d"
	mkdir -p "$d"
	debugfs -R "dump /pharaon.db $d/pharaon.db" "$datafs" >/dev/null 2>&1
	debugfs -R "dump /pharaon.db-wal $d/pharaon.db-wal" "$datafs" >/dev/null 2>&1 || true
	[ -s "$d/pharaon.db-wal" ] || rm -f "$d/pharaon.db-wal"
	python3 - "$d/pharaon.db" "$@" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for r in db.execute(sys.argv[2], sys.argv[3:]):
    print(" ".join(str(x) for x in r))
PY
}
# voucher_state VALIDATION: the voucher's number, amount and state.
voucher_state() {
	local r
	r=$(db "SELECT 'voucher ' || id || ' of ' || amount || ' cents ' || state FROM vouchers WHERE validation = ?" "$1")
	echo "${r:-no such voucher}"
}
# line_errors: how often the emulated serial lines missed the drivers'
# deadlines, by device.
line_errors() {
	db "SELECT source || ' ' || count(*) FROM events WHERE code = 'line_error' OR detail LIKE '%did not answer%' GROUP BY source" | tr '\n' ' '
}

# The guest's SSH on a port of this machine's loopback (QEMU's user network).
ssh_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# ssh_check: the field team's SSH, which the site partition's key enabled:
# root comes in with the key; without it the server offers nothing else.
ssh_check() {
	local o=(-F /dev/null -p "$ssh_port" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null
		-o BatchMode=yes -o ConnectTimeout=60 -o LogLevel=ERROR) r
	r=$(ssh "${o[@]}" -i "$work/ssh-key" -o IdentitiesOnly=yes root@127.0.0.1 'echo "$(id -un) on $(cat /etc/hostname)"' 2>&1) || true
	say "ssh with the site partition's key: $r"
	[ "$r" = "root on pharaon" ] || failed "ssh with the site partition's key: ${r:-nothing}"
	r=$(ssh "${o[@]}" -o PubkeyAuthentication=no -o PreferredAuthentications=password,keyboard-interactive root@127.0.0.1 true 2>&1) &&
		failed "ssh without a key let root in"
	say "ssh without a key: $r"
	case $r in
	*"Permission denied (publickey)"*) ;;
	*) failed "ssh without a key: not refused as it should be (publickey only): $r" ;;
	esac
}
# ssh_off: no SSH server answers (no key on PHARAON).
ssh_off() {
	local r
	r=$(ssh -F /dev/null -p "$ssh_port" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes \
		-o ConnectTimeout=30 -i "$work/ssh-key" -o IdentitiesOnly=yes root@127.0.0.1 true 2>&1) &&
		failed "SSH let root in without a key on PHARAON"
	say "ssh with no key on PHARAON: ${r:-nothing}"
}
# grown: the data partition grew to the disk at the first boot, and the
# backup GPT is at the disk's end.
grown() {
	local sectors alt
	sectors=$(($(stat -c %s "$vm") / 512))
	alt=$(python3 -c 'import struct, sys; f = open(sys.argv[1], "rb"); f.seek(512); h = f.read(92); print(struct.unpack_from("<Q", h, 32)[0] if h[:8] == b"EFI PART" else -1)' "$vm")
	say "data partition: $image_data_size bytes in the image, $data_size after the first boot; backup GPT at sector $alt of $sectors"
	[ "$data_size" -ge $((image_data_size + (GROW_MB - 2) * 1024 * 1024)) ] ||
		failed "the data partition did not grow to the disk: $data_size bytes"
	[ "$alt" = $((sectors - 1)) ] || failed "the backup GPT is not at the disk's end: sector $alt of $sectors"
}

# voice_heard WAV: the sound the machine's audio output made during a boot
# (QEMU's wav audio backend) holds speech: seconds above a quiet floor.
voice_heard() {
	local r
	r=$(python3 - "$1" <<'PY'
import array, sys, wave
try:
    w = wave.open(sys.argv[1], "rb")
except (OSError, EOFError, wave.Error) as e:
    print("no sound recorded (%s)" % e)
    sys.exit(1)
rate, ch, width = w.getframerate(), w.getnchannels(), w.getsampwidth()
if width != 2:
    print("%d-byte samples" % width)
    sys.exit(1)
data = array.array("h", w.readframes(w.getnframes()))
step = rate * ch // 10  # a tenth of a second
loud = sum(1 for i in range(0, len(data), step) if max((abs(x) for x in data[i:i + step]), default=0) > 1000)
total = len(data) / (rate * ch)
print("%.1f s of sound above the floor in %.1f s recorded (%d Hz, %d channels)" % (loud / 10, total, rate, ch))
sys.exit(0 if loud >= 10 else 1)
PY
) && say "voice heard: $r" || failed "no voice heard on the audio output: $r"
}

serial=$out/vm-serial.log
: >"$serial"
validation=
# boot PHASE: one power-on of the machine, until it is off again. The probe
# says what to do: "VMTEST setup shown" (the first start's setup: dumped,
# then typed in), "VMTEST shot NAME" (a screen dump), "VMTEST money", "VMTEST
# pay", "VMTEST rollback" (the host's part of that boot), until "VMTEST main
# done", "VMTEST FAIL", or the host powers it off.
boot() {
	local phase=$1 line t0=$SECONDS
	set_phase "$phase"
	start_tpm
	rm -f "$work/console"
	mkfifo "$work/console"
	echo "=== vm-test.sh: boot $phase ===" >>"$serial"
	qemu-system-x86_64 -machine q35 -accel tcg,thread=multi -m 2048 -smp 2 -bios "$OVMF" \
		-drive file="$vm",format=raw,if=virtio -vga none -device virtio-vga -display none \
		-netdev user,id=net0,restrict=on,hostfwd=tcp:127.0.0.1:"$ssh_port"-:22 -device virtio-net-pci,netdev=net0,romfile= \
		-device i6300esb -action watchdog=reset \
		-device qemu-xhci,id=usb -device usb-tablet,bus=usb.0 \
		-drive if=none,id=stick,format=raw,file="$stick" -device usb-storage,bus=usb.0,drive=stick \
		-chardev serial,id=validator,path="$validator_pty" -device usb-serial,bus=usb.0,chardev=validator,serial=PHVMVALIDATOR \
		-chardev serial,id=printer,path="$printer_pty" -device usb-serial,bus=usb.0,chardev=printer,serial=PHVMPRINTER \
		-chardev socket,id=chrtpm,path="$work/swtpm.sock" -tpmdev emulator,id=tpm0,chardev=chrtpm -device tpm-tis,tpmdev=tpm0 \
		-audiodev wav,id=snd0,path="$out/vm-voice-$phase.wav" -device ich9-intel-hda -device hda-output,audiodev=snd0 \
		-serial stdio -monitor unix:"$work/monitor",server,nowait -qmp unix:"$work/qmp",server,nowait \
		</dev/null >"$work/console" 2>"$work/qemu.err" &
	qemu=$!
	exec 3< <(tee -a "$serial" <"$work/console")
	: >"$work/pending" # a boot starts with no line of the last one
	# Not anchored: the probe's line may follow the serial getty's prompt.
	line=$(wait_for "$TIMEOUT" 'VMTEST (ready|FAIL)' || true)
	say "boot $phase: $((SECONDS - t0)) s after QEMU started: ${line:-nothing on the console within $TIMEOUT s}"
	case $line in
	*"VMTEST ready"*)
		local deadline=$((SECONDS + ${TIMEOUT_REST:-2700}))
		while [ "$SECONDS" -lt "$deadline" ]; do
			line=$(wait_for $((deadline - SECONDS)) 'VMTEST (setup shown|first [a-z]|session stop|backup (done|failed)|ssh (ready|off)|shot|voice key|switch|money|pay|rollback|main done|cleared done|FAIL)' || true)
			[ -n "$line" ] || break
			say "$line"
			case $line in
			*"VMTEST voice key"*)
				# The keypad's 5 (a USB keypad's keys come as a keyboard's).
				monitor "sendkey kp_5" || say "sendkey kp_5 failed"
				say "the keypad's 5 pressed"
				;;
			*"VMTEST setup shown"*)
				shot vm-setup
				# The technician's PIN and the staff's, each twice, then
				# the kiosk id's line as the configuration filled it: Enter
				# on that last line saves.
				typekeys "$TECH_PIN"$'\n'"$TECH_PIN"$'\n'"$STAFF_PIN"$'\n'"$STAFF_PIN"$'\n'$'\n'
				say "setup typed"
				;;
			*"VMTEST first login"*)
				pause 5
				shot vm-first-login
				typekeys "$TECH_PIN"$'\n'
				say "technician's PIN typed"
				;;
			*"VMTEST first block devices.ok"*)
				# The block step reached: the probe imports the block,
				# the kiosk stopped, and starts it again (the sequence
				# resumes there after the PIN).
				;;
			*"VMTEST first "*) first_step "$line" ;;
			*"VMTEST ssh ready"*) ssh_check ;;
			*"VMTEST ssh off"*) ssh_off ;;
			*"VMTEST switch"*) ;;
			*"VMTEST session stop clean"*) ;;
			*"VMTEST session stop not clean:"*) failed "the session's stop was not clean:${line##*not clean:}" ;;
			*"VMTEST backup done"*) ;;
			*"VMTEST backup failed"*) failed "the guide's backup: ${line##*VMTEST backup failed}" ;;
			*"VMTEST shot "*)
				local name=${line##*VMTEST shot }
				shot "${name%% *}"
				;;
			*"VMTEST money"*) money; break ;;
			*"VMTEST pay"*) pay; break ;;
			*"VMTEST rollback"*) rollback; break ;;
			*"VMTEST FAIL"*)
				failed "boot $phase: ${line##*VMTEST FAIL }"
				break
				;;
			*"VMTEST "*"done"*) break ;;
			esac
		done
		;;
	*"VMTEST FAIL"*) failed "boot $phase: ${line##*VMTEST FAIL }" ;;
	*)
		failed "boot $phase: no probe within $TIMEOUT s"
		cat "$work/qemu.err" >&2
		;;
	esac
	# The probe powers off at its end; a boot the host drives is powered off
	# by its step.
	local deadline=$((SECONDS + 300))
	while [ "$SECONDS" -lt "$deadline" ] && kill -0 "$qemu" 2>/dev/null; do pause 2; done
	kill -0 "$qemu" 2>/dev/null && { failed "boot $phase: still on after 300 s: QEMU stopped"; kill "$qemu"; }
	wait "$qemu" || true
	qemu=
	exec 3<&-
	stop_tpm
	layout
	say "boot $phase: off, $((SECONDS - t0)) s"
}

# first_step LINE: a step of the first start's sequence, or its end
# ("VMTEST first S C"): its one button, in the primary colour
# (vmscreen action), touched once the screen shows it (OUTDIR/vm-first-S.ppm).
first_step() {
	local name at i
	name=$(echo "$1" | sed -E 's/.*VMTEST first ([a-z]+).*/\1/')
	if [ "$name" = done ]; then
		# The sequence's last step printed its test voucher: void, of no
		# value, the kiosk's first number (its text in vm-test-voucher.txt).
		local paper
		paper=$(grep -l "BON D'ESSAI" "$work"/devices/vouchers/*.txt 2>/dev/null | head -1)
		if [ -n "$paper" ] && grep -q 'NE SE PAIE PAS' "$paper"; then
			cp "$paper" "$out/vm-test-voucher.txt"
			say "first start: test voucher printed: $(grep -m1 'Bon n' "$paper" | tr -s ' '), « NE SE PAIE PAS »"
		else
			failed "first start: no test voucher printed"
		fi
	fi
	for i in 1 2 3 4 5 6 7 8; do
		pause 8
		shot "vm-first-$name"
		at=$("$work/vmscreen" action "$out/vm-first-$name.ppm" 2>/dev/null) && break
	done
	if [ -z "$at" ]; then
		say "first start: no button to touch on vm-first-$name.ppm"
		return
	fi
	# shellcheck disable=SC2086 # "X Y"
	tap $at
	say "first start: $name: touched at $at"
	pause 3
	away
}

# money: a 10 € note, then the player's cash-out: a voucher printed.
money() {
	local r i
	for i in $(seq 40); do
		r=$(devctl '{"op":"insert","cents":1000}')
		case $r in *'"ok":true'*) break ;; esac
		pause 3
	done
	say "note of 10 € inserted: $r"
	# The kiosk's credit point: VEND VALID acknowledged.
	for i in $(seq 60); do
		r=$(devctl '{"op":"status"}')
		case $r in *'"Acked":1'*) break ;; esac
		pause 2
	done
	say "validator: $r"
	case $r in *'"Stacked":1'*) ;; *) failed "the note was not stacked: $r" ;; esac
	pause 15
	shot vm-credit
	# A player tries again when the kiosk says it cannot print: the emulated
	# USB line misses the drivers' deadlines now and then (the printer's
	# status answer within 500 ms), which the kiosk takes for a printer that
	# does not answer.
	# The voucher's paper is the simulated printer's next receipt: the first
	# start's test voucher (and any test page) came before it.
	local last receipt try
	last=$(find "$work/devices/vouchers" -name '[0-9]*.txt' -printf '%f\n' 2>/dev/null | sed 's/\.txt$//' | sort -n | tail -1)
	receipt=$(printf '%s/devices/vouchers/%04d.txt' "$work" $((10#${last:-0} + 1)))
	for try in 1 2 3; do
		tap 1064 596 # « Encaisser »
		pause 10
		shot vm-cashout
		tap 785 476 # « Imprimer »
		pause 5
		shot "vm-printing-$try"
		for i in $(seq 40); do
			[ -s "$receipt" ] && break
			pause 2
		done
		[ -s "$receipt" ] && break
		say "cash-out $try: no voucher within 90 s (vm-printing-$try.ppm)"
		pause 25 # the card saying why closes by itself
	done
	if [ -s "$receipt" ] && grep -q 'SANS VALEUR' "$receipt"; then
		failed "the cash-out's paper is a test voucher ($receipt)"
	elif [ -s "$receipt" ]; then
		# The number printed under « N° de validation », in groups of four.
		validation=$(grep -A1 -F 'de validation' "$receipt" | tail -1 | tr -cd '0-9')
		say "voucher printed: $(grep -m1 'Bon n' "$receipt" | tr -s ' '), validation ${validation:0:4}…${validation:14}"
		cp "$receipt" "$out/vm-voucher.txt"
	else
		failed "no voucher printed within 120 s"
	fi
	pause 15
	shot vm-voucher
	tap 640 570 # « Terminé »
	pause 10
	powerdown
}

# pay: staff pay the voucher on the maintenance screen: « Payer un bon »,
# the staff menu's first entry (STAFF_VOUCHER_ENTRY), then the voucher's
# number typed as a scanner types it (digits and Enter: the view takes the
# keyboard).
pay() {
	if ! login vm-staff "$STAFF_PIN" 150; then
		failed "pay: the staff's PIN opened no menu (vm-staff.ppm)"
		powerdown
		return
	fi
	say "staff logged in"
	if ! open_entry vm-staff "$STAFF_VOUCHER_ENTRY" vm-pay; then
		failed "pay: « Payer un bon » did not open (vm-pay.ppm)"
		powerdown
		return
	fi
	typekeys "$validation"$'\n'
	pause 45
	shot vm-paid
	powerdown
}

# rollback: the kiosk out of service; the technician logs in (a diagnosis
# session: the data failed their checks) and opens « Hors service », the
# fault view (FAULT_ENTRY of the diagnosis menu), to read why.
rollback() {
	pause 10
	shot vm-rollback
	if login vm-diagnosis "$TECH_PIN" 150; then
		say "technician logged in"
		if open_entry vm-diagnosis "$FAULT_ENTRY" vm-fault; then
			# The view reads the fault off the Fyne goroutine: its body
			# comes when that read is back, and an emulated frame takes
			# seconds (vmscreen text: the view's text below its title).
			local i n=0
			for i in $(seq 24); do
				shot vm-fault
				n=$("$work/vmscreen" text "$out/vm-fault.ppm" 2>/dev/null || echo 0)
				[ "$n" -ge 3000 ] && break
				pause 5
			done
			if [ "$n" -ge 3000 ]; then
				say "fault view shown with its reason at screen dump $i, 5 s apart (vm-fault.ppm, $n pixels of text)"
			else
				failed "rollback: the fault view said nothing within 120 s (vm-fault.ppm)"
			fi
		else
			failed "rollback: the fault view did not open (vm-fault.ppm)"
		fi
	else
		failed "rollback: the technician's PIN opened no menu (vm-diagnosis.ppm)"
	fi
	pause 10
	powerdown
}

boot main
grown
voice_heard "$out/vm-voice-main.wav"
# The switch step left the machine on slot b: its entries go, and the next
# boots start slot a, where the probe's phase is written.
if [ "${SWITCH:-yes}" != no ]; then
	for e in $(mdir -b -i "$vm@@$esp_off" ::/loader/entries 2>/dev/null | tr -d '\r' | grep -E -- '-b[.+]'); do
		mdel -i "$vm@@$esp_off" "$e"
	done
	say "slot b's boot entries removed: $(mdir -b -i "$vm@@$esp_off" ::/loader/entries 2>/dev/null | tr -d '\r' | tr '\n' ' ')"
fi
copy=$work/data-copy.img
if [ "${MAIN_ONLY:-no}" = yes ]; then
	say "MAIN_ONLY=yes: the money, pay, rollback and cleared boots skipped"
elif [ ${#failures[@]} = 0 ]; then
	# SSH off again: no key on PHARAON (the probe checks the server is off).
	mdel -i "$sitefs" ::/ssh/authorized_keys 2>/dev/null || true
	boot money
	if [ -n "$validation" ]; then
		say "after the cash-out: $(voucher_state "$validation"); deadlines missed on the emulated lines: $(line_errors)"
		data_copy "$copy"
		say "data partition copied whole (the machine off): $data_size bytes, sha256 $(data_sum)…"
		boot pay
		state=$(voucher_state "$validation")
		say "after the payout: $state"
		case $state in *paid) ;; *) failed "the voucher is not paid: $state" ;; esac
		# The copy written back, every byte of it (no sparse write: a block
		# of zeros in the copy must overwrite what the payout wrote there).
		dd if="$copy" of="$vm" bs=1M oflag=seek_bytes seek="$data_off" conv=notrunc status=none
		sum=$(data_sum)
		[ "$sum" = "$(sha256sum <"$copy" | cut -c1-16)" ] || failed "the data partition is not its copy after dd"
		say "data partition put back to its copy (sha256 $sum…): $(voucher_state "$validation")"
		boot rollback
		# The TPM cleared (its firmware's "Clear TPM"): a new state.
		mv "$work/tpm" "$work/tpm-before-clear"
		mkdir "$work/tpm"
		boot cleared
	fi
fi
grep -o 'VMTEST.*' "$serial" | tr -d '\r' | grep -v -E '^VMTEST (log|refused) ' || true
# Each call the sandbox refused, named (the numbers are x86-64's).
grep -a -o 'VMTEST refused .*' "$serial" | tr -d '\r' | awk '{ n[$5 " " $6] += $3 } END { for (k in n) print n[k], k }' | sort -rn |
	while read -r n comm nr; do
		nr=${nr#syscall=}
		name=$(awk -v n="$nr" '$1 == "#define" && $3 == n { sub("__NR_", "", $2); print $2 }' /usr/include/x86_64-linux-gnu/asm/unistd_64.h 2>/dev/null)
		echo "vm-test: refused by the sandbox: $comm ${name:-syscall $nr} ($n times)"
	done || true
# The cash devices stop when their input ends, and say what they saw.
exec 4>&-
wait "$devices" || true
devices=
sed 's/^/vm-test: /' "$work/devices.log" | tail -5
# Each screen dump as a PNG beside it, for a person to look at.
for f in "$out"/vm-*.ppm; do
	[ -e "$f" ] && { "$work/vmscreen" png "$f" "${f%.ppm}.png" || say "no PNG of $f"; }
done
say "end"
if [ ${#failures[@]} != 0 ]; then
	printf 'vm-test: FAILED: %s\n' "${failures[@]}"
	exit 1
fi
echo "vm-test: all passed"
exit 0
}
