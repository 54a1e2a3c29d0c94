#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A table indexed by its reachable positions (solve --index sparse, solver/sparse.c):
# query, openings, claims, list and verify read it through its stored index; a stored
# index whose bytes were changed (one byte of its format record, in data.mdb) is
# refused by name with exit 3 by every reader, never read with other indices.
# sparse_index.sh BOARDPROOF
set -u
bin=$1
spec='mirador:6x6'
tmp=$(mktemp -d)
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { rm -rf "$tmp"; }' EXIT
export LC_ALL=C
. "$(dirname "${BASH_SOURCE[0]}")/check_lib.sh" # fail, pass, check
check solve 0 "win in 1" "index:      reachable positions only" -- \
	"$bin" solve "$spec" --db "$tmp" --index sparse --threads 2
check solve_again 0 "already solved" -- "$bin" solve "$spec" --db "$tmp"
check query 0 "win in 1" -- "$bin" query "$spec" --db "$tmp"
check openings 0 "openings of mirador:6x6" -- "$bin" openings "$spec" --db "$tmp"
check list 0 "mirador:6x6,piece=2" "107" -- "$bin" list --db "$tmp"
check verify 0 "ok: 107 positions checked" "107 reachable positions enumerated afresh" -- \
	"$bin" verify "$spec" --db "$tmp"
check dense_over_it 3 "" -- "$bin" solve "$spec" --db "$tmp" --index dense

# one byte of the index's format record (a tier's count) changed in the file: in every
# copy of the record there (LMDB writes pages anew, and the live one is not told apart)
ats=$(grep -obUa BPSPIDX "$tmp/data.mdb" | cut -d: -f1)
if [ -z "$ats" ]; then
	echo "FAIL: no index format record in data.mdb"
	exit 1
fi
flipped=0
for at in $ats; do
	# the record's key-bytes field (16) tells it from other bytes that match
	[ "$(od -An -tu1 -j $((at + 20)) -N1 "$tmp/data.mdb" | tr -d ' ')" = 16 ] || continue
	flipped=$((flipped + 1))
	byte=$(od -An -tu1 -j $((at + 36)) -N1 "$tmp/data.mdb" | tr -d ' ')
	printf "$(printf '\\%03o' $((byte ^ 1)))" |
		dd of="$tmp/data.mdb" bs=1 seek=$((at + 36)) conv=notrunc status=none
done
if [ $flipped = 0 ]; then
	echo "FAIL: no index format record in data.mdb"
	exit 1
fi
named='index of positions'
check query_damaged 3 "$named" -- "$bin" query "$spec" --db "$tmp"
check openings_damaged 3 "$named" -- "$bin" openings "$spec" --db "$tmp"
check verify_damaged 3 "$named" -- "$bin" verify "$spec" --db "$tmp"
check list_damaged 3 "$named" -- "$bin" list --db "$tmp"
check solve_damaged 3 "$named" -- "$bin" solve "$spec" --db "$tmp"
echo "sparse_index: $pass passed, $fail failed"
[ $fail = 0 ]
