# shellcheck shell=bash disable=SC2034 # out, bin, work: the sourcing script's
# What packaging/screenshots.sh, packaging/screenshots-player.sh and
# packaging/voice-frames.sh share,
# sourced by each with its arguments: the output directory ($1, else
# docs/screenshots), the binary, a work directory, a free display for Xvfb,
# and the finger and the camera (tap, shot); and for the two that play the
# player's games, the showcase database, the virtual screen and the kiosk
# started on a copy of that database (player_session, screen, start).
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

xvfb="" app=""
log=$work/pharaon.log
seen=0 # the log's lines waitlog has read past

# player_session stops the kiosk and the virtual screen and removes the
# work directory at exit, and makes the showcase database: a block of each
# stake whose first units are a loser (0,50 €), three birds (1 €) and a
# prize through the bonus game (2 €) (cmd/pharaon/showcase_test.go).
player_session() {
	trap 'stop "$app"; stop "$xvfb"; rm -rf "$work"' EXIT
	trap exit INT TERM
	PHARAON_SHOWCASE_DIR=$work/showcase ${GO:-go} test -count=1 ./cmd/pharaon -run '^TestShowcaseDatabase$' >/dev/null
}

# screen starts a virtual screen of $1 (WIDTHxHEIGHT) in place of the last.
screen() {
	stop "$app"
	app=""
	stop "$xvfb"
	Xvfb "$disp" -screen 0 "${1}x24" -nolisten tcp >/dev/null 2>&1 &
	xvfb=$!
	for _ in $(seq 100); do xdpyinfo >/dev/null 2>&1 && return 0; sleep 0.1; done
	echo "$(basename "$0"): Xvfb $disp did not start" >&2
	exit 1
}

# start runs the kiosk (with the flags given, after -dev -fps) on a fresh
# copy of the showcase database (its anchor and trust root beside it), and
# waits for home.
start() {
	stop "$app"
	rm -rf "$work/run"
	mkdir "$work/run"
	cp "$work/showcase/"{showcase.db,pharaon.anchor,trust.secret,trust.counter} "$work/run/"
	: >"$log"
	seen=0
	"$bin" -dev -fps -db "$work/run/showcase.db" -keys "$work/showcase/showcase.pub" "$@" >"$log" 2>&1 &
	app=$!
	waitlog "home shown" 120
}
