#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Ctrl-C (SIGINT) during a solve: the command must stop cleanly (exit 130, saying how
# to resume), leave some tiers stored but not all, and the same command run again must
# resume from exactly those tiers and store a table with the same content hash as an
# uninterrupted solve. The signal is sent as soon as the --progress output shows the
# first tier solved, so it lands mid-solve whatever the machine's speed; the test fails
# if the solve ended before it (it would then prove nothing).
# interrupt_resume.sh BOARDPROOF [SPEC [SOLVE-ARGS...]]
set -u
bin=$1
spec=${2:-taifas:3x4}
shift $(($# < 2 ? $# : 2))
tmp=$(mktemp -d)
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { rm -rf "$tmp"; }' EXIT
export LC_ALL=C
. "$(dirname "${BASH_SOURCE[0]}")/bg.sh" # bg_start, bg_pid, bg_done, bg_wait
hash_of() { "$bin" verify "$spec" --db "$1" --json | sed -n 's/.*"content_hash": "\([0-9a-f]*\)"}$/\1/p'; }

"$bin" solve "$spec" --db "$tmp/ref" >/dev/null || { echo "reference solve failed"; exit 1; }
want=$(hash_of "$tmp/ref")
[ -n "$want" ] || { echo "no reference hash"; exit 1; }

bg_start "$tmp/solve" "$bin" solve "$spec" --db "$tmp/db" --threads 1 --progress "$@" >"$tmp/out" 2>"$tmp/err"
pid=$(bg_pid "$tmp/solve")
for _ in $(seq 2000); do
	grep -q ' solved: ' "$tmp/err" && break
	bg_done "$tmp/solve" && break
	sleep 0.01
done
[ -n "$pid" ] && kill -INT "$pid" 2>/dev/null
bg_wait "$tmp/solve"
rc=$bg_rc
if [ "$rc" != 130 ]; then
	echo "the interrupted solve exited $rc, expected 130 (did it end before the signal?)"
	tail -3 "$tmp/err"
	exit 1
fi
msg=$(grep 'interrupted' "$tmp/err")
echo "stderr: $msg"
grep -q 'run the same command again to resume' <<<"$msg" || { echo "no resume advice"; exit 1; }
listing=$("$bin" list --db "$tmp/db" --json)
tiers=$(sed -n 's/.*"tiers": \([0-9]*\),.*/\1/p' <<<"$listing")
done_=$(sed -n 's/.*"tiers_done": \([0-9]*\),.*/\1/p' <<<"$listing")
echo "tiers stored at the interrupt: ${done_:-?} of ${tiers:-?}"
if [ -z "$tiers" ] || [ "${done_:-0}" -lt 1 ] || [ "$done_" -ge "$tiers" ]; then
	echo "the interrupt did not land mid-solve"
	exit 1
fi
grep -q "$done_ of $tiers tiers are stored" <<<"$msg" || { echo "the message miscounts the stored tiers"; exit 1; }
out=$("$bin" solve "$spec" --db "$tmp/db" "$@" --json) || { echo "resume failed"; exit 1; }
resumed=$(sed -n 's/.*"resumed_tiers": \([0-9]*\),.*/\1/p' <<<"$out")
[ "$resumed" = "$done_" ] || { echo "resume reused ${resumed:-none} tiers, expected $done_"; exit 1; }
got=$(hash_of "$tmp/db")
echo "content hash after resume $got, uninterrupted $want"
[ "$got" = "$want" ]
