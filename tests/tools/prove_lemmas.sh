#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# prove --save-proof over proofs saved before: a first move's position is proven (and
# its proof saved) alone, then the start; the start's build takes that proof whole (a
# lemma), so its proof is one decision more, the report counts the lemma, and verify
# --proofs accepts every proof saved.
# prove_lemmas.sh BOARDPROOF
set -u
bin=$1
tmp=$(mktemp -d)
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { rm -rf "$tmp"; }' EXIT
. "$(dirname "$0")/json_lib.sh"
spec=taifas:3x3
db=$tmp/db
prove() { "$bin" prove "$spec" --db "$db" --memory 8M --save-proof --json "$@" >"$tmp/p.json"; }
lemma=
for m in $("$bin" moves "$spec"); do
	prove --moves "$m" || { echo "prove after $m failed"; exit 1; }
	if jqe '.value == "loss"' "$tmp/p.json" >/dev/null; then
		lemma=$(jq .proof_size "$tmp/p.json")
		echo "after $m: $(cat "$tmp/p.json")"
		break
	fi
done
[ -n "$lemma" ] || { echo "no first move wins in $spec"; exit 1; }
prove || { echo "prove of the start failed"; exit 1; }
echo "start: $(cat "$tmp/p.json")"
jqe ".value == \"win\" and .proof_size == $lemma + 1 and .proof_lemmas == 1" "$tmp/p.json" >/dev/null ||
	{ echo "the start's proof is not the lemma's $lemma decisions and one, counted"; exit 1; }
"$bin" verify "$spec" --proofs --db "$db" --json >"$tmp/v.json"
echo "verify: exit $?: $(cat "$tmp/v.json")"
jqe ".ok and .failed == 0 and any(.proofs[]; .position == \"3/3/3 x last=-\" and .ok and
	.nodes == $lemma + 1)" "$tmp/v.json" >/dev/null || { echo "verify did not accept it"; exit 1; }
echo ok
