#!/bin/sh
# SPDX-License-Identifier: MIT
# df-pn on one and two threads: the speed-up and the efficiency (speed-up / 2) of a
# whole proof, by the search's own seconds and by nodes a second, ROUNDS times (one
# thread, then two, each round), with the load average before each run.
#
#   bench/dfpn_threads.sh BOARDPROOF [ROUNDS] [SPEC] [POSITION] [MOVES] [MEMORY]
#
# Default position: t55-4 of bench/dfpn_results.md (taifas:5x5 "x1o2/1x3/2o2/5/5 x
# last=o" after "xe5 oa5 xd1 oe1", a win for the player to move: about 25 M
# expansions to proof), the game's own guidance, bounds on, a 2G table, a fresh
# database each run. Two threads search different trees from run to run (which
# thread settles what depends on timing), so the ratios move between rounds: run
# several. Figures, never pass/fail.
set -eu
BP=${1:?usage: dfpn_threads.sh BOARDPROOF [ROUNDS] [SPEC] [POSITION] [MOVES] [MEMORY]}
ROUNDS=${2:-2}
SPEC=${3:-taifas:5x5}
POS=${4:-x1o2/1x3/2o2/5/5 x last=o}
MOVES=${5:-xe5 oa5 xd1 oe1}
MEM=${6:-2G}
DB=$(mktemp -d /tmp/dfpn_threads_XXXXXX)
trap 'rm -rf "$DB"' EXIT

# one THREADS: prints "value seconds nodes proof_size"
one() {
	rm -rf "$DB/db" && mkdir "$DB/db"
	"$BP" prove "$SPEC" --position "$POS" --moves "$MOVES" --db "$DB/db" --memory "$MEM" \
		--threads "$1" --json >"$DB/out.json"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["value"], d["seconds"], d["nodes"], d["proof_size"])' "$DB/out.json"
}

printf '%-5s %-6s %-6s %9s %12s %9s %-6s %9s %12s %9s %8s %8s\n' round load1 value1 sec1 \
	nodes1 M/s1 load2 sec2 nodes2 M/s2 x_time x_rate
for r in $(seq "$ROUNDS"); do
	l1=$(cut -d' ' -f1 /proc/loadavg)
	a=$(one 1)
	l2=$(cut -d' ' -f1 /proc/loadavg)
	b=$(one 2)
	python3 -c '
import sys
r, l1, l2, a, b = sys.argv[1:6]
v1, s1, n1, _ = a.split()
v2, s2, n2, _ = b.split()
s1, n1, s2, n2 = float(s1), int(n1), float(s2), int(n2)
if v1 != v2:
    print("round %s: the values differ (%s on one thread, %s on two)" % (r, v1, v2))
    sys.exit(1)
print("%-5s %-6s %-6s %9.1f %12d %9.2f %-6s %9.1f %12d %9.2f %8.2f %8.2f" % (r, l1, v1, s1, n1,
      n1 / s1 / 1e6, l2, s2, n2, n2 / s2 / 1e6, s1 / s2, (n2 / s2) / (n1 / s1)))' \
		"$r" "$l1" "$l2" "$a" "$b"
done
echo "efficiency = x / 2; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
