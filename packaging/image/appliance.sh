#!/bin/sh
# appliance.sh ROOT STATE_UUID: the appliance's system services in the
# image's root tree (build.sh runs it as an mmdebstrap hook, after the
# kiosk's package): the root read-only, /var in memory and the machine id
# kept on the state partition of file-system UUID STATE_UUID (initramfs/,
# pharaon-machine-id.service), the journal kept there (journald.conf),
# the network (systemd-networkd, wired.network) and its names
# (systemd-resolved), the clock (systemd-timesyncd), the data partition
# grown to the disk (systemd-repart, repart-data.conf, grow-gpt), a new
# system confirmed or tried again (pharaon-boot-check.service), the field
# team's SSH off by default (sshd.conf, ssh.service.conf), USB sticks
# mounted read-only under /media (usb-media.rules, usb-mount), the kiosk
# ordered after its site partition (pharaon-site.conf), the cash
# devices' names from that partition (site-devices), and drivers a kiosk
# never uses left out (modprobe.conf).
set -eu
root=$1
state_uuid=$2
here=$(cd "$(dirname "$0")" && pwd)

install -D -m 0644 "$here/wired.network" "$root/etc/systemd/network/80-pharaon-wired.network"
# No unit of the kiosk waits for the network: a kiosk sells without one, and
# a boot without a cable must not wait for it.
chroot "$root" systemctl enable systemd-networkd.service systemd-resolved.service systemd-timesyncd.service
chroot "$root" systemctl disable systemd-networkd-wait-online.service
# Names through systemd-resolved's stub. Its package made this link when
# installed; build.sh put the build machine's file back for the hooks that
# download (the link leads nowhere in the tree).
ln -sf ../run/systemd/resolve/stub-resolv.conf "$root/etc/resolv.conf"

install -D -m 0644 "$here/repart-data.conf" "$root/etc/repart.d/50-pharaon-data.conf"
install -D -m 0755 "$here/grow-gpt" "$root/usr/local/lib/pharaon/grow-gpt"
install -D -m 0644 "$here/pharaon-grow-gpt.service" "$root/etc/systemd/system/pharaon-grow-gpt.service"
chroot "$root" systemctl enable pharaon-grow-gpt.service

install -D -m 0644 "$here/sshd.conf" "$root/etc/ssh/sshd_config.d/50-pharaon.conf"
install -D -m 0644 "$here/ssh.service.conf" "$root/etc/systemd/system/ssh.service.d/50-pharaon.conf"
# The package made host keys at its installation: every kiosk flashed from
# this image would share them. Each kiosk makes its own (ssh.service.conf).
rm -f "$root"/etc/ssh/ssh_host_*

install -D -m 0644 "$here/usb-media.rules" "$root/etc/udev/rules.d/90-pharaon-usb-media.rules"
install -D -m 0755 "$here/usb-mount" "$root/usr/local/lib/pharaon/usb-mount"

# Drivers a kiosk never uses are not loaded (modprobe.conf).
install -D -m 0644 "$here/modprobe.conf" "$root/etc/modprobe.d/pharaon.conf"

install -D -m 0644 "$here/pharaon-site.conf" "$root/etc/systemd/system/pharaon.service.d/50-site.conf"
# The cash devices' names for other adapters, from PHARAON's
# cash-devices.conf (site-devices): the root is read-only.
install -D -m 0755 "$here/site-devices" "$root/usr/local/lib/pharaon/site-devices"
install -D -m 0644 "$here/pharaon-site-devices.service" "$root/etc/systemd/system/pharaon-site-devices.service"
chroot "$root" systemctl enable pharaon-site-devices.service
install -D -m 0644 "$here/pharaon-boot-check.service" "$root/etc/systemd/system/pharaon-boot-check.service"
chroot "$root" systemctl enable pharaon-boot-check.service
install -d -m 0755 "$root/boot/pharaon"

# The slot's root file system is mounted read-only (the kernel's "ro",
# build.sh): the initramfs puts /var in memory and binds the kiosk's
# machine id from the state partition (initramfs/pharaon-root); the
# journal goes to that partition (fstab.sh), bounded (journald.conf).
install -D -m 0755 "$here/initramfs/pharaon-hook" "$root/etc/initramfs-tools/hooks/pharaon-root"
sed "s/@STATE_UUID@/$state_uuid/g" "$here/initramfs/pharaon-root" >"$root/etc/initramfs-tools/scripts/init-bottom/pharaon-root"
chmod 0755 "$root/etc/initramfs-tools/scripts/init-bottom/pharaon-root"
install -D -m 0644 "$here/journald.conf" "$root/etc/systemd/journald.conf.d/50-pharaon.conf"
install -D -m 0644 "$here/pharaon-machine-id.service" "$root/etc/systemd/system/pharaon-machine-id.service"
chroot "$root" systemctl enable pharaon-machine-id.service
# Every kiosk from this image makes its own machine id (an empty file: not
# a first boot, systemd makes a transient id, kept by the unit above).
: >"$root/etc/machine-id"
chroot "$root" update-initramfs -u -k all
