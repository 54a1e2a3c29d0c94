#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Scaling of `solve --mpi` (a benchmark, not a test): positions per second and peak
# memory per rank (the largest over the ranks) for 1, 2 and 4 ranks (4 oversubscribed
# on a 2-core machine), each from an empty database, with the content hash of every
# table so that equal answers are seen too.
#   bench/bench_mpi.sh BINARY [GAME] [THREADS-PER-RANK] [RANKS...]
# Default: taifas:4x4, 1 thread per rank, ranks 1 2 4.
set -eu
bin=$1 game=${2:-taifas:4x4} threads=${3:-1}
shift $(($# < 3 ? $# : 3))
ranks=("$@")
((${#ranks[@]})) || ranks=(1 2 4)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '| ranks | threads/rank | seconds | positions/s | peak memory per rank | content hash |\n'
printf '|---|---|---|---|---|---|\n'
for n in "${ranks[@]}"; do
	db="$tmp/db$n"
	out=$(mpirun --oversubscribe -np "$n" "$bin" solve "$game" --db "$db" --mpi \
		--threads "$threads" --json)
	hash=$("$bin" verify "$game" --db "$db" --json | grep -o '"content_hash": "[0-9a-f]*"' |
		head -1 | cut -d'"' -f4)
	python3 -c '
import json, sys
r = json.loads(sys.argv[1])
print("| %s | %s | %.1f | %s | %.0f MiB | %s |" % (sys.argv[2], sys.argv[3], r["seconds"],
      format(int(r["positions_per_second"]), ","), r["peak_memory_bytes"] / 2**20, sys.argv[4]))
' "$out" "$n" "$threads" "$hash"
done
