#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The corruption campaign (tests/RELIABILITY.md): random byte changes over a solved
# database, and every bit of one stored block flipped in turn. Each damaged copy is
# verified and queried; a command must either give exactly the clean database's answer
# or report damage (exit 3), never crash and never answer differently.
#
#   corrupt.sh BOARDPROOF CORRUPT_TOOL [SPEC [COPIES [FLIPS [SEED [BITS]]]]]
#
# COPIES copies get FLIPS random byte changes each (seeded: copy i uses SEED + i);
# BITS=1 (default) also flips each bit of one block value, one copy per bit (BITS=K:
# every Kth bit; 0: none). Prints a
# table of outcomes, and exits 1 if any command crashed, hung or answered wrongly.
#
# Outcomes of a copy, by what verify said (its stderr names the damage):
#   harmless      exit 0 and the clean content hash (the change hit free space)
#   lmdb          damage LMDB or the store's LMDB checks found (MDB_* codes, a caught
#                 fault in LMDB, a file shorter than its page count, an unreadable
#                 table record, the table list disagreeing with the registry)
#   block         a block failing its checksums or header checks (header, length,
#                 frame or content)
#   metadata      a table's metadata failing its checksum
#   header        the store header (magic, format) unreadable
#   other3        any other exit 3 report
#   WRONG         exit 0 or 1 with a different content hash or inconsistencies (a
#                 silent wrong answer), or a query answering differently
#   CRASH         exit >= 128 (a signal) or a hang (timeout, exit 124)
# A single-bit flip inside the block's value that verify does not report counts as a
# failure too (the value checksum covers every byte).
set -u
bin=$1
tool=$2
spec=${3:-taifas:3x4}
copies=${4:-2000}
flips=${5:-5}
seed=${6:-20261124}
bits=${7:-1}
tmp=$(mktemp -d)
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { rm -rf "$tmp"; }' EXIT
export LC_ALL=C
positions=("" "xo1/1x1/3/3 o last=x")
case $spec in taifas:3x3*) positions=("" "xo1/1x1/3 o last=x") ;; esac

"$bin" solve "$spec" --db "$tmp/clean" --threads 1 --block-records 256 >/dev/null ||
	{ echo "clean solve failed"; exit 1; }
full=$("$bin" list --db "$tmp/clean" --json | sed -n 's/.*"instance": "\([^"]*\)".*/\1/p' | head -1)
[ -n "$full" ] || full=$spec
"$bin" verify --db "$tmp/clean" --threads 1 --json >"$tmp/clean.verify" ||
	{ echo "clean verify failed"; exit 1; }
for i in "${!positions[@]}"; do
	if [ -n "${positions[$i]}" ]; then
		"$bin" query "$spec" "${positions[$i]}" --db "$tmp/clean" >"$tmp/clean.q$i" ||
			{ echo "clean query $i failed"; exit 1; }
	else
		"$bin" query "$spec" --db "$tmp/clean" >"$tmp/clean.q$i" || { echo "clean query failed"; exit 1; }
	fi
done

declare -A n
for k in harmless lmdb block metadata header other3 WRONG CRASH; do n[$k]=0; done
queries_ok=0 queries_reported=0 queries_bad=0 runs=0
bad_examples=""

# classify DIR LABEL: verify and query one damaged copy, count its outcome
classify() {
	local db=$1 label=$2 rc out kind i
	runs=$((runs + 1))
	timeout 60 "$bin" verify --db "$db" --threads 1 --json >"$tmp/v.out" 2>"$tmp/v.err"
	rc=$?
	if [ $rc -ge 124 ]; then
		kind=CRASH
	elif [ $rc = 0 ] && cmp -s "$tmp/v.out" "$tmp/clean.verify"; then
		kind=harmless
	elif [ $rc = 0 ] || [ $rc = 1 ]; then
		kind=WRONG
	elif [ $rc = 3 ]; then
		if grep -q -E 'MDB_|LMDB|data.mdb: damaged|not a boardproof table|is not solved in this database|listing tables' "$tmp/v.err"; then
			kind=lmdb
		elif grep -q -E 'checksum|block header|frame|missing block|record count|overlong block' "$tmp/v.err"; then
			kind=block
		elif grep -q -E 'metadata' "$tmp/v.err"; then
			kind=metadata
		elif grep -q -E 'not a boardproof database|format version|header' "$tmp/v.err"; then
			kind=header
		else
			kind=other3
		fi
	else
		kind=other3
	fi
	n[$kind]=$((${n[$kind]} + 1))
	if [ $kind = WRONG ] || [ $kind = CRASH ]; then
		bad_examples="$bad_examples
$label: verify exit $rc: $(head -c 300 "$tmp/v.err")"
	fi
	for i in "${!positions[@]}"; do
		if [ -n "${positions[$i]}" ]; then
			timeout 60 "$bin" query "$spec" "${positions[$i]}" --db "$db" >"$tmp/q.out" 2>"$tmp/q.err"
		else
			timeout 60 "$bin" query "$spec" --db "$db" >"$tmp/q.out" 2>"$tmp/q.err"
		fi
		rc=$?
		if [ $rc = 0 ] && cmp -s "$tmp/q.out" "$tmp/clean.q$i"; then
			queries_ok=$((queries_ok + 1))
		elif [ $rc = 3 ]; then
			queries_reported=$((queries_reported + 1))
		else
			queries_bad=$((queries_bad + 1))
			bad_examples="$bad_examples
$label: query $i exit $rc: $(head -c 300 "$tmp/q.err")"
		fi
	done
}

mkdir -p "$tmp/c"
for ((c = 0; c < copies; c++)); do
	cp "$tmp/clean/data.mdb" "$tmp/c/data.mdb"
	rm -f "$tmp/c/lock.mdb"
	"$tool" flip "$tmp/c/data.mdb" $((seed + c)) "$flips" >/dev/null || exit 1
	classify "$tmp/c" "copy $c (seed $((seed + c)))"
done
random_runs=$runs

bitruns=0 bit_missed=0
if [ "$bits" -gt 0 ]; then
	where=""
	# a block whose value is stored once in the file (older copies of leaf pages may
	# linger in free pages): the last tier's first blocks are the likeliest
	ntiers=$("$bin" list --db "$tmp/clean" --json | sed -n 's/.*"tiers": \([0-9]*\).*/\1/p' | head -1)
	for tier in $(seq $((${ntiers:-10} - 1)) -1 0); do
		for b in 0 1 2; do
			where=$("$tool" where "$tmp/clean" "$full" "$tier" "$b" 2>/dev/null) && break 2
		done
	done
	[ -n "$where" ] || { echo "no block value found once in the file"; exit 1; }
	set -- $where
	off=$1 len=$2
	echo "block $b of tier $tier: $len bytes at offset $off; flipping every bit in $bits of its $((len * 8))"
	for ((i = 0; i < len * 8; i += bits)); do
		cp "$tmp/clean/data.mdb" "$tmp/c/data.mdb"
		rm -f "$tmp/c/lock.mdb"
		"$tool" bit "$tmp/c/data.mdb" $((off + i / 8)) $((i % 8)) || exit 1
		before=${n[harmless]}
		classify "$tmp/c" "bit $i of block $tier/$b"
		bitruns=$((bitruns + 1))
		if [ "${n[harmless]}" != "$before" ]; then
			bit_missed=$((bit_missed + 1))
			bad_examples="$bad_examples
bit $i of block $tier/$b: not detected"
		fi
	done
fi

echo "instance $full, seed $seed: $copies copies x $flips random byte changes = $((copies * flips)) changes; $bitruns single-bit flips of one block"
echo "verify outcomes over $runs damaged copies:"
for k in harmless lmdb block metadata header other3 WRONG CRASH; do
	printf '  %-9s %d\n' "$k" "${n[$k]}"
done
echo "single-bit flips of the block not detected: $bit_missed of $bitruns"
echo "queries: $queries_ok answered as on the clean database, $queries_reported reported damage (exit 3), $queries_bad other"
if [ -n "$bad_examples" ]; then
	echo "problems:$bad_examples" | head -40
fi
[ "${n[WRONG]}" = 0 ] && [ "${n[CRASH]}" = 0 ] && [ "$queries_bad" = 0 ] && [ "$bit_missed" = 0 ]
