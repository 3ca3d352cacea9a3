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

# mode, nfpm type, source, destination
FILES=(
	"0755 file $bin /usr/bin/pharaon"
	"0644 file $here/systemd/pharaon.service /usr/lib/systemd/system/pharaon.service"
	"0644 file $here/systemd/pharaon.tmpfiles /usr/lib/tmpfiles.d/pharaon.conf"
	"0644 file $here/systemd/pharaon.sysusers /usr/lib/sysusers.d/pharaon.conf"
	"0644 file $here/udev/60-pharaon.rules /usr/lib/udev/rules.d/60-pharaon.rules"
	"0644 config $here/etc/pharaon.conf /etc/pharaon/pharaon.conf"
	"0644 config $here/etc/environment /etc/pharaon/environment"
	"0644 file $top/docs/kiosk-config.md /usr/share/doc/pharaon/kiosk-config.md"
	"0644 file $top/docs/technician.md /usr/share/doc/pharaon/technician.md"
)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

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
maintainer: Pharaon kiosk team <kiosk@pharaon.invalid>
description: |-
  Pharaon lottery kiosk
  The firmware of a retail lottery kiosk: the player's touchscreen, the
  SQLite ledger, the JCM ID-003 bill validator and the ESC/POS voucher
  printer, run as a cage kiosk session by systemd (pharaon.service).
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
	done
} >"$conf"

deb=$out/pharaon_${version}_${arch}.deb
# Package timestamps from the commit, for a package that is the same bytes
# when built twice from the same tree.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$here" log -1 --format=%ct 2>/dev/null || echo 0)}
$NFPM package --config "$conf" --packager deb --target "$deb" >&2
echo "$deb"
