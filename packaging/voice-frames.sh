#!/usr/bin/env bash
# Measures what the player's voice costs the game: the real binary
# (bin/pharaon -dev -fps) on a virtual screen at 1280×800 plays the same
# 2 € game (the showcase database's first 2 € unit: three snakes, then the
# bonus wall) with the voice off and on, turn about, ROUNDS times each, and
# prints each game's frame figures from the -fps log, from its start to
# three seconds after its bonus window (a line a second:
# frames per second, the longest gap between two frames, frames dropped)
# and how many sentences were said during it. The voice writes to a WAV
# file (-voice-wav) so espeak-ng synthesises every sentence in full on a
# machine without sound.
#   packaging/voice-frames.sh [ROUNDS]     (3 by default; make build first)
# VOICE_FRAMES_LOGS=DIR keeps each game's kiosk log there.
# Needs go, xvfb, xdotool (as make screenshots does) and espeak-ng.
# shellcheck source=packaging/screenshots-lib.sh
source "$(dirname "$0")/screenshots-lib.sh" ""
rounds=${1:-3}
player_session
screen 1280x800

# game plays the 2 € unit with the voice $1 (on or off) and prints its
# figures.
game() {
	start -voice-wav "$work/voice.wav"
	if [ "$1" = on ]; then
		tap 281 86       # Voix
		waitlog "voice fr: Voix activée"
	fi
	tap 817 706          # 10 € into the simulated validator
	waitlog "note of"
	tap 1103 358         # 2 €
	tap 1064 459 0       # Auto
	waitlog "show game none"
	local from=$seen
	waitlog "show game bonus-win" 180
	frames 3 # the window said, over the frames after it
	tail -n +$((from + 1)) "$log" | head -n $((seen - from)) | awk -v voice="$1" '
		/fps [0-9]/ {
			sub(/.*msg="/, "")
			gsub(/"/, "")
			for (i = 1; i <= NF; i++) {
				if ($i == "fps") fps += $(i + 1)
				if ($i == "gap_ms_max" && $(i + 1) > gap) gap = $(i + 1)
				if ($i == "dropped") dropped += $(i + 1)
				if ($i == "work_ms_avg") work += $(i + 1)
			}
			n++
		}
		/voice fr:/ { said++ }
		END {
			printf "voice %-3s  seconds %3d  fps_mean %5.1f  gap_ms_max %6.1f  dropped %4d  work_ms_avg %.3f  sentences %d\n",
				voice, n, fps / n, gap, dropped, work / n, said
		}'
	if [ -n "${VOICE_FRAMES_LOGS:-}" ]; then
		runs=$((runs + 1))
		cp "$log" "$VOICE_FRAMES_LOGS/voice-$1-$runs.log"
	fi
}
runs=0

for _ in $(seq "$rounds"); do
	game off
	game on
done
