#!/bin/sh
# SPDX-License-Identifier: MIT
# Proof-number search speed: expansions and child evaluations per second per core, the
# transposition table's hit rate, and the 2-thread speed-up.
#
#   bench/bench_dfpn.sh BOARDPROOF [SECONDS] [MEMORY] [REPS]
#
# Part 1 (throughput): `prove` with --time-limit SECONDS (default 30) on the starts of
# taifas:5x5 and chicken:hex4, on a fixed middle-game position of taifas:5x5 and on the
# Havannah hex4 position a1 a4 d7 d2 g4 (Morat notation), 1 thread; rates per second of
# search and per user CPU second.
# Part 2 (speed-up): the time to prove fixed positions that one thread proves in
# seconds, on 1 and 2 threads, REPS times each in turn (default 3; wall-clock, so the
# machine should be otherwise idle: the load average is printed before and after).
# "seconds" is the search alone (the proof extraction that gives proof_size is not
# in it); "user cpu-s" is the whole process's CPU time, all threads: on a loaded
# machine the scheduler gives a 2-thread process about twice the share of a 1-thread
# one, so there the wall-clock ratio overstates the speed-up, and the CPU-time ratio
# (the work the second thread adds) is the figure to read.
# "nodes" are expansions (positions whose children were generated); "evaluated" are
# the children looked at (each canonicalized and probed in the table). Figures, never
# pass/fail.
set -eu
BP=${1:?usage: bench_dfpn.sh BOARDPROOF [SECONDS] [MEMORY]}
SECS=${2:-30}
MEM=${3:-1G}
REPS=${4:-3}
DB=$(mktemp -d /tmp/bench_dfpn_XXXXXX)
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { rm -rf "$DB"; }' EXIT

row() {
	python3 -c '
import json, sys
d = json.load(sys.stdin)
s = d["seconds"] or 1e-9
print("%-44s %-8s %10d %12d %10.0f %12.0f %6.1f%% %3d %8.2f" % (sys.argv[1][:44],
      d["value"], d["nodes"], d["evaluated"], d["nodes"] / s, d["evaluated"] / s,
      100 * d["tt_hit_rate"], d["threads"], d["seconds"]))' "$@"
}

# the same per user CPU second of the process (less sensitive to a shared machine's
# load than the wall-clock rates; the search is most of the process's user time)
cpurow() {
	python3 -c '
import json, sys
d = json.load(sys.stdin)
u = float(open(sys.argv[2]).read().split()[-1]) or 1e-9
print("%-44s %10.2f %12.0f %14.0f" % (sys.argv[1][:44], u, d["nodes"] / u,
      d["evaluated"] / u))' "$@"
}

printf '%-44s %-8s %10s %12s %10s %12s %7s %3s %8s\n' position value nodes evaluated \
	nodes/s evaluated/s hits thr seconds
cpu=""
for case in "taifas:5x5|start" "taifas:5x5|x1o2/1x3/2o2/5/5 x last=o" \
	"chicken:hex4|start" "havannah:hex4|w3/3b1/6/b5w/6/5/w3 b"; do
	spec=${case%%|*}
	pos=${case#*|}
	rm -rf "$DB"/*
	/usr/bin/time -f "%U" -o "$DB.time" "$BP" prove "$spec" --position "$pos" --db "$DB" \
		--memory "$MEM" --time-limit "$SECS" --json >"$DB.json"
	row "$spec $pos" <"$DB.json"
	cpu="$cpu$(cpurow "$spec $pos" "$DB.time" <"$DB.json")
"
done
rm -f "$DB.time" "$DB.json"
echo
printf '%-44s %10s %12s %14s\n' "per user CPU second:" cpu-s nodes/cpu-s evaluated/cpu-s
printf '%s' "$cpu"

echo
echo "speed-up (wall-clock seconds to a proof, 1 and 2 threads, alternating, $REPS times):"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for case in "havannah:hex4|w3/3b1/6/b5w/6/3b1/w3 w" "taifas:3x4|start" "chicken:tri4|start" \
	"glorieta:hex2|start" "landscape:hex3,neutrals=3,layout=a1;c3;e3|start"; do
	spec=${case%%|*}
	pos=${case#*|}
	for r in $(seq "$REPS"); do
		for t in 1 2; do
			rm -rf "$DB"/*
			/usr/bin/time -f "%U" -o "$DB.time" "$BP" prove "$spec" --position "$pos" \
				--db "$DB" --memory 256M --threads $t --json >"$DB.json"
			printf '%s   user cpu-s %s\n' "$(row "$spec $pos" <"$DB.json")" \
				"$(tail -n 1 "$DB.time")"
		done
	done
done
rm -f "$DB.time" "$DB.json"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
