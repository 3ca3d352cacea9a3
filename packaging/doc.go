// Package packaging ships the kiosk: the Debian package (deb.sh, built with
// nfpm by `make deb`), the cage session's systemd unit, udev rules for the
// cash devices' stable names, tmpfiles and sysusers entries, the default
// configuration under etc/, the package's Debian files (debian/: copyright,
// lintian overrides; man/: its manual page), the disk image's build and boot
// test (image/, `make image` and `make vm-test`), and gotoolchain.sh, which
// fetches the Go toolchain for `make deps` on a machine whose go is too old.
//
// It holds no code of the kiosk: its Go tests build the package and check
// what it installs. It must never ship a file the manifest does not list.
package packaging
