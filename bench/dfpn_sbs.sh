#!/bin/sh
# SPDX-License-Identifier: MIT
# Two builds of `boardproof` side by side on df-pn's speed: expansions per user
# CPU-second on the taifas:5x5 and chicken:hex4 positions of bench/dfpn_results.md
# (sessions 9 to 11), the old and the new build in turn, ROUNDS times (default 3), so
# that both see the same load; the ratio per round, the load average before each run.
#
#   bench/dfpn_sbs.sh OLD NEW [ROUNDS] [TAIFAS_NODES] [CHICKEN_NODES]
#
# Each run: BOARDPROOF_PROVE_BOUNDS=off prove SPEC --position P --moves M --db FRESH
# --memory 1G --threads 1 --pn-rule sum --init 1 --json --max-nodes N (defaults
# 6,000,000 and 700,000 expansions: the searches stop before their proofs, so that no
# proof extraction is in the CPU time). The rate counts the process's user CPU time
# (the search and zeroing the table), less sensitive to other work on the machine than
# the wall clock. Both builds must search the same tree: a run whose expansions,
# children evaluated or hit rate differ from the old build's is marked DIFFERENT.
# Figures, never pass/fail.
set -eu
OLD=${1:?usage: dfpn_sbs.sh OLD NEW [ROUNDS] [TAIFAS_NODES] [CHICKEN_NODES]}
NEW=${2:?usage: dfpn_sbs.sh OLD NEW [ROUNDS] [TAIFAS_NODES] [CHICKEN_NODES]}
ROUNDS=${3:-3}
TN=${4:-6000000}
CN=${5:-700000}
DB=$(mktemp -d /tmp/dfpn_sbs_XXXXXX)
trap 'rm -rf "$DB"' EXIT

# one run: prints "expansions evaluated hit_rate user_seconds"
one() {
	rm -rf "$DB/db" && mkdir "$DB/db"
	BOARDPROOF_PROVE_BOUNDS=off /usr/bin/time -f %U -o "$DB/time" "$1" prove "$2" \
		--position "$3" --moves "$4" --db "$DB/db" --memory 1G --threads 1 \
		--pn-rule sum --init 1 --json --max-nodes "$5" >"$DB/out.json"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["nodes"], d["evaluated"], d["tt_hit_rate"], open(sys.argv[2]).read().split()[-1])' \
		"$DB/out.json" "$DB/time"
}

printf '%-5s %-13s %-6s %12s %12s %7s %s\n' round position load old/cpu-s new/cpu-s \
	new/old same-tree
for r in $(seq "$ROUNDS"); do
	for case in "taifas:5x5|x1o2/1x3/2o2/5/5 x last=o|xe5 oa5 xd1 oe1 xb5 oe3 xc5 ob3|$TN" \
		"chicken:hex4|start|d2 d1+f1 b3+f5 g1+a1 e3+e1 f4+d4|$CN"; do
		spec=${case%%|*}
		rest=${case#*|}
		pos=${rest%%|*}
		rest=${rest#*|}
		moves=${rest%%|*}
		n=${rest#*|}
		load=$(cut -d' ' -f1 /proc/loadavg)
		o=$(one "$OLD" "$spec" "$pos" "$moves" "$n")
		w=$(one "$NEW" "$spec" "$pos" "$moves" "$n")
		python3 -c '
import sys
r, spec, load, o, w = sys.argv[1:6]
o, w = o.split(), w.split()
ro, rw = int(o[0]) / float(o[3]), int(w[0]) / float(w[3])
same = "yes" if o[:3] == w[:3] else "DIFFERENT (%s against %s)" % (" ".join(w[:3]), " ".join(o[:3]))
print("%-5s %-13s %-6s %12.0f %12.0f %7.3f %s" % (r, spec, load, ro, rw, rw / ro, same))' \
			"$r" "$spec" "$load" "$o" "$w"
	done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
