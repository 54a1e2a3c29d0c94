#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# plan_vs_peak.sh BOARDPROOF [SPEC:ENGINE ...]: solves each instance with the given
# engine (walk, tiers, cycles or counter) into a temporary database and prints, one line each,
# the solve's own memory estimate (the plan its engine makes before any work), the
# peak resident set the solve reached (getrusage, as the solve reports it, and
# /usr/bin/time's maximum resident set when available), and estimate / peak. The
# estimate is meant to be within 20% of the peak: a ratio in 0.8 .. 1.2. It also
# prints the solve's CPU seconds (user + system) and positions per CPU second, which
# compare engines side by side in one run on a shared machine. Without
# instances, a fixed set of games, sizes and engines. A benchmark: it never fails on
# a ratio.
set -eu
bin=$1
shift
if [ $# -eq 0 ]; then
	set -- taifas:4x4:walk taifas:4x4:tiers taifas:3x5:walk taifas:3x5:tiers \
		"landscape:hex3,neutrals=3,layout=a1;c3;e3:walk" \
		"landscape:hex3,neutrals=3,layout=a1;c3;e3:tiers" \
		"landscape:tri4,neutrals=2,layout=a1;a3:walk" \
		chicken:rh3x4:walk chicken:rh3x4:tiers chicken:tri5:walk chicken:tri5:tiers \
		glorieta:hex2:walk glorieta:hex2:tiers "glorieta:rh3x3,ring=none:walk" \
		"glorieta:rh3x3,ring=none:tiers" blooms:tri3:cycles blooms:tri3:counter \
		mirador:7x7:tiers mirador:8x8:tiers \
		havannah:hex2:tiers
fi
tmp=$(mktemp -d)
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { rm -rf "$tmp"; }' EXIT
TIMEFORMAT='%U %S'
printf '%-44s %-6s %13s %13s %6s %10s %8s %10s\n' instance engine estimate peak ratio \
	positions cpu_s pos/cpu_s
for arg in "$@"; do
	engine=${arg##*:} spec=${arg%:*}
	rm -rf "$tmp/db"
	if ! { time "$bin" solve "$spec" --db "$tmp/db" --solver "$engine" --json \
		>"$tmp/out" 2>"$tmp/err"; } 2>"$tmp/cpu"; then
		printf '%-44s %-6s failed: %s\n' "$spec" "$engine" "$(head -c 200 "$tmp/err")"
		continue
	fi
	est=$(sed -n 's/.*"memory_estimate_bytes": \([0-9]*\).*/\1/p' "$tmp/out")
	peak=$(sed -n 's/.*"peak_memory_bytes": \([0-9]*\).*/\1/p' "$tmp/out")
	pos=$(sed -n 's/.*"positions": \([0-9]*\).*/\1/p' "$tmp/out")
	awk -v s="$spec" -v e="$engine" -v est="$est" -v peak="$peak" -v pos="$pos" \
		-v cpu="$(tail -n 1 "$tmp/cpu")" 'BEGIN {
		split(cpu, c, " "); t = c[1] + c[2];
		printf "%-44s %-6s %9.1f MiB %9.1f MiB %6.2f %10d %8.2f %10.0f\n", s, e,
			est / 1048576, peak / 1048576, est / peak, pos, t, (t > 0 ? pos / t : 0) }'
done
