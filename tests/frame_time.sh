#!/bin/bash
# frame_time.sh: what a person waits for in a real terminal: the time from
# typing `qkv 1` to the first full frame, and from a key to the frame that
# answers it, measured in tmux several times; prints each run, the best and
# the spread. (qkv bench's first_frame and redraw_64 cases time the same
# work without a terminal; this adds process start, curses and the pty.)
#
#   tests/frame_time.sh [--runs N] [--qkv PATH] [--size WxH] [LESSON]
#
# Each run starts a new tmux session (a private server, a fresh
# XDG_STATE_HOME so the lesson opens at step 1) whose shell notes the wall
# clock ($EPOCHREALTIME) and then execs qkv with QKV_FRAME_LOG set: qkv
# appends a line per frame the person waits for (src/ui/app.c: "N UNIX
# SINCE AFTER"). first frame = the first line's UNIX minus the shell's note
# (exec, dynamic linking, loading the lessons, running step 1, the curses
# frame); in qkv = its SINCE (from ui_run on). Then Tab (the view takes the
# keys), Down (the cursor moves one cell), Tab (the text takes them again)
# and Right (the next step, its code run): each key->frame is that frame's AFTER, from the key read to the
# frame written (the terminal's own painting is not in it). Defaults: 7 runs, ./qkv, 80x24, lesson 1.
# Targets (issue 17): first frame under 50 ms, a redraw under 10 ms.
# Needs tmux and bash 5 (EPOCHREALTIME). Exit status 0, 1 when a run gets
# no frame within 10 s, 2 on a usage error.
set -u
runs=7 qkv=./qkv size=80x24 lesson=1
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) runs=${2:?--runs needs a number}; shift 2 ;;
	--qkv) qkv=${2:?--qkv needs a path}; shift 2 ;;
	--size) size=${2:?--size needs WxH}; shift 2 ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "frame_time.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
	*) lesson=$1; shift ;;
	esac
done
case "$runs" in ''|*[!0-9]*|0) echo "frame_time.sh: --runs takes a whole number from 1, got '$runs'" >&2; exit 2 ;; esac
case "$size" in [0-9]*x[0-9]*) ;; *) echo "frame_time.sh: --size takes WxH (80x24), got '$size'" >&2; exit 2 ;; esac
command -v tmux >/dev/null || { echo "frame_time.sh: needs tmux" >&2; exit 2; }
[ -x "$qkv" ] || { echo "frame_time.sh: no qkv at $qkv (make qkv, or --qkv PATH)" >&2; exit 2; }
qkv=$(cd "$(dirname "$qkv")" && pwd)/$(basename "$qkv")

dir=$(mktemp -d)
sock=frame_time_$$
trap 'tmux -L "$sock" kill-server 2>/dev/null; rm -rf "$dir"' EXIT

# Waits (up to 10 s) until file $1 has at least $2 lines.
wait_lines() {
	local i
	for ((i = 0; i < 1000; i++)); do
		[ -f "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ] && return 0
		sleep 0.01
	done
	return 1
}

echo "qkv $qkv, lesson $lesson, ${size} terminal (tmux $(tmux -V | cut -d' ' -f2)), $runs runs; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-4s %14s %10s %12s %12s\n' run "first frame" "in qkv" "Down->frame" "Right->frame"
firsts=() insides=() keys=() steps=()
for ((r = 1; r <= runs; r++)); do
	rm -rf "$dir/state" "$dir/log" "$dir/start"
	mkdir -p "$dir/state"
	tmux -L "$sock" new-session -d -s "run$r" -x "${size%x*}" -y "${size#*x}" \
		"export TERM=xterm-256color XDG_STATE_HOME='$dir/state' QKV_FRAME_LOG='$dir/log'; echo \$EPOCHREALTIME >'$dir/start'; exec '$qkv' '$lesson'"
	if ! wait_lines "$dir/log" 1; then
		echo "run $r: no frame within 10 s" >&2
		exit 1
	fi
	tmux -L "$sock" send-keys -t "run$r" Tab
	wait_lines "$dir/log" 2
	tmux -L "$sock" send-keys -t "run$r" Down
	wait_lines "$dir/log" 3
	tmux -L "$sock" send-keys -t "run$r" Tab
	wait_lines "$dir/log" 4
	tmux -L "$sock" send-keys -t "run$r" Right
	wait_lines "$dir/log" 5
	tmux -L "$sock" send-keys -t "run$r" q
	tmux -L "$sock" kill-session -t "run$r" 2>/dev/null
	read -r start <"$dir/start"
	line=$(awk -v s="$start" 'NR == 1 { printf "%.1f %.1f", ($2 - s) * 1000, $3 } NR == 3 || NR == 5 { printf " %s", $4 }' "$dir/log")
	read -r first inside key step <<<"$line"
	firsts+=("$first") insides+=("$inside") keys+=("${key:--}") steps+=("${step:--}")
	printf '%-4s %11s ms %7s ms %9s ms %9s ms\n' "$r" "$first" "$inside" "${key:--}" "${step:--}"
done

# best, median and spread ((worst - best) / best) of a list of numbers
stats() {
	printf '%s\n' "$@" | grep -v '^-$' | sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "no values"; exit }
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		spread = (v[1] > 0) ? 100 * (v[NR] - v[1]) / v[1] : 0
		printf "best %.1f ms, median %.1f ms, worst %.1f ms (spread %.0f%% of the best)", v[1], m, v[NR], spread }'
}
echo "first frame (from the shell's exec): $(stats "${firsts[@]}")"
echo "  of which in qkv (ui_run on):        $(stats "${insides[@]}")"
echo "a key (Down in the view) to its frame: $(stats "${keys[@]}")"
echo "Right (the next step, run) to its frame: $(stats "${steps[@]}")"
echo "targets: first frame < 50 ms, redraw < 10 ms; load at end $(cut -d' ' -f1-3 /proc/loadavg)"
