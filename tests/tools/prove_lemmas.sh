#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prove --save-proof over proofs saved before: a first move's position is proven (and
# its proof saved) alone, then the start; the start's build takes that proof whole (a
# lemma), so its proof is one decision more, and verify --proofs accepts both.
# prove_lemmas.sh BOARDPROOF
set -u
bin=$1
tmp=$(mktemp -d)
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { rm -rf "$tmp"; }' EXIT
export LC_ALL=C
spec=taifas:3x3
fail() { echo "$*"; exit 1; }
field() { sed -n "s/.*\"$1\": \"*\\([a-z0-9]*\\)\"*[,}].*/\\1/p"; }
db=$tmp/db
lemma=
for m in $("$bin" moves "$spec"); do
	out=$("$bin" prove "$spec" --moves "$m" --db "$db" --memory 8M --save-proof --json) ||
		fail "prove after $m failed"
	if [ "$(field value <<<"$out")" = loss ]; then
		lemma=$(field proof_size <<<"$out")
		echo "after $m: $out"
		break
	fi
done
[ -n "$lemma" ] || fail "no first move wins in $spec"
out=$("$bin" prove "$spec" --db "$db" --memory 8M --save-proof --json) || fail "prove of the start failed"
echo "start: $out"
[ "$(field value <<<"$out")" = win ] || fail "the start is not a win"
[ "$(field proof_size <<<"$out")" = $((lemma + 1)) ] ||
	fail "the start's proof is not the lemma's $lemma decisions and one"
[ "$(field proof_lemmas <<<"$out")" = 1 ] || fail "the report does not count the lemma taken"
v=$("$bin" verify "$spec" --proofs --db "$db" --json) || fail "verify --proofs failed: $v"
echo "verify: $v"
[ "$(field failed <<<"$v")" = 0 ] && grep -q '"ok": true}$' <<<"$v" || fail "a proof failed"
grep -q '"position": "3/3/3 x last=-", "value": "win", "ok": true, "nodes": '$((lemma + 1)) <<<"$v" ||
	fail "the start's proof was not checked whole"
echo "ok"
