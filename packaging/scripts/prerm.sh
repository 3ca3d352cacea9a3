#!/bin/sh
# Before removal: stop the kiosk (it finishes a voucher being printed).
set -e
if [ "$1" = remove ]; then
	if [ -d /run/systemd/system ]; then
		systemctl stop pharaon.service || true
	fi
	systemctl disable pharaon.service || true
fi
