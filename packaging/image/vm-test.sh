#!/bin/bash
# vm-test.sh IMAGE OUTDIR: boots a copy of the kiosk's disk image (raw, or
# .xz) in QEMU with software emulation (no KVM needed) and checks, from the
# serial console, that the kiosk's service reaches READY=1 and draws its home
# screen, that its database is on the data partition, that it stays up past
# the watchdog's limit, that systemd's watchdog restarts a frozen kiosk, and
# that `pharaon update` refuses a tampered bundle and applies a good one, the
# kiosk back on it and its database kept (UPDATE=no skips this step).
# A fresh image's first start shows the technician's setup: its screen is
# saved (OUTDIR/vm-setup.ppm), then completed with keys typed through QEMU's
# monitor (the technician's PIN twice, the staff's twice, the kiosk id of
# the configuration kept), and the home screen saved (OUTDIR/vm-home.ppm);
# then a block made and signed here is imported with `pharaon import`: refused
# while the kiosk runs (one process owns the store), imported once the kiosk
# is stopped, and sold once it is back (OUTDIR/vm-block.ppm). The probe also
# prints the running systemd's rating of the unit's sandbox. Saves the
# console's log (OUTDIR/vm-serial.log). Exit status 0 when all passed.
#
# The copy gets a probe (vmtest/), written into its root file system with
# debugfs (no mount), and WLR_RENDERER=pixman in /etc/pharaon/environment:
# the virtual GPU has no 3D; and the watchdog's limit at 120 s
# (vmtest/watchdog.conf): emulated frames are slow. The copy's configuration
# gets what a technician sets before the first start (docs/technician.md):
# a kiosk id, and the public key of the issuer of the test's block. Needs: qemu-system-x86 ovmf e2fsprogs fdisk
# python3.
set -euo pipefail

if [ $# -ne 2 ]; then
	echo "usage: $0 IMAGE OUTDIR" >&2
	exit 2
fi
image=$(realpath "$1")
out=$(realpath -m "$2")
here=$(cd "$(dirname "$0")" && pwd)
TIMEOUT=${TIMEOUT:-900}
OVMF=${OVMF:-/usr/share/ovmf/OVMF.fd}
mkdir -p "$out"
work=$(mktemp -d /var/tmp/pharaon-vmtest.XXXXXX)
qemu=
cleanup() {
	if [ -n "$qemu" ]; then kill "$qemu" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

vm=$work/vm.img
case $image in
*.xz) xz -dc "$image" | dd of="$vm" bs=1M conv=sparse status=none ;;
*) cp --sparse=always "$image" "$vm" ;;
esac

# The root partition (2): its byte offset for debugfs.
start=$(sfdisk -d "$vm" | awk -v p="${vm}2" '$1 == p { for (i = 1; i <= NF; i++) if ($i == "start=") { gsub(",", "", $(i+1)); print $(i+1) } }')
[ -n "$start" ] || { echo "vm-test: no partition 2 in $image" >&2; exit 1; }
rootfs="$vm?offset=$((start * 512))"
printf 'WLR_RENDERER=pixman\n' >"$work/environment"
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
# The block to import (vmtest/pharaon-vmtest), signed by an issuer key made
# here and trusted by the copy's configuration.
top=$(dirname "$(dirname "$here")")
(cd "$top" && ${GO:-go} build -o "$work/pharaon-issuer" ./cmd/pharaon-issuer)
"$work/pharaon-issuer" keygen -out "$work/vmtest-issuer" >/dev/null
"$work/pharaon-issuer" generate -emission 9 -block 1 -stake 1 -key "$work/vmtest-issuer.key" -out "$work/vmtest.pblk"
debugfs -R "dump /etc/pharaon/pharaon.conf $work/pharaon.conf" "$rootfs" >/dev/null 2>&1
printf '\n# vm-test.sh\nkiosk-id = PH-VM01\nkeys = /etc/pharaon/keys/vmtest-issuer.pub\n' >>"$work/pharaon.conf"
chmod 0644 "$work/pharaon.conf" "$work/vmtest.pblk"
debugfs -w -f - "$rootfs" >/dev/null <<DEBUGFS
cd /etc/pharaon
rm pharaon.conf
write $work/pharaon.conf pharaon.conf
mkdir /etc/pharaon/keys
cd /etc/pharaon/keys
write $work/vmtest-issuer.pub vmtest-issuer.pub
mkdir /usr/local/share/pharaon-vmtest
cd /usr/local/share/pharaon-vmtest
write $work/vmtest.pblk vmtest.pblk
DEBUGFS
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
	(cd "$top" && ${GO:-go} run ./cmd/pharaon-issuer keygen -out "$u/vmtest-update" >/dev/null &&
		${GO:-go} run ./cmd/pharaon-issuer update-bundle -key "$u/vmtest-update.key" -deb "$deb" -out "$u/good.update")
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
debugfs -R "stat /usr/local/sbin/pharaon-vmtest" "$rootfs" 2>/dev/null | grep -q "Mode:  0755" ||
	{ echo "vm-test: the probe was not written into the copy" >&2; exit 1; }

# The serial console comes through a pipe, kept in vm-serial.log, and read
# line by line as it comes.
serial=$out/vm-serial.log
mkfifo "$work/console"
SECONDS=0
qemu-system-x86_64 -machine q35 -accel tcg,thread=multi -m 2048 -smp 2 -bios "$OVMF" \
	-drive file="$vm",format=raw,if=virtio -vga none -device virtio-vga -display none -nic none \
	-serial stdio -monitor unix:"$work/monitor",server,nowait </dev/null >"$work/console" 2>"$work/qemu.err" &
qemu=$!
exec 3< <(tee "$serial" <"$work/console")

# wait_for SECONDS REGEX: prints the first console line matching REGEX.
wait_for() {
	local deadline=$((SECONDS + $1)) l
	while [ "$SECONDS" -lt "$deadline" ] && IFS= read -r -t $((deadline - SECONDS)) l <&3; do
		l=${l%$'\r'}
		if [[ $l =~ $2 ]]; then
			echo "$l"
			return 0
		fi
	done
	return 1
}
# Not anchored: the probe's line may follow the serial getty's prompt.
line=$(wait_for "$TIMEOUT" 'VMTEST (ready|FAIL)' || true)
echo "vm-test: ${SECONDS} s after QEMU started: ${line:-nothing on the console within $TIMEOUT s}"
case $line in
*"VMTEST ready"*) ;;
*) cat "$work/qemu.err" >&2; exit 1 ;;
esac
# monitor COMMAND...: runs each command on QEMU's monitor.
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

# The probe says what to look at: "VMTEST setup shown" (the first start's
# setup: dumped, then typed in), "VMTEST shot NAME" (a screen dump), until
# "VMTEST done" or "VMTEST FAIL".
deadline=$((SECONDS + ${TIMEOUT_REST:-2700}))
result=
while [ "$SECONDS" -lt "$deadline" ]; do
	line=$(wait_for $((deadline - SECONDS)) 'VMTEST (setup shown|shot|done|FAIL)' || true)
	[ -n "$line" ] || break
	echo "vm-test: ${SECONDS} s: $line"
	case $line in
	*"VMTEST setup shown"*)
		monitor "screendump $out/vm-setup.ppm"
		# Technician 2468, staff 1357, each twice; Enter on the last saves.
		typekeys $'2468\n2468\n1357\n1357\n'
		echo "vm-test: ${SECONDS} s: setup typed"
		;;
	*"VMTEST shot "*)
		name=${line##*VMTEST shot }
		name=${name%% *}
		monitor "screendump $out/$name.ppm"
		;;
	*"VMTEST done"* | *"VMTEST FAIL"*)
		result=$line
		break
		;;
	esac
done
[ -n "$result" ] || echo "vm-test: ${SECONDS} s: no end reported within the time"
wait "$qemu" || true
qemu=
grep -o 'VMTEST.*' "$serial" | tr -d '\r'
grep -q 'VMTEST done' "$serial" && ! grep -q 'VMTEST FAIL' "$serial"
