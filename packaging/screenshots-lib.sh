# shellcheck shell=bash disable=SC2034 # out, bin, work: the sourcing script's
# What packaging/screenshots.sh, packaging/screenshots-player.sh and
# packaging/voice-frames.sh share,
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

# stop ends the process $1 (if any) and waits for it.
stop() {
	if [ -n "$1" ]; then kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; fi
}

# waitlog waits until a line of the kiosk's log ($log) after the last one
# it found ($seen, which it moves) says $1 (at most $2 s, 60 by default).
waitlog() {
	local n
	for _ in $(seq $((${2:-60} * 10))); do
		n=$(tail -n +$((seen + 1)) "$log" | grep -n -m1 -- "$1" | cut -d: -f1 || true)
		if [ -n "$n" ]; then
			seen=$((seen + n))
			return 0
		fi
		sleep 0.1
	done
	echo "$(basename "$0"): the kiosk never logged \"$1\"; its log:" >&2
	grep -v "fps [0-9]" "$log" | tail -20 >&2
	exit 1
}
# frames waits for $1 more seconds of game (the -fps log's line a second).
frames() { for _ in $(seq "$1"); do waitlog "fps [0-9]"; done; }
