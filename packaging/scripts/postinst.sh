#!/bin/sh
# After unpacking: the kiosk's user and data directory, the devices' stable
# names, the unit enabled on the first install only, and the kiosk started or
# restarted. In a chroot (the disk image's build, packaging/image) nothing is
# reloaded or started: the host's udev and systemd are not ours.
#
# The unit is handled by deb-systemd-helper and deb-systemd-invoke, as
# debhelper's own maintainer scripts do: an upgrade keeps the unit disabled
# when the technician disabled it, and a start or restart obeys the machine's
# policy-rc.d (a policy that forbids it, as in a chroot, wins).
set -e
# Live only when / is PID 1's root; when that cannot be read (as in the image's
# build, where systemd-detect-virt --chroot fails with "permission denied"),
# assume a chroot: starting nothing is the safe side.
live=
if [ -d /run/systemd/system ] && [ "$(stat -c %d:%i / 2>/dev/null)" = "$(stat -L -c %d:%i /proc/1/root 2>/dev/null)" ]; then
	live=yes
fi
case "$1" in
configure | abort-upgrade | abort-deconfigure | abort-remove) ;;
*) exit 0 ;;
esac
if [ "$1" = configure ]; then
	systemd-sysusers pharaon.conf
	systemd-tmpfiles --create pharaon.conf
	# The configuration is root's to write and the kiosk's to read, nobody
	# else's (docs/threat-model.md). The package ships both files 0640 in
	# the group pharaon, which does not exist yet on a first install: dpkg
	# then unpacks them in root's group, unreadable by others all the same,
	# and they come to the kiosk's group here, once sysusers made it. A file
	# the technician edited and dpkg kept is put right the same way.
	for f in /etc/pharaon/pharaon.conf /etc/pharaon/environment; do
		if [ -f "$f" ]; then chgrp pharaon "$f" && chmod 0640 "$f"; fi
	done
	if [ -n "$live" ] && [ -d /run/udev ]; then
		udevadm control --reload-rules || true
		udevadm trigger --subsystem-match=tty --action=add || true
	fi
fi
# Enabled on the first install (systemd's presets decide, "enable" by
# default), and on an upgrade only when it was enabled before: a kiosk the
# technician disabled stays disabled. A removal left the unit masked
# (postrm); a reinstall unmasks it.
#
# The maintenance helper's socket (pharaon-helper.socket, kiosk/helper) the
# same way: the maintenance screen's USB stick actions need it. Its service
# starts on a request and ends when idle, so an upgrade restarts nothing of
# it: the next request runs the new binary.
for unit in pharaon.service pharaon-helper.socket; do
	deb-systemd-helper unmask "$unit" >/dev/null || true
	if deb-systemd-helper --quiet was-enabled "$unit"; then
		deb-systemd-helper enable "$unit" >/dev/null
	else
		deb-systemd-helper update-state "$unit" >/dev/null
	fi
done
if [ -n "$live" ]; then
	systemctl --system daemon-reload >/dev/null
	# Started when enabled, on an upgrade too (a version without it before);
	# a start of a listening socket changes nothing.
	deb-systemd-invoke start pharaon-helper.socket
	if [ -n "$2" ]; then
		# An upgrade (pharaon update, kiosk/update): the new binary runs from
		# now, but only if the kiosk was running: try-restart never starts a
		# kiosk the technician stopped (to import a block, to save its data).
		deb-systemd-invoke try-restart pharaon.service
	else
		# A first install: started when enabled (deb-systemd-invoke starts
		# no disabled unit).
		deb-systemd-invoke start pharaon.service
	fi
fi
