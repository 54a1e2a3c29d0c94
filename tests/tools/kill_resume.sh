#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# kill -9 during a solve, then resume: the resumed table must verify and have the same
# content hash as an uninterrupted solve. The kill delays come from a fixed seed.
# kill_resume.sh BOARDPROOF [SPEC [SEED [SOLVE-ARGS...]]]
set -u
bin=$1
spec=${2:-taifas:3x4}
seed=${3:-20261121}
shift $(($# < 3 ? $# : 3))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C
hash_of() { "$bin" verify "$spec" --db "$1" --json | sed -n 's/.*"content_hash": "\([0-9a-f]*\)"}$/\1/p'; }

"$bin" solve "$spec" --db "$tmp/ref" --threads 1 --block-records 256 "$@" >/dev/null || { echo "reference solve failed"; exit 1; }
want=$(hash_of "$tmp/ref")
[ -n "$want" ] || { echo "no reference hash"; exit 1; }
start=$(date +%s%N)
"$bin" solve "$spec" --db "$tmp/timing" --threads 1 --block-records 256 "$@" >/dev/null
span=$(( ($(date +%s%N) - start) / 1000 ))   # microseconds a solve takes here
RANDOM=$seed
pass=0 fail=0 killed=0
for run in 1 2 3 4 5; do
	db="$tmp/run$run"
	delay=$(( span * (10 + RANDOM % 80) / 100 ))
	"$bin" solve "$spec" --db "$db" --threads 2 --block-records 256 "$@" >/dev/null 2>&1 &
	pid=$!
	sleep "$(printf '%d.%06d' $((delay / 1000000)) $((delay % 1000000)))"
	if kill -9 "$pid" 2>/dev/null; then killed=$((killed + 1)); fi
	wait "$pid" 2>/dev/null
	partial=$("$bin" list --db "$db" 2>/dev/null | awk 'NR == 2 {print $NF}')
	"$bin" solve "$spec" --db "$db" --threads 2 --block-records 256 "$@" >/dev/null || { echo "run $run: resume failed"; fail=$((fail + 1)); continue; }
	got=$(hash_of "$db")
	if [ "$got" = "$want" ]; then
		pass=$((pass + 1))
		echo "run $run: killed after ${delay}us (tiers stored then: ${partial:-none}); resumed, content hash $got"
	else
		fail=$((fail + 1))
		echo "run $run: content hash $got, expected $want"
	fi
done
echo "seed $seed: $killed of 5 solves killed mid-way"
echo "kill-resume: $pass passed, $fail failed"
[ "$fail" = 0 ]
