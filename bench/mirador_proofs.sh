#!/bin/sh
# SPDX-License-Identifier: MIT
# Mirador's start proven by proof-number search on grids past the strong solves, two
# builds side by side: each size is proven by both at once, one per core (taskset),
# with a fresh database each and a 1 GiB table, then again with the cores swapped.
# Prints, per build and run, the value, expansions, proof size, the search's seconds,
# the process's user CPU seconds, expansions per user CPU second and the children
# whose outcome came from the outcome cache (a build without it prints -). The
# searches are the same tree whatever the build when they expand as many nodes.
#
#   bench/mirador_proofs.sh BOARDPROOF_A BOARDPROOF_B [SIZE...]   (default 13 14 15 16)
#
# Figures, never pass/fail: a benchmark, not a test (the grids from 13x13 run the
# rules' general path, solver/games/mirador_chain.c; 16x16 takes minutes).
set -eu
A=${1:?usage: mirador_proofs.sh BOARDPROOF_A BOARDPROOF_B [SIZE...]}
B=${2:?usage: mirador_proofs.sh BOARDPROOF_A BOARDPROOF_B [SIZE...]}
shift 2
[ $# -gt 0 ] || set -- 13 14 15 16
DIR=$(mktemp -d /tmp/mirador_proofs_XXXXXX)
trap 'rm -rf "$DIR"' EXIT

# one LABEL BINARY CORE SIZE: in the background, writing $DIR/LABEL.{json,time}
one() {
	rm -rf "$DIR/$1.db" && mkdir "$DIR/$1.db"
	/usr/bin/time -f %U -o "$DIR/$1.time" taskset -c "$3" "$2" prove "mirador:$4x$4" \
		--db "$DIR/$1.db" --memory 1G --threads 1 --json >"$DIR/$1.json" 2>/dev/null &
}

report() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
u = float(open(sys.argv[2]).read().split()[-1])
print("%-4s %-6s %-5s %10d %8d %9.2f %9.2f %10.0f %12s" % (sys.argv[3], sys.argv[4],
      d["value"], d["nodes"], d["proof_size"] or 0, d["seconds"], u, d["nodes"] / max(u, 1e-9),
      d.get("outcome_cache_hits", "-")))' "$DIR/$1.json" "$DIR/$1.time" "$2" "$3"
}

printf '%-4s %-6s %-5s %10s %8s %9s %9s %10s %12s\n' size build value expansions proof \
	seconds user-s exp/cpu-s cache-hits
for n in "$@"; do
	for round in 1 2; do
		if [ "$round" = 1 ]; then ca=0 cb=1; else ca=1 cb=0; fi
		one a "$A" "$ca" "$n"
		one b "$B" "$cb" "$n"
		wait
		report a "$n" "A/c$ca"
		report b "$n" "B/c$cb"
	done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
