#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `solve --replace` must not take anything from an interrupted solve's scratch files.
# A solve of a Chicken instance is stopped (SIGINT) during its forward pass, with some
# tiers' reached bits saved in walk-*-reach-*.bits; run again on a copy it takes them
# back (its progress says "from its scratch file": the control, so that the test
# cannot pass by the files being absent or ignored), while `solve --replace` on the
# original removes them and marks from the start. Each run is stopped early: the
# test looks at the marking only.
# replace_scratch.sh BOARDPROOF [SPEC]
set -u
bin=$1
spec=${2:-chicken:tri5}
tmp=$(mktemp -d)
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { rm -rf "$tmp"; }' EXIT
export LC_ALL=C
. "$(dirname "${BASH_SOURCE[0]}")/bg.sh" # bg_start, bg_pid, bg_done, bg_wait

# run_until DB PATTERN ARGS...: a solve stopped by SIGINT once its progress shows
# PATTERN; its stderr is left in DB.err. Fails unless it exited 130 (interrupted).
# Its status comes through bg.sh, not bash's `wait PID`, which once answered
# "wait_for: No record of process" here.
run_until() {
	local db=$1 pat=$2 pid
	shift 2
	bg_start "$db" "$bin" solve "$spec" --db "$db" --threads 1 --progress "$@" >/dev/null 2>"$db.err"
	pid=$(bg_pid "$db")
	for _ in $(seq 3000); do
		bg_done "$db" && break
		grep -q "$pat" "$db.err" && break
		sleep 0.01
	done
	[ -n "$pid" ] && kill -INT "$pid" 2>/dev/null
	bg_wait "$db"
	local rc=$bg_rc
	if [ "$rc" != 130 ]; then
		echo "$db: the solve exited $rc, expected 130 (did it end before the signal?)"
		tail -3 "$db.err"
		exit 1
	fi
}

run_until "$tmp/db" 'reachable: tier 6 of [0-9]*: [0-9]'
saved=$(ls "$tmp/db" | grep -c -- '-reach-.*\.bits$')
echo "interrupted in the forward pass: $saved files of reached bits"
[ "$saved" -gt 0 ] || { echo "no file of reached bits after the stop"; exit 1; }
cp -r "$tmp/db" "$tmp/copy"
touch "$tmp/mark"
sleep 1 # mtimes: a file written from here on is newer than mark

run_until "$tmp/copy" 'reachable: tier [0-9]* of [0-9]*: [0-9]*[^,]* ([0-9.]* s)$'
taken=$(grep -c 'from its scratch file' "$tmp/copy.err")
echo "resumed: $taken tiers taken from their files"
[ "$taken" -gt 0 ] || { echo "the resumed solve took no tier from its files"; exit 1; }

old=$(ls "$tmp/db" | grep -- '-reach-.*\.bits$' | sort -t- -k4 -n | tail -1)
run_until "$tmp/db" 'reachable: tier 0 of' --replace
taken=$(grep -c 'from its scratch file' "$tmp/db.err")
if [ "$taken" != 0 ]; then
	echo "solve --replace took $taken tiers from the old solve's files"
	exit 1
fi
if [ -e "$tmp/db/$old" ] && ! [ "$tmp/db/$old" -nt "$tmp/mark" ]; then
	echo "solve --replace left the old solve's $old"
	exit 1
fi
echo "solve --replace: marked from the start, the old files gone"
