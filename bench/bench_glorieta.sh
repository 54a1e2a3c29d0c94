#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark of the Glorieta games: perft moves per second on chicken:hex4 and
# glorieta:hex4 from the start (depth 3, or $1), and loop checks per second.
# Builds a release tree in build-bench/ unless BOARDPROOF_BUILD names one.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=${BOARDPROOF_BUILD:-build-bench}
depth=${1:-3}
if [ ! -d "$build" ]; then
	meson setup "$build" --buildtype=release >/dev/null
fi
ninja -C "$build" >/dev/null
echo "== boardproof perft --stats (depth $depth)"
for game in chicken:hex4 glorieta:hex4; do
	echo "$game:"
	"$build/tools/boardproof" perft "$game" "$depth" --stats | sed 's/^/  /'
done
echo "== bench_glorieta (depth $depth)"
"$build/tests/solver/games/bench_glorieta" "$depth"
