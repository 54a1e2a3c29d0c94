#!/bin/sh
# SPDX-License-Identifier: MIT
# Havannah hex4 positions proven by `boardproof prove` and, side by side on the same
# machine, by Morat's proof-number search (built outside the repository; its path is
# the second argument, or leave it out to run ours alone).
#
#   bench/havannah_hex4.sh BOARDPROOF [MORAT] [MEMORY] [POSITIONS]
#
# POSITIONS: "6" (default: a1 a4 d7 d2 g4 f6, which both prove in seconds), "5" (a1 a4
# d7 d2 g4: minutes and gigabytes for Morat) or "6 5". For each: our command and
# Morat's, one after the other, each under /usr/bin/time (CPU seconds, wall seconds,
# peak resident memory), with the load average before each run. Morat counts nodes
# as the children it creates; ours as the positions whose children it generates
# (expansions) and, separately, the children looked at ("evaluated").
set -eu
BP=${1:?usage: havannah_hex4.sh BOARDPROOF [MORAT] [MEMORY] [POSITIONS]}
MORAT=${2:-}
MEM=${3:-256M}
WHICH=${4:-6}
# Morat's tree limit in MB: its default (1024) makes it collect garbage again and again
# on the 5-stone position (here it had not finished after 150 CPU-s that way)
MORAT_MB=${MORAT_MB:-8000}
DB=$(mktemp -d /tmp/bench_hav4_XXXXXX)
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { rm -rf "$DB"; }' EXIT

for k in $WHICH; do
	case $k in
	6) moves="a1 a4 d7 d2 g4 f6" pos="w3/3b1/6/b5w/6/3b1/w3 w" ;;
	5) moves="a1 a4 d7 d2 g4" pos="w3/3b1/6/b5w/6/5/w3 b" ;;
	*) echo "unknown position $k (6 or 5)" >&2 && exit 2 ;;
	esac
	echo "== $moves (Morat notation) = $pos"
	rm -rf "${DB:?}"/*
	echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "ours: $BP prove havannah:hex4 --position \"$pos\" --memory $MEM --json"
	/usr/bin/time -f "ours: cpu %U s user + %S s sys, wall %e s, peak %M KiB" \
		"$BP" prove havannah:hex4 --position "$pos" --db "$DB" --memory "$MEM" --json
	if [ -n "$MORAT" ]; then
		echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
		echo "morat: boardsize 4; pns; params -m $MORAT_MB; playgame $moves; verbose 1; solve 3600"
		printf 'boardsize 4\npns\nparams -m %s\nplaygame %s\nverbose 1\nsolve 3600\nquit\n' \
			"$MORAT_MB" "$moves" |
			/usr/bin/time -f "morat: cpu %U s user + %S s sys, wall %e s, peak %M KiB" \
				"$MORAT" 2>&1 | grep -a -E "Finished|Solved|^morat:"
	fi
done
