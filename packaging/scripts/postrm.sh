#!/bin/sh
# After removal, and even on purge, /var/lib/pharaon stays: it holds the
# ledger, the record of the money the regulation requires to keep. The
# pharaon user stays too, as it owns it.
set -e
if [ -d /run/systemd/system ]; then
	systemctl daemon-reload || true
fi
