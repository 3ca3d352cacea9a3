#!/usr/bin/env bash
# bench.sh: the kiosk's screens measured side by side with a peer scene
# (docs/performance.md). Each round runs every scene once, one after the
# other, each on its own Xvfb, so a load that changes during the run weighs
# on every scene alike; ROUNDS rounds alternate them (A B C A B C ...).
#
#   PEER=/path/to/fynescene cmd/pharaon-scenebench/bench.sh   (or make bench-scene PEER=...)
#
# Scenes (a scene whose binary is missing is skipped):
#   peer        the bare Fyne brick-breaker scene, PEER (built apart)
#   game        pharaon-scenebench: the game screen playing Auto walls (wins,
#               bonus games), the playfield's full backdrop drawn as in the kiosk
#   game_plain  the same with only the backdrop's frieze and base band
#               (-fullbackdrop=false, ui.Options.PlainPlayfield)
#   attract     pharaon-scenebench -scene attract: the idle kiosk's attract loop
#   game_1080   the game screen at 1920×1080 (frame rate and gaps), with
#               the whole backdrop (the kiosk's backdrop = full)
#   game_1080_plain  the same with its frieze and base band alone, as the
#               kiosk draws a 1920×1080 screen by default (backdrop = auto)
#   kiosk       bin/pharaon -dev on a development database: first frame
#               (its start-up screen), home, memory at home
#   kiosk_play  the same running a player's whole session (session, below:
#               notes, Jouer, Auto with a win, Rejouer, the bonus game, a
#               cash-out; xdotool taps): frame gaps and memory of the real
#               kiosk in play, measured over the session
#   kiosk_play_1080  the same at 1920×1080
#   kiosk_play_base, kiosk_play_1080_base  the same with BASE/pharaon, another
#               build (before and after a change, alternated in one run;
#               not in the default SCENES)
#
# Per run: first_ms (process start to its FIRST_FRAME line), home_ms (the
# kiosk's home screen), CPU of the scene and of Xvfb in % of one core over
# WIN seconds after WARM seconds, the median resident memory and its peak,
# the median and lowest fps, the longest frame gap seen and how many one-
# second periods had a gap over 33 ms. cpu_ms/frame is the scene's CPU
# time per frame drawn (cpu_pct × 10 / fps): on a loaded machine a starved
# scene draws fewer frames, and this is what a frame costs. CPU is
# utime+stime from /proc, as the peer scene's own script measures it. The
# table ends with each scene's medians over the rounds, and the load
# average. The kiosk's runs measure once its home screen is shown.
#
# Environment: PEER, BASE, ROUNDS (3), WARM (2 s), WIN (8 s), SCENES (all the
# scenes above but the capped one), SESSION (1; 0: the kiosk's runs in play
# are a 20 € note and one 2 € Auto game, then WIN s, for a build without
# -dev-seed), DEVSEED (112), BIN (bin, where this tree's pharaon and
# pharaon-scenebench are built first; another directory: its binaries as
# they are, to compare builds), OUT (a directory for the logs and
# results.csv; a new temporary one).
set -u
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-3} WARM=${WARM:-2} WIN=${WIN:-8}
SCENES=${SCENES:-peer game game_plain attract game_1080 kiosk kiosk_play kiosk_play_1080}
BIN=${BIN:-bin}
OUT=${OUT:-$(mktemp -d /tmp/pharaon-bench.XXXXXX)}
PEER=${PEER:-} BASE=${BASE:-}
export LANG=fr_FR.UTF-8 FYNE_SCALE=1
hz=$(getconf CLK_TCK)
mkdir -p "$OUT"
if [ "$BIN" = bin ]; then # the binaries of this tree; BIN=other/dir: as they are
	mkdir -p "$BIN" && go build -o "$BIN/" ./cmd/pharaon ./cmd/pharaon-scenebench || exit 1
fi
command -v Xvfb >/dev/null || { echo "bench.sh: Xvfb is needed (apt-get install xvfb)" >&2; exit 1; }
command -v xdotool >/dev/null || [[ " $SCENES " != *" kiosk_play"* ]] || { echo "bench.sh: xdotool is needed (apt-get install xdotool)" >&2; exit 1; }

# freedisp: a display number no X server holds.
freedisp() {
	local n
	while :; do n=$((140 + RANDOM % 200)); [ -e /tmp/.X$n-lock ] || { echo $n; return; }; done
}
# The kiosk's runs in play: the scripted session (SESSION=1, the default)
# on a database whose demo blocks are drawn from DEVSEED, or (SESSION=0,
# for a build without -dev-seed) a 20 € note and one 2 € Auto game, then
# WIN s measured.
DEVSEED=${DEVSEED:-112} SESSION=${SESSION:-1}
if [ "$SESSION" = 1 ]; then
	seeded="-dev-seed $DEVSEED" played="-prep athome -session session"
else
	seeded="" played="-prep play"
fi
# A development database made once, before the rounds: every kiosk run
# starts on it as a kiosk restarts on its own (not a first start).
kdata=$OUT/kiosk
if [[ " $SCENES " == *" kiosk"* ]]; then
	mkdir -p "$kdata"
	d=:$(freedisp)
	Xvfb $d -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 & x=$!
	sleep 1
	DISPLAY=$d timeout 120 "$BIN/pharaon" -dev $seeded -db "$kdata/pharaon.db" >"$OUT/kiosk.provision.log" 2>&1 & k=$!
	for _ in $(seq 1 900); do grep -q 'home shown' "$OUT/kiosk.provision.log" && break; sleep 0.1; done
	kill $k 2>/dev/null; wait $k 2>/dev/null; kill $x; wait $x 2>/dev/null
fi

cpu() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $12+$13}'; }
med() { sort -n | awk '{a[NR]=$1} END{if (NR) print a[int((NR+1)/2)]; else print "-"}'; }

# tap DISPLAY WxH X Y: a touch at (X, Y) of the kiosk's 1280 × 800 design
# screen, which the screens fit, centred, into the window.
tap() {
	local disp=$1 w=${2%x*} h=${2#*x}
	local k; k=$(echo "if ($w/1280 < $h/800) $w/1280 else $h/800" | bc -l)
	local x y
	x=$(echo "($w - 1280*$k)/2 + $3*$k" | bc -l | cut -d. -f1)
	y=$(echo "($h - 800*$k)/2 + $4*$k" | bc -l | cut -d. -f1)
	DISPLAY=$disp xdotool mousemove "$x" "$y" click 1
}

# athome DISPLAY WxH LOG: waits for the kiosk's home screen.
athome() {
	for _ in $(seq 1 300); do grep -q 'home shown' "$3" && return; sleep 0.1; done
}

# ftap DISPLAY WxH X Y: a touch at (X, Y) of the game screen's 960 × 800
# design playfield (its windows and buttons), which the game screen fits to
# the window's height at its left edge.
ftap() {
	local disp=$1 h=${2#*x}
	local k; k=$(echo "$h/800" | bc -l)
	DISPLAY=$disp xdotool mousemove "$(echo "$3*$k" | bc -l | cut -d. -f1)" "$(echo "$4*$k" | bc -l | cut -d. -f1)" click 1
}

# waitlog LOG FROM PATTERN [SECONDS]: waits for a line matching PATTERN
# after the first FROM lines of LOG; fails after SECONDS (60).
waitlog() {
	local i
	for i in $(seq 1 $((${4:-60} * 10))); do
		tail -n +"$(($2 + 1))" "$1" | grep -q -- "$3" && return 0
		sleep 0.1
	done
	echo "bench.sh: no \"$3\" in $1" >&2
	return 1
}

# session DISPLAY WxH LOG: the scripted session of a player on the real
# kiosk (pharaon -dev -dev-seed $DEVSEED -fps, whose 2 € block starts with a
# loser, a win and a win through the bonus game; cmd/pharaon/devseed.go):
# a 20 € and a 10 € note, 2 €, Jouer (the ball launched, the paddle
# dragged, then the Auto hand-over after 5 s untouched), lost, Accueil;
# Auto, won, Rejouer; the bonus game, its window, Continuer, the total
# won, Accueil; Encaisser, Imprimer, the voucher. Each step waits for the
# screen or window the kiosk logs (-fps: "show SCREEN WINDOW"); it ends
# with the voucher shown, or at the first step that does not come.
# note DISPLAY WxH LOG X EUROS: the panel's note button at (X, 706),
# tapped again if the note is not credited (the panel takes no note while
# one is on its way to the cash box).
note() {
	local n try
	for try in 1 2 3; do
		n=$(wc -l <"$3")
		tap "$1" "$2" "$4" 706
		waitlog "$3" "$n" "note of $5 EUR" 20 2>/dev/null && return 0
	done
	echo "bench.sh: the $5 € note was not credited (its log: $3)" >&2
	return 1
}

session() {
	local disp=$1 size=$2 log=$3 n
	note "$disp" "$size" "$log" 882 20 || return 1 # the panel's 20 €
	sleep 1
	note "$disp" "$size" "$log" 817 10 || return 1 # 10 €
	sleep 1
	tap "$disp" "$size" 1103 358 # 2 €
	sleep 0.5
	n=$(wc -l <"$log")
	tap "$disp" "$size" 830 460 # Jouer
	waitlog "$log" "$n" 'show game none' || return 1
	sleep 1
	ftap "$disp" "$size" 480 726 # the ball, on the paddle: launched
	local h=${size#*x}
	DISPLAY=$disp xdotool mousedown 1 mousemove $((300 * h / 800)) $((740 * h / 800)) sleep 0.3 \
		mousemove $((650 * h / 800)) $((740 * h / 800)) sleep 0.3 mouseup 1
	waitlog "$log" "$n" 'show game lose' 120 || return 1
	sleep 1
	n=$(wc -l <"$log")
	ftap "$disp" "$size" 661 682 # Accueil
	waitlog "$log" "$n" 'show home none' || return 1
	sleep 1
	n=$(wc -l <"$log")
	tap "$disp" "$size" 1063 460 # Auto
	waitlog "$log" "$n" 'show game win' 120 || return 1
	sleep 2
	n=$(wc -l <"$log")
	ftap "$disp" "$size" 350 669 # Rejouer 2 €
	waitlog "$log" "$n" 'show game none' || return 1
	waitlog "$log" "$n" 'show game bonus-win' 180 || return 1
	sleep 2
	n=$(wc -l <"$log")
	ftap "$disp" "$size" 480 669 # Continuer
	waitlog "$log" "$n" 'show game result' || return 1
	sleep 2
	n=$(wc -l <"$log")
	ftap "$disp" "$size" 660 669 # Accueil
	waitlog "$log" "$n" 'show home none' || return 1
	sleep 1
	n=$(wc -l <"$log")
	tap "$disp" "$size" 1064 596 # Encaisser
	waitlog "$log" "$n" 'show home cash-confirm' || return 1
	sleep 1
	tap "$disp" "$size" 786 476 # Imprimer
	waitlog "$log" "$n" 'show home voucher' 60 || return 1
	sleep 2
}

# play DISPLAY WxH LOG: once the kiosk's home screen is shown, a player
# inserts a 20 € note and plays 2 € in Auto (the development panel's
# simulated note, then the home screen's buttons), then Rejouer.
play() {
	local disp=$1 size=$2 log=$3
	athome "$disp" "$size" "$log"
	sleep 0.5
	tap "$disp" "$size" 882 706 # the panel's 20 €
	for _ in $(seq 1 100); do grep -q 'escrow → credited' "$log" && break; sleep 0.1; done
	sleep 1
	tap "$disp" "$size" 1103 358 # 2 €
	sleep 0.3
	tap "$disp" "$size" 1063 460 # Auto
}

# run NAME ROUND WxH [-prep FUNC] [-session FUNC] CMD...: one run, one CSV
# line; the prep FUNC DISPLAY WxH LOG runs once the first frame is drawn,
# before the warm-up; the session FUNC (same arguments) after it, and the
# window measured is then the session's, however long, instead of WIN s.
run() {
	local name=$1 round=$2 size=$3; shift 3
	local prep="" sess=""
	if [ "$1" = -prep ]; then prep=$2; shift 2; fi
	if [ "$1" = -session ]; then sess=$2; shift 2; fi
	local disp=:$(freedisp) log=$OUT/$name.$round.log
	Xvfb $disp -screen 0 "${size}x24" -nolisten tcp >/dev/null 2>&1 & local xpid=$!
	sleep 1.5
	local t0; t0=$(date +%s%N)
	DISPLAY=$disp "$@" >"$log" 2>&1 & local apid=$!
	for _ in $(seq 1 600); do grep -q FIRST_FRAME "$log" 2>/dev/null && break; sleep 0.05; done
	local ff; ff=$(awk '/FIRST_FRAME/{print $2; exit}' "$log")
	local first=-; [ -n "$ff" ] && first=$(( (ff - t0) / 1000000 ))
	[ -n "$prep" ] && "$prep" "$disp" "$size" "$log"
	sleep "$WARM"
	local a0 x0 s0 l0; a0=$(cpu $apid); x0=$(cpu $xpid); s0=$(date +%s%N); l0=$(wc -l <"$log")
	local rss=()
	if [ -n "$sess" ]; then
		"$sess" "$disp" "$size" "$log" & local spid=$!
		while kill -0 $spid 2>/dev/null; do sleep 1; rss+=("$(awk '/VmRSS/{print $2}' /proc/$apid/status)"); done
		wait $spid || echo "bench.sh: $name round $round: the session stopped short (its log: $log)" >&2
	else
		for _ in $(seq 1 "$WIN"); do sleep 1; rss+=("$(awk '/VmRSS/{print $2}' /proc/$apid/status)"); done
	fi
	local a1 x1 s1 l1 hwm; a1=$(cpu $apid); x1=$(cpu $xpid); s1=$(date +%s%N); l1=$(wc -l <"$log")
	hwm=$(awk '/VmHWM/{print $2}' /proc/$apid/status)
	# Where the memory is, at the window's end: anonymous (the Go heap,
	# llvmpipe's textures and buffers, the C heap) and file-backed (the
	# libraries' pages: Mesa, LLVM, GLFW, fonts) resident memory, and what
	# the Go runtime holds (the kiosk's PHARAON_MEMLOG line; "-" for the
	# others).
	local anon file gomib
	anon=$(awk '/RssAnon/{print $2}' /proc/$apid/status)
	file=$(awk '/RssFile/{print $2}' /proc/$apid/status)
	gomib=$(grep -o '^mem go_mib [0-9.]*' "$log" | tail -1 | awk '{print $3}')
	cp /proc/$apid/smaps "$OUT/$name.$round.smaps" 2>/dev/null
	kill $apid; wait $apid 2>/dev/null; kill $xpid; wait $xpid 2>/dev/null
	local el acpu xcpu
	el=$(echo "($s1-$s0)/1000000000" | bc -l)
	acpu=$(echo "($a1-$a0)/$hz/$el*100" | bc -l)
	xcpu=$(echo "($x1-$x0)/$hz/$el*100" | bc -l)
	local home; home=$(grep -o 'home shown after [0-9]*' "$log" | awk '{print $4; exit}')
	local win; win=$(sed -n "$((l0 + 1)),${l1}p" "$log" | grep -o 'fps [0-9.]* .*gap_ms_max [0-9.]*\|^fps [0-9.]*$')
	local fmed fmin gmax g33
	fmed=$(awk '{print $2}' <<<"$win" | grep . | med)
	fmin=$(awk '{print $2}' <<<"$win" | grep . | sort -n | head -1)
	gmax=$(grep -o 'gap_ms_max [0-9.]*' <<<"$win" | awk '{print $2}' | sort -n | tail -1)
	g33=$(grep -o 'gap_ms_max [0-9.]*' <<<"$win" | awk '$2>33{n++} END{print n+0}')
	printf '%s,%d,%s,%s,%.1f,%.1f,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$name" "$round" "$first" "${home:--}" "$acpu" "$xcpu" \
		"$(printf '%s\n' "${rss[@]}" | med)" "${hwm:--}" "${fmed:--}" "${fmin:--}" "${gmax:--}" "$g33" \
		"${anon:--}" "${file:--}" "${gomib:--}"
}

# kdb NAME ROUND: a copy of the development kiosk for one run (a run ends
# mid-game, and its next start would resume that game).
kdb() {
	local d=$OUT/kiosk.$1.$2
	rm -rf "$d" && cp -a "$kdata" "$d" && echo "$d/pharaon.db"
}

sb=$BIN/pharaon-scenebench
scene() {
	case $1 in
	peer) [ -x "$PEER" ] && run peer "$2" 1280x800 "$PEER" ;;
	game) run game "$2" 1280x800 "$sb" ;;
	game_plain) run game_plain "$2" 1280x800 "$sb" -fullbackdrop=false ;;
	attract) run attract "$2" 1280x800 "$sb" -scene attract ;;
	game_1080) run game_1080 "$2" 1920x1080 "$sb" -w 1920 -h 1080 ;;
	game_1080_plain) run game_1080_plain "$2" 1920x1080 "$sb" -w 1920 -h 1080 -fullbackdrop=false ;;
	kiosk) run kiosk "$2" 1280x800 -prep athome env PHARAON_MEMLOG=1 "$BIN/pharaon" -dev -fps -db "$(kdb "$1" "$2")" ;;
	kiosk_play) run kiosk_play "$2" 1280x800 $played env PHARAON_MEMLOG=1 "$BIN/pharaon" -dev $seeded -fps -db "$(kdb "$1" "$2")" ;;
	kiosk_play_base) [ -x "$BASE/pharaon" ] && run kiosk_play_base "$2" 1280x800 $played env PHARAON_MEMLOG=1 "$BASE/pharaon" -dev $seeded -fps -db "$(kdb "$1" "$2")" ;;
	kiosk_play_1080_base) [ -x "$BASE/pharaon" ] && run kiosk_play_1080_base "$2" 1920x1080 $played env PHARAON_MEMLOG=1 "$BASE/pharaon" -dev $seeded -fps -db "$(kdb "$1" "$2")" ;;
	kiosk_play_1080) run kiosk_play_1080 "$2" 1920x1080 $played env PHARAON_MEMLOG=1 "$BIN/pharaon" -dev $seeded -fps -db "$(kdb "$1" "$2")" ;;
	esac
}

csv=$OUT/results.csv
echo "scene,round,first_ms,home_ms,cpu_pct,xvfb_pct,rss_kb,hwm_kb,fps_med,fps_min,gap_max_ms,s_gap_over_33,anon_kb,file_kb,go_mib" >"$csv"
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for r in $(seq 1 "$ROUNDS"); do
	for s in $SCENES; do
		line=$(scene "$s" "$r") && echo "$line" | tee -a "$csv"
	done
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)

echo
echo "Medians over $ROUNDS rounds (logs and results.csv in $OUT):"
{
	echo "scene first_ms home_ms cpu_pct xvfb_pct cpu_ms/frame rss_MiB fps_med gap_max_ms s_gap>33 anon_MiB file_MiB go_MiB"
	for s in $SCENES; do
		awk -F, -v s="$s" '$1==s' "$csv" | awk -F, '
			function m(col,   n, i, j, t, v) { n = 0
				for (i = 1; i <= NR; i++) if (c[i, col] != "-" && c[i, col] != "") v[++n] = c[i, col] + 0
				if (!n) return "-"
				for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
				return v[int((n + 1) / 2)] }
			{ for (i = 1; i <= NF; i++) c[NR, i] = $i; name = $1
			  c[NR, 20] = ($9 == "-" || $9 + 0 == 0) ? "-" : sprintf("%.1f", $5 * 10 / $9) }
			function mib(col,   x) { x = m(col); return x == "-" ? "-" : sprintf("%.0f", x / 1024) }
			END { if (NR) printf "%s %s %s %s %s %s %.0f %s %s %s %s %s %s\n", name, m(3), m(4), m(5), m(6), m(20), m(7) / 1024, m(9), m(11), m(12), mib(13), mib(14), m(15) }'
	done
} | column -t
echo "load average (1, 5, 15 min): before $load0, after $load1; $(nproc) cores"
