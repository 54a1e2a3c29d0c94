#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Ctrl-C (SIGINT) during a prove: the search must stop cleanly, print its report (value
# unknown, "stopped": "interrupt", the root's numbers), write the values it proved, say
# how to go on, and exit 130. Checkpoints are set far apart (1000 s), so every proven
# value the database holds afterwards was written by the interrupted run's last write.
# The signal is sent once the --progress output shows the search 1.5 million nodes in
# (glorieta:hex3 with a hand of 2 has proven subtrees by then, and needs about 900 s
# to finish); the test fails if the search ended before it (it would then prove
# nothing).
# prove_interrupt.sh BOARDPROOF [SPEC [NODES]]
set -u
bin=$1
spec=${2:-glorieta:hex3,hand=2}
nodes=${3:-1500000}
tmp=$(mktemp -d)
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { rm -rf "$tmp"; }' EXIT
export LC_ALL=C
. "$(dirname "${BASH_SOURCE[0]}")/bg.sh" # bg_start, bg_pid, bg_done, bg_wait

bg_start "$tmp/prove" "$bin" prove "$spec" --db "$tmp/db" --memory 64M --checkpoint 1000 --progress \
	--json >"$tmp/out" 2>"$tmp/err"
pid=$(bg_pid "$tmp/prove")
for _ in $(seq 1000); do
	n=$(sed -n 's/.* \([0-9]*\) nodes,.*/\1/p' "$tmp/err" | tail -n 1)
	[ "${n:-0}" -ge "$nodes" ] && break
	bg_done "$tmp/prove" && break
	sleep 0.1
done
[ -n "$pid" ] && kill -INT "$pid" 2>/dev/null
bg_wait "$tmp/prove"
rc=$bg_rc
if [ "$rc" != 130 ]; then
	echo "the interrupted prove exited $rc, expected 130 (did it end before the signal?)"
	tail -3 "$tmp/err"
	exit 1
fi
# the progress lines name the root's child being searched, its numbers and the ply
grep -Eq '^prove: win search: root pn [0-9]+ dn [0-9]+; under [a-z0-9]+ pn ([0-9]+|inf) dn ([0-9]+|inf), at ply [0-9]+, [0-9]+ nodes,' "$tmp/err" ||
	{ echo "no progress line names the child searched:"; head -3 "$tmp/err"; exit 1; }
msg=$(grep 'interrupted' "$tmp/err")
echo "stderr: $msg"
grep -q 'run the same command again' <<<"$msg" || { echo "no advice to go on"; exit 1; }
out=$(cat "$tmp/out")
echo "report: $out"
grep -q '"value": "unknown"' <<<"$out" || { echo "the report does not say unknown"; exit 1; }
grep -q '"stopped": "interrupt"' <<<"$out" || { echo "the report does not name the interrupt"; exit 1; }
grep -q '"root_pn": [0-9]' <<<"$out" || { echo "the report has no root numbers"; exit 1; }
check=$("$bin" verify --proofs "$spec" --db "$tmp/db" --json) || { echo "verify --proofs failed: $check"; exit 1; }
n=$(sed -n 's/.*"proven_values": \([0-9]*\),.*/\1/p' <<<"$check")
echo "proven values stored at the interrupt: ${n:-none}"
[ "${n:-0}" -gt 0 ] || { echo "the interrupted prove stored no proven value"; exit 1; }
