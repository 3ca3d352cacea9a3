#!/bin/bash
# deb.sh BINARY VERSION OUTDIR: builds OUTDIR/pharaon_VERSION_ARCH.deb with
# nfpm (pinned below) from the kiosk binary and the files of this folder, and
# prints the package's path.
#
# The table FILES is the one list of what the package installs: the nfpm
# configuration and the manifest of SHA-256 sums (installed as
# /usr/share/pharaon/MANIFEST.sha256, checked with
# `sha256sum -c /usr/share/pharaon/MANIFEST.sha256`) are both made from it.
#
# With SIGN_MANIFEST set (make deb UPDATE_KEY=FILE.key sets it to
# `pharaon-issuer sign-manifest -key FILE.key`), the manifest is signed
# (MANIFEST.sha256.sig beside it): the kiosk then checks its binary against
# the signed manifest at every boot (kiosk/selftest.go). Nothing in the
# configuration turns that check on or off (the manifest does not cover
# /etc/pharaon): the signed manifest's presence does, and the stamp make deb
# puts in the binary of a signed package (cmd/pharaon/kiosk.go).
set -euo pipefail

if [ $# -ne 3 ]; then
	echo "usage: $0 BINARY VERSION OUTDIR" >&2
	exit 2
fi
bin=$(realpath "$1")
version=$2
out=$(realpath -m "$3")
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
NFPM=${NFPM:-go run github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2}
arch=${GOARCH:-$(go env GOARCH)}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

# Package timestamps from the commit, for a package that is the same bytes
# when built twice from the same tree.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$here" log -1 --format=%ct 2>/dev/null || echo 0)}
maintainer="Pharaon kiosk team <kiosk@pharaon.invalid>"

# The package's changelog, as Debian's tools read it: one entry, for the
# version built, naming the commit (the source's history is its git log). The
# package is native (its packaging is in the kiosk's source, and its version
# has no Debian revision), so the file is changelog.gz, not
# changelog.Debian.gz. gzip -9n: no name nor time in it, the same bytes twice.
commit=$(git -C "$here" log -1 --format=%h 2>/dev/null || echo unknown)
{
	echo "pharaon ($version) unstable; urgency=medium"
	echo
	echo "  * Built from the kiosk's source at commit $commit."
	echo "    The changes are in the source's history (git log)."
	echo
	echo " -- $maintainer  $(date -u -R -d "@$SOURCE_DATE_EPOCH")"
} >"$work/changelog"
gzip -9n "$work/changelog"
gzip -9n <"$here/man/pharaon.1" >"$work/pharaon.1.gz"

# mode, nfpm type, source, destination. The configuration is 0640 and in the
# group pharaon from the moment dpkg unpacks it: no other user reads it, not
# even before the postinst runs (docs/threat-model.md, scripts/postinst.sh).
FILES=(
	"0755 file $bin /usr/bin/pharaon"
	"0644 file $here/systemd/pharaon.service /usr/lib/systemd/system/pharaon.service"
	"0644 file $here/systemd/pharaon-helper.socket /usr/lib/systemd/system/pharaon-helper.socket"
	"0644 file $here/systemd/pharaon-helper.service /usr/lib/systemd/system/pharaon-helper.service"
	"0644 file $here/systemd/pharaon.tmpfiles /usr/lib/tmpfiles.d/pharaon.conf"
	"0644 file $here/systemd/pharaon.sysusers /usr/lib/sysusers.d/pharaon.conf"
	"0644 file $here/udev/60-pharaon.rules /usr/lib/udev/rules.d/60-pharaon.rules"
	"0640 config $here/etc/pharaon.conf /etc/pharaon/pharaon.conf"
	"0640 config $here/etc/environment /etc/pharaon/environment"
	"0644 file $top/docs/kiosk-config.md /usr/share/doc/pharaon/kiosk-config.md"
	"0644 file $top/docs/technician.md /usr/share/doc/pharaon/technician.md"
	"0644 file $here/debian/copyright /usr/share/doc/pharaon/copyright"
	"0644 file $work/changelog.gz /usr/share/doc/pharaon/changelog.gz"
	"0644 file $work/pharaon.1.gz /usr/share/man/man1/pharaon.1.gz"
	"0644 file $here/debian/lintian-overrides /usr/share/lintian/overrides/pharaon"
)

manifest=$work/MANIFEST.sha256
: >"$manifest"
for f in "${FILES[@]}"; do
	read -r mode type src dst <<<"$f"
	[ -f "$src" ] || { echo "deb.sh: missing $src" >&2; exit 1; }
	sum=$(sha256sum <"$src")
	echo "${sum%% *}  $dst" >>"$manifest"
done
signed=
if [ -n "${SIGN_MANIFEST:-}" ]; then
	$SIGN_MANIFEST "$manifest"
	signed=$manifest.sig
fi

conf=$work/nfpm.yaml
{
	cat <<YAML
name: pharaon
arch: $arch
platform: linux
version: $version
version_schema: none
section: misc
priority: optional
maintainer: $maintainer
description: |-
  firmware of a retail lottery kiosk with a touchscreen
  The kiosk sells and plays Pharaon, an instant-win game whose outcomes come
  from signed ticket blocks, revealed through a brick-breaker. It keeps its
  ledger in SQLite, takes bank notes through a JCM ID-003 bill validator,
  prints vouchers on an ESC/POS printer, and runs fullscreen as a cage
  session started by systemd (pharaon.service).
  .
  Shop staff and technicians run it from a PIN-protected maintenance
  screen; /usr/share/doc/pharaon/technician.md is the technician's guide.
vendor: Pharaon
license: Proprietary
depends:
  - libc6
  - libgl1
  - libgl1-mesa-dri
  - libx11-6
  - libxcursor1
  - libxrandr2
  - libxinerama1
  - libxi6
  - libxxf86vm1
  - cage
  - xwayland
  - seatd
  - tpm-udev
  - systemd
  - udev
  - fonts-dejavu-core
  - locales
  - espeak-ng
scripts:
  postinstall: $here/scripts/postinst.sh
  preremove: $here/scripts/prerm.sh
  postremove: $here/scripts/postrm.sh
contents:
  - src: $manifest
    dst: /usr/share/pharaon/MANIFEST.sha256
    file_info:
      mode: 0644
YAML
	if [ -n "$signed" ]; then
		echo "  - src: $signed"
		echo "    dst: /usr/share/pharaon/MANIFEST.sha256.sig"
		echo "    file_info:"
		echo "      mode: 0644"
	fi
	for f in "${FILES[@]}"; do
		read -r mode type src dst <<<"$f"
		echo "  - src: $src"
		echo "    dst: $dst"
		[ "$type" = file ] || echo "    type: $type"
		echo "    file_info:"
		echo "      mode: $mode"
		[ "$type" = file ] || echo "      group: pharaon"
	done
} >"$conf"

deb=$out/pharaon_${version}_${arch}.deb
$NFPM package --config "$conf" --packager deb --target "$deb" >&2
echo "$deb"
