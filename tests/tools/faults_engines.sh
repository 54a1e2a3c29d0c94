#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fault injection (tests/fault/fault.c, loaded with LD_PRELOAD) in the engines and
# commands that tests/tools/faults.sh (the tier walk, verify) and faults_prove.sh
# (prove) leave out: every allocation, write and sync site and every LMDB function
# (lmdb.get, lmdb.commit, ...) of each phase below made to fail, one run per failing
# call:
#
#   tiers    solve glorieta:hex2,hand=2 --solver tiers (the generic tiered solver,
#            canonicalizing every child)
#   cycles   solve blooms:rh2x2 --solver cycles (the cyclic solver: all positions in
#            memory, then every tier written)
#   query    query of a position of a solved table (taifas:3x3 after xb2 oa1: the
#            position's record and every child's)
#   list     list of a database holding a taifas:3x3 and a blooms:rh2x2 table
#   replace  solve taifas:2x3 --replace over its solved table (the drop, then a solve)
#   family   solve landscape:hex2,neutrals=1 (a family spec: one table per layout
#            class, two here)
#   csolve   claims taifas:3x2 --solve (solves the table, then prints the claims)
#
# and the other commands that print a report built in memory (an allocation that
# fails while building it must give an error, never a report cut short):
#
#   qline    query --line --json of the same position (the line of perfect play)
#   show     show taifas:3x3 --moves xb2
#   moves    moves taifas:3x3 --moves xb2 --json
#   openings openings taifas:3x3 (the solved table)
#   claims   claims taifas:3x3 (the solved table)
#   render   render taifas:3x3 --values --svg - (the picture on stdout)
#   layouts  layouts landscape:hex2,neutrals=2
#   paper    paper taifas (its Markdown file compared too)
#   play     play taifas:3x3 --hint, moves from stdin: hint, moves, a move (the
#            program then decides on the colour choice), another, quit
#   verifyall verify --json of every table in the database
#   count    count taifas:3x3 (exact counts, GMP)
#   perft    perft taifas:3x3 3
#   branching branching taifas:3x3 --samples 20
#   plan     plan taifas:3x3
#
# A run must end with exit 0 and the clean run's answer (the fault was absorbed), or a
# non-zero exit below 124 with a "boardproof: <command>: ..." message: never a crash,
# a hang, or exit 0 with another answer (a report cut short included). After a solve
# run the database must verify clean (no damaged block, no inconsistency; missing
# tiers are fine) and a resumed solve must give the uninterrupted content hash; after
# a run of any other command the database's data.mdb must be byte for byte what it
# was.
#
# Then the limits, for each engine (the tier walk on taifas:3x3, the tiers engine on
# glorieta:hex2,hand=2, the cycles engine on blooms:rh2x3, each in small blocks so that
# the table passes the limits): a tiny LMDB map must stop
# the solve with "database full (MDB_MAP_FULL: ...)", a 128 KiB tmpfs with "disk full
# (...)" (when this machine lets the test mount one), each time with exit 4, a
# database that verifies clean and a resumed solve with the uninterrupted content
# hash; and a solve and a prove into an already full tmpfs must say "disk full" (exit
# 4), not die of SIGBUS.
#
#   faults_engines.sh BOARDPROOF SHIM [MOST [SEED [PHASES]]]
#
# A site called more than MOST times (default 8) gets MOST failing calls drawn with
# SEED, always including its first and last call. PHASES: the phases to run (default
# "tiers cycles replace family csolve query list qline show moves openings claims
# render layouts paper play verifyall count perft branching plan limits").
set -u
bin=$1
shim=$2
most=${3:-8}
seed=${4:-20261124}
phases=${5:-tiers cycles replace family csolve query list qline show moves openings claims render layouts paper play verifyall count perft branching plan limits}
. "$(dirname "${BASH_SOURCE[0]}")/faults_lib.sh" # $tmp, $mnt (unmounted at exit), problem, picks
gl=glorieta:hex2,hand=2
bl=blooms:rh2x2
t3=taifas:3x3
t23=taifas:2x3
t32=taifas:3x2
fam=landscape:hex2,neutrals=1
pos="xb2 oa1"

# the command line of a phase on database $2 (as words; the query's moves apart)
cmdline() {
	case $1 in
	tiers) echo solve "$gl" --solver tiers --threads 2 --db "$2" ;;
	cycles) echo solve "$bl" --solver cycles --threads 2 --block-records 64 --db "$2" ;;
	replace) echo solve "$t23" --replace --threads 2 --block-records 256 --db "$2" ;;
	family) echo solve "$fam" --threads 2 --block-records 256 --db "$2" ;;
	csolve) echo claims "$t32" --solve --db "$2" ;;
	query) echo query "$t3" --db "$2" ;;
	qline) echo query "$t3" --db "$2" --line --json ;;
	list) echo list --db "$2" ;;
	show) echo show "$t3" --moves xb2 ;;
	moves) echo moves "$t3" --moves xb2 --json ;;
	openings) echo openings "$t3" --db "$2" ;;
	claims) echo claims "$t3" --db "$2" ;;
	render) echo render "$t3" --values --db "$2" --svg - ;;
	layouts) echo layouts landscape:hex2,neutrals=2 ;;
	paper) echo paper taifas --db "$2" --out "$tmp/paper" ;;
	play) echo play "$t3" --db "$2" --hint ;;
	verifyall) echo verify --db "$2" --json ;;
	count) echo count "$t3" ;;
	perft) echo perft "$t3" 3 ;;
	branching) echo branching "$t3" --samples 20 ;;
	plan) echo plan "$t3" ;;
	esac
}
# run_phase PHASE DB: runs the phase's command with the environment in the array fenv
# (given to the command alone: the shim must not count or fail timeout's calls)
fenv=()
run_phase() {
	# shellcheck disable=SC2046
	case $1 in
	query | qline) timeout 120 env "${fenv[@]}" "$bin" $(cmdline "$1" "$2") --moves "$pos" ;;
	paper)
		rm -rf "$tmp/paper"
		timeout 120 env "${fenv[@]}" "$bin" $(cmdline "$1" "$2")
		;;
	play) printf 'hint\nmoves\nxb2\nxa1\nquit\n' | timeout 120 env "${fenv[@]}" "$bin" $(cmdline "$1" "$2") ;;
	*) timeout 120 env "${fenv[@]}" "$bin" $(cmdline "$1" "$2") ;;
	esac
}
spec_of() { case $1 in tiers) echo "$gl" ;; cycles) echo "$bl" ;; replace) echo "$t23" ;; family) echo "$fam" ;; csolve) echo "$t32" ;; *) echo "$t3" ;; esac; }
is_solve() { case $1 in tiers | cycles | replace | family | csolve) return 0 ;; *) return 1 ;; esac; }
# the database a solve phase starts from (copied for each run; empty: none)
base_of() { case $1 in replace) echo "$tmp/base23" ;; *) echo "" ;; esac; }
uses_db() { case $1 in show | moves | layouts | count | perft | branching | plan) return 1 ;; *) return 0 ;; esac; }

# the answer in a report: a solve's value and positions lines, or the whole output
# (and for paper, the paper it wrote)
answer() {
	if [ "$1" = csolve ]; then # the claims' report
		cat "$2"
	elif [ "$1" = family ]; then # the classes and their values (not the time)
		grep -E '^[a-z]+:[^ ]+: |^  [a-z0-9]|^layouts ' "$2"
	elif is_solve "$1"; then
		grep -E '^[a-z]+:[^ ]+: |^positions:' "$2"
	elif [ "$1" = paper ]; then
		cat "$2" "$tmp/paper/taifas.md" 2>/dev/null
	else
		cat "$2"
	fi
}
# the content hashes of SPEC's tables (a family has one a class), joined
hash_of() { "$bin" verify "$2" --db "$1" --json 2>/dev/null | grep -o '"content_hash": "[0-9a-f]*"' | tr -d '\n'; }
# clean DB SPEC: every stored tier checks out (missing tiers are fine: an interrupted
# solve; so is a database or table not created yet); the totals after the list of
# tables say so for all of them
clean() {
	local j
	j=$("$bin" verify "$2" --db "$1" --json 2>"$tmp/clean.err")
	case ${j##*\]} in *'"inconsistencies": 0, "corrupt_blocks": 0,'*) return 0 ;; esac
	[ -z "$j" ] && grep -q -E "is not solved in this database|no database (at|here)|no table " "$tmp/clean.err" && return 0
	echo "verify: $j $(head -c 300 "$tmp/clean.err")"
	return 1
}

# the base database of query and list, the one replace starts from, and each solve's
# uninterrupted table
"$bin" solve "$t3" --db "$tmp/base" --block-records 256 >/dev/null &&
	"$bin" solve "$bl" --db "$tmp/base" --block-records 64 >/dev/null &&
	"$bin" solve "$t23" --db "$tmp/base23" --block-records 256 >/dev/null || { echo "base solves failed"; exit 1; }
cp "$tmp/base/data.mdb" "$tmp/base.data"
declare -A want hash
for phase in tiers cycles replace family csolve query list qline show moves openings claims render layouts paper play verifyall count perft branching plan; do
	rm -rf "$tmp/ref"
	db=$tmp/ref
	[ -n "$(base_of $phase)" ] && cp -r "$(base_of $phase)" "$db"
	is_solve $phase || db=$tmp/base
	run_phase $phase "$db" >"$tmp/out" 2>"$tmp/err" || { echo "$phase: clean run failed: $(cat "$tmp/err")"; exit 1; }
	want[$phase]=$(answer $phase "$tmp/out")
	[ -n "${want[$phase]}" ] || { echo "$phase: no answer in the clean run"; exit 1; }
	if is_solve $phase; then
		hash[$phase]=$(hash_of "$db" "$(spec_of $phase)")
		[ -n "${hash[$phase]}" ] || { echo "$phase: the clean table does not verify"; exit 1; }
	fi
done

fail=0 runs=0 absorbed=0 reported=0

RANDOM=$seed

# after_solve WHAT DB SPEC HASH: the database verifies clean, and a resumed solve
# (the same command line as SPEC's phase, without the fault) gives HASH
after_solve() {
	local what=$1 db=$2 spec=$3 h=$4 why args
	[ -e "$db/data.mdb" ] || return 0
	why=$(clean "$db" "$spec") || problem "$what: the database does not verify clean afterwards: $why"
	case $spec in
	"$gl") args=(--solver tiers) ;;
	"$fam") args=(--block-records 256) ;;
	"$t32") args=() ;;
	"$bl" | blooms:*) args=(--solver cycles --block-records 64) ;;
	*) args=(--block-records 256) ;;
	esac
	"$bin" solve "$spec" --db "$db" "${args[@]}" >/dev/null 2>"$tmp/err2" ||
		{ problem "$what: resumed solve failed: $(head -c 300 "$tmp/err2")"; return; }
	[ "$(hash_of "$db" "$spec")" = "$h" ] || problem "$what: resumed content hash differs"
}

# judge PHASE WHAT DB RC: the checks of one run that ended with exit RC
judge() {
	local phase=$1 what=$2 db=$3 rc=$4 cmd
	cmd=$(cmdline $phase x | cut -d' ' -f1)
	if [ "$rc" -ge 124 ]; then
		problem "$what: exit $rc (crash or hang): $(head -c 300 "$tmp/err")"
		return
	fi
	if [ "$rc" = 0 ]; then
		absorbed=$((absorbed + 1))
		[ "$(answer $phase "$tmp/out")" = "${want[$phase]}" ] ||
			problem "$what: exit 0 with another answer: $(head -c 300 "$tmp/out")"
		if is_solve $phase && [ "$(hash_of "$db" "$(spec_of $phase)")" != "${hash[$phase]}" ]; then
			problem "$what: exit 0 but the table's content hash differs"
		fi
	else
		reported=$((reported + 1))
		# the message: on stderr, as text or (with --json) as a JSON error
		grep -q "^boardproof: $cmd: [^ ]" "$tmp/err" ||
			grep -q "^{\"error\": {\"command\": \"$cmd\", \"message\": \"[^\"]" "$tmp/err" ||
			problem "$what: exit $rc without a message: $(head -c 300 "$tmp/err" "$tmp/out")"
	fi
	if is_solve $phase; then
		after_solve "$what" "$db" "$(spec_of $phase)" "${hash[$phase]}"
	else
		cmp -s "$tmp/base/data.mdb" "$tmp/base.data" || problem "$what: the database changed"
	fi
}

for phase in $phases; do
	[ "$phase" = limits ] && continue
	db=$tmp/count
	rm -rf "$db"
	[ -n "$(base_of $phase)" ] && cp -r "$(base_of $phase)" "$db"
	is_solve $phase || db=$tmp/base
	fenv=(BOARDPROOF_FAULT_COUNT="$tmp/counts" LD_PRELOAD="$shim")
	run_phase $phase "$db" >/dev/null 2>&1
	fenv=()
	[ -s "$tmp/counts" ] || { echo "the fault shim did not load (LD_PRELOAD=$shim)"; exit 1; }
	line=""
	while read -r site calls; do
		[ "$site" = lmdb ] && continue # tried function by function (lmdb.*)
		if [ "$calls" = 0 ]; then
			case $site in
			alloc) problem "$phase: no call at site $site (the shim misses it)" ;;
			lmdb.env_open | lmdb.txn_begin) uses_db $phase && problem "$phase: no call at site $site (the shim misses it)" ;;
			write | sync | lmdb.put | lmdb.commit) is_solve $phase && problem "$phase: no call at site $site (the shim misses it)" ;;
			esac
			continue
		fi
		tried=0
		for n in $(picks "$calls"); do
			runs=$((runs + 1))
			db=$tmp/run
			rm -rf "$db"
			[ -n "$(base_of $phase)" ] && cp -r "$(base_of $phase)" "$db"
			is_solve $phase || db=$tmp/base
			fenv=(BOARDPROOF_FAULT="$site:$n" LD_PRELOAD="$shim")
			run_phase $phase "$db" >"$tmp/out" 2>"$tmp/err"
			rc=$?
			fenv=()
			judge $phase "$phase, $site call $n" "$db" $rc
			tried=$((tried + 1))
		done
		line="$line $site $tried/$calls"
	done <"$tmp/counts"
	echo "$phase: made to fail (site tried/calls):$line"
done

summary() {
	echo "faults (engines): $runs runs ($absorbed absorbed with a right answer, $reported reported with an error); $fail failures"
	[ "$fail" = 0 ]
	exit
}
case " $phases " in *" limits "*) ;; *) summary ;; esac

# limit_run WHAT SPEC PATTERN DB ARGS...: a solve (with the environment in the array
# lenv) that must stop with exit 4 and a message matching PATTERN (grep -E), leaving a
# database that verifies clean
lenv=()
limit_run() {
	local what=$1 spec=$2 pat=$3 db=$4 rc
	shift 4
	runs=$((runs + 1))
	env "${lenv[@]}" timeout 120 "$bin" solve "$spec" --db "$db" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc != 4 ] || ! grep -q -E "^boardproof: solve: .*$pat" "$tmp/err"; then
		problem "$what: exit $rc, want 4 and a message naming the cause ($pat): $(head -c 300 "$tmp/err")"
		return 1
	fi
	reported=$((reported + 1))
	echo "$what: exit $rc: $(head -1 "$tmp/err")"
	local why
	why=$(clean "$db" "$spec") || { problem "$what: the database does not verify clean: $why"; return 1; }
	return 0
}

# A tiny map: MDB_MAP_FULL on the first tier that does not fit, for each engine.
full_map='database full \(MDB_MAP_FULL: '
for e in "walk $t3 --block-records 256" "tiers $gl --solver tiers --block-records 256" "cycles blooms:rh2x3 --solver cycles --block-records 64"; do
	read -r name spec args <<<"$e"
	# shellcheck disable=SC2086
	h=$(
		rm -rf "$tmp/lref"
		"$bin" solve "$spec" --db "$tmp/lref" $args >/dev/null && hash_of "$tmp/lref" "$spec"
	)
	hash[lim_$name]=$h
	db=$tmp/map_$name
	rm -rf "$db"
	lenv=(BOARDPROOF_FAULT_MAP=65536 LD_PRELOAD="$shim")
	# shellcheck disable=SC2086
	limit_run "tiny map (64 KiB), $name" "$spec" "$full_map" "$db" --threads 2 $args &&
		after_solve "tiny map, $name" "$db" "$spec" "$h"
done
lenv=()

# A full disk: a tmpfs smaller than the table (LMDB's lock file takes 64 KiB of it),
# for each engine; then a tmpfs full before the database is created.
mkdir -p "$tmp/disk"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=128k tmpfs "$tmp/disk" 2>/dev/null; then
	mnt=$tmp/disk
	full_disk='disk full \('
	for e in "walk $t3 --block-records 256" "tiers $gl --solver tiers --block-records 256" "cycles blooms:rh2x3 --solver cycles --block-records 64"; do
		read -r name spec args <<<"$e"
		rm -rf "${mnt:?}/db" "$tmp/fromdisk"
		# shellcheck disable=SC2086
		if limit_run "full disk (128 KiB tmpfs), $name" "$spec" "$full_disk" "$mnt/db" --threads 2 $args; then
			cp -r "$mnt/db" "$tmp/fromdisk"
			after_solve "full disk, $name" "$tmp/fromdisk" "$spec" "${hash[lim_$name]}"
		fi
	done
	# full before anything is created: LMDB's lock file cannot be backed
	rm -rf "${mnt:?}/db"
	dd if=/dev/zero of="$mnt/fill" bs=4096 2>/dev/null
	for cmd in "solve $t3" "prove $t3 --memory 1M --save-proof"; do
		runs=$((runs + 1))
		read -r -a words <<<"$cmd"
		timeout 120 "$bin" "${words[@]}" --db "$mnt/new" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		if [ $rc != 4 ] || ! grep -q "^boardproof: ${words[0]}: .*disk full (No space left on device)" "$tmp/err"; then
			problem "full disk before creation, ${words[0]}: exit $rc: $(head -c 300 "$tmp/err")"
		else
			reported=$((reported + 1))
			echo "full disk before creation, ${words[0]}: exit $rc: $(head -1 "$tmp/err")"
		fi
	done
	umount "$mnt"
	mnt=""
else
	echo "full disk: skipped (cannot mount a tmpfs here: not root, or no permission)"
fi
summary
