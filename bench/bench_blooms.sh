#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Blooms move-generation benchmark: perft turns per second (moves generated, each
# two-stone turn counted once) on blooms:hex3 and blooms:hex5, from the start and from
# mid-game and late positions reached by seeded random play. A benchmark, not a test.
#
#   bench/bench_blooms.sh [BOARDPROOF] [--long]
#
# BOARDPROOF defaults to build/tools/boardproof (build with the default release
# buildtype). --long adds deeper runs (about a minute more). Wall-clock rates suffer
# on a loaded machine; the CPU-time rates (user time of the process) suffer less.
set -eu
bin=${1:-build/tools/boardproof}
long=${2:-}
export LC_ALL=C

run() { # label game depth position
	local out tf
	tf=$(mktemp)
	out=$(/usr/bin/time -f %U -o "$tf" "$bin" perft "$2" "$3" --position "$4" --stats --json)
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
cpu = float(open(sys.argv[3]).read().split()[-1])
rate = "%11.0f/s" % (d["moves"] / cpu) if cpu >= 0.1 else "%13s" % "(too short)"
print("%-28s depth %d %12d turns %7.3f s %11.0f/s   cpu %6.2f s %s" % (
      sys.argv[2], d["perft"][-1]["depth"], d["moves"], d["seconds"], d["moves_per_second"],
      cpu, rate))
' "$out" "$1" "$tf"
	rm -f "$tf"
}

# Positions from a random walk (tools-free: replay with `boardproof show`): hex3
# after 6 single-stone turns (seeds 1, 2); hex5 after 12 single-stone turns, after 8
# turns of either kind (seeds 1, 3), and after 16 and 24 turns of either kind (seed
# 1): crowded boards with captures everywhere.
H3_MID1='r2/g2k/1y3/g1r1/3 1 firstpass=- passed=0'
H3_MID2='1y1/rgy1/5/1g2/1k1 1 firstpass=- passed=0'
H5_MID1='5/6/1r4g/6g1/3kg1r2/gr4k1/2r2y1/6/y4 1 firstpass=- passed=0'
H5_MID2='1g2g/6/5r1/7r/1y1y3g1/4kk2/4y1r/1yk1kg/5 1 firstpass=- passed=0'
H5_MID3='2y1r/2gy2/3g3/1k2k3/2rk5/2r5/3y2k/g4r/3g1 1 firstpass=- passed=0'
H5_LATE1='1g2g/1gg3/yky2rr/1rr2g1r/1y1yy2gk/4kk2/y1kry1r/1yk1kg/g2k1 1 firstpass=- passed=0'
H5_LATE2='1ggrg/ygg1r1/y1y2rr/1rr2g1r/yykyygrg1/1y1ykkkr/y1kry1r/kyk1kg/g1gkg 1 firstpass=- passed=0'

"$bin" --version
run "hex3 start" blooms:hex3 3 start
run "hex3 mid (6 turns, seed 1)" blooms:hex3 3 "$H3_MID1"
run "hex3 mid (6 turns, seed 2)" blooms:hex3 3 "$H3_MID2"
run "hex5 start" blooms:hex5 2 start
run "hex5 start" blooms:hex5 3 start
run "hex5 mid (12 turns, seed 1)" blooms:hex5 2 "$H5_MID1"
run "hex5 mid (8 turns, seed 1)" blooms:hex5 2 "$H5_MID2"
run "hex5 mid (8 turns, seed 3)" blooms:hex5 2 "$H5_MID3"
run "hex5 late (24 turns)" blooms:hex5 3 "$H5_LATE2"
if [ "$long" = --long ]; then
	run "hex3 start" blooms:hex3 4 start
	run "hex3 mid (6 turns, seed 1)" blooms:hex3 4 "$H3_MID1"
	run "hex5 late (16 turns)" blooms:hex5 3 "$H5_LATE1"
fi
