#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Scaling of `solve --mpi` (a benchmark, not a test): positions per second, peak memory
# per rank (the largest over the ranks) and the busiest rank's bytes sent and received,
# for each number of ranks (more ranks than cores are oversubscribed) times each
# number of threads per rank, each from an empty database, run one after the other
# (side by side in one run, so the ratios are comparable), with the content hash of
# every table so that equal answers are seen too, and the load average before each run.
#   [SOLVER=tiers|walk] bench/bench_mpi.sh BINARY [GAME] [THREADS...] [-- RANKS...]
# Default: taifas:4x4, threads 1 2, ranks 1 2 4, the engine solve --mpi picks (the walk
# where the game has one).
set -eu
bin=$1 game=${2:-taifas:4x4} solver=${SOLVER:-auto}
shift $(($# < 2 ? $# : 2))
threads=() ranks=()
while (($#)) && [ "$1" != -- ]; do threads+=("$1"); shift; done
(($#)) && shift
ranks=("$@")
((${#threads[@]})) || threads=(1 2)
((${#ranks[@]})) || ranks=(1 2 4)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { rm -rf "$tmp"; }' EXIT
echo "$game, solver $solver: $(nproc) cores"
printf '| solver | ranks | threads/rank | seconds | positions/s | peak memory per rank | sent (busiest rank) | received (busiest rank) | load avg before | content hash |\n'
printf '|---|---|---|---|---|---|---|---|---|---|\n'
for t in "${threads[@]}"; do
	for n in "${ranks[@]}"; do
		db="$tmp/db$n-$t"
		load=$(cut -d' ' -f1 /proc/loadavg)
		# a rank waiting in MPI yields its core: on a shared machine a spinning rank
		# takes the core its peer needs (drop it on dedicated cores)
		out=$(nice mpirun --oversubscribe --mca mpi_yield_when_idle 1 -np "$n" "$bin" \
			solve "$game" --db "$db" --mpi \
			--solver "$solver" --threads "$t" --json)
		hash=$("$bin" verify "$game" --db "$db" --hash-only --json |
			grep -o '"content_hash": "[0-9a-f]*"' | head -1 | cut -d'"' -f4)
		python3 -c '
import json, sys
r = json.loads(sys.argv[1])
print("| %s | %s | %s | %.1f | %s | %.0f MiB | %.1f MiB | %.1f MiB | %s | %s |" % (r["solver"], sys.argv[2],
      sys.argv[3], r["seconds"], format(int(r["positions_per_second"]), ","),
      r["peak_memory_bytes"] / 2**20, r["rank_sent_bytes"] / 2**20,
      r["rank_received_bytes"] / 2**20, sys.argv[5], sys.argv[4]))
' "$out" "$n" "$t" "$hash" "$load"
		rm -rf "$db"
	done
done
