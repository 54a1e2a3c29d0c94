#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Damage and interruption of kinds the other campaigns do not make, on a small solved
# database (taifas:3x3, 256-record blocks): data.mdb truncated (to 0, mid-page, half),
# 4 KiB pages zeroed, a page copied over another, lock.mdb filled with garbage or
# truncated, data.mdb replaced by a directory, a FIFO, a symbolic link to /dev/zero or
# an unreadable file, the database path a regular file, a read-only database
# directory, and the database of another table copied in. On each copy `query`,
# `verify` (tiers held dense, and packed: BOARDPROOF_VERIFY_PACKED=always), `list`,
# `openings` and `solve` (a resume) run in turn, each with 20 s: each
# must end with the clean database's answer (exit 0) or a "boardproof: CMD: " message
# and an exit from 1 to 4 (exit 3 where the store finds damage): never a crash (a
# signal), a hang or a wrong answer given as right. Where data.mdb itself was not
# damaged, its content must come through every command unchanged (verify's content
# hash at the end). Then SIGINT, SIGTERM and SIGHUP at random moments of solve
# (taifas:3x4), prove and verify: a resumed solve must give the uninterrupted hash, a
# second prove the same value, verify afterwards the clean report. The database also
# holds a saved proof (of taifas:3x4), so that `list` reads proofs as well as tables.
#
#   damage.sh BOARDPROOF [SEED]
#
# Running as root, chmod stops no read or write: the unreadable file and the read-only
# directory then run the commands as user nobody (setpriv, on a copy it owns), or,
# without setpriv, check only that nothing breaks, and say so.
set -u
bin=$1
seed=${2:-20261124}
export LC_ALL=C
unset BOARDPROOF_DB
tmp=$(mktemp -d)
cleanup() {
	local bp_self _; read -r bp_self _ </proc/self/stat # the process itself, not $BASHPID: a child
	[ "$bp_self" = "$$" ] || return 0 # killed before its exec runs the trap too
	chmod -R u+rwx "$tmp" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
. "$(dirname "${BASH_SOURCE[0]}")/bg.sh" # bg_start, bg_pid, bg_wait
RANDOM=$seed
fail=0 runs=0
problem() {
	echo "FAIL: $*"
	fail=$((fail + 1))
}
spec=taifas:3x3
base=$tmp/base
"$bin" solve $spec --db "$base" --block-records 256 >/dev/null || { echo "solve failed"; exit 1; }
# and a saved proof with its proven positions beside the table (taifas:3x4: no table
# here, so its search writes them), which `list` reads too
"$bin" prove taifas:3x4 --db "$base" --save-proof >/dev/null || { echo "prove failed"; exit 1; }
"$bin" solve taifas:2x3 --db "$tmp/other" >/dev/null || { echo "solve failed"; exit 1; }
hash_of() { "$bin" verify $spec --db "$1" --json 2>/dev/null | grep -o '"content_hash": "[0-9a-f]*"'; }
want_hash=$(hash_of "$base")
[ -n "$want_hash" ] || { echo "no clean hash"; exit 1; }
pages=$(($(stat -c %s "$base/data.mdb") / 4096))

# the commands, and their clean answers (solve: the value line)
cmds=(query verify vpacked list openings solve)
as=() # a command prefix: another user (below)
run() { # run CMD DB: the command on DB, at most 20 s
	case $1 in
	query) timeout -k 2 20 "${as[@]}" "$bin" query $spec --db "$2" --moves "xb2 oa1" ;;
	verify) timeout -k 2 20 "${as[@]}" "$bin" verify $spec --db "$2" --json ;;
	# every tier held packed (solver/packedtier.h), read a range at a time
	vpacked) BOARDPROOF_VERIFY_PACKED=always timeout -k 2 20 "${as[@]}" "$bin" verify $spec --db "$2" --json ;;
	list) timeout -k 2 20 "${as[@]}" "$bin" list --db "$2" ;;
	openings) timeout -k 2 20 "${as[@]}" "$bin" openings $spec --db "$2" ;;
	solve) timeout -k 2 20 "${as[@]}" "$bin" solve $spec --db "$2" --block-records 256 ;;
	esac </dev/null
}
answer() { # the part of a command's output that must match the clean run's
	case $1 in
	solve) grep "^$spec" "$2" ;;
	verify | vpacked) grep -o '"content_hash": "[0-9a-f]*"' "$2" ;;
	list) sed 's/  */ /g' "$2" ;;
	*) cat "$2" ;;
	esac
}
declare -A want
for c in "${cmds[@]}"; do
	cp -r "$base" "$tmp/clean"
	run $c "$tmp/clean" >"$tmp/out" 2>"$tmp/err" || { echo "$c: clean run failed: $(cat "$tmp/err")"; exit 1; }
	want[$c]=$(answer $c "$tmp/out")
	rm -rf "$tmp/clean"
done

# check CASE DB DATA_INTACT: every command on DB
check() {
	local what=$1 db=$2 intact=$3 c rc
	for c in "${cmds[@]}"; do
		runs=$((runs + 1))
		run $c "$db" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		if [ $rc -ge 124 ]; then
			problem "$what: $c: exit $rc (crash or hang): $(head -c 300 "$tmp/err")"
		elif [ $rc = 0 ]; then
			# (the database of another table: its own listing is the right one)
			[ "$(answer $c "$tmp/out")" = "${want[$c]}" ] ||
				{ [ "$what" = "another table's database" ] && [ $c = list ] &&
					[ "$(answer $c "$tmp/out")" = "$(run list "$tmp/other" | sed 's/  */ /g')" ]; } ||
				problem "$what: $c: exit 0 with another answer: $(head -c 300 "$tmp/out")"
		elif { [ $c = verify ] || [ $c = vpacked ]; } && [ $rc -le 3 ] && grep -q '"ok": false' "$tmp/out"; then
			: # the report: damage found (exit 3) or inconsistencies (exit 1)
		elif [ $rc -gt 4 ] || ! grep -q -E "^boardproof: ${c/vpacked/verify}: [^ ]|^\{\"error\": \{\"command\": \"${c/vpacked/verify}\", \"message\": \"[^\"]" "$tmp/err"; then
			problem "$what: $c: exit $rc without a message: $(head -c 300 "$tmp/err" "$tmp/out")"
		fi
		printf '  %-24s %-8s exit %s %s\n' "$what" "$c" "$rc" "$(head -1 "$tmp/err" | cut -c1-150)"
	done
	if [ "$intact" = 1 ]; then
		# what was stored and not damaged is still there
		local d=$db
		[ -d "$db" ] || d=$tmp/restored
		[ "$(hash_of "$d")" = "$want_hash" ] || problem "$what: the table's content is lost or changed"
	fi
}

# fresh NAME: a copy of the clean database, in $db
fresh() {
	db=$tmp/$1
	rm -rf "$db"
	cp -r "$base" "$db"
}

# data.mdb truncated
for len in 0 100 4096 6000 $((pages * 4096 / 2)) $((pages * 4096 - 4096)) $((pages * 4096 - 1)); do
	fresh "trunc$len"
	truncate -s "$len" "$db/data.mdb"
	check "truncated to $len" "$db" 0
done
# 4 KiB pages zeroed, and a page copied over another
for p in 0 1 2 3 $((pages / 2)) $((pages - 1)); do
	fresh "zero$p"
	dd if=/dev/zero of="$db/data.mdb" bs=4096 seek="$p" count=1 conv=notrunc 2>/dev/null
	check "page $p zeroed" "$db" 0
done
for i in 1 2 3 4 5 6; do
	from=$((RANDOM % pages)) to=$((RANDOM % pages))
	[ "$from" = "$to" ] && to=$(((to + 1) % pages))
	fresh "copy$i"
	dd if="$base/data.mdb" of="$db/data.mdb" bs=4096 skip="$from" seek="$to" count=1 conv=notrunc 2>/dev/null
	check "page $from over $to" "$db" 0
done
# lock.mdb: garbage, truncated, gone
fresh lockgarbage
head -c "$(stat -c %s "$base/lock.mdb")" /dev/urandom >"$db/lock.mdb"
check "lock.mdb garbage" "$db" 1
fresh locktrunc
truncate -s 100 "$db/lock.mdb"
check "lock.mdb truncated" "$db" 1
fresh lockempty
: >"$db/lock.mdb"
check "lock.mdb empty" "$db" 1
# data.mdb not a regular file
fresh isdir
rm "$db/data.mdb"
mkdir "$db/data.mdb"
check "data.mdb a directory" "$db" 0
fresh fifo
rm "$db/data.mdb"
mkfifo "$db/data.mdb"
check "data.mdb a FIFO" "$db" 0
fresh devzero
rm "$db/data.mdb"
ln -s /dev/zero "$db/data.mdb"
check "data.mdb -> /dev/zero" "$db" 0
# unreadable data.mdb, read-only directory: as root, chmod stops nothing, so the
# commands run as user nobody (setpriv) where this test runs as root and can
fresh unreadable
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$tmp"
	chown -R 65534:65534 "$db"
	as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	who="as nobody"
elif [ "$(id -u)" = 0 ]; then
	echo "  (root without setpriv: chmod stops nothing; these cases only check that nothing breaks)"
	who="as root"
else
	who="as $(id -un)"
fi
chmod 000 "$db/data.mdb"
check "data.mdb mode 000, $who" "$db" 0
chmod 644 "$db/data.mdb"
fresh readonly
[ ${#as[@]} -gt 0 ] && chown -R 65534:65534 "$db"
chmod 555 "$db"
check "directory read-only, $who" "$db" 1
chmod 755 "$db"
as=()
# the database path a regular file
db=$tmp/afile
echo "not a database" >"$db"
check "path a regular file" "$db" 0
# another table's database copied in
fresh othertable
cp "$tmp/other/data.mdb" "$db/data.mdb"
rm -f "$db/lock.mdb"
check "another table's database" "$db" 0

echo "(damage: $runs runs, ${SECONDS} s)" >&2

# signals at random moments
big=taifas:3x4
"$bin" solve $big --db "$tmp/bigref" --threads 2 >/dev/null || { echo "solve $big failed"; exit 1; }
big_hash=$("$bin" verify $big --db "$tmp/bigref" --json 2>/dev/null | grep -o '"content_hash": "[0-9a-f]*"')
# expect_big_hash DB WHAT: DB verifies to the uninterrupted content hash; a verify that
# fails says how (its exit, errors and output), apart from one giving another hash
expect_big_hash() {
	local h vrc
	"$bin" verify $big --db "$1" --json >"$tmp/vout" 2>"$tmp/verr"
	vrc=$?
	h=$(grep -o '"content_hash": "[0-9a-f]*"' "$tmp/vout")
	if [ -z "$h" ]; then
		problem "$2: verify failed: exit $vrc: $(head -c 300 "$tmp/verr") $(head -c 300 "$tmp/vout")"
	elif [ "$h" != "$big_hash" ]; then
		problem "$2: another content hash ($h)"
	fi
}
# interrupt WHAT DELAY COMMAND...: COMMAND sent SIG$sig after DELAY seconds; it must end
# killed by the signal (128 + n), stopped with a message (SIGINT: exit 130 after saying
# so), or finished first (0). Its exit is left in $rc.
interrupt() {
	local what=$1 delay=$2 pid
	shift 2
	bg_start "$tmp/interrupted" "$@" >/dev/null 2>"$tmp/err"
	sleep "$delay"
	pid=$(bg_pid "$tmp/interrupted") && kill -$sig "$pid" 2>/dev/null
	bg_wait "$tmp/interrupted"
	rc=$bg_rc
	case $rc in 0 | 129 | 130 | 143) ;; *) problem "$what: exit $rc: $(head -c 300 "$tmp/err")" ;; esac
}
for sig in INT TERM HUP; do
	for k in 1 2; do
		what="solve $big, SIG$sig"
		db=$tmp/sig
		rm -rf "$db"
		interrupt "$what" "0.$((RANDOM % 3))$((RANDOM % 10))" "$bin" solve $big --db "$db" --threads 2
		runs=$((runs + 1))
		timeout 120 "$bin" solve $big --db "$db" --threads 2 >/dev/null 2>"$tmp/err" ||
			problem "$what: the resumed solve failed: $(head -c 300 "$tmp/err")"
		expect_big_hash "$db" "$what: the resumed table"
		echo "  $what after a random moment: exit $rc, resumed to the uninterrupted hash"
		# verify of the finished table, interrupted: then verify again
		interrupt "verify, SIG$sig" "0.$((RANDOM % 5))" "$bin" verify $big --db "$db"
		expect_big_hash "$db" "verify, SIG$sig: the table verified again"
		# prove, interrupted, then proven again into the same database
		rm -rf "$tmp/pdb"
		interrupt "prove, SIG$sig" "0.0$((RANDOM % 10))" "$bin" prove $spec --db "$tmp/pdb" \
			--checkpoint 0 --save-proof
		out=$(timeout 120 "$bin" prove $spec --db "$tmp/pdb" --checkpoint 0 --save-proof 2>&1) ||
			problem "prove, SIG$sig: the second prove failed: $out"
		case $out in *"win"*) ;; *) problem "prove, SIG$sig: the second prove says: $out" ;; esac
		"$bin" verify $spec --proofs --db "$tmp/pdb" >/dev/null 2>"$tmp/err" ||
			problem "prove, SIG$sig: verify --proofs afterwards: $(head -c 300 "$tmp/err")"
		echo "  prove and verify, SIG$sig: exits $rc; proven again, verified"
	done
done
echo "damage: $runs runs, $fail failures (${SECONDS} s)"
[ "$fail" = 0 ]
