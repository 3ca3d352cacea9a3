#!/bin/sh
# After removal, and even on purge, /var/lib/pharaon stays: it holds the
# ledger, the record of the money the regulation requires to keep. The
# pharaon user stays too, as it owns it.
#
# The unit as debhelper's scripts leave it: masked after a removal (until the
# package comes back: postinst unmasks it), its links and deb-systemd-helper's
# record of them gone after a purge.
set -e
if [ "$1" = remove ] && [ -d /run/systemd/system ]; then
	systemctl --system daemon-reload >/dev/null || true
fi
if command -v deb-systemd-helper >/dev/null; then
	case "$1" in
	remove) deb-systemd-helper mask pharaon.service pharaon-helper.socket >/dev/null || true ;;
	purge) deb-systemd-helper purge pharaon.service pharaon-helper.socket >/dev/null || true ;;
	esac
fi
