#!/bin/sh
# Before removal: stop the kiosk (it finishes a voucher being printed). An
# upgrade does not stop it: the new package's postinst restarts it once the
# new files are in place (try-restart), so the kiosk is down for one restart
# only. deb-systemd-invoke obeys the machine's policy-rc.d. The maintenance
# helper goes with the kiosk: its socket, and its service if it runs.
set -e
if [ "$1" = remove ] && [ -d /run/systemd/system ]; then
	deb-systemd-invoke stop pharaon.service pharaon-helper.socket pharaon-helper.service >/dev/null || true
fi
