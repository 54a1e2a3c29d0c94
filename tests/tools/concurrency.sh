#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Readers during a solve, and two solves at once, through the command:
#  - `query` processes run in a loop while `solve` writes the same database: each
#    answer must be the finished table's answer, or "not solved yet" (the tier, the
#    table or the database is not there yet); nothing else, and never a torn answer;
#  - a second `solve` of the same table while the first runs is refused at once with
#    a message (exit 4), and the first finishes with the right content hash.
#
#   concurrency.sh BOARDPROOF [SPEC [READERS]]
set -u
bin=$1
spec=${2:-taifas:3x4}
readers=${3:-2}
tmp=$(mktemp -d)
pids=()
cleanup() {
	local bp_self _; read -r bp_self _ </proc/self/stat # the process itself, not $BASHPID: a child
	[ "$bp_self" = "$$" ] || return 0 # killed before its exec runs the trap too
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
export LC_ALL=C
. "$(dirname "${BASH_SOURCE[0]}")/bg.sh" # bg_start, bg_wait
positions=("" "x3/4/4/4 o last=x" "xo2/1x2/4/4 o last=x")
case $spec in taifas:3x4*) positions=("" "x2/3/3/3 o last=x" "xo1/1x1/3/3 o last=x") ;; esac
args=(--threads 1 --block-records 256)
hash_of() { "$bin" verify "$spec" --db "$1" --json | sed -n 's/.*"content_hash": "\([0-9a-f]*\)"}$/\1/p'; }
query() { # query DB I
	if [ -n "${positions[$2]}" ]; then
		"$bin" query "$spec" "${positions[$2]}" --db "$1"
	else
		"$bin" query "$spec" --db "$1"
	fi
}

"$bin" solve "$spec" --db "$tmp/ref" "${args[@]}" >/dev/null || { echo "reference solve failed"; exit 1; }
want=$(hash_of "$tmp/ref")
for i in "${!positions[@]}"; do
	query "$tmp/ref" "$i" >"$tmp/ref.q$i" || { echo "reference query $i failed"; exit 1; }
done

# reader LOOP: queries until the file $tmp/stop appears; writes counts to $tmp/r$LOOP
reader() {
	local me=$1 right=0 notyet=0 bad=0 i=0 rc
	while [ ! -e "$tmp/stop" ]; do
		i=$(((i + 1) % ${#positions[@]}))
		query "$tmp/db" "$i" >"$tmp/o$me" 2>"$tmp/e$me"
		rc=$?
		if [ $rc = 0 ] && cmp -s "$tmp/o$me" "$tmp/ref.q$i"; then
			right=$((right + 1))
		elif { [ $rc = 2 ] && grep -q "its tier is not solved yet" "$tmp/e$me"; } ||
			{ [ $rc = 3 ] && grep -q -E "is not solved in this database|no database at" "$tmp/e$me"; }; then
			notyet=$((notyet + 1))
		else
			bad=$((bad + 1))
			{
				echo "query $i: exit $rc"
				head -c 400 "$tmp/o$me" "$tmp/e$me"
			} >>"$tmp/bad$me"
		fi
	done
	echo "$right $notyet $bad" >"$tmp/r$me"
}

for ((r = 0; r < readers; r++)); do
	reader "$r" &
	pids+=($!)
done
bg_start "$tmp/solve" "$bin" solve "$spec" --db "$tmp/db" "${args[@]}" >/dev/null 2>"$tmp/solve.err"
# the second solve, as soon as the first has created the table
for ((k = 0; k < 400; k++)); do
	[ -e "$tmp/db/writers.lock" ] && break
	sleep 0.01
done
"$bin" solve "$spec" --db "$tmp/db" "${args[@]}" >/dev/null 2>"$tmp/second.err"
second=$?
bg_wait "$tmp/solve"
first=$bg_rc
sleep 0.2 # a few more queries on the finished table
touch "$tmp/stop"
for p in "${pids[@]}"; do wait "$p"; done
pids=()

fail=0
right=0 notyet=0 bad=0
for ((r = 0; r < readers; r++)); do
	read -r a b c <"$tmp/r$r"
	right=$((right + a)) notyet=$((notyet + b)) bad=$((bad + c))
	[ -e "$tmp/bad$r" ] && head -20 "$tmp/bad$r"
done
echo "queries during the solve: $right right answers, $notyet 'not solved yet', $bad other"
[ "$bad" = 0 ] || fail=1
[ "$right" -gt 0 ] || { echo "no query saw the finished table"; fail=1; }
[ "$first" = 0 ] || { echo "first solve: exit $first: $(cat "$tmp/solve.err")"; fail=1; }
if [ $second = 4 ] && grep -q "being solved by another process" "$tmp/second.err"; then
	echo "second solve refused: $(cat "$tmp/second.err")"
elif [ $second = 0 ] && [ ! -s "$tmp/second.err" ]; then
	echo "second solve: ran after the first had finished (machine too fast to overlap)"
else
	echo "second solve: exit $second: $(cat "$tmp/second.err")"
	fail=1
fi
got=$(hash_of "$tmp/db")
[ "$got" = "$want" ] || { echo "content hash $got, expected $want"; fail=1; }
exit $fail
