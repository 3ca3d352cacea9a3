#!/bin/bash
# build.sh DEB OUTDIR: the kiosk's disk image, OUTDIR/pharaon.img.xz with its
# SHA-256 (pharaon.img.xz.sha256) and block map (pharaon.img.bmap), and the
# raw image OUTDIR/pharaon.img (sparse) for vm-test.sh.
#
# Debian 12 (mmdebstrap, minbase) with the kernel, systemd, udev, seatd and the
# kiosk's package DEB, which brings cage and pulls in its unit. A GPT disk:
#   1 EFI system partition (FAT32), mounted on /efi when used: systemd-boot,
#     each slot's kernel and initrd (a/, b/) and boot entry
#     (loader/entries/pharaon-GGGG-S.conf; kiosk/update/system.go)
#   2 root-a (ext4): the system the image starts with, mounted read-only
#     (the kernel's "ro"): its /var seen through a layer in memory, its
#     machine id the kiosk's own, kept on pharaon-state
#     (initramfs/pharaon-root, appliance.sh)
#   3 root-b: empty, for the first system update (pharaon update of a
#     system bundle; make system-bundle); the slots take turns
#   4 pharaon-state (ext4), mounted on /var/lib/pharaon-state: what both
#     slots share and no update replaces: the kiosk's first-install marker
#     and trust root (bound on /var/lib/pharaon-install and
#     /var/lib/pharaon-trust), the SSH host keys, the machine id, and the
#     journal (bound on /var/log/journal)
#   5 PHARAON (FAT), mounted read-only on /boot/pharaon: the site file a
#     laptop edits (site/pharaon.conf; docs/kiosk-config.md), the issuers'
#     keys, the fleet's files, the field team's SSH keys
#   6 data (ext4), mounted on /var/lib/pharaon: the ledger, in no slot,
#     kept by updates; the disk's last, grown to the disk at boot
#     (repart-data.conf)
# The slots' partitions have fixed GPT UUIDs (/etc/pharaon/slots.conf says
# them, and each boot entry names its own as root=PARTUUID=); each boot
# entry also says pharaon.slot=a|b. A new system's entry is on trial
# (systemd-boot's boot counting): pharaon-boot-check.service confirms it
# once the kiosk is ready, or restarts for the next try; with no try left
# systemd-boot starts the slot before.
# systemd pings the machine's hardware watchdog (system-watchdog.conf): a
# kernel or a systemd that hangs is reset by the board. systemd-networkd
# (wired.network), systemd-resolved and systemd-timesyncd run the network
# and the clock when a cable is plugged in; SSH is off unless the PHARAON
# partition holds ssh/authorized_keys (sshd.conf, ssh.service.conf).
# Each partition is made as a file (no loop device, no mount: this runs on a
# build machine without either), then written into the image at its place.
# File-system UUIDs are fixed so the boot entry and fstab name them.
# The package stays on the root file system as
# /var/lib/pharaon-update/installed.deb: `pharaon update` reinstalls it if the
# first update fails (kiosk/update). UPDATE_PUB=FILE.pub puts the public key
# of the update bundles in /etc/pharaon/update-keys.
# Needs root and: mmdebstrap dosfstools mtools fdisk e2fsprogs
# systemd-boot-efi xz-utils bmap-tools.
set -euo pipefail

if [ $# -ne 2 ]; then
	echo "usage: $0 DEB OUTDIR" >&2
	exit 2
fi
deb=$(realpath "$1")
out=$(realpath -m "$2")
here=$(cd "$(dirname "$0")" && pwd)
SUITE=${SUITE:-bookworm}
MIRROR=${MIRROR:-http://deb.debian.org/debian}

# Fixed identities (packaging/image/vm-test.sh and docs/technician.md use them).
ESP_ID=50A4-0E5F                                # FAT volume id
SITE_ID=50A4-C0F1                               # FAT volume id
DATA_UUID=6f1c2a9e-3b7d-4e0a-9c59-0d5e1b7a4c02
ESP_MB=256
SITE_MB=32
STATE_MB=256
DATA_MB=512
# Each root slot: room for a root file system larger than today's (its
# root.img is the file system's size, not the slot's).
SLOT_MB=${SLOT_MB:-2048}
STATE_UUID=6f1c2a9e-3b7d-4e0a-9c59-0d5e1b7a4c03
# The partitions' own GPT UUIDs: the slots' boot entries name them.
SLOT_A_PARTUUID=8d3e6b52-7a41-4c1f-9e2b-5a0c4f7d1a0a
SLOT_B_PARTUUID=8d3e6b52-7a41-4c1f-9e2b-5a0c4f7d1a0b
# The kernel's line but root= and pharaon.slot= (which each entry adds):
# the root read-only, always, and by default quiet with the kernel's
# messages on the serial line (tty1 is the kiosk's). KERNEL_OPTIONS given
# replaces the default but never "ro": a build with
# KERNEL_OPTIONS=no_timer_check lost "ro" from its line, and console=
# with it. "rw" is refused.
KERNEL_OPTIONS="ro ${KERNEL_OPTIONS:-quiet console=ttyS0,115200}"
case " $KERNEL_OPTIONS " in
*" rw "*)
	echo "build.sh: KERNEL_OPTIONS: the slots' root is mounted read-only; rw is refused" >&2
	exit 2
	;;
esac
VERSION=$(dpkg-deb -f "$deb" Version)

for tool in mmdebstrap mkfs.vfat mcopy mmd sfdisk mkfs.ext4 xz bmaptool; do
	command -v "$tool" >/dev/null || { echo "build.sh: $tool missing (apt-get install mmdebstrap dosfstools mtools fdisk e2fsprogs xz-utils bmap-tools)" >&2; exit 1; }
done
bootefi=/usr/lib/systemd/boot/efi/systemd-bootx64.efi
[ -f "$bootefi" ] || { echo "build.sh: $bootefi missing (apt-get install systemd-boot-efi)" >&2; exit 1; }
BOOT_KIND=linux
if [ -n "${SECUREBOOT_KEYS:-}" ]; then
	SECUREBOOT_KEYS=$(realpath "$SECUREBOOT_KEYS")
	for f in db.key db.crt PK.auth KEK.auth db.auth; do
		[ -f "$SECUREBOOT_KEYS/$f" ] || { echo "build.sh: no $SECUREBOOT_KEYS/$f (packaging/image/secureboot.sh keys DIR)" >&2; exit 1; }
	done
	for tool in sbsign sbverify objcopy; do
		command -v "$tool" >/dev/null || { echo "build.sh: $tool missing (apt-get install sbsigntool binutils)" >&2; exit 1; }
	done
	BOOT_KIND=uki
fi

work=${WORK:-$(mktemp -d /var/tmp/pharaon-image.XXXXXX)}
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
root=$work/root
t0=$(date +%s)
say() { echo "image: $(($(date +%s) - t0)) s: $*" >&2; }

say "root tree ($SUITE)"
LANG=C.UTF-8 LC_ALL=C.UTF-8 mmdebstrap --variant=minbase --mode=root \
	--include=linux-image-amd64,initramfs-tools,systemd-sysv,udev,dbus,libpam-systemd,kmod,cage,xwayland,seatd,libgl1-mesa-dri,fonts-dejavu-core,locales,procps,fdisk,systemd-resolved,systemd-timesyncd,openssh-server,alsa-utils \
	--customize-hook='echo "fr_FR.UTF-8 UTF-8" >"$1/etc/locale.gen"; echo "en_GB.UTF-8 UTF-8" >>"$1/etc/locale.gen"; chroot "$1" locale-gen; echo LANG=fr_FR.UTF-8 >"$1/etc/default/locale"' \
	--customize-hook="copy-in $deb /tmp" \
	--customize-hook='rm -f "$1/etc/resolv.conf" && cp /etc/resolv.conf "$1/etc/resolv.conf"' \
	--customize-hook="chroot \"\$1\" apt-get install -y --no-install-recommends /tmp/$(basename "$deb")" \
	--customize-hook="mkdir -p -m 0700 \"\$1/var/lib/pharaon-update\" && mv \"\$1/tmp/$(basename "$deb")\" \"\$1/var/lib/pharaon-update/installed.deb\"" \
	--customize-hook='echo pharaon >"$1/etc/hostname"' \
	--customize-hook="mkdir -p \"\$1/etc/systemd/system.conf.d\" && cp \"$here/system-watchdog.conf\" \"\$1/etc/systemd/system.conf.d/60-pharaon-watchdog.conf\"" \
	--customize-hook="\"$here/appliance.sh\" \"\$1\" $STATE_UUID" \
	${UPDATE_PUB:+--customize-hook="mkdir -p \"\$1/etc/pharaon/update-keys\"" --customize-hook="copy-in $UPDATE_PUB /etc/pharaon/update-keys"} \
	--customize-hook="\"$here/fstab.sh\" \"\$1\" $ESP_ID $STATE_UUID $SITE_ID $DATA_UUID" \
	--customize-hook="printf '# The A/B slots of this disk (packaging/image/build.sh; kiosk/update/system.go).\\nesp /efi\\ntries 3\\noptions %s\\nboot %s\\nslot a %s\\nslot b %s\\n' '$KERNEL_OPTIONS' $BOOT_KIND $SLOT_A_PARTUUID $SLOT_B_PARTUUID >\"\$1/etc/pharaon/slots.conf\"" \
	--customize-hook='chroot "$1" systemctl is-enabled pharaon.service pharaon-helper.socket' \
	"$SUITE" "$root" "$MIRROR"

say "EFI system partition"
kver=$(basename "$(ls -d "$root"/lib/modules/* | sort -V | tail -1)")
esp=$work/esp.img
rm -f "$esp"
mkfs.vfat -F 32 -n ESP -i "${ESP_ID/-/}" -C "$esp" $((ESP_MB * 1024)) >/dev/null
mmd -i "$esp" ::/EFI ::/EFI/BOOT ::/loader ::/loader/entries ::/a ::/b
mcopy -i "$esp" "$root/boot/vmlinuz-$kver" ::/a/vmlinuz
mcopy -i "$esp" "$root/boot/initrd.img-$kver" ::/a/initrd.img
# The slots' signed images of a build before, with or without them, go.
rm -f "$out/system/pharaon-a.efi" "$out/system/pharaon-b.efi"
if [ "$BOOT_KIND" = uki ]; then
	say "Secure Boot: systemd-boot and the slots' unified kernel images signed with $SECUREBOOT_KEYS/db.key"
	"$here/secureboot.sh" sign "$SECUREBOOT_KEYS" "$bootefi" "$work/BOOTX64.EFI"
	mcopy -i "$esp" "$work/BOOTX64.EFI" ::/EFI/BOOT/BOOTX64.EFI
	mkdir -p "$out/system"
	for slot in a b; do
		uuid=$SLOT_A_PARTUUID
		[ "$slot" = b ] && uuid=$SLOT_B_PARTUUID
		"$here/secureboot.sh" uki "$work/uki-$slot.efi" "$root/boot/vmlinuz-$kver" "$root/boot/initrd.img-$kver" \
			"root=PARTUUID=$uuid $KERNEL_OPTIONS pharaon.slot=$slot" "$root/etc/os-release"
		"$here/secureboot.sh" sign "$SECUREBOOT_KEYS" "$work/uki-$slot.efi" "$out/system/pharaon-$slot.efi"
	done
	mcopy -i "$esp" "$out/system/pharaon-a.efi" ::/a/pharaon-a.efi
	# The operator's keys, for systemd-boot to enroll on a firmware in
	# setup mode (no platform key yet): the machine then restarts with
	# Secure Boot on, and boots only what db.key signed.
	mmd -i "$esp" ::/loader/keys ::/loader/keys/pharaon
	for f in PK.auth KEK.auth db.auth; do
		mcopy -i "$esp" "$SECUREBOOT_KEYS/$f" "::/loader/keys/pharaon/$f"
	done
else
	mcopy -i "$esp" "$bootefi" ::/EFI/BOOT/BOOTX64.EFI
fi
# The boot menu locked: no editor (a keyboard at boot would otherwise edit
# the kernel's command line: init=/bin/sh is a root shell), no entries found
# by themselves (another system on a USB stick), no "reboot into firmware".
# No default: systemd-boot starts the first entry in its order, the newest
# generation that has tries left (kiosk/update/system.go).
printf 'timeout 0\neditor no\nauto-entries no\nauto-firmware no\n' >"$work/loader.conf"
# Slot a's entry, confirmed: the image's own system.
if [ "$BOOT_KIND" = uki ]; then
	# systemd-boot 252 offers the keys as an entry of its own, which
	# "force" does not start by itself: the default names it. In setup
	# mode it is there and starts (the keys enrolled, the machine
	# restarted); once enrolled it is not, and the default falls to the
	# first entry in systemd-boot's order.
	printf 'secure-boot-enroll force\ndefault secure-boot-keys-*\n' >>"$work/loader.conf"
	printf 'title Pharaon %s\nversion %s\nefi /a/pharaon-a.efi\n' "$VERSION" "$VERSION" >"$work/pharaon.conf"
else
	printf 'title Pharaon %s\nversion %s\nlinux /a/vmlinuz\ninitrd /a/initrd.img\noptions root=PARTUUID=%s %s pharaon.slot=a\n' \
		"$VERSION" "$VERSION" "$SLOT_A_PARTUUID" "$KERNEL_OPTIONS" >"$work/pharaon.conf"
fi
mcopy -i "$esp" "$work/loader.conf" ::/loader/loader.conf
mcopy -i "$esp" "$work/pharaon.conf" ::/loader/entries/pharaon-0001-a.conf

say "PHARAON partition (the site file)"
site=$work/site.img
rm -f "$site"
mkfs.vfat -n PHARAON -i "${SITE_ID/-/}" -C "$site" $((SITE_MB * 1024)) >/dev/null
mmd -i "$site" ::/keys ::/fleet ::/ssh
# CRLF line ends, as the laptops that edit it write them.
sed 's/$/\r/' "$here/site/pharaon.conf" >"$work/site-pharaon.conf"
mcopy -i "$site" "$work/site-pharaon.conf" ::/pharaon.conf

say "root, state and data file systems"
root_mb=$(($(du -sm "$root" | cut -f1) * 13 / 10 + 256))
[ "$root_mb" -le "$SLOT_MB" ] || { echo "build.sh: a root of $root_mb MiB does not fit a slot of $SLOT_MB MiB (SLOT_MB=)" >&2; exit 1; }
rootfs=$work/root.img
data=$work/data.img
state=$work/state.img
rm -f "$rootfs" "$data" "$state"
E2OPTS=(-q -F -t ext4 -E root_owner=0:0)
# A new file-system UUID at each build: two slots never hold the same one.
mkfs.ext4 "${E2OPTS[@]}" -L root -U random -d "$root" "$rootfs" "${root_mb}M"
mkfs.ext4 "${E2OPTS[@]}" -L pharaon-data -U "$DATA_UUID" "$data" "${DATA_MB}M"
# The shared state's directories, owned as the package's tmpfiles.d says
# (systemd-tmpfiles sets them again at each boot).
statetree=$work/state
rm -rf "$statetree"
mkdir -p "$statetree/ssh"
chmod 0700 "$statetree/ssh"
# The journal's directory as journald makes it: its group may read it.
mkdir "$statetree/journal"
chown "0:$(awk -F: '$1 == "systemd-journal" { print $3 }' "$root/etc/group")" "$statetree/journal"
chmod 2755 "$statetree/journal"
for d in install trust; do
	mkdir -m 0700 "$statetree/$d"
	chown --reference="$root/var/lib/pharaon-$d" "$statetree/$d" 2>/dev/null || chown "$(stat -c %u:%g "$root/var/lib/pharaon")" "$statetree/$d"
done
mkfs.ext4 "${E2OPTS[@]}" -L pharaon-state -U "$STATE_UUID" -d "$statetree" "$state" "${STATE_MB}M"

say "GPT disk"
img=$work/pharaon.img
rm -f "$img"
# 1 MiB before the first partition, and after the last for the backup GPT.
# PHARAON is a "Microsoft basic data" partition: Windows and macOS mount
# it. The data partition is the last: systemd-repart grows it to the disk.
truncate -s $((1 + ESP_MB + 2 * SLOT_MB + STATE_MB + SITE_MB + DATA_MB + 1))M "$img"
# The slots' type is the x86-64 root's; the data's, Linux data; the
# state's, the Discoverable Partitions' "variable data" type, not Linux
# data: systemd-repart grows the first partition of the type its file
# names (repart-data.conf), which must be the data partition, the disk's
# last (a state partition of the same type took the growth and nothing
# grew). systemd-gpt-auto-generator mounts a "variable data" partition on
# /var only when its UUID is derived from the machine id: not this one.
sfdisk -q "$img" <<SFDISK
label: gpt
start=1MiB, size=${ESP_MB}MiB, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, name=esp
size=${SLOT_MB}MiB, type=4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709, uuid=$SLOT_A_PARTUUID, name=root-a
size=${SLOT_MB}MiB, type=4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709, uuid=$SLOT_B_PARTUUID, name=root-b
size=${STATE_MB}MiB, type=4D21B016-B534-45C2-A9FB-5C16E091FD2D, name=pharaon-state
size=${SITE_MB}MiB, type=EBD0A0A2-B9E5-4433-87C0-68B6B72699C7, name=PHARAON
size=${DATA_MB}MiB, type=0FC63DAF-8483-4772-8E3D-3D69D8477DE4, name=pharaon-data
SFDISK
dd if="$esp" of="$img" bs=1M seek=1 conv=notrunc,sparse status=none
dd if="$rootfs" of="$img" bs=1M seek=$((1 + ESP_MB)) conv=notrunc,sparse status=none
dd if="$state" of="$img" bs=1M seek=$((1 + ESP_MB + 2 * SLOT_MB)) conv=notrunc,sparse status=none
dd if="$site" of="$img" bs=1M seek=$((1 + ESP_MB + 2 * SLOT_MB + STATE_MB)) conv=notrunc,sparse status=none
dd if="$data" of="$img" bs=1M seek=$((1 + ESP_MB + 2 * SLOT_MB + STATE_MB + SITE_MB)) conv=notrunc,sparse status=none
# The system's files as a system bundle takes them (make system-bundle).
mkdir -p "$out/system"
mv "$rootfs" "$out/system/root.img"
cp "$root/boot/vmlinuz-$kver" "$out/system/vmlinuz"
cp "$root/boot/initrd.img-$kver" "$out/system/initrd.img"
echo "$VERSION" >"$out/system/VERSION"
rm -f "$esp" "$state" "$site" "$data"

say "block map"
bmaptool -q create -o "$out/pharaon.img.bmap" "$img"
rm -f "$out/pharaon.img" "$out/pharaon.img.xz" "$out/pharaon.img.xz.sha256" "$out/pharaon.img.xz.sha256.sig"
# The raw image stays beside the compressed one (sparse) for vm-test.sh.
cp --sparse=always "$img" "$out/pharaon.img"
say "image: $(du -h --apparent-size "$img" | cut -f1) apparent, $(du -h "$img" | cut -f1) on disk"
# XZ=no leaves the compression out, for a quicker turn with vm-test.sh.
if [ "${XZ:-yes}" != no ]; then
	say "compression"
	xz -T2 -6 -c "$img" >"$out/pharaon.img.xz"
	(cd "$out" && sha256sum pharaon.img.xz >pharaon.img.xz.sha256)
	say "compressed: $(du -h "$out/pharaon.img.xz" | cut -f1)"
fi
say done
