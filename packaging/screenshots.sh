#!/usr/bin/env bash
# Takes the maintenance screenshots of docs/screenshots/ again from the real
# binary: bin/pharaon -dev on a virtual screen (Xvfb) at 1280×800, driven
# with xdotool as a finger would (the hidden corner held 3 s, the PIN and a
# voucher's number typed as a keyboard or a scanner types them, the menu's
# entries tapped), each view saved with ImageMagick's import.
#   make screenshots            (or: packaging/screenshots.sh [OUT_DIR])
# Needs xvfb, xdotool and imagemagick (make screenshots installs them).
# Positions are those of the 1280×800 window; docs/screenshots/README.md
# lists them. Look at every picture after a run.
# shellcheck source=packaging/screenshots-lib.sh
source "$(dirname "$0")/screenshots-lib.sh"
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

Xvfb "$disp" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
pids+=($!)
sleep 1

# The demo PINs of a -dev run (cmd/pharaon/devseed.go).
staff=111111 tech=222222

# A copy of the binary: the software identity view shows its path.
cp "$bin" "$work/pharaon"
log=$work/pharaon.log
# A USB stick of the development run (usb/sda1 beside its database,
# cmd/pharaon/devstick.go) with an update bundle on it.
mkdir -p "$work/usb/sda1/mises-a-jour"
printf 'not a bundle' >"$work/usb/sda1/mises-a-jour/pharaon_1.4.0_amd64.update"
start() {
	: >"$log"
	"$work/pharaon" -dev -fullscreen=false -db "$work/pharaon.db" -kiosk-id PH-DEV-01 -venue "Tabac de la Gare, Lyon" >"$log" 2>&1 &
	app=$!
	pids+=("$app")
}
start

# waitlog waits until the kiosk's log says $1 (at most 60 s).
waitlog() {
	for _ in $(seq 600); do
		grep -q "$1" "$log" && return 0
		sleep 0.1
	done
	echo "screenshots: the kiosk never logged \"$1\"; its log:" >&2
	tail -20 "$log" >&2
	exit 1
}
# corner holds the hidden corner 3 s (the press needs a move inside the
# window first).
corner() { xdotool mousemove 10 10 sleep 0.3 mousemove 14 14 sleep 0.3 mousedown 1 sleep 3.6 mouseup 1; sleep 1.5; }
pin() { xdotool type --delay 80 "$1"; xdotool key Return; sleep 2.5; }
# entry taps the menu's entry n (1 the first under the menu's top).
menu() { tap 130 $((${2:-113} + 62 * ($1 - 1))) 2; }
# Staff's entries, from the menu's top at y = 113; the technician's menu
# starts with its own seven under a heading (y = 149), then the staff's.
tmenu() { tap 130 $((149 + 62 * ($1 - 1))) 2; }

waitlog "home shown"
shot maint-dev-panel.png

# Money for the views to show: a 20 € note through the development
# panel, a 1 € game in Auto, then the rest cashed out on a voucher.
tap 882 706 4      # 20 € into the simulated validator
tap 947 358        # the 1 € stake
tap 1064 459 20    # Auto, to the game's end
tap 661 682 2      # Accueil
tap 1064 596 1.5   # Encaisser
tap 786 476 6      # Imprimer
tap 640 570 1      # Terminé
voucher=$(grep -oE '[0-9]{18}' "$work/vouchers/0001.txt" | head -1)

# The staff.
corner
shot maint-pin.png
pin $staff
shot maint-menu.png
menu 1
xdotool type --delay 30 "${voucher:0:17}$(( (${voucher:17:1} + 1) % 10 ))"; xdotool key Return
shot maint-voucher-mistyped.png
# The duplicate while the voucher is payable, printed: the printer's
# picture of it is the DUPLICATA itself.
menu 2; shot maint-reprint.png
tap 433 432 6      # Imprimer le duplicata
cp "$work/vouchers/0002.png" "$out/maint-duplicata.png" && echo "$out/maint-duplicata.png"
menu 1
xdotool type --delay 30 "$voucher"; xdotool key Return
shot maint-voucher-paid.png 2.5
menu 1
xdotool type --delay 30 "$voucher"; xdotool key Return
shot maint-voucher.png 2.5
menu 2; shot maint-reprint-paid.png   # paid: no duplicate, and why
menu 3; shot maint-held.png
menu 4; shot maint-handpay.png
menu 5; shot maint-cashbox.png
menu 6; shot maint-printer.png
menu 7; shot maint-recall.png
tap 1142 387 45; shot maint-replay.png 0   # the replay to its end (it says whether it matches)
menu 8; shot maint-meters.png
menu 9; shot maint-events.png 30   # its first page can take seconds on a busy machine
menu 10; shot maint-daily.png
menu 11; shot maint-pins.png
tap 1163 38 2      # Quitter

# The technician.
corner
pin $tech
shot maint-menu-technician.png
tmenu 1; shot maint-blocks.png
tmenu 2; shot maint-settings.png
tmenu 3; shot maint-devices.png
tmenu 4; shot maint-identity.png
tmenu 6; shot maint-fault-in-service.png
tmenu 7; shot maint-usb.png
tap 1157 490 3     # Vérifier: refused, a development run trusts no update key
shot maint-usb-refused.png
tap 399 570 4      # Exporter les journaux
shot maint-usb-exported.png
tmenu 5; shot maint-testmode.png
tap 405 547 3      # Démarrer le mode test (the validator opens at its next poll)
tap 608 686 5      # a 10 € note from the view's development row
tap 650 547 2      # Actualiser
shot maint-testmode-on.png
tap 1163 38 2      # Quitter: test mode is on, the kiosk asks
shot maint-testmode-leave.png
tap 752 492 2      # Arrêter et quitter
shot maint-testmode-left.png

# The out-of-service screen: the kiosk restarted without its anchor file
# (fault "anchor"), then the technician's diagnosis session and its fault.
kill "$app"; wait "$app" 2>/dev/null || true
rm "$work/pharaon.anchor"
start
waitlog "kiosk out_of_service"
shot outofservice.png 3
corner
pin $tech
shot maint-menu-diagnosis.png
tmenu 3; shot maint-fault.png     # the diagnosis menu: devices, identity, fault
tap 1163 38 2      # Quitter

# The PIN pad locked after three wrong PINs (last: the lock outlives a
# restart, and would keep the next session out for a minute).
corner
pin 999999; pin 999999; pin 999999
shot maint-pin-locked.png
echo "screenshots: done; look at each picture"
