#!/bin/sh
# Before removal: stop the kiosk (it finishes a voucher being printed). An
# upgrade does not stop it: the new package's postinst restarts it once the
# new files are in place (try-restart), so the kiosk is down for one restart
# only. deb-systemd-invoke obeys the machine's policy-rc.d.
set -e
if [ "$1" = remove ] && [ -d /run/systemd/system ]; then
	deb-systemd-invoke stop pharaon.service >/dev/null || true
fi
