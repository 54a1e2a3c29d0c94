#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# kill -9 during a solve, then resume: the resumed table must verify and have the same
# content hash as an uninterrupted solve. The kill delays come from a fixed seed. A
# kill counts as landing mid-solve when the table it leaves has some tiers stored but
# not all; the resume must then report exactly those tiers as resumed. The test fails
# unless at least one kill landed mid-solve (so it cannot pass by killing too late).
# kill_resume.sh BOARDPROOF [SPEC [SEED [SOLVE-ARGS...]]]
set -u
bin=$1
spec=${2:-taifas:3x4}
seed=${3:-20261121}
shift $(($# < 3 ? $# : 3))
tmp=$(mktemp -d)
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { rm -rf "$tmp"; }' EXIT
export LC_ALL=C
hash_of() { "$bin" verify "$spec" --db "$1" --json | sed -n 's/.*"content_hash": "\([0-9a-f]*\)"}$/\1/p'; }

"$bin" solve "$spec" --db "$tmp/ref" --threads 1 --block-records 256 "$@" >/dev/null || { echo "reference solve failed"; exit 1; }
want=$(hash_of "$tmp/ref")
[ -n "$want" ] || { echo "no reference hash"; exit 1; }
start=$(date +%s%N)
"$bin" solve "$spec" --db "$tmp/timing" --threads 1 --block-records 256 "$@" >/dev/null
span=$(( ($(date +%s%N) - start) / 1000 ))   # microseconds a solve takes here
RANDOM=$seed
pass=0 fail=0 killed=0 mid=0
for run in 1 2 3 4 5; do
	db="$tmp/run$run"
	delay=$(( span * (10 + RANDOM % 80) / 100 ))
	"$bin" solve "$spec" --db "$db" --threads 2 --block-records 256 "$@" >/dev/null 2>&1 &
	pid=$!
	sleep "$(printf '%d.%06d' $((delay / 1000000)) $((delay % 1000000)))"
	if kill -9 "$pid" 2>/dev/null; then killed=$((killed + 1)); fi
	wait "$pid" 2>/dev/null
	listing=$("$bin" list --db "$db" --json 2>/dev/null)
	tiers=$(sed -n 's/.*"tiers": \([0-9]*\),.*/\1/p' <<<"$listing")
	done_=$(sed -n 's/.*"tiers_done": \([0-9]*\),.*/\1/p' <<<"$listing")
	partial="${done_:-0}/${tiers:-?}"
	out=$("$bin" solve "$spec" --db "$db" --threads 2 --block-records 256 "$@" --json) || { echo "run $run: resume failed"; fail=$((fail + 1)); continue; }
	resumed=$(sed -n 's/.*"resumed_tiers": \([0-9]*\),.*/\1/p' <<<"$out")
	if [ -n "$tiers" ] && [ "${done_:-0}" -gt 0 ] && [ "$done_" -lt "$tiers" ]; then
		mid=$((mid + 1))
		if [ "$resumed" != "$done_" ]; then
			echo "run $run: $partial tiers stored at the kill, but the resume reused ${resumed:-none}"
			fail=$((fail + 1))
			continue
		fi
	fi
	got=$(hash_of "$db")
	if [ "$got" = "$want" ]; then
		pass=$((pass + 1))
		echo "run $run: killed after ${delay}us (tiers stored then: $partial, resumed: ${resumed:-?}); content hash $got"
	else
		fail=$((fail + 1))
		echo "run $run: content hash $got, expected $want"
	fi
done
echo "seed $seed: $killed of 5 solves killed before they ended, $mid of them mid-solve (some tiers stored, not all)"
echo "kill-resume: $pass passed, $fail failed"
if [ "$mid" = 0 ]; then
	echo "kill-resume: no kill landed mid-solve, so nothing was resumed: the test proves nothing"
	exit 1
fi
[ "$fail" = 0 ]
