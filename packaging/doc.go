// Package packaging ships the kiosk: the Debian package (deb.sh, built with
// nfpm by `make deb`), the cage session's systemd unit, udev rules for the
// cash devices' stable names, tmpfiles and sysusers entries and the default
// configuration under etc/.
//
// It holds no code of the kiosk: its Go tests build the package and check
// what it installs. It must never ship a file the manifest does not list.
package packaging
