#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# kill -9 soak (a benchmark, not a test; tests/RELIABILITY.md): solves killed at random
# moments, over and over, each time resumed, until KILLS kills have landed in the
# middle of a solve. After every kill: the tiers marked done never go back (none lost),
# and (every CHECK-th kill, and at each completion) verify finds no damaged block and
# no inconsistency in the stored tiers (none changed). Each completed table must have
# the uninterrupted solve's content hash; the instance then starts again from nothing.
#
#   soak.sh BOARDPROOF [KILLS [SEED [CHECK]]]
#
# Instances: taifas:3x4 by the tier walk and by the generic tiered solver, and
# chicken:tri4. Prints a line per completed table and a summary; exits 1 on any loss.
set -u
bin=$1
kills=${2:-1000}
seed=${3:-20261124}
check=${4:-10}
tmp=$(mktemp -d)
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { rm -rf "$tmp"; }' EXIT
export LC_ALL=C
names=(walk tiers chicken)
specs=(taifas:3x4 taifas:3x4 chicken:tri4)
extra=("--solver walk" "--solver tiers" "")
RANDOM=$seed

hash_of() { "$bin" verify "$1" --db "$2" --json 2>/dev/null | sed -n 's/.*"content_hash": "\([0-9a-f]*\)"}$/\1/p'; }
done_tiers() { "$bin" list --db "$1" --json 2>/dev/null | sed -n 's/.*"tiers_done": \([0-9]*\).*/\1/p' | head -1; }

declare -a want span
for i in "${!names[@]}"; do
	# shellcheck disable=SC2086
	"$bin" solve "${specs[$i]}" --db "$tmp/ref$i" --threads 2 --block-records 1024 ${extra[$i]} >/dev/null ||
		{ echo "${names[$i]}: reference solve failed"; exit 1; }
	want[$i]=$(hash_of "${specs[$i]}" "$tmp/ref$i")
	start=$(date +%s%N)
	# shellcheck disable=SC2086
	"$bin" solve "${specs[$i]}" --db "$tmp/time$i" --threads 2 --block-records 1024 ${extra[$i]} >/dev/null
	span[$i]=$((($(date +%s%N) - start) / 1000)) # microseconds
	echo "${names[$i]}: ${specs[$i]}, uninterrupted solve ${span[$i]} us, content hash ${want[$i]}"
done

landed=0 missed=0 lost=0 damaged=0 wrong=0 completed=0 checks=0
declare -a before
for i in "${!names[@]}"; do before[$i]=0; done
t0=$(date +%s)
while [ $landed -lt "$kills" ]; do
	i=$((RANDOM % ${#names[@]}))
	db=$tmp/db$i
	delay=$((span[i] * (RANDOM % 100) / 100))
	# shellcheck disable=SC2086
	"$bin" solve "${specs[$i]}" --db "$db" --threads 2 --block-records 1024 ${extra[$i]} >/dev/null 2>&1 &
	pid=$!
	sleep "$(printf '%d.%06d' $((delay / 1000000)) $((delay % 1000000)))"
	if kill -9 "$pid" 2>/dev/null; then
		wait "$pid" 2>/dev/null
		status=$?
		if [ $status = 137 ]; then
			landed=$((landed + 1))
		else
			missed=$((missed + 1))
		fi
	else
		wait "$pid" 2>/dev/null
		missed=$((missed + 1))
	fi
	now=$(done_tiers "$db")
	now=${now:-0}
	if [ "$now" -lt "${before[$i]}" ]; then
		echo "LOST: ${names[$i]}: $now tiers done after a kill, ${before[$i]} before"
		lost=$((lost + 1))
	fi
	before[$i]=$now
	total=$("$bin" list --db "$db" --json 2>/dev/null | sed -n 's/.*"tiers": \([0-9]*\).*/\1/p' | head -1)
	if [ -n "$total" ] && [ "$now" = "$total" ]; then
		got=$(hash_of "${specs[$i]}" "$db")
		if [ "$got" = "${want[$i]}" ]; then
			completed=$((completed + 1))
		else
			echo "WRONG: ${names[$i]}: completed table has content hash $got, not ${want[$i]}"
			wrong=$((wrong + 1))
		fi
		rm -rf "$db"
		before[$i]=0
	elif [ -e "$db/data.mdb" ] && [ $((landed % check)) = 0 ]; then
		checks=$((checks + 1))
		j=$("$bin" verify "${specs[$i]}" --db "$db" --json 2>/dev/null)
		case $j in
		*'"inconsistencies": 0, "corrupt_blocks": 0,'* | '') ;;
		*)
			echo "DAMAGED: ${names[$i]} after kill $landed: $j"
			damaged=$((damaged + 1))
			;;
		esac
	fi
	if [ $((landed % 100)) = 0 ] && [ "$status" = 137 ]; then
		echo "$landed kills landed ($missed missed), $completed tables completed, $((($(date +%s) - t0))) s"
	fi
done
# finish every instance without a kill, and check it
for i in "${!names[@]}"; do
	db=$tmp/db$i
	# shellcheck disable=SC2086
	"$bin" solve "${specs[$i]}" --db "$db" --threads 2 --block-records 1024 ${extra[$i]} >/dev/null 2>&1 ||
		{ echo "WRONG: ${names[$i]}: the last resume failed"; wrong=$((wrong + 1)); }
	got=$(hash_of "${specs[$i]}" "$db")
	if [ "$got" = "${want[$i]}" ]; then completed=$((completed + 1)); else
		echo "WRONG: ${names[$i]}: final content hash $got, not ${want[$i]}"
		wrong=$((wrong + 1))
	fi
done
echo "seed $seed: $landed kills landed mid-solve ($missed after the solve had ended), $completed tables completed with the uninterrupted content hash, $checks partial tables verified; $lost lost tiers, $damaged damaged, $wrong wrong hashes; $((($(date +%s) - t0))) s"
[ $lost = 0 ] && [ $damaged = 0 ] && [ $wrong = 0 ]
