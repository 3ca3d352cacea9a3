#!/bin/sh
# fstab.sh ROOT ESP_ID STATE_UUID SITE_ID DATA_UUID: the image's /etc/fstab
# (build.sh runs it as an mmdebstrap hook, after the kiosk's package made
# its group). No line for /: the slot's root is the kernel's (root=PARTUUID=
# of the boot entry), and both slots are alike.
#   /efi              the EFI system partition, mounted when used (an
#                     update, a boot's confirmation), root's only
#   /var/lib/pharaon-state  the state both slots share: the first-install
#                     marker and the trust root are bound from it where the
#                     kiosk's configuration names them
#   /boot/pharaon     the PHARAON partition (FAT): read-only, its files
#                     root:pharaon 0640 and directories 0750, so the kiosk
#                     reads the site file and its keys and no other user does
#   /var/log/journal  the journal, on the state partition: one journal
#                     across restarts and slots (journald.conf bounds it)
#   /var/lib/pharaon  the data partition: grown with its partition
#                     (x-systemd.growfs), once systemd-repart grew that
#   /tmp, /media      in memory: the root file system is read-only (/var
#                     is in memory too: initramfs/pharaon-root); USB
#                     sticks are mounted under /media (usb-mount)
# All with nofail: the boot goes on without them; the kiosk's unit waits
# for each (RequiresMountsFor=/var/lib/pharaon, pharaon-site.conf).
set -eu
root=$1
gid=$(awk -F: '$1 == "pharaon" { print $3 }' "$root/etc/group")
[ -n "$gid" ] || { echo "fstab.sh: no group pharaon in $root/etc/group" >&2; exit 1; }
cat >"$root/etc/fstab" <<FSTAB
UUID=$2 /efi vfat umask=0077,nosuid,nodev,noexec,noauto,x-systemd.automount,x-systemd.idle-timeout=60,nofail 0 2
UUID=$3 /var/lib/pharaon-state ext4 nodev,nosuid,noexec,nofail 0 2
/var/lib/pharaon-state/install /var/lib/pharaon-install none bind,nofail,x-systemd.requires-mounts-for=/var/lib/pharaon-state 0 0
/var/lib/pharaon-state/trust /var/lib/pharaon-trust none bind,nofail,x-systemd.requires-mounts-for=/var/lib/pharaon-state 0 0
/var/lib/pharaon-state/journal /var/log/journal none bind,nofail,x-systemd.requires-mounts-for=/var/lib/pharaon-state 0 0
UUID=$4 /boot/pharaon vfat ro,nosuid,nodev,noexec,uid=0,gid=$gid,fmask=0137,dmask=0027,utf8,shortname=mixed,nofail 0 0
UUID=$5 /var/lib/pharaon ext4 nofail,nodev,nosuid,noexec,x-systemd.growfs,x-systemd.after=systemd-repart.service 0 2
tmpfs /tmp tmpfs mode=1777,nosuid,nodev,size=25% 0 0
tmpfs /media tmpfs mode=0755,nosuid,nodev,noexec,size=1M 0 0
FSTAB
mkdir -p "$root/efi" "$root/var/lib/pharaon-state" "$root/var/lib/pharaon-install" "$root/var/lib/pharaon-trust"
