#!/bin/sh
# After unpacking: the kiosk's user and data directory, the devices' stable
# names, the unit enabled. In a chroot (the disk image's build, packaging/image)
# nothing is reloaded or started: the host's udev and systemd are not ours.
set -e
# Live only when / is PID 1's root; when that cannot be read (as in the image's
# build, where systemd-detect-virt --chroot fails with "permission denied"),
# assume a chroot: starting nothing is the safe side.
live=
if [ -d /run/systemd/system ] && [ "$(stat -c %d:%i / 2>/dev/null)" = "$(stat -L -c %d:%i /proc/1/root 2>/dev/null)" ]; then
	live=yes
fi
if [ "$1" = configure ]; then
	systemd-sysusers pharaon.conf
	systemd-tmpfiles --create pharaon.conf
	# The configuration is root's to write and the kiosk's to read, nobody
	# else's (docs/threat-model.md); the group exists from sysusers above.
	for f in /etc/pharaon/pharaon.conf /etc/pharaon/environment; do
		if [ -f "$f" ]; then chgrp pharaon "$f" && chmod 0640 "$f"; fi
	done
	if [ -n "$live" ] && [ -d /run/udev ]; then
		udevadm control --reload-rules || true
		udevadm trigger --subsystem-match=tty --action=add || true
	fi
	systemctl enable pharaon.service
	if [ -n "$live" ]; then
		systemctl daemon-reload
		if [ -n "$2" ]; then
			# An update: the new binary runs from the next start.
			systemctl try-restart pharaon.service
		else
			systemctl start pharaon.service
		fi
	fi
fi
