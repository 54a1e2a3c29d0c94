#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench_solve_probe.sh BOARDPROOF BENCH_PROBE SPEC [SOLVE-ARGS...]: solves SPEC into a
# temporary database and prints the solve's JSON and the probe benchmark's JSON.
set -eu
bin=$1 probe=$2 spec=$3
shift 3
tmp=$(mktemp -d)
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { rm -rf "$tmp"; }' EXIT
"$bin" solve "$spec" --db "$tmp" --json "$@"
"$probe" "$tmp" "$spec" 100000 1
