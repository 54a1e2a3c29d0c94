#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# solve --mpi gives the one-process table: for a small instance of every game with a
# tiered engine, `mpirun -np 2 boardproof solve GAME --mpi` must store the same
# content (verify's content_hash) as `boardproof solve GAME --solver tiers`; then a
# rank killed in the middle of a solve makes mpirun fail, and the rerun resumes the
# stored tiers and ends with the same content. Skipped (exit 77, with a message)
# where mpirun is missing or boardproof was built without MPI.
set -u
bin=$1
if ! command -v mpirun >/dev/null 2>&1; then
	echo "SKIP: mpirun not found (apt-get install openmpi-bin libopenmpi-dev)"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# a one-rank run without mpirun (a singleton) says whether the build has MPI
"$bin" solve taifas:2x2 --db "$tmp/probe" --mpi >/dev/null 2>"$tmp/probe.err" </dev/null
if grep -q "built without MPI" "$tmp/probe.err"; then
	echo "SKIP: boardproof was built without MPI (reconfigure with libopenmpi-dev)"
	exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
# under the sanitizer build, LeakSanitizer would report Open MPI's own allocations at
# exit (not ours: the solver's are checked by every other test)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
mpi=(mpirun --oversubscribe -np 2)
fail=0
hash_of() { "$bin" verify "$1" --db "$2" --json 2>/dev/null | grep -o '"content_hash": "[0-9a-f]*"' | head -1; }
n=0
for game in taifas:3x3 taifas:3x4 chicken:tri4 glorieta:hex2 \
	"landscape:hex2,neutrals=1,layout=a1" havannah:hex2 mirador:8x8; do
	n=$((n + 1))
	"$bin" solve "$game" --db "$tmp/one$n" --solver tiers --threads 1 >/dev/null 2>&1
	if ! "${mpi[@]}" "$bin" solve "$game" --db "$tmp/mpi$n" --mpi --threads 1 >"$tmp/out" 2>&1; then
		echo "FAIL $game: mpirun -np 2 solve --mpi failed:"
		head -5 "$tmp/out"
		fail=1
		continue
	fi
	a=$(hash_of "$game" "$tmp/one$n") b=$(hash_of "$game" "$tmp/mpi$n")
	if [ -z "$a" ] || [ "$a" != "$b" ]; then
		echo "FAIL $game: one process ${a:-(none)}, 2 ranks ${b:-(none)}"
		fail=1
	else
		echo "ok $game: $a"
	fi
done

# a rank dies: mpirun fails; the rerun resumes and stores the same table
game=taifas:3x4
"${mpi[@]}" "$bin" solve $game --db "$tmp/kill" --mpi --threads 1 --progress >"$tmp/kill.out" 2>"$tmp/kill.err" &
mp=$!
for _ in $(seq 1 300); do
	grep -q "tier 10 of .* solved" "$tmp/kill.err" && break
	sleep 0.05
done
victim=$(pgrep -P "$mp" | tail -1)
[ -n "$victim" ] && kill -9 "$victim"
wait "$mp"
rc=$?
if [ "$rc" = 0 ]; then
	echo "note: the solve ended before a rank could be killed; the resume is not checked"
else
	if ! "${mpi[@]}" "$bin" solve $game --db "$tmp/kill" --mpi --threads 1 --json >"$tmp/resume" 2>&1; then
		echo "FAIL the rerun after a killed rank failed:"
		head -5 "$tmp/resume"
		fail=1
	elif ! grep -q '"resumed_tiers": [1-9]' "$tmp/resume"; then
		echo "FAIL the rerun after a killed rank resumed no tier"
		fail=1
	elif [ "$(hash_of $game "$tmp/kill")" != "$(hash_of $game "$tmp/one2")" ]; then
		echo "FAIL the resumed table differs from the one-process one"
		fail=1
	else
		echo "ok a killed rank: mpirun exit $rc, the rerun resumed and agrees"
	fi
fi
exit $fail
