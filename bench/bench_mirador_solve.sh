#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Mirador's strong-solving speed against the Taifas walk, in one run: CPU seconds
# (user + sys, /usr/bin/time) and positions per CPU-second of `solve --threads 1` into
# a fresh database each, for taifas:4x4 --solver walk (first and last), mirador:8x8
# and 9x9 (the dense index, the default there), 9x9 --index sparse and 10x10 (sparse).
# With a second binary OLD, each Mirador instance runs on OLD then BP, side by side.
#     bench/bench_mirador_solve.sh [BP] [OLD]
set -eu
bp=${1:-build/tools/boardproof}
old=${2:-}
tmp=$(mktemp -d)
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { rm -rf "$tmp"; }' EXIT
run() { # label binary spec-and-options...
	local lab=$1 bin=$2
	shift 2
	rm -rf "$tmp/db"
	/usr/bin/time -f "%U %S" -o "$tmp/time" "$bin" solve "$@" --db "$tmp/db" --threads 1 \
		--json >"$tmp/out"
	local pos cpu
	pos=$(grep -o '"positions": [0-9]*' "$tmp/out" | grep -o '[0-9]*$')
	cpu=$(awk '{ printf "%.2f", $1 + $2 }' "$tmp/time")
	awk -v l="$lab" -v p="$pos" -v c="$cpu" -v load="$(cut -d' ' -f1 /proc/loadavg)" \
		'BEGIN { printf "%-36s %10d positions %8.2f CPU-s %10.0f /CPU-s (load %s)\n", l, p, c, p / c, load }'
}
run "taifas:4x4 --solver walk" "$bp" taifas:4x4 --solver walk
for spec in mirador:8x8 mirador:9x9 "mirador:9x9 --index sparse" mirador:10x10; do
	# shellcheck disable=SC2086
	[ -n "$old" ] && run "$spec (old)" "$old" $spec
	# shellcheck disable=SC2086
	run "$spec" "$bp" $spec
done
run "taifas:4x4 --solver walk" "$bp" taifas:4x4 --solver walk
