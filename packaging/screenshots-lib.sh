# shellcheck shell=bash disable=SC2034 # out, bin, work: the sourcing script's
# What packaging/screenshots.sh and packaging/screenshots-player.sh share,
# sourced by both with their arguments: the output directory ($1, else
# docs/screenshots), the binary, a work directory, a free display for Xvfb,
# and the finger and the camera (tap, shot).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=${1:-docs/screenshots}
bin=${PHARAON_BIN:-bin/pharaon}
work=$(mktemp -d)
disp=:$((150 + RANDOM % 100))
export DISPLAY=$disp LANG=fr_FR.UTF-8

# shot saves the screen as $out/$1 after $2 s (1.5 by default).
shot() { sleep "${2:-1.5}"; import -window root "$out/$1"; echo "$out/$1"; }
# tap taps (x, y) = ($1, $2), then waits $3 s (0.8 by default).
tap() { xdotool mousemove "$1" "$2" sleep 0.2 click 1; sleep "${3:-0.8}"; }
