#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Mirador benchmark: perft turns per second and unbreakable tests per second on
# mirador:10x10, moves() timing along seeded random 27x27 games, and the same on
# crowded random boards (10x10, 12x12, 27x27); times are CPU time of the
# benchmark thread (bench_mirador), wall time for the boardproof runs. Usage:
#     bench/bench_mirador.sh [BUILD_DIR] [SEED]
set -eu
build=${1:-build}
seed=${2:-1}
ninja -C "$build" bench/bench_mirador tools/boardproof >/dev/null
bin="$build/bench/bench_mirador"
bp="$build/tools/boardproof"
echo "== perft (boardproof) =="
"$bp" perft mirador:10x10 4 --stats
echo "== bench_mirador --seed $seed --games 200 --perft-depth 4 =="
"$bin" --seed "$seed" --games 200 --perft-depth 4
echo "== bench_mirador --seed $seed --crowded 2000 =="
"$bin" --seed "$seed" --crowded 2000
# a 27x27 mid-game position (38 pieces from a seeded random game, no winner yet)
pos='23bb2/23bb2/2rr21bb/2rr5rr14bb/9rr16/27/27/27/27/1rr24/1rr10rr2bb8/13rr2bb8/7bb18/7bb18/13bb12/13bb12/27/11bb14/11bb12rr/25rr/27/27/27/27/17rr8/17rr8/27 r'
echo "== 27x27 mid-game: time boardproof moves and perft 1 =="
/usr/bin/time -f "boardproof moves: %e s" "$bp" moves mirador:27x27 "$pos" | wc -l
/usr/bin/time -f "boardproof perft 1: %e s" "$bp" perft mirador:27x27 1 --position "$pos"
"$bin" --spec mirador:27x27 "$pos"
echo "== stress: a lattice of 25 red pieces on 27x27 (breaking set of 10) =="
"$bin" --spec mirador:27x27 --board 'rr4rr4rr4rr4rr1/rr4rr4rr4rr4rr1/27/27/27/27/rr4rr4rr4rr4rr1/rr4rr4rr4rr4rr1/27/27/27/27/rr4rr4rr4rr4rr1/rr4rr4rr4rr4rr1/27/27/27/27/rr4rr4rr4rr4rr1/rr4rr4rr4rr4rr1/27/27/27/27/rr4rr4rr4rr4rr1/rr4rr4rr4rr4rr1/27'
