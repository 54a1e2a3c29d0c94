#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fault injection (tests/fault/fault.c, loaded with LD_PRELOAD) in `prove` and in the
# readers of what it stores: every allocation, write and sync site and every LMDB
# function (lmdb.get, lmdb.commit, ...) of each phase below made to fail, one run per
# failing call:
#
#   new          prove taifas:3x3 --save-proof into an empty database
#   again        the same into a database that has its proven values and proof (the
#                proven values as oracle; the proof replaced)
#   lemma        the same into a database that has the proof of a first move's
#                position (the build takes it whole: a lemma read and decoded)
#   oracle       prove taifas:3x3 --openings --save-proof into a database holding the
#                solved table (table leaves; 18 proofs)
#   checkpoints  prove chicken:tri4 --save-proof --checkpoint 0 (a checkpoint for every
#                recorded value)
#   verify       verify --proofs of the `again` database (read-only)
#   query        query of the start position, answered from the proven values
#
# A run must end with exit 0 and the clean run's values (the fault was absorbed), or a
# non-zero exit below 124 with a "boardproof: <command>: ..." message: never a crash,
# a hang, or exit 0 with another answer. After a prove run, `verify --proofs` must
# pass (every stored proof holds, every proven value sound) and a prove without the
# fault must give the clean values and a proof that verifies. Then a tiny LMDB map
# (MDB_MAP_FULL) and a full disk (a 112 KiB tmpfs, when this machine lets the test
# mount one), whose messages must name the cause. A site called more than MOST times (default 4) gets MOST failing calls
# drawn with SEED, always including its first and last call.
#
#   faults_prove.sh BOARDPROOF SHIM [MOST [SEED [PHASES]]]
#
# PHASES: the phases to run (default "new again lemma oracle checkpoints verify query
# limits"; limits: the tiny map and the full disk).
set -u
bin=$1
shim=$2
most=${3:-4}
seed=${4:-20261124}
phases=${5:-new again lemma oracle checkpoints verify query limits}
. "$(dirname "${BASH_SOURCE[0]}")/faults_lib.sh" # $tmp, $mnt (unmounted at exit), problem, picks
t3=taifas:3x3
ch=chicken:tri4
opts=(--memory 1M --save-proof)

# the command line of a phase on database $2
cmdline() {
	case $1 in
	new | again | lemma) echo prove "$t3" --db "$2" "${opts[@]}" ;;
	oracle) echo prove "$t3" --db "$2" "${opts[@]}" --openings ;;
	checkpoints) echo prove "$ch" --db "$2" "${opts[@]}" --checkpoint 0 ;;
	verify) echo verify --proofs "$t3" --db "$2" ;;
	query) echo query "$t3" --db "$2" ;;
	esac
}
spec_of() { case $1 in checkpoints) echo "$ch" ;; *) echo "$t3" ;; esac; }
# the database a phase starts from (copied for each run; empty: none)
base_of() {
	case $1 in
	again | verify | query) echo "$tmp/base_again" ;;
	lemma) echo "$tmp/base_lemma" ;;
	oracle) echo "$tmp/base_table" ;;
	*) echo "" ;;
	esac
}

# the answer in a report: value lines (prove), opening lines, or the whole output
answer() {
	case $1 in
	verify | query) cat "$2" ;;
	*) grep -E '^value:|^  [^ ]' "$2" | awk '{print $1, $2}' ;;
	esac
}

# verify --proofs must pass on a database after a run: proofs hold, proven values are
# sound (a database or key space not there yet is fine: nothing was stored)
proofs_sound() {
	local out rc
	out=$("$bin" verify --proofs "$2" --db "$1" 2>"$tmp/ps.err")
	rc=$?
	[ $rc = 0 ] && case $out in *", 0 failed; "*) return 0 ;; esac
	[ $rc = 3 ] && grep -q -E "no database (at|here)|: No such file or directory$" "$tmp/ps.err" && return 0
	echo "verify --proofs: exit $rc: $out $(head -c 300 "$tmp/ps.err")"
	return 1
}

"$bin" solve "$t3" --db "$tmp/base_table" --block-records 256 >/dev/null || { echo "solve failed"; exit 1; }
"$bin" prove "$t3" --db "$tmp/base_again" "${opts[@]}" >/dev/null || { echo "prove failed"; exit 1; }
# xa2 wins taifas:3x3: its position's proof is the lemma the start's build takes
"$bin" prove "$t3" --moves xa2 --db "$tmp/base_lemma" "${opts[@]}" >/dev/null || { echo "prove xa2 failed"; exit 1; }
cp -r "$tmp/base_lemma" "$tmp/lemma_check"
"$bin" prove "$t3" --db "$tmp/lemma_check" "${opts[@]}" --json | grep -q '"proof_lemmas": 1,' ||
	{ echo "the lemma phase's build takes no lemma"; exit 1; }
declare -A want nproofs
for phase in new again lemma oracle checkpoints verify query; do
	rm -rf "$tmp/ref"
	b=$(base_of $phase)
	[ -n "$b" ] && cp -r "$b" "$tmp/ref"
	# shellcheck disable=SC2046
	"$bin" $(cmdline $phase "$tmp/ref") >"$tmp/out" 2>"$tmp/err" || { echo "$phase: clean run failed: $(cat "$tmp/err")"; exit 1; }
	want[$phase]=$(answer $phase "$tmp/out")
	[ -n "${want[$phase]}" ] || { echo "$phase: no answer in the clean run"; exit 1; }
	nproofs[$phase]=$("$bin" verify --proofs "$(spec_of $phase)" --db "$tmp/ref" | sed -n 's/.*: \([0-9]*\) saved proofs\{0,1\} checked, 0 failed.*/\1/p')
	[ -n "${nproofs[$phase]}" ] || { echo "$phase: the clean database does not verify"; exit 1; }
done

fail=0 runs=0 absorbed=0 reported=0

RANDOM=$seed

# judge PHASE WHAT DB RC: the checks of one run that ended with exit RC
judge() {
	local phase=$1 what=$2 db=$3 rc=$4 cmd spec
	cmd=$(cmdline $phase x | cut -d' ' -f1)
	spec=$(spec_of $phase)
	if [ "$rc" -ge 124 ]; then
		problem "$what: exit $rc (crash or hang): $(head -c 300 "$tmp/err")"
		return
	fi
	if [ "$rc" = 0 ]; then
		absorbed=$((absorbed + 1))
		[ "$(answer $phase "$tmp/out")" = "${want[$phase]}" ] ||
			problem "$what: exit 0 with another answer: $(head -c 300 "$tmp/out")"
	else
		reported=$((reported + 1))
		grep -q "^boardproof: $cmd: " "$tmp/err" ||
			problem "$what: exit $rc without a message: $(head -c 300 "$tmp/err" "$tmp/out")"
	fi
	[ "$cmd" = prove ] || return
	local why
	why=$(proofs_sound "$db" "$spec") || problem "$what: afterwards: $why"
	# a prove without the fault: the clean values, and every proof there holds
	# shellcheck disable=SC2046
	"$bin" $(cmdline $phase "$db") >"$tmp/out2" 2>"$tmp/err2" ||
		{ problem "$what: prove again failed: $(head -c 300 "$tmp/err2")"; return; }
	[ "$(answer $phase "$tmp/out2")" = "${want[$phase]}" ] || problem "$what: prove again gave another answer"
	local n
	n=$("$bin" verify --proofs "$spec" --db "$db" 2>&1 | sed -n 's/.*: \([0-9]*\) saved proofs\{0,1\} checked, 0 failed.*/\1/p')
	[ "$n" = "${nproofs[$phase]}" ] || problem "$what: after proving again: '$n' proofs verified, want ${nproofs[$phase]}"
}

for phase in $phases; do
	[ "$phase" = limits ] && continue
	b=$(base_of $phase)
	rm -rf "$tmp/count"
	[ -n "$b" ] && cp -r "$b" "$tmp/count"
	# shellcheck disable=SC2046
	BOARDPROOF_FAULT_COUNT=$tmp/counts LD_PRELOAD=$shim "$bin" $(cmdline $phase "$tmp/count") >/dev/null 2>&1
	[ -s "$tmp/counts" ] || { echo "the fault shim did not load (LD_PRELOAD=$shim)"; exit 1; }
	line=""
	while read -r site calls; do
		[ "$site" = lmdb ] && continue # tried function by function (lmdb.*)
		if [ "$calls" = 0 ]; then
			case $site in alloc | lmdb.txn_begin) problem "$phase: no call at site $site (the shim misses it)" ;; esac
			continue
		fi
		tried=0
		for n in $(picks "$calls"); do
			runs=$((runs + 1))
			db=$tmp/run
			rm -rf "$db"
			[ -n "$b" ] && cp -r "$b" "$db"
			# shellcheck disable=SC2046
			BOARDPROOF_FAULT=$site:$n LD_PRELOAD=$shim timeout 120 "$bin" $(cmdline $phase "$db") >"$tmp/out" 2>"$tmp/err"
			judge $phase "$phase, $site call $n" "$db" $?
			tried=$((tried + 1))
		done
		line="$line $site $tried/$calls"
	done <"$tmp/counts"
	echo "$phase: made to fail (site tried/calls):$line"
done

case " $phases " in *" limits "*) ;; *)
	echo "faults (prove): $runs runs ($absorbed absorbed with a right answer, $reported reported with an error); $fail failures"
	[ "$fail" = 0 ]
	exit
	;;
esac

# A tiny map: MDB_MAP_FULL, at the key spaces' creation (32 KiB) or the proof's
# write (52 KiB; the proof without Taifas' value bounds, which make it small enough
# to fit).
for m in 32768 53248; do
	db=$tmp/map$m
	runs=$((runs + 1))
	BOARDPROOF_PROVE_BOUNDS=off BOARDPROOF_FAULT_MAP=$m LD_PRELOAD=$shim timeout 120 "$bin" $(cmdline new "$db") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = 0 ]; then
		problem "tiny map ($m): exit 0"
	elif ! grep -q "^boardproof: prove: .*database full (MDB_MAP_FULL: " "$tmp/err"; then
		problem "tiny map ($m): exit $rc, want a message naming the full map: $(head -c 300 "$tmp/err")"
	else
		echo "tiny map ($m bytes): exit $rc: $(head -1 "$tmp/err")"
	fi
	judge new "tiny map ($m)" "$db" $rc
done

# A full disk: a tmpfs smaller than the database (LMDB's lock file takes 64 KiB of it).
mkdir -p "$tmp/disk"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=112k tmpfs "$tmp/disk" 2>/dev/null; then
	mnt=$tmp/disk
	runs=$((runs + 1))
	timeout 120 "$bin" $(cmdline checkpoints "$mnt/db") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = 0 ]; then
		problem "full disk: exit 0"
	elif ! grep -q "^boardproof: prove: .*disk full (" "$tmp/err"; then
		problem "full disk: exit $rc, want a message naming the full disk: $(head -c 300 "$tmp/err")"
	else
		echo "full disk (112 KiB tmpfs): exit $rc: $(head -1 "$tmp/err")"
		proofs_sound "$mnt/db" "$ch" >/dev/null || problem "full disk: the database does not verify"
		cp -r "$mnt/db" "$tmp/fromdisk"
		umount "$mnt"
		mnt=""
		judge checkpoints "full disk" "$tmp/fromdisk" $rc
	fi
else
	echo "full disk: skipped (cannot mount a tmpfs here: not root, or no permission)"
fi

echo "faults (prove): $runs runs ($absorbed absorbed with a right answer, $reported reported with an error); $fail failures"
[ "$fail" = 0 ]
