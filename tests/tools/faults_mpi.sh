#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fault injection (tests/fault/fault.c, loaded with LD_PRELOAD) in `solve --mpi`: with
# `mpirun -np 2`, the Nth call of one site (alloc, write, sync, each LMDB function
# lmdb.*) fails in ONE rank (BOARDPROOF_FAULT_RANK; rank 0 writes the database, rank 1
# only reads it and sends its records), for each engine that splits:
#
#   walk     solve taifas:3x3 --mpi --solver walk (the tier walk, solver/expanded.c)
#   tiers    solve taifas:3x3 --mpi --solver tiers (the generic tiered solver,
#            solver/retrograde.c)
#
# Only the program's own calls count: the shim leaves MPI's (inside an MPI call, or on
# a thread MPI started) alone. A run must end with exit 0 and the uninterrupted content
# hash, or a non-zero exit below 124 with a "boardproof: solve: ..." message (naming
# the failing rank once the rank knows it is one): never a crash, and never a hang (a
# rank that fails must make the other stop: `timeout` catches one). Afterwards the
# database must verify clean (no damaged block, no inconsistency; missing tiers are
# fine) and a resumed solve must give the uninterrupted content hash: in one process,
# and on 2 ranks for every third run.
#
#   faults_mpi.sh BOARDPROOF SHIM [MOST [SEED [ENGINES]]]
#
# A site called more than MOST times (default 2) gets MOST failing calls drawn with
# SEED, always including its first and last call. ENGINES: default "walk tiers".
# Skipped (exit 77, with a message) where mpirun is missing, boardproof was built
# without MPI, or the shim without MPI's header.
set -u
bin=$1
shim=$2
most=${3:-2}
seed=${4:-20261124}
engines=${5:-walk tiers}
if ! command -v mpirun >/dev/null 2>&1; then
	echo "SKIP: mpirun not found (apt-get install openmpi-bin libopenmpi-dev)"
	exit 77
fi
. "$(dirname "${BASH_SOURCE[0]}")/faults_lib.sh" # $tmp, problem, picks
export TMPDIR=$tmp # Open MPI's session directories its own (as mpi_same.sh)
"$bin" solve taifas:2x2 --db "$tmp/probe" --mpi >/dev/null 2>"$tmp/probe.err" </dev/null
if grep -q "built without MPI" "$tmp/probe.err"; then
	echo "SKIP: boardproof was built without MPI (reconfigure with libopenmpi-dev)"
	exit 77
fi
if ! nm -D "$shim" 2>/dev/null | grep -q ' T MPI_Alltoallv$'; then
	echo "SKIP: the fault shim was built without MPI's header (it would fail MPI's own calls)"
	exit 77
fi
rm -rf "$tmp/probe"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
# waiting ranks yield the processor instead of spinning (2 ranks on a shared machine:
# three times faster here, and a hung run burns no CPU while timeout waits)
export OMPI_MCA_mpi_yield_when_idle=1
# once a rank has exited with an error, mpirun ends the others at once (by default it
# waits a second between SIGTERM and SIGKILL: a second a run)
export OMPI_MCA_odls_base_sigkill_timeout=0
spec=taifas:3x3
args=(--threads 1 --block-records 256)

hash_of() { "$bin" verify "$spec" --db "$1" --json 2>/dev/null | grep -o '"content_hash": "[0-9a-f]*"'; }
# clean DB: every stored tier checks out (missing tiers are fine; so is a database or
# table not created yet)
clean() {
	local j
	j=$("$bin" verify "$spec" --db "$1" --json 2>"$tmp/clean.err")
	case $j in *'"inconsistencies": 0, "corrupt_blocks": 0,'*) return 0 ;; esac
	[ -z "$j" ] && grep -q -E "is not solved in this database|no database (at|here)|no table " "$tmp/clean.err" && return 0
	echo "verify: $j $(head -c 300 "$tmp/clean.err")"
	return 1
}
# mpi_solve ENGINE DB [mpirun's -x options]: a 2-rank solve, at most 60 s
mpi_solve() {
	local engine=$1 db=$2
	shift 2
	timeout -k 5 30 mpirun --oversubscribe --bind-to none -np 2 "$@" "$bin" solve "$spec" --db "$db" --mpi \
		--solver "$engine" "${args[@]}" </dev/null
}

"$bin" solve "$spec" --db "$tmp/ref" "${args[@]}" --solver tiers >/dev/null || { echo "reference solve failed"; exit 1; }
want=$(hash_of "$tmp/ref")
[ -n "$want" ] || { echo "no reference hash"; exit 1; }

fail=0 runs=0 absorbed=0 reported=0
RANDOM=$seed

# one_run ENGINE RANK SITE N
one_run() {
	local engine=$1 rank=$2 site=$3 n=$4 db=$tmp/run rc why
	local what="$engine, rank $rank, $site call $n"
	runs=$((runs + 1))
	rm -rf "$db"
	mpi_solve "$engine" "$db" -x LD_PRELOAD="$shim" -x BOARDPROOF_FAULT="$site:$n" \
		-x BOARDPROOF_FAULT_RANK="$rank" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ge 124 ]; then
		problem "$what: exit $rc (crash or hang): $(grep -v '^ *$' "$tmp/err" | head -c 400)"
		return
	fi
	if [ $rc = 0 ]; then
		absorbed=$((absorbed + 1))
		grep -q "^$spec[^ ]*: win in 9 " "$tmp/out" || problem "$what: exit 0 without the value: $(head -c 300 "$tmp/out")"
		[ "$(hash_of "$db")" = "$want" ] || problem "$what: exit 0 but the table's content hash differs"
	else
		reported=$((reported + 1))
		grep -q "^boardproof: solve: [^ ]" "$tmp/err" ||
			problem "$what: exit $rc without a message: $(head -c 300 "$tmp/err" "$tmp/out")"
		# once the ranks know each other, the failing rank's message names it (a rank
		# that died in MPI's start-up is mpirun's to report)
		grep -q "^boardproof: solve: rank [01]: " "$tmp/err" &&
			! grep -q "^boardproof: solve: rank $rank: " "$tmp/err" &&
			problem "$what: no message from the failing rank: $(head -c 300 "$tmp/err")"
	fi
	[ -e "$db/data.mdb" ] || return 0
	why=$(clean "$db") || problem "$what: the database does not verify clean afterwards: $why"
	if [ $((runs % 3)) = 0 ]; then
		mpi_solve "$engine" "$db" >/dev/null 2>"$tmp/err2"
	else
		timeout 60 "$bin" solve "$spec" --db "$db" "${args[@]}" --solver "$engine" >/dev/null 2>"$tmp/err2"
	fi || {
		problem "$what: resumed solve failed: $(head -c 300 "$tmp/err2")"
		return
	}
	[ "$(hash_of "$db")" = "$want" ] || problem "$what: resumed content hash differs"
}

for engine in $engines; do
	rm -rf "$tmp/count" "$tmp"/counts.*
	mpi_solve "$engine" "$tmp/count" -x LD_PRELOAD="$shim" -x BOARDPROOF_FAULT_COUNT="$tmp/counts" >/dev/null 2>&1 ||
		{ problem "$engine: the counting run failed"; continue; }
	for rank in 0 1; do
		[ -s "$tmp/counts.$rank" ] || { echo "the fault shim did not load or count rank $rank (LD_PRELOAD=$shim)"; exit 1; }
		line=""
		while read -r site calls; do
			[ "$site" = lmdb ] && continue # tried function by function (lmdb.*)
			if [ "$calls" = 0 ]; then
				case $site in
				alloc | lmdb.env_open | lmdb.txn_begin) problem "$engine, rank $rank: no call at site $site (the shim misses it)" ;;
				write | sync | lmdb.put | lmdb.commit) [ $rank = 0 ] && problem "$engine, rank 0: no call at site $site (the shim misses it)" ;;
				esac
				continue
			fi
			tried=0
			for n in $(picks "$calls"); do
				one_run "$engine" $rank "$site" "$n"
				tried=$((tried + 1))
			done
			line="$line $site $tried/$calls"
		done <"$tmp/counts.$rank"
		echo "$engine, rank $rank: made to fail (site tried/calls):$line"
	done
done
echo "faults (solve --mpi, 2 ranks): $runs runs ($absorbed absorbed with a right result, $reported reported with an error); $fail failures"
[ "$fail" = 0 ]
