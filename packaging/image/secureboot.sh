#!/bin/bash
# secureboot.sh: Secure Boot with the operator's own keys, for the kiosk's
# image (build.sh SECUREBOOT_KEYS=DIR; docs/technician.md).
#
#   secureboot.sh keys DIR
#       makes the operator's three keys in DIR (made 0700; an existing key
#       is never replaced): PK (the platform's owner), KEK (who may change
#       the database) and db (what may boot), each as NAME.key (private,
#       0600) and NAME.crt (X.509, 10 years), and the signed lists the
#       firmware enrolls, NAME.auth (PK.auth signed by PK, KEK.auth by PK,
#       db.auth by KEK). The private keys stay with the operator: only the
#       .auth files go on a kiosk's disk, and db.key signs what boots.
#   secureboot.sh uki OUT VMLINUZ INITRD CMDLINE OSRELEASE
#       a unified kernel image: systemd's EFI stub with the kernel, the
#       initrd, the command line and the os-release in its sections: one
#       file that a signature covers whole, and whose command line a boot
#       loader cannot change while Secure Boot is on.
#   secureboot.sh sign DIR IN OUT
#       IN signed with DIR's db key (sbsign), verified, written to OUT.
#
# Needs openssl, efitools (cert-to-efi-sig-list, sign-efi-sig-list),
# sbsigntool, binutils (objcopy) and systemd-boot-efi (the stub).
set -euo pipefail

stub=/usr/lib/systemd/boot/efi/linuxx64.efi.stub
need() {
	for t in "$@"; do
		command -v "$t" >/dev/null || { echo "secureboot.sh: $t missing (apt-get install openssl efitools sbsigntool binutils)" >&2; exit 1; }
	done
}

case ${1:-} in
keys)
	[ $# -eq 2 ] || { echo "usage: $0 keys DIR" >&2; exit 2; }
	need openssl cert-to-efi-sig-list sign-efi-sig-list
	dir=$2
	mkdir -p "$dir"
	chmod 0700 "$dir"
	# One owner GUID for the operator's lists.
	[ -f "$dir/GUID" ] || cat /proc/sys/kernel/random/uuid >"$dir/GUID"
	guid=$(cat "$dir/GUID")
	for k in PK KEK db; do
		if [ -f "$dir/$k.key" ]; then
			echo "secureboot.sh: $dir/$k.key exists: kept" >&2
			continue
		fi
		(umask 077 && openssl req -quiet -new -x509 -newkey rsa:2048 -nodes -sha256 -days 3650 \
			-subj "/CN=Pharaon operator $k/" -keyout "$dir/$k.key" -out "$dir/$k.crt" 2>/dev/null)
		cert-to-efi-sig-list -g "$guid" "$dir/$k.crt" "$dir/$k.esl"
	done
	# The lists the firmware takes in setup mode: PK and KEK signed by PK,
	# db by KEK (a timestamp in each).
	sign-efi-sig-list -g "$guid" -k "$dir/PK.key" -c "$dir/PK.crt" PK "$dir/PK.esl" "$dir/PK.auth" >/dev/null
	sign-efi-sig-list -g "$guid" -k "$dir/PK.key" -c "$dir/PK.crt" KEK "$dir/KEK.esl" "$dir/KEK.auth" >/dev/null
	sign-efi-sig-list -g "$guid" -k "$dir/KEK.key" -c "$dir/KEK.crt" db "$dir/db.esl" "$dir/db.auth" >/dev/null
	echo "secureboot.sh: the operator's keys in $dir (PK, KEK, db: .key, .crt, .auth)"
	;;
uki)
	[ $# -eq 6 ] || { echo "usage: $0 uki OUT VMLINUZ INITRD CMDLINE OSRELEASE" >&2; exit 2; }
	need objcopy
	[ -f "$stub" ] || { echo "secureboot.sh: $stub missing (apt-get install systemd-boot-efi)" >&2; exit 1; }
	out=$2 kernel=$3 initrd=$4 cmdline=$5 osrel=$6
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	printf '%s' "$cmdline" >"$tmp/cmdline"
	# The sections after the stub's own, each at an address of its own:
	# the kernel last but one and the initrd last, with room for both.
	ksize=$(stat -c %s "$kernel")
	initrd_vma=$((0x2000000 + (ksize + 0xfffff) / 0x100000 * 0x100000))
	objcopy \
		--add-section .osrel="$osrel" --change-section-vma .osrel=0x20000 \
		--add-section .cmdline="$tmp/cmdline" --change-section-vma .cmdline=0x30000 \
		--add-section .linux="$kernel" --change-section-vma .linux=0x2000000 \
		--add-section .initrd="$initrd" --change-section-vma .initrd=$(printf '0x%x' "$initrd_vma") \
		"$stub" "$out"
	;;
sign)
	[ $# -eq 4 ] || { echo "usage: $0 sign DIR IN OUT" >&2; exit 2; }
	need sbsign sbverify
	dir=$2
	sbsign --key "$dir/db.key" --cert "$dir/db.crt" --output "$4.tmp" "$3" 2>/dev/null
	sbverify --cert "$dir/db.crt" "$4.tmp" >/dev/null
	mv "$4.tmp" "$4"
	;;
*)
	echo "usage: $0 keys DIR | uki OUT VMLINUZ INITRD CMDLINE OSRELEASE | sign DIR IN OUT" >&2
	exit 2
	;;
esac
