#!/bin/sh
# After unpacking: the kiosk's user and data directory, the devices' stable
# names, the unit enabled. In a chroot (the disk image's build, packaging/image)
# nothing is reloaded or started: the host's udev and systemd are not ours.
set -e
live=
if ! systemd-detect-virt -q --chroot; then
	live=yes
fi
if [ "$1" = configure ]; then
	systemd-sysusers pharaon.conf
	systemd-tmpfiles --create pharaon.conf
	if [ -n "$live" ] && [ -d /run/udev ]; then
		udevadm control --reload-rules || true
		udevadm trigger --subsystem-match=tty --action=add || true
	fi
	systemctl enable pharaon.service
	if [ -n "$live" ] && [ -d /run/systemd/system ]; then
		systemctl daemon-reload
		if [ -n "$2" ]; then
			# An update: the new binary runs from the next start.
			systemctl try-restart pharaon.service
		else
			systemctl start pharaon.service
		fi
	fi
fi
