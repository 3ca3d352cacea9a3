#!/bin/bash
# vm-ab-test.sh IMAGE OUTDIR: the A/B system update of a copy of the kiosk's
# disk image (raw), in QEMU with software emulation, driven over SSH (the
# site partition's key, as the field team's):
#
# 1. The image starts on slot a. A system bundle made here from the copy's
#    own slot a with a newer version ("good"), signed by an update key the
#    copy trusts, is on an emulated USB stick (mounted read-only by the
#    image under /media): `pharaon update` writes it into slot b with an
#    entry on trial. The kiosk is at its first start's setup (the players
#    locked out, as with the maintenance screen open): it must not restart
#    by itself (60 s watched; vm-test.sh sees the idle kiosk restart into
#    a new system). The machine restarted, systemd-boot starts slot b, the
#    kiosk becomes ready and pharaon-boot-check.service confirms the
#    entry; the machine id and the journal are the ones slot a had (both
#    on the state partition), the journal holding slot a's start too.
# 2. A second bundle ("broken": the same root file system with the kiosk's
#    binary replaced by one that fails) goes into slot a from slot b. The
#    machine restarts: each try of slot a fails (pharaon-boot-check fails,
#    the machine restarts), and once the tries are used systemd-boot starts
#    slot b again by itself: the kiosk ready on it, the failed entry left
#    with no try, slot b's untouched.
# 3. A bundle older than the running system and not signed as a rollback is
#    refused, and changes nothing.
#
# SECUREBOOT=yes, for an image built with SECUREBOOT_KEYS: the firmware is
# OVMF with Secure Boot, its variables empty (setup mode): systemd-boot
# enrolls the operator's keys from the ESP at the first boot and restarts,
# and from then on the machine must report Secure Boot on and the kernel
# in lockdown; the bundles carry the slots' signed unified kernel images
# of the image's build (UKIS=DIR, by default the image's system/ folder).
# At the end a byte of the running slot's image is changed on the disk:
# the firmware must refuse it (no kernel starts).
# The copy's slots file gets 2 tries (the image has 3), to keep the run
# short. Saves the console's log (OUTDIR/vm-ab-serial.log). Exit status 0
# when all passed. Needs: qemu-system-x86 ovmf e2fsprogs fdisk mtools
# dosfstools openssh-client, and Go.
{
set -euo pipefail
if [ $# -ne 2 ]; then
	echo "usage: $0 IMAGE OUTDIR" >&2
	exit 2
fi
image=$(realpath "$1")
out=$(realpath -m "$2")
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
OVMF=${OVMF:-/usr/share/ovmf/OVMF.fd}
TRIES=${TRIES:-2}
SECUREBOOT=${SECUREBOOT:-no}
UKIS=${UKIS:-$(dirname "$image")/system}
mkdir -p "$out"
work=$(mktemp -d /var/tmp/pharaon-vmab.XXXXXX)
qemu=
cleanup() {
	[ -z "$qemu" ] || { kill "$qemu" 2>/dev/null || true; wait "$qemu" 2>/dev/null || true; }
	rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "vm-ab-test: ${SECONDS} s: ended on line $LINENO, status $?: $BASH_COMMAND" >&2' ERR
SECONDS=0
say() { echo "vm-ab-test: ${SECONDS} s: $*"; }
failures=()
failed() {
	say "FAIL $*"
	failures+=("$*")
}

vm=$work/vm.img
cp --sparse=always "$image" "$vm"
part() {
	sfdisk -d "$vm" | awk -v p="${vm}$1" -v f="$2=" '$1 == p { for (i = 1; i <= NF; i++) if ($i == f) { gsub(",", "", $(i+1)); printf "%.0f\n", $(i+1) * 512 } }'
}
# 1 EFI, 2 root-a, 3 root-b, 4 state, 5 PHARAON, 6 data (build.sh).
esp="$vm@@$(part 1 start)"
a_off=$(part 2 start)
site="$vm@@$(part 5 start)"
[ -n "$a_off" ] && [ -n "$(part 6 start)" ] || { echo "vm-ab-test: $image has not the A/B layout (6 partitions)" >&2; exit 1; }
slot_a="$vm?offset=$a_off"
version=$(mtype -i "$esp" ::/loader/entries/pharaon-0001-a.conf | tr -d '\r' | sed -n 's/^version //p')
[ -n "$version" ] || { echo "vm-ab-test: no slot a entry with a version" >&2; exit 1; }
say "image of $version"

(cd "$top" && ${GO:-go} build -o "$work/pharaon-issuer" ./cmd/pharaon-issuer)
"$work/pharaon-issuer" keygen -out "$work/update" >/dev/null
ssh-keygen -q -t ed25519 -N '' -C vm-ab-test -f "$work/ssh-key"

# The copy: the virtual GPU's renderer, the test's update key, 2 tries;
# the kernel's line of slot a's entry as vm-test.sh has it.
printf 'WLR_RENDERER=pixman\n' >"$work/environment"
debugfs -R "dump /etc/pharaon/slots.conf $work/slots.conf" "$slot_a" >/dev/null 2>&1
sed -i "s/^tries .*/tries $TRIES/; s/^options .*/& no_timer_check/" "$work/slots.conf"
grep -q "^tries $TRIES\$" "$work/slots.conf" || { echo "vm-ab-test: no slots file in slot a" >&2; exit 1; }
debugfs -w -f - "$slot_a" >/dev/null 2>&1 <<DEBUGFS
cd /etc/pharaon
rm environment
write $work/environment environment
rm slots.conf
write $work/slots.conf slots.conf
mkdir /etc/pharaon/update-keys
cd /etc/pharaon/update-keys
write $work/update.pub vmab-update.pub
DEBUGFS
uki=()
if [ "$SECUREBOOT" = yes ]; then
	# The kernel's line is in the signed image: nothing to add.
	mtype -i "$esp" ::/loader/entries/pharaon-0001-a.conf | grep -q '^efi /a/pharaon-a.efi' ||
		{ echo "vm-ab-test: SECUREBOOT=yes, but slot a does not boot a unified kernel image" >&2; exit 1; }
	[ -f "$UKIS/pharaon-a.efi" ] && [ -f "$UKIS/pharaon-b.efi" ] || { echo "vm-ab-test: no signed images in $UKIS" >&2; exit 1; }
	uki=(-uki-a "$UKIS/pharaon-a.efi" -uki-b "$UKIS/pharaon-b.efi")
else
	mtype -i "$esp" ::/loader/entries/pharaon-0001-a.conf | tr -d '\r' | sed 's/^options .*/& no_timer_check/' >"$work/entry"
	mcopy -o -i "$esp" "$work/entry" ::/loader/entries/pharaon-0001-a.conf
fi
mcopy -o -i "$site" "$work/ssh-key.pub" ::/ssh/authorized_keys

# The bundles, from slot a's file system (its size as its superblock says).
blocks=$(dumpe2fs -h "$slot_a" 2>/dev/null | awk -F: '/^Block count/ { gsub(/ /, "", $2); print $2 }')
bsize=$(dumpe2fs -h "$slot_a" 2>/dev/null | awk -F: '/^Block size/ { gsub(/ /, "", $2); print $2 }')
dd if="$vm" of="$work/root.img" bs=1M iflag=skip_bytes,count_bytes skip="$a_off" count=$((blocks * bsize)) conv=sparse status=none
mcopy -i "$esp" ::/a/vmlinuz "$work/vmlinuz"
mcopy -i "$esp" ::/a/initrd.img "$work/initrd.img"
stickdir=$work/stick
mkdir -p "$stickdir"
"$work/pharaon-issuer" update-bundle -key "$work/update.key" -root "$work/root.img" -kernel "$work/vmlinuz" -initrd "$work/initrd.img" "${uki[@]}" \
	-version "${version}+ab1" -arch amd64 -out "$stickdir/good.update"
"$work/pharaon-issuer" update-bundle -key "$work/update.key" -root "$work/root.img" -kernel "$work/vmlinuz" -initrd "$work/initrd.img" "${uki[@]}" \
	-version "${version}+ab0" -arch amd64 -out "$stickdir/older.update"
printf '#!/bin/sh\necho "pharaon: broken on purpose (vm-ab-test.sh)" >&2\nexit 1\n' >"$work/broken"
debugfs -w -f - "$work/root.img" >/dev/null 2>&1 <<DEBUGFS
cd /usr/bin
rm pharaon
write $work/broken pharaon
sif pharaon mode 0100755
DEBUGFS
"$work/pharaon-issuer" update-bundle -key "$work/update.key" -root "$work/root.img" -kernel "$work/vmlinuz" -initrd "$work/initrd.img" "${uki[@]}" \
	-version "${version}+ab2" -arch amd64 -out "$stickdir/broken.update"
rm -f "$work/root.img"
ls -l "$stickdir" | sed 's/^/vm-ab-test: /'
# The stick: one FAT32 partition (MBR), the bundles at its top.
mb=$(($(du -sm "$stickdir" | cut -f1) + 64))
stick=$work/stick.img
truncate -s "${mb}M" "$stick"
printf 'label: dos\nstart=2048, type=c\n' | sfdisk -q "$stick"
mkfs.vfat -F 32 -n BUNDLES -C "$work/stick-fat.img" $(((mb - 1) * 1024)) >/dev/null
mcopy -i "$work/stick-fat.img" "$stickdir"/*.update ::/
dd if="$work/stick-fat.img" of="$stick" bs=1M seek=1 conv=notrunc,sparse status=none
rm -rf "$work/stick-fat.img" "$stickdir"

ssh_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
serial=$out/vm-ab-serial.log
: >"$serial"
# The firmware: OVMF, or OVMF with Secure Boot and its variables in a
# file of this run (empty: setup mode), kept across the restarts.
firmware=(-machine q35 -bios "$OVMF")
if [ "$SECUREBOOT" = yes ]; then
	cp /usr/share/OVMF/OVMF_VARS_4M.fd "$work/vars.fd"
	firmware=(-machine q35,smm=on -global driver=cfi.pflash01,property=secure,value=on
		-drive if=pflash,format=raw,unit=0,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.secboot.fd
		-drive if=pflash,format=raw,unit=1,file="$work/vars.fd")
fi
start_vm() {
	qemu-system-x86_64 "${firmware[@]}" -accel tcg,thread=multi -m 2048 -smp 2 \
		-drive file="$vm",format=raw,if=virtio -vga none -device virtio-vga -display none \
		-netdev user,id=net0,restrict=on,hostfwd=tcp:127.0.0.1:"$ssh_port"-:22 -device virtio-net-pci,netdev=net0,romfile= \
		-device qemu-xhci,id=usb -drive if=none,id=stick,format=raw,file="$stick" -device usb-storage,bus=usb.0,drive=stick \
		-serial file:"$1" -monitor none </dev/null 2>"$work/qemu.err" &
	qemu=$!
}
start_vm "$serial"

vssh() {
	ssh -F /dev/null -p "$ssh_port" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes \
		-o ConnectTimeout=10 -o LogLevel=ERROR -i "$work/ssh-key" -o IdentitiesOnly=yes root@127.0.0.1 "$@"
}
# boot_id: the running boot's id ("" while the machine does not answer).
boot_id() { vssh cat /proc/sys/kernel/random/boot_id 2>/dev/null || true; }
# wait_boot OLD SECONDS: waits for a boot other than OLD to answer over SSH.
wait_boot() {
	local deadline=$((SECONDS + $2)) id
	while [ "$SECONDS" -lt "$deadline" ]; do
		id=$(boot_id)
		if [ -n "$id" ] && [ "$id" != "$1" ]; then
			echo "$id"
			return 0
		fi
		sleep 5
	done
	return 1
}
slot() { vssh 'tr " " "\n" </proc/cmdline | sed -n "s/^pharaon.slot=//p"' 2>/dev/null || true; }
entries() { vssh 'ls /efi/loader/entries | tr "\n" " "' 2>/dev/null || true; }
# ready SECONDS: waits for the kiosk's unit to be active.
ready() {
	local deadline=$((SECONDS + $1))
	while [ "$SECONDS" -lt "$deadline" ]; do
		vssh systemctl is-active --quiet pharaon.service 2>/dev/null && return 0
		sleep 5
	done
	return 1
}
# stick_path: where the image mounted the stick.
stick_path() { vssh 'for d in /media/*; do [ -f "$d/good.update" ] && echo "$d" && break; done' 2>/dev/null || true; }

boot=$(wait_boot "" 600) || { failed "slot a: no SSH within 600 s"; exit 1; }
say "first boot answers: slot $(slot)"
[ "$(slot)" = a ] || failed "the image did not start on slot a"
ready 300 && say "kiosk ready on slot a" || failed "the kiosk not ready on slot a"
if [ "$SECUREBOOT" = yes ]; then
	sb=$(vssh 'od -An -t u1 /sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c | awk "{ print \$NF }"; cat /sys/kernel/security/lockdown' 2>&1 | tr '\n' ' ')
	say "Secure Boot (1: on), and the kernel's lockdown: $sb"
	case $sb in "1 "*"[integrity]"* | "1 "*"[confidentiality]"*) ;; *) failed "Secure Boot not on, or the kernel not locked down: $sb" ;; esac
	# Out of setup mode: the operator's platform key is enrolled.
	setup=$(vssh 'od -An -t u1 /sys/firmware/efi/efivars/SetupMode-8be4df61-93ca-11d2-aa0d-00e098032b8c | awk "{ print \$NF }"' 2>&1)
	[ "$setup" = 0 ] && say "the operator's keys enrolled (SetupMode 0)" || failed "the firmware still in setup mode: $setup"
fi
media=
for i in $(seq 30); do media=$(stick_path); [ -n "$media" ] && break; sleep 5; done
[ -n "$media" ] || { failed "the stick is not mounted under /media"; exit 1; }
say "stick mounted on $media"
hostkey_a=$(vssh cat /var/lib/pharaon-state/ssh/ssh_host_ed25519_key.pub 2>/dev/null || true)

# 1. The good update.
t0=$SECONDS
r=$(vssh pharaon update "$media/good.update" 2>&1) || failed "pharaon update good.update: $r"
say "pharaon update good.update ($((SECONDS - t0)) s): $r"
say "entries: $(entries)"
# The kiosk at its setup is not idle: no restart by itself.
sleep 60
[ "$(boot_id)" = "$boot" ] && say "60 s later, the kiosk at its setup has not restarted: $(vssh systemctl show -p StatusText --value pharaon 2>&1)" ||
	failed "the machine restarted by itself with the kiosk's setup on screen"
machine_id_a=$(vssh cat /etc/machine-id 2>/dev/null || true)
vssh systemctl reboot || true
t0=$SECONDS
boot=$(wait_boot "$boot" 600) || { failed "no boot after the good update"; exit 1; }
say "restarted ($((SECONDS - t0)) s to SSH): slot $(slot)"
[ "$(slot)" = b ] || failed "the good update did not start slot b"
ready 300 && say "kiosk ready on slot b" || failed "the kiosk not ready on slot b"
confirmed=
for i in $(seq 36); do
	e=$(entries)
	case " $e " in *" pharaon-0002-b.conf "*) confirmed=yes && break ;; esac
	sleep 5
done
say "entries: $e"
[ -n "$confirmed" ] || failed "slot b's entry not confirmed: $e"
say "boot-check: $(vssh journalctl -b -u pharaon-boot-check -o cat 2>/dev/null | grep 'pharaon boot-check' | tr '\n' ' ')"
# Where the new system's boot went: the kernel and userspace (systemd),
# the kiosk's unit active (its READY=1) since the kernel started, and its
# first frame after its own start.
say "slot b's boot: $(vssh 'systemd-analyze time | head -1; echo "kiosk active at $(($(systemctl show -P ActiveEnterTimestampMonotonic pharaon.service) / 1000)) ms of the kernel'"'"'s clock;"; journalctl -b -u pharaon -o cat | grep -m1 "first frame"' 2>/dev/null | tr '\n' ' ')"
r=$(vssh 'for d in /var/lib/pharaon-state /var/lib/pharaon-trust /var/lib/pharaon-install /var/lib/pharaon; do findmnt -n -o TARGET,SOURCE,FSROOT "$d" || echo "$d not mounted"; done' 2>&1 || true)
say "mounts on slot b: $(echo "$r" | tr '\n' ';')"
case $r in *"not mounted"*) failed "the shared state is not mounted on slot b: $r" ;; esac
hostkey_b=$(vssh cat /var/lib/pharaon-state/ssh/ssh_host_ed25519_key.pub 2>/dev/null || true)
[ -n "$hostkey_b" ] && [ "$hostkey_b" = "$hostkey_a" ] && say "the SSH host key is the same on both slots" ||
	failed "the SSH host key changed with the slot: ${hostkey_a:-none} then ${hostkey_b:-none}"
st=$(vssh cat /run/pharaon-system.json 2>/dev/null | tr -d ' \n' || true)
say "status left for the kiosk: ${st:-none}"
machine_id_b=$(vssh cat /etc/machine-id 2>/dev/null || true)
starts=$(vssh 'journalctl --list-boots --no-pager | wc -l' 2>/dev/null || true)
say "machine id on slot a ${machine_id_a:-none}, on slot b ${machine_id_b:-none}; the journal holds $starts starts"
[ -n "$machine_id_b" ] && [ "$machine_id_b" = "$machine_id_a" ] || failed "the machine id changed with the slot"
[ "${starts:-0}" -ge 2 ] || failed "the journal on slot b does not hold slot a's start: $starts starts"

# 3. An older bundle, not signed as a rollback: refused, nothing changed.
r=$(vssh pharaon update "$media/older.update" 2>&1) && failed "an older system was taken: $r"
say "older bundle: $r"
[ "$(entries)" = "$e" ] || failed "a refused bundle changed the entries: $(entries)"

# 2. The broken update: slot a tried, then slot b again by itself.
t0=$SECONDS
r=$(vssh pharaon update "$media/broken.update" 2>&1) || failed "pharaon update broken.update: $r"
say "pharaon update broken.update ($((SECONDS - t0)) s): $r"
say "entries: $(entries)"
vssh systemctl reboot || true
t0=$SECONDS
seen_a=0 back=
deadline=$((SECONDS + 600 * TRIES + 300))
while [ "$SECONDS" -lt "$deadline" ]; do
	boot=$(wait_boot "$boot" $((deadline - SECONDS))) || break
	s=$(slot)
	say "a boot answers after the broken update ($((SECONDS - t0)) s): slot $s"
	if [ "$s" = a ]; then
		seen_a=$((seen_a + 1))
		continue
	fi
	back=$s
	break
done
[ "$back" = b ] || failed "not back on slot b after the broken update"
if [ "$back" = b ]; then
	ready 300 && say "kiosk ready on slot b again, $((SECONDS - t0)) s after the restart" || failed "the kiosk not ready on slot b after the fallback"
	e=$(entries)
	say "entries: $e"
	case " $e " in *" pharaon-0003-a+0-$TRIES.conf "*) ;; *) failed "the broken entry is not left with no try: $e" ;; esac
	case " $e " in *" pharaon-0002-b.conf "*) ;; *) failed "slot b's entry changed: $e" ;; esac
	# Each try of the broken system says so on the console before its
	# restart (too short a boot to answer SSH).
	tries=$(grep -a -c 'broken on purpose' "$serial" || true)
	say "tries of the broken system seen on the console: $tries"
	[ "$tries" = "$TRIES" ] || failed "the broken system was tried $tries times, not $TRIES"
	st=$(vssh cat /run/pharaon-system.json 2>/dev/null | tr -d ' \n' || true)
	say "status left for the kiosk: ${st:-none}"
fi
vssh systemctl poweroff || true
for i in $(seq 60); do kill -0 "$qemu" 2>/dev/null || break; sleep 2; done

if [ "$SECUREBOOT" = yes ] && [ "$back" = b ]; then
	# A byte of slot b's signed image changed on the disk: the firmware
	# refuses it, and no kernel starts.
	kill "$qemu" 2>/dev/null || true
	wait "$qemu" 2>/dev/null || true
	esp="$vm@@$(part 1 start)"
	mcopy -i "$esp" ::/b/pharaon-b.efi "$work/b.efi"
	python3 -c 'import sys; f = open(sys.argv[1], "r+b"); f.seek(4096); b = f.read(1); f.seek(4096); f.write(bytes([b[0] ^ 1]))' "$work/b.efi"
	mcopy -o -i "$esp" "$work/b.efi" ::/b/pharaon-b.efi
	start_vm "$out/vm-ab-tampered-serial.log"
	sleep 150
	if grep -a -q "Linux version\|pharaon login" "$out/vm-ab-tampered-serial.log"; then
		failed "a changed unified kernel image booted"
	else
		say "the changed image did not boot: $(grep -a -o -i 'access denied\|security violation\|error[^\r]*' "$out/vm-ab-tampered-serial.log" | head -2 | tr '\n' ' ')"
	fi
	kill "$qemu" 2>/dev/null || true
	wait "$qemu" 2>/dev/null || true
fi

say "done in ${SECONDS} s"
if [ ${#failures[@]} -gt 0 ]; then
	printf 'vm-ab-test: FAIL: %s\n' "${failures[@]}" >&2
	exit 1
fi
echo "vm-ab-test: all passed"
exit 0
}
