#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Mirador's strong-solving rate against the Taifas walk's, in one run (issue 14's "at
# least half"): `solve taifas:4x4` and `solve mirador:10x10` into fresh databases,
# alternating, ROUNDS times, each with --threads THREADS; prints each pair's positions
# a second (the solves' own figure, wall-clock) and CPU seconds (user + sys), their
# ratios, and the medians. With OLD, mirador:10x10 also runs on OLD in each round.
#     bench/walk_ratio.sh [BP] [ROUNDS] [THREADS] [OLD]
set -eu
bp=${1:-build/tools/boardproof}
rounds=${2:-6}
threads=${3:-2}
old=${4:-}
tmp=$(mktemp -d)
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { rm -rf "$tmp"; }' EXIT
# shellcheck source=bench/solve_rate.sh
. "$(dirname "${BASH_SOURCE[0]}")/solve_rate.sh"
run() { solve_rate "$1" "$2" "$threads" "$tmp"; } # binary spec
echo "# $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1), $(nproc) cores, --threads $threads"
for r in $(seq "$rounds"); do
	read -r tw tc < <(run "$bp" taifas:4x4)
	read -r mw mc < <(run "$bp" mirador:10x10)
	line=$(awk -v tw="$tw" -v mw="$mw" -v tc="$tc" -v mc="$mc" 'BEGIN {
		printf "walk %6.2f M/s %5.2f CPU-s  mirador %5.2f M/s %5.2f CPU-s  ratio %.3f (CPU %.3f)",
			tw / 1e6, tc, mw / 1e6, mc, mw / tw, (9143826 / mc) / (10779071 / tc) }')
	if [ -n "$old" ]; then
		read -r ow oc < <(run "$old" mirador:10x10)
		line="$line  old $(awk -v ow="$ow" -v oc="$oc" -v tw="$tw" 'BEGIN {
			printf "%5.2f M/s %5.2f CPU-s ratio %.3f", ow / 1e6, oc, ow / tw }')"
	fi
	echo "$line (load $(cut -d' ' -f1 /proc/loadavg))"
done | tee "$tmp/rounds"
awk '{ for (i = 1; i <= NF; i++) if ($i == "ratio") { print $(i + 1); break } }' "$tmp/rounds" |
	sort -n | awk '{ r[NR] = $1 } END {
		printf "median ratio %.3f over %d rounds\n", NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2, NR }'
