#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fault injection (tests/fault/fault.c, loaded with LD_PRELOAD): every allocation,
# write, sync and LMDB call site of `solve` and `verify` made to fail, one run per
# failing call. A run must end with exit 0 and a right result (the fault was absorbed),
# or a non-zero exit below 128 with a "boardproof: <command>: ..." message: never a
# crash or a hang. Afterwards the database must verify clean (no damaged block, no
# inconsistency) and a resumed solve must give the uninterrupted content hash. Then a
# tiny LMDB map (MDB_MAP_FULL) and a full disk (a 128 KiB tmpfs, when this machine
# lets the test mount one; skipped with a message otherwise): the solve must name the
# cause ("database full (MDB_MAP_FULL: ...)", "disk full (...)"). The same for the
# other engines: tests/tools/faults_engines.sh.
#
#   faults.sh BOARDPROOF SHIM [SPEC [MOST [SEED]]]
#
# A site called more than MOST times (default 25) gets MOST failing calls drawn with
# the seed, always including its first and last call.
set -u
bin=$1
shim=$2
spec=${3:-taifas:3x3}
most=${4:-25}
seed=${5:-20261124}
. "$(dirname "${BASH_SOURCE[0]}")/faults_lib.sh" # $tmp, $mnt (unmounted at exit), problem, picks
args=(--threads 2 --block-records 256)

hash_of() { "$bin" verify "$spec" --db "$1" --json 2>/dev/null | sed -n 's/.*"content_hash": "\([0-9a-f]*\)"}$/\1/p'; }

# clean DB: every stored tier checks out (missing tiers are fine: an interrupted solve;
# so is a table not created yet)
clean() {
	local j
	j=$("$bin" verify "$spec" --db "$1" --json 2>"$tmp/clean.err")
	case $j in *'"inconsistencies": 0, "corrupt_blocks": 0,'*) return 0 ;; esac
	[ -z "$j" ] && grep -q -E "is not solved in this database|no database at" "$tmp/clean.err"
}

"$bin" solve "$spec" --db "$tmp/ref" "${args[@]}" >/dev/null || { echo "reference solve failed"; exit 1; }
want=$(hash_of "$tmp/ref")
[ -n "$want" ] || { echo "no reference hash"; exit 1; }

fail=0 runs=0 absorbed=0 reported=0

RANDOM=$seed

# one_run PHASE SITE N: runs PHASE (solve or verify) with call N at SITE failing
one_run() {
	local phase=$1 site=$2 n=$3 db rc
	runs=$((runs + 1))
	if [ "$phase" = solve ]; then
		db=$tmp/run
		rm -rf "$db"
		BOARDPROOF_FAULT=$site:$n LD_PRELOAD=$shim timeout 120 "$bin" solve "$spec" --db "$db" "${args[@]}" >"$tmp/out" 2>"$tmp/err"
		rc=$?
	else
		db=$tmp/ref
		BOARDPROOF_FAULT=$site:$n LD_PRELOAD=$shim timeout 120 "$bin" verify "$spec" --db "$db" --threads 2 --json >"$tmp/out" 2>"$tmp/err"
		rc=$?
	fi
	local what="$phase, $site call $n"
	if [ $rc -ge 124 ]; then
		problem "$what: exit $rc (crash or hang): $(head -c 300 "$tmp/err")"
		return
	fi
	if [ $rc = 0 ]; then
		absorbed=$((absorbed + 1))
		if [ "$phase" = verify ] && ! grep -q "\"content_hash\": \"$want\"}" "$tmp/out"; then
			problem "$what: exit 0 but not the clean report: $(head -c 300 "$tmp/out")"
		fi
	else
		reported=$((reported + 1))
		# the message: on stderr, as text or (with --json) as a JSON error
		grep -q "^boardproof: $phase: " "$tmp/err" ||
			grep -q "\"error\": {\"command\": \"$phase\", \"message\": \"[^\"]" "$tmp/err" "$tmp/out" ||
			problem "$what: exit $rc without a message: $(head -c 300 "$tmp/err" "$tmp/out")"
	fi
	# afterwards: the database is sound, and a resumed solve completes it
	if [ "$phase" = solve ] && [ -e "$db/data.mdb" ]; then
		clean "$db" || problem "$what: the database does not verify clean afterwards"
		"$bin" solve "$spec" --db "$db" "${args[@]}" >/dev/null 2>"$tmp/err2" ||
			{ problem "$what: resumed solve failed: $(head -c 300 "$tmp/err2")"; return; }
		[ "$(hash_of "$db")" = "$want" ] || problem "$what: resumed content hash differs"
	elif [ "$phase" = verify ]; then
		[ "$(hash_of "$db")" = "$want" ] || problem "$what: the database changed"
	fi
}

for phase in solve verify; do
	rm -rf "$tmp/count"
	if [ $phase = solve ]; then
		BOARDPROOF_FAULT_COUNT=$tmp/counts LD_PRELOAD=$shim "$bin" solve "$spec" --db "$tmp/count" "${args[@]}" >/dev/null 2>&1
	else
		BOARDPROOF_FAULT_COUNT=$tmp/counts LD_PRELOAD=$shim "$bin" verify "$spec" --db "$tmp/ref" --threads 2 >/dev/null 2>&1
	fi
	[ -s "$tmp/counts" ] || { echo "the fault shim did not load (LD_PRELOAD=$shim)"; exit 1; }
	while read -r site calls; do
		# one LMDB function's calls (lmdb.get, ...) are among the lmdb site's
		case $site in lmdb.*) continue ;; esac
		if [ "$calls" = 0 ]; then
			# verify opens the database read-only: it never writes or syncs
			if [ $phase = solve ] || [ $site = alloc ] || [ $site = lmdb ]; then
				problem "$phase: no call at site $site (the shim misses it)"
			else
				echo "$phase: site $site: no calls (read-only)"
			fi
			continue
		fi
		tried=0
		for n in $(picks "$calls"); do
			one_run "$phase" "$site" "$n"
			tried=$((tried + 1))
		done
		echo "$phase: site $site: $calls calls, $tried of them made to fail"
	done <"$tmp/counts"
done

# A tiny map: LMDB's MDB_MAP_FULL on the first tier that does not fit.
rm -rf "$tmp/map"
BOARDPROOF_FAULT_MAP=65536 LD_PRELOAD=$shim timeout 120 "$bin" solve "$spec" --db "$tmp/map" "${args[@]}" >/dev/null 2>"$tmp/err"
rc=$?
runs=$((runs + 1))
if [ $rc = 0 ] || [ $rc -ge 124 ] || ! grep -q "^boardproof: solve: .*database full (MDB_MAP_FULL: " "$tmp/err"; then
	problem "tiny map: exit $rc, want a message naming the full map: $(head -c 300 "$tmp/err")"
else
	echo "tiny map (64 KiB): exit $rc: $(head -1 "$tmp/err")"
	clean "$tmp/map" || problem "tiny map: the database does not verify clean"
	"$bin" solve "$spec" --db "$tmp/map" "${args[@]}" >/dev/null 2>&1 || problem "tiny map: resume failed"
	[ "$(hash_of "$tmp/map")" = "$want" ] || problem "tiny map: resumed content hash differs"
fi

# A full disk: a tmpfs smaller than the table (LMDB's lock file takes 64 KiB of it).
mkdir -p "$tmp/disk"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=128k tmpfs "$tmp/disk" 2>/dev/null; then
	mnt=$tmp/disk
	timeout 120 "$bin" solve "$spec" --db "$mnt/db" "${args[@]}" >/dev/null 2>"$tmp/err"
	rc=$?
	runs=$((runs + 1))
	if [ $rc = 0 ] || [ $rc -ge 124 ] || ! grep -q "^boardproof: solve: .*disk full (" "$tmp/err"; then
		problem "full disk: exit $rc, want a message naming the full disk: $(head -c 300 "$tmp/err")"
	else
		echo "full disk (128 KiB tmpfs): exit $rc: $(head -1 "$tmp/err")"
		clean "$mnt/db" || problem "full disk: the database does not verify clean"
		cp -r "$mnt/db" "$tmp/fromdisk"
		umount "$mnt"
		mnt=""
		"$bin" solve "$spec" --db "$tmp/fromdisk" "${args[@]}" >/dev/null 2>&1 || problem "full disk: resume failed"
		[ "$(hash_of "$tmp/fromdisk")" = "$want" ] || problem "full disk: resumed content hash differs"
	fi
else
	echo "full disk: skipped (cannot mount a tmpfs here: not root, or no permission)"
fi

echo "faults: $runs runs ($absorbed absorbed with a right result, $reported reported with an error); $fail failures"
[ "$fail" = 0 ]
