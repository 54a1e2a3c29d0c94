#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prove --keep-table: a search stopped by a limit writes its table next to the
# database, and the next run goes on from it; once the value is decided the file is
# removed, and the value is the strongly solved table's, with a proof that verify
# accepts. A table of another size, a damaged one and another game's are refused with
# a clear error and left in place. With --keep-every the table is also written while
# two threads search (they park meanwhile); after a kill -9 the next run goes on from
# the last such write.
# prove_keep_table.sh BOARDPROOF
set -u
bin=$1
tmp=$(mktemp -d)
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { rm -rf "$tmp"; }' EXIT
export LC_ALL=C
spec=taifas:3x4
fail() { echo "$*"; exit 1; }
field() { sed -n "s/.*\"$1\": \"*\\([a-z0-9]*\\)\"*[,}].*/\\1/p"; }

"$bin" solve "$spec" --db "$tmp/ref" >/dev/null || fail "the reference solve failed"
want=$("$bin" query "$spec" --db "$tmp/ref" --json | sed -n 's/^{[^{]*"value": "\([a-z]*\)".*/\1/p')
[ -n "$want" ] || fail "no reference value"

db=$tmp/db
run() { "$bin" prove "$spec" --db "$db" --memory 8M --keep-table --json "$@" 2>"$tmp/err"; }
out=$(run --max-nodes 2000) || fail "first run: $(cat "$tmp/err")"
echo "1: $out"
[ "$(field value <<<"$out")" = unknown ] || fail "the first run decided: the test needs a smaller limit"
[ "$(field table_kept <<<"$out")" = true ] || fail "the table was not kept"
kept=$(ls "$db"/dfpn-*.table 2>/dev/null)
[ -n "$kept" ] || fail "no kept table in $db"
used1=$(field tt_used <<<"$out")
out=$(run --max-nodes 2000) || fail "second run: $(cat "$tmp/err")"
echo "2: $out"
[ "$(field table_resumed <<<"$out")" = true ] || fail "the second run did not go on from the table"
used2=$(field tt_used <<<"$out")
[ "$used2" -gt "$used1" ] || fail "the second run's table holds no more than the first's ($used2, $used1)"

# refused: another size, another game's table, a damaged one; each left in place
cp "$kept" "$tmp/saved"
"$bin" prove "$spec" --db "$db" --memory 4M --keep-table 2>"$tmp/err" >/dev/null
rc=$?
echo "another size: exit $rc: $(cat "$tmp/err")"
[ "$rc" = 2 ] && grep -q -- '--memory' "$tmp/err" || fail "a table of another size was not refused by name"
other=taifas:3x3
"$bin" prove "$other" --db "$tmp/o" --memory 8M --keep-table --max-nodes 100 >/dev/null 2>&1
okept=$(ls "$tmp/o"/dfpn-*.table 2>/dev/null)
[ -n "$okept" ] || fail "no table kept for $other"
cp "$okept" "$kept"
"$bin" prove "$spec" --db "$db" --memory 8M --keep-table 2>"$tmp/err" >/dev/null
rc=$?
echo "another game's: exit $rc: $(cat "$tmp/err")"
[ "$rc" = 3 ] && grep -q 'another game' "$tmp/err" || fail "another game's table was not refused"
cmp -s "$kept" "$okept" || fail "the refused table was changed"
cp "$tmp/saved" "$kept"
printf 'x' | dd of="$kept" bs=1 seek=100000 conv=notrunc 2>/dev/null
"$bin" prove "$spec" --db "$db" --memory 8M --keep-table 2>"$tmp/err" >/dev/null
rc=$?
echo "damaged: exit $rc: $(cat "$tmp/err")"
[ "$rc" = 3 ] && grep -q 'damaged' "$tmp/err" || fail "a damaged table was not refused"
[ -f "$kept" ] || fail "the damaged table was removed"

# to the end from the good table
cp "$tmp/saved" "$kept"
out=$(run --save-proof) || fail "the last run failed: $(cat "$tmp/err")"
echo "3: $out"
[ "$(field table_resumed <<<"$out")" = true ] || fail "the last run did not go on from the table"
got=$(field value <<<"$out")
[ "$got" = "$want" ] || fail "the value after going on is $got, the table's is $want"
[ "$(field table_kept <<<"$out")" = false ] || fail "a decided search kept its table"
[ -z "$(ls "$db"/dfpn-*.table 2>/dev/null)" ] || fail "the kept table was not removed"
"$bin" verify --proofs "$spec" --db "$db" >/dev/null || fail "the proof does not verify"
echo "value $got as the table's; the proof verifies"

# written while searching, on two threads, then killed: the next run goes on from it
big='glorieta:hex3,hand=2'
"$bin" prove "$big" --db "$tmp/k" --memory 16M --threads 2 --keep-table --keep-every 0.5 \
	--progress >/dev/null 2>"$tmp/kerr" &
pid=$!
for _ in $(seq 600); do
	[ "$(grep -c 'writing the table' "$tmp/kerr")" -ge 2 ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
writes=$(grep -c 'writing the table' "$tmp/kerr")
echo "tables written before the kill: $writes"
[ "$writes" -ge 2 ] || fail "the search wrote its table $writes times (expected 2 before the kill)"
out=$("$bin" prove "$big" --db "$tmp/k" --memory 16M --keep-table --max-nodes 1000 --json 2>"$tmp/err") ||
	fail "the run after the kill failed: $(cat "$tmp/err")"
echo "after the kill: $out"
[ "$(field table_resumed <<<"$out")" = true ] || fail "the run after the kill did not go on from the table"
[ "$(field tt_used <<<"$out")" -gt 1000 ] || fail "the table kept before the kill was nearly empty"
