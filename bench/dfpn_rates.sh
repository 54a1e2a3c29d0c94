#!/bin/sh
# SPDX-License-Identifier: MIT
# One build's df-pn speed over a spread of positions, so that the benchmark positions
# of bench/dfpn_sbs.sh are seen beside harder ones: expansions and children evaluated
# per user CPU-second, children per expansion, the table's hit rate and how full the
# table ended.
#
#   bench/dfpn_rates.sh BOARDPROOF [ROUNDS]
#
# The cases (each `prove SPEC --position P --moves M --db FRESH --memory MEM --threads 1
# --json --max-nodes N`, BOARDPROOF_PROVE_BOUNDS=off where the guidance is pinned):
#   sbs-taifas, sbs-chicken  bench/dfpn_sbs.sh's two positions (sum/1, 1G), deep in the
#                            game: few children, many transpositions
#   start-taifas, start-chicken  the instances' start, the game's own guidance (bounds
#                            on for Taifas), 5 M expansions: 30 to 40 children each
#   long-taifas              the t55-4 position (bench/dfpn_results.md) for 40 M
#                            expansions: the table fills to about 40%
# A rate is expansions over the process's user CPU time, which includes zeroing the
# table's pages (the kernel's share, sys, is left out). Figures, never pass/fail.
set -eu
BP=${1:?usage: dfpn_rates.sh BOARDPROOF [ROUNDS]}
ROUNDS=${2:-1}
DB=$(mktemp -d /tmp/dfpn_rates_XXXXXX)
trap 'rm -rf "$DB"' EXIT
T55="x1o2/1x3/2o2/5/5 x last=o"

# one LABEL BOUNDS SPEC POSITION MOVES MEMORY NODES [GUIDANCE...]
one() {
	label=$1 bounds=$2 spec=$3 pos=$4 moves=$5 mem=$6 n=$7
	shift 7
	rm -rf "$DB/db" && mkdir "$DB/db"
	load=$(cut -d' ' -f1 /proc/loadavg)
	BOARDPROOF_PROVE_BOUNDS=$bounds /usr/bin/time -f %U -o "$DB/time" "$BP" prove "$spec" \
		--position "$pos" --moves "$moves" --db "$DB/db" --memory "$mem" --threads 1 \
		--json --max-nodes "$n" "$@" >"$DB/out.json"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
u = float(open(sys.argv[2]).read().split()[-1])
print("%-14s %-5s %11d %6.1f %6.3f %6.3f %8.2f %10.0f %11.0f" % (sys.argv[3], sys.argv[4],
      d["nodes"], d["evaluated"] / d["nodes"], d["tt_hit_rate"], d["tt_used"] / d["tt_entries"],
      u, d["nodes"] / u, d["evaluated"] / u))' "$DB/out.json" "$DB/time" "$label" "$load"
}

printf '%-14s %-5s %11s %6s %6s %6s %8s %10s %11s\n' case load expansions kids hit fill \
	user-s exp/cpu-s kids/cpu-s
for _ in $(seq "$ROUNDS"); do
	one sbs-taifas off taifas:5x5 "$T55" "xe5 oa5 xd1 oe1 xb5 oe3 xc5 ob3" 1G 6000000 \
		--pn-rule sum --init 1
	one sbs-chicken off chicken:hex4 start "d2 d1+f1 b3+f5 g1+a1 e3+e1 f4+d4" 1G 700000 \
		--pn-rule sum --init 1
	one start-taifas on taifas:5x5 start "" 1G 5000000
	one start-chicken on chicken:hex4 start "" 1G 5000000
	one long-taifas off taifas:5x5 "$T55" "xe5 oa5 xd1 oe1" 1G 40000000 --pn-rule sum --init 1
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
