#!/bin/bash
# SPDX-License-Identifier: MIT
# df-pn's search guidance: nodes to proof of each variant of `prove --pn-rule sum|weak
# --init 1|moves` on a fixed set of positions.
#
#   bench/bench_pnrule.sh BOARDPROOF [TIME_LIMIT] [MEMORY] [VARIANTS] [POSITIONS]
#
# Each run: `prove SPEC --position P --moves M --db FRESH --memory MEMORY (default 1G)
# --threads 1 --time-limit TIME_LIMIT (default 60) --json`. One thread, so "nodes"
# (expansions) are deterministic and independent of the machine's load; "seconds"
# (the search's own) are not: they move with the load, which is printed before and
# after. A run stopped by the limit shows its value as "unknown" and its nodes as a
# lower bound (">"). VARIANTS: a space-separated list of PNRULE/INIT (default all
# four); POSITIONS: a grep pattern on the position names (default all). Figures, never
# pass/fail. With BOUNDS="on off" in the environment each variant runs under both
# settings of BOARDPROOF_PROVE_BOUNDS in turn (the game's value bounds, Taifas'),
# side by side; the column "bounds" says which.
set -eu
BP=${1:?usage: bench_pnrule.sh BOARDPROOF [TIME_LIMIT] [MEMORY] [VARIANTS] [POSITIONS]}
LIMIT=${2:-60}
MEM=${3:-1G}
VARIANTS=${4:-sum/1 weak/1 sum/moves weak/moves}
PICK=${5:-.}
DB=$(mktemp -d /tmp/bench_pnrule_XXXXXX)
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { rm -rf "$DB"; }' EXIT

# name|spec|position ('' for the start)|moves
POSITIONS='
t55-8|taifas:5x5|x1o2/1x3/2o2/5/5 x last=o|xe5 oa5 xd1 oe1 xb5 oe3 xc5 ob3
t55-6|taifas:5x5|x1o2/1x3/2o2/5/5 x last=o|xe5 oa5 xd1 oe1 xb5 oe3
t55-5|taifas:5x5|x1o2/1x3/2o2/5/5 x last=o|xe5 oa5 xd1 oe1 xb5
t44|taifas:4x4|||
ch4-6|chicken:hex4||d2 d1+f1 b3+f5 g1+a1 e3+e1 f4+d4
ch4-5|chicken:hex4||d2 d1+f1 b3+f5 g1+a1 e3+e1
gl2-4|glorieta:hex3,hand=2||c3 b2 d4 b4
gl3-3|glorieta:hex3,hand=3||c3 b2 d4
gl6-4|glorieta:hex3||c3 b2 d4 b4
ls3|landscape:hex3,neutrals=3,layout=a1;c3;e3||
hv4-5|havannah:hex4|w3/3b1/6/b5w/6/5/w3 b|
hv4-6|havannah:hex4|w3/3b1/6/b5w/6/3b1/w3 w|
'

echo "# $(date -u '+%F %T UTC'), load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $BP, --memory $MEM --threads 1 --time-limit $LIMIT"
printf '%-7s %-11s %-6s %-8s %12s %9s %10s %14s\n' position variant bounds value nodes seconds \
	proof "root pn/dn"
echo "$POSITIONS" | grep -v '^$' | grep -- "$PICK" | while IFS='|' read -r name spec pos moves; do
	for v in $VARIANTS; do
		for b in ${BOUNDS:-default}; do
			rule=${v%/*}
			init=${v#*/}
			rm -rf "$DB"/*
			args=(prove "$spec" --db "$DB" --memory "$MEM" --threads 1 --time-limit "$LIMIT"
				--pn-rule "$rule" --init "$init" --json)
			[ -n "$pos" ] && args+=(--position "$pos")
			[ -n "$moves" ] && args+=(--moves "$moves")
			if [ "$b" = default ]; then
				out=$("$BP" "${args[@]}" </dev/null 2>&1) || true
			else
				out=$(BOARDPROOF_PROVE_BOUNDS=$b "$BP" "${args[@]}" </dev/null 2>&1) || true
			fi
			printf '%s\n' "$out" | python3 -c '
import json, sys
text = sys.stdin.read()
try:
    d = json.loads(text)
except ValueError:
    print("%-7s %-11s %-6s failed: %s" % (sys.argv[1], sys.argv[2], sys.argv[3],
          text.strip()[:120]))
    sys.exit(0)
known = d["value"] != "unknown"
print("%-7s %-11s %-6s %-8s %12s %9.2f %10s %14s" % (sys.argv[1], sys.argv[2], sys.argv[3],
      d["value"],
      ("" if known else ">") + format(d["nodes"], ","), d["seconds"],
      format(d["proof_size"], ",") if known else "-",
      "%s/%s" % (d["root_pn"], d["root_dn"])))' "$name" "$v" "$b"
		done
	done
done
echo "# $(date -u '+%F %T UTC'), load: $(cut -d' ' -f1-3 /proc/loadavg)"
