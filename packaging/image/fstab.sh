#!/bin/sh
# fstab.sh ROOT ROOT_UUID SITE_ID DATA_UUID: the image's /etc/fstab (build.sh
# runs it as an mmdebstrap hook, after the kiosk's package made its group).
#   /                 the root file system
#   /boot/pharaon     the PHARAON partition (FAT): read-only, its files
#                     root:pharaon 0640 and directories 0750, so the kiosk
#                     reads the site file and its keys and no other user does
#   /var/lib/pharaon  the data partition: grown with its partition
#                     (x-systemd.growfs), once systemd-repart grew that
# Both with nofail: the boot goes on without them; the kiosk's unit waits
# for each (RequiresMountsFor=/var/lib/pharaon, pharaon-site.conf).
set -eu
root=$1
gid=$(awk -F: '$1 == "pharaon" { print $3 }' "$root/etc/group")
[ -n "$gid" ] || { echo "fstab.sh: no group pharaon in $root/etc/group" >&2; exit 1; }
cat >"$root/etc/fstab" <<FSTAB
UUID=$2 / ext4 errors=remount-ro 0 1
UUID=$3 /boot/pharaon vfat ro,nosuid,nodev,noexec,uid=0,gid=$gid,fmask=0137,dmask=0027,utf8,shortname=mixed,nofail 0 0
UUID=$4 /var/lib/pharaon ext4 nofail,nodev,nosuid,noexec,x-systemd.growfs,x-systemd.after=systemd-repart.service 0 2
FSTAB
