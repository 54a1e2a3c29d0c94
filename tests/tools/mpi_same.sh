#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# solve --mpi gives the one-process table: for a small instance of every game with a
# tiered engine, `mpirun -np N boardproof solve GAME --mpi` for N = 1, 2 and 4 (with
# the walk engine where the game has one, and the tiers engine) must store the same
# content (verify's content_hash) as `boardproof solve GAME --solver tiers`, and with
# 2 or 4 ranks the ranks must have exchanged records; the same with every MPI call cut
# into 256-byte pieces; then, under each engine, a rank killed in the middle of a solve
# makes mpirun fail, and the rerun on 4 ranks resumes the stored tiers and ends with
# the same content. Skipped (exit 77, with a message) where mpirun is missing or
# boardproof was built without MPI.
set -u
bin=$1
if ! command -v mpirun >/dev/null 2>&1; then
	echo "SKIP: mpirun not found (apt-get install openmpi-bin libopenmpi-dev)"
	exit 77
fi
tmp=$(mktemp -d)
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { rm -rf "$tmp"; }' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/bg.sh" # bg_start, bg_pid, bg_wait
# Open MPI's session directories in a directory of this test's own: two jobs starting
# at once in one /tmp (meson runs tests side by side) can race to make the same one
# ("A call to mkdir was unable to create the desired directory ... File exists",
# open-mpi/ompi#8510); and this test starts its own jobs side by side, so each of those
# has a directory of its own too (own_tmp)
export TMPDIR=$tmp
# own_tmp NAME COMMAND...: COMMAND with TMPDIR a new directory of its own (names kept
# short: Open MPI's sockets live under it, and a socket's path has at most 107 bytes)
own_tmp() {
	mkdir -p "$tmp/$1" && TMPDIR=$tmp/$1 "${@:2}"
}
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
# GAME:ENGINE (auto: the walk where the game has one, else tiers)
# (Chicken's walk: moves that skip a tier and a forward reach pass, both split too;
# Glorieta's tiers run also once it has a walk)
games=(taifas:3x3:tiers taifas:3x4:auto chicken:tri4:auto chicken:tri4:tiers
	glorieta:hex2:auto glorieta:hex2:tiers
	"landscape:hex2,neutrals=1,layout=a1:auto" "landscape:hex2,neutrals=1,layout=a1:tiers"
	havannah:hex2:auto mirador:8x8:auto)
# game n: one process (tiers, over the dense index as the ranks are: Mirador's default
# in one process is its reachable positions), then 1, 2 and 4 ranks; the games side by
# side (most of the time is spent starting mpirun and MPI, not solving)
solve_game() {
	"$bin" solve "$2" --db "$tmp/one$1" --solver tiers --index dense --threads 1 \
		>/dev/null 2>&1
	for np in 1 2 4; do
		own_tmp "s$1-$np" mpirun --oversubscribe -np $np "$bin" solve "$2" --db "$tmp/mpi$1-$np" --mpi \
			--solver "$3" --threads 1 --json >"$tmp/out$1-$np" 2>&1 ||
			echo "$?" >"$tmp/rc$1-$np"
	done
}
for n in "${!games[@]}"; do
	solve_game "$n" "${games[$n]%:*}" "${games[$n]##*:}" &
done
# every MPI call cut into pieces of at most 256 bytes (tools/mpi_solve.c), as a tier of
# more than 2 GiB would be: the same table
# ("GAME ENGINE N", N the index in games of its one-process table)
pieces=("taifas:3x3 walk 0" "taifas:3x3 tiers 0" "chicken:tri4 walk 2")
for p in "${!pieces[@]}"; do
	read -r game solver _ <<<"${pieces[$p]}"
	BOARDPROOF_MPI_PIECE_BYTES=256 own_tmp "p$p" mpirun --oversubscribe -x BOARDPROOF_MPI_PIECE_BYTES \
		-np 3 "$bin" solve "$game" --db "$tmp/piece-$p" --mpi --solver "$solver" \
		--threads 1 >"$tmp/piece-$p.out" 2>&1 || echo "$?" >"$tmp/piece-$p.rc" &
done
wait
for p in "${!pieces[@]}"; do
	read -r game solver n <<<"${pieces[$p]}"
	a=$(hash_of "$game" "$tmp/one$n") b=$(hash_of "$game" "$tmp/piece-$p")
	if [ -e "$tmp/piece-$p.rc" ] || [ -z "$a" ] || [ "$a" != "$b" ]; then
		echo "FAIL $game, 3 ranks, $solver, 256-byte pieces: ${b:-(none)} against $a"
		head -5 "$tmp/piece-$p.out"
		fail=1
	else
		echo "ok $game, 3 ranks, $solver, 256-byte pieces: $b"
	fi
done
for n in "${!games[@]}"; do
	game=${games[$n]%:*}
	a=$(hash_of "$game" "$tmp/one$n")
	for np in 1 2 4; do
		b=$(hash_of "$game" "$tmp/mpi$n-$np")
		# each rank holds only its slices: with more than one, records must travel
		sent=$(grep -o '"rank_sent_bytes": [0-9]*' "$tmp/out$n-$np" | grep -o '[0-9]*$')
		if [ -e "$tmp/rc$n-$np" ]; then
			echo "FAIL $game: mpirun -np $np solve --mpi failed (exit $(cat "$tmp/rc$n-$np")):"
			head -5 "$tmp/out$n-$np"
			fail=1
		elif [ -z "$a" ] || [ "$a" != "$b" ]; then
			echo "FAIL $game: one process ${a:-(none)}, $np ranks ${b:-(none)}"
			fail=1
		elif [ "$np" -gt 1 ] && [ "${sent:-0}" -eq 0 ]; then
			echo "FAIL $game: $np ranks exchanged nothing (rank_sent_bytes ${sent:-missing})"
			fail=1
		else
			solver=$(grep -o '"solver": "[a-z]*"' "$tmp/out$n-$np" | cut -d'"' -f4)
			echo "ok $game, $np rank(s), $solver: $b, busiest rank sent ${sent:-?} bytes"
		fi
	done
done

echo "(solves: ${SECONDS} s)" >&2
# a rank dies, under each engine: mpirun fails; the rerun (on 4 ranks, so other chunks
# each) resumes and stores the same table
game=taifas:3x4
for solver in walk tiers; do
	db="$tmp/kill-$solver"
	bg_start "$tmp/kill" "${mpi[@]}" "$bin" solve $game --db "$db" --mpi --solver $solver \
		--threads 1 --progress >"$tmp/kill.out" 2>"$tmp/kill.err"
	mp=$(bg_pid "$tmp/kill") # mpirun's own pid: the ranks are its children
	for _ in $(seq 1 300); do
		grep -q "tier 10 of .* solved" "$tmp/kill.err" && break
		sleep 0.05
	done
	victim=$([ -n "$mp" ] && pgrep -P "$mp" | tail -1)
	[ -n "$victim" ] && kill -9 "$victim"
	bg_wait "$tmp/kill"
	rc=$bg_rc
	if [ "$rc" = 0 ]; then
		echo "note ($solver): the solve ended before a rank could be killed; the resume is not checked"
	elif ! mpirun --oversubscribe -np 4 "$bin" solve $game --db "$db" --mpi --solver $solver \
		--threads 1 --json >"$tmp/resume" 2>&1; then
		echo "FAIL ($solver) the rerun after a killed rank failed:"
		head -5 "$tmp/resume"
		fail=1
	elif ! grep -q '"resumed_tiers": [1-9]' "$tmp/resume"; then
		echo "FAIL ($solver) the rerun after a killed rank resumed no tier"
		fail=1
	elif [ "$(hash_of $game "$db")" != "$(hash_of $game "$tmp/one1")" ]; then
		echo "FAIL ($solver) the resumed table differs from the one-process one"
		fail=1
	else
		echo "ok ($solver) a killed rank: mpirun exit $rc, the rerun resumed $(grep -o '"resumed_tiers": [0-9]*' "$tmp/resume" | grep -o '[0-9]*$') tiers and agrees"
	fi
done
echo "(all: ${SECONDS} s)" >&2
exit $fail
