// Package packaging ships the kiosk: the Debian package (deb.sh, built with
// nfpm by `make deb`), the cage session's systemd unit, udev rules for the
// cash devices' stable names, tmpfiles and sysusers entries, the default
// configuration under etc/, and the disk image's build and boot test
// (image/, `make image` and `make vm-test`).
//
// It holds no code of the kiosk: its Go tests build the package and check
// what it installs. It must never ship a file the manifest does not list.
package packaging
