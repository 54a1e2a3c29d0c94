#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench_solvers.sh BOARDPROOF SPEC [SOLVE-ARGS...]: solves SPEC twice into temporary
# databases, with the expanded-tier walk (--solver walk) and with the generic tiered
# solver (--solver tiers); prints both solves' JSON, then one line with each one's CPU
# seconds (user + system, steadier than wall time on a shared machine) and their
# ratio. Fails if the two tables' content hashes (from `verify`) differ.
set -eu
bin=$1 spec=$2
shift 2
tmp=$(mktemp -d)
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { rm -rf "$tmp"; }' EXIT
TIMEFORMAT='%U %S'
for solver in walk tiers; do
	{ time "$bin" solve "$spec" --db "$tmp/$solver" --solver "$solver" --json "$@" \
		>"$tmp/out"; } 2>"$tmp/$solver.cpu"
	cat "$tmp/out"
	"$bin" verify "$spec" --db "$tmp/$solver" --json 2>/dev/null |
		sed -n 's/.*"content_hash": "\([0-9a-f]*\)"}$/\1/p' >"$tmp/$solver.hash"
done
if [ "$(cat "$tmp/walk.hash")" != "$(cat "$tmp/tiers.hash")" ]; then
	echo "bench_solvers: $spec: the two solvers stored different content" >&2
	exit 1
fi
awk -v spec="$spec" -v hash="$(cat "$tmp/walk.hash")" \
	-v w="$(tail -n 1 "$tmp/walk.cpu")" -v t="$(tail -n 1 "$tmp/tiers.cpu")" 'BEGIN {
	split(w, a, " "); split(t, b, " ");
	printf "{\"instance\": \"%s\", \"walk_cpu_seconds\": %.2f, \"tiers_cpu_seconds\": %.2f, \"tiers_over_walk\": %.2f, \"content_hash\": \"%s\"}\n",
		spec, a[1] + a[2], b[1] + b[2], (b[1] + b[2]) / (a[1] + a[2]), hash }'
