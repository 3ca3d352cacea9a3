#!/bin/bash
# build.sh DEB OUTDIR: the kiosk's disk image, OUTDIR/pharaon.img.xz with its
# SHA-256 (pharaon.img.xz.sha256) and block map (pharaon.img.bmap), and the
# raw image OUTDIR/pharaon.img (sparse) for vm-test.sh.
#
# Debian 12 (mmdebstrap, minbase) with the kernel, systemd, udev, seatd and the
# kiosk's package DEB, which brings cage and pulls in its unit. A GPT disk:
#   1 EFI system partition (FAT32): systemd-boot, the kernel and the initrd
#   2 root (ext4)
#   3 PHARAON (FAT), mounted read-only on /boot/pharaon: the site file a
#     laptop edits (site/pharaon.conf; docs/kiosk-config.md), the issuers'
#     keys, the fleet's files, the field team's SSH keys
#   4 data (ext4), mounted on /var/lib/pharaon: the ledger, kept by updates;
#     the disk's last, grown to the disk at boot (repart-data.conf)
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
ROOT_UUID=6f1c2a9e-3b7d-4e0a-9c59-0d5e1b7a4c01
DATA_UUID=6f1c2a9e-3b7d-4e0a-9c59-0d5e1b7a4c02
ESP_MB=256
SITE_MB=32
DATA_MB=512

for tool in mmdebstrap mkfs.vfat mcopy mmd sfdisk mkfs.ext4 xz bmaptool; do
	command -v "$tool" >/dev/null || { echo "build.sh: $tool missing (apt-get install mmdebstrap dosfstools mtools fdisk e2fsprogs xz-utils bmap-tools)" >&2; exit 1; }
done
bootefi=/usr/lib/systemd/boot/efi/systemd-bootx64.efi
[ -f "$bootefi" ] || { echo "build.sh: $bootefi missing (apt-get install systemd-boot-efi)" >&2; exit 1; }

work=${WORK:-$(mktemp -d /var/tmp/pharaon-image.XXXXXX)}
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
root=$work/root
t0=$(date +%s)
say() { echo "image: $(($(date +%s) - t0)) s: $*" >&2; }

say "root tree ($SUITE)"
LANG=C.UTF-8 LC_ALL=C.UTF-8 mmdebstrap --variant=minbase --mode=root \
	--include=linux-image-amd64,initramfs-tools,systemd-sysv,udev,dbus,libpam-systemd,kmod,cage,xwayland,seatd,libgl1-mesa-dri,fonts-dejavu-core,locales,procps,fdisk,systemd-resolved,systemd-timesyncd,openssh-server \
	--customize-hook='echo "fr_FR.UTF-8 UTF-8" >"$1/etc/locale.gen"; echo "en_GB.UTF-8 UTF-8" >>"$1/etc/locale.gen"; chroot "$1" locale-gen; echo LANG=fr_FR.UTF-8 >"$1/etc/default/locale"' \
	--customize-hook="copy-in $deb /tmp" \
	--customize-hook='rm -f "$1/etc/resolv.conf" && cp /etc/resolv.conf "$1/etc/resolv.conf"' \
	--customize-hook="chroot \"\$1\" apt-get install -y --no-install-recommends /tmp/$(basename "$deb")" \
	--customize-hook="mkdir -p -m 0700 \"\$1/var/lib/pharaon-update\" && mv \"\$1/tmp/$(basename "$deb")\" \"\$1/var/lib/pharaon-update/installed.deb\"" \
	--customize-hook='echo pharaon >"$1/etc/hostname"' \
	--customize-hook="mkdir -p \"\$1/etc/systemd/system.conf.d\" && cp \"$here/system-watchdog.conf\" \"\$1/etc/systemd/system.conf.d/60-pharaon-watchdog.conf\"" \
	--customize-hook="\"$here/appliance.sh\" \"\$1\"" \
	${UPDATE_PUB:+--customize-hook="mkdir -p \"\$1/etc/pharaon/update-keys\"" --customize-hook="copy-in $UPDATE_PUB /etc/pharaon/update-keys"} \
	--customize-hook="\"$here/fstab.sh\" \"\$1\" $ROOT_UUID $SITE_ID $DATA_UUID" \
	--customize-hook='chroot "$1" systemctl is-enabled pharaon.service pharaon-helper.socket' \
	"$SUITE" "$root" "$MIRROR"

say "EFI system partition"
kver=$(basename "$(ls -d "$root"/lib/modules/* | sort -V | tail -1)")
esp=$work/esp.img
rm -f "$esp"
mkfs.vfat -F 32 -n ESP -i "${ESP_ID/-/}" -C "$esp" $((ESP_MB * 1024)) >/dev/null
mmd -i "$esp" ::/EFI ::/EFI/BOOT ::/loader ::/loader/entries
mcopy -i "$esp" "$bootefi" ::/EFI/BOOT/BOOTX64.EFI
mcopy -i "$esp" "$root/boot/vmlinuz-$kver" ::/vmlinuz
mcopy -i "$esp" "$root/boot/initrd.img-$kver" ::/initrd.img
# The boot menu locked: no editor (a keyboard at boot would otherwise edit
# the kernel's command line: init=/bin/sh is a root shell), no entries found
# by themselves (another system on a USB stick), no "reboot into firmware".
printf 'default pharaon.conf\ntimeout 0\neditor no\nauto-entries no\nauto-firmware no\n' >"$work/loader.conf"
# quiet, and the kernel's messages on the serial line: tty1 is the kiosk's.
printf 'title Pharaon\nlinux /vmlinuz\ninitrd /initrd.img\noptions root=UUID=%s rw quiet console=ttyS0,115200\n' "$ROOT_UUID" >"$work/pharaon.conf"
mcopy -i "$esp" "$work/loader.conf" ::/loader/loader.conf
mcopy -i "$esp" "$work/pharaon.conf" ::/loader/entries/pharaon.conf

say "PHARAON partition (the site file)"
site=$work/site.img
rm -f "$site"
mkfs.vfat -n PHARAON -i "${SITE_ID/-/}" -C "$site" $((SITE_MB * 1024)) >/dev/null
mmd -i "$site" ::/keys ::/fleet ::/ssh
# CRLF line ends, as the laptops that edit it write them.
sed 's/$/\r/' "$here/site/pharaon.conf" >"$work/site-pharaon.conf"
mcopy -i "$site" "$work/site-pharaon.conf" ::/pharaon.conf

say "root and data file systems"
root_mb=$(($(du -sm "$root" | cut -f1) * 13 / 10 + 256))
rootfs=$work/root.img
data=$work/data.img
rm -f "$rootfs" "$data"
E2OPTS=(-q -F -t ext4 -E root_owner=0:0)
mkfs.ext4 "${E2OPTS[@]}" -L root -U "$ROOT_UUID" -d "$root" "$rootfs" "${root_mb}M"
mkfs.ext4 "${E2OPTS[@]}" -L pharaon-data -U "$DATA_UUID" "$data" "${DATA_MB}M"

say "GPT disk"
img=$work/pharaon.img
rm -f "$img"
# 1 MiB before the first partition, and after the last for the backup GPT.
# PHARAON is a "Microsoft basic data" partition: Windows and macOS mount
# it. The data partition is the last: systemd-repart grows it to the disk.
truncate -s $((1 + ESP_MB + root_mb + SITE_MB + DATA_MB + 1))M "$img"
sfdisk -q "$img" <<SFDISK
label: gpt
start=1MiB, size=${ESP_MB}MiB, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, name=esp
size=${root_mb}MiB, type=4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709, name=root
size=${SITE_MB}MiB, type=EBD0A0A2-B9E5-4433-87C0-68B6B72699C7, name=PHARAON
size=${DATA_MB}MiB, type=0FC63DAF-8483-4772-8E3D-3D69D8477DE4, name=pharaon-data
SFDISK
dd if="$esp" of="$img" bs=1M seek=1 conv=notrunc,sparse status=none
dd if="$rootfs" of="$img" bs=1M seek=$((1 + ESP_MB)) conv=notrunc,sparse status=none
dd if="$site" of="$img" bs=1M seek=$((1 + ESP_MB + root_mb)) conv=notrunc,sparse status=none
dd if="$data" of="$img" bs=1M seek=$((1 + ESP_MB + root_mb + SITE_MB)) conv=notrunc,sparse status=none
rm -f "$esp" "$rootfs" "$site" "$data"

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
