#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The corruption campaign for what `prove` stores (tests/RELIABILITY.md): random byte
# changes over a proof database (saved proofs and proven values of taifas:3x3, no
# solved table), then every bit of one stored proof record and of one proven-value
# record flipped in turn. Each damaged copy gets `verify --proofs` and a `query` of
# each proven position; a command must either give exactly the clean database's output
# or report damage, never crash and never answer differently.
#
#   corrupt_proofs.sh BOARDPROOF CORRUPT_TOOL [COPIES [FLIPS [SEED [BITS]]]]
#
# COPIES copies get FLIPS random byte changes each (copy i uses SEED + i); BITS=1
# (default) flips every bit of the records, BITS=K every Kth bit, 0 none. Exits 1 if
# any command crashed, hung or answered wrongly, or a flip of a record went unreported.
#
# Outcomes of verify --proofs on a copy (its stderr names the damage):
#   harmless   exit 0 and the clean output (the change hit free or unused space)
#   lmdb       found by LMDB or the store's LMDB checks (MDB_* codes, a fault caught
#              inside LMDB, a file shorter than its pages, a key space LMDB lost)
#   checksum   found by the key spaces' checksums (a value, the record of a key space,
#              the count or sum of the entries)
#   checker    exit 1: a saved proof fails to decode or to check
#   header     the store header (magic, format) unreadable
#   other      any other exit 3 or 4 report
#   WRONG      exit 0 with another output (a silent wrong answer)
#   CRASH      exit >= 124 (a signal, or a hang)
# Queries: "same" (the clean answer), "reported" (exit 3 naming damage), "lost" (exit
# 3: the position has no stored value: its entry's key was damaged; verify --proofs
# reports such a loss by the key space's count and sum), "bad" (anything else).
set -u
bin=$1
tool=$2
copies=${3:-2000}
flips=${4:-5}
seed=${5:-20261124}
bits=${6:-1}
tmp=$(mktemp -d)
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { rm -rf "$tmp"; }' EXIT
export LC_ALL=C
spec=taifas:3x3
deep="xo1/1x1/3 o last=x"

"$bin" prove "$spec" --db "$tmp/clean" --save-proof --memory 1M >/dev/null &&
	"$bin" prove "$spec" --db "$tmp/clean" --save-proof --memory 1M --openings --position "$deep" >/dev/null ||
	{ echo "clean prove failed"; exit 1; }
"$bin" verify --proofs "$spec" --db "$tmp/clean" >"$tmp/clean.verify" || { echo "clean verify failed"; exit 1; }
full=$(sed -n 's/^\(taifas:[^:]*\): [0-9]* saved proof.*/\1/p' "$tmp/clean.verify")
[ -n "$full" ] || { echo "no instance name"; exit 1; }
# the proven positions: those of the start, the deeper position and the roots of the
# saved proofs that have a proven value
cands=("3/3/3 x last=-" "$deep")
while IFS= read -r p; do cands+=("$p"); done < <(sed -n 's/^proof of \(.*\): [a-z]* holds.*/\1/p' "$tmp/clean.verify")
positions=()
for p in "${cands[@]}"; do
	i=${#positions[@]}
	[ "$i" -lt 4 ] || break
	"$bin" query "$spec" "$p" --db "$tmp/clean" >"$tmp/clean.q$i" 2>/dev/null && positions+=("$p")
done
[ ${#positions[@]} -ge 2 ] || { echo "fewer than 2 proven positions"; exit 1; }
echo "proof database: $(stat -c %s "$tmp/clean/data.mdb") bytes; $(tail -1 "$tmp/clean.verify"); ${#positions[@]} proven positions queried"

kinds="harmless lmdb checksum checker header other WRONG CRASH"
declare -A n
for k in $kinds; do n[$k]=0; done
q_same=0 q_reported=0 q_lost=0 q_bad=0 runs=0
bad_examples=""

classify() {
	local db=$1 label=$2 rc kind i
	runs=$((runs + 1))
	timeout 60 "$bin" verify --proofs "$spec" --db "$db" >"$tmp/v.out" 2>"$tmp/v.err"
	rc=$?
	if [ $rc -ge 124 ]; then
		kind=CRASH
	elif [ $rc = 0 ] && cmp -s "$tmp/v.out" "$tmp/clean.verify"; then
		kind=harmless
	elif [ $rc = 0 ]; then
		kind=WRONG
	elif [ $rc = 1 ] && grep -q "FAILS" "$tmp/v.out"; then
		kind=checker
	elif [ $rc = 3 ]; then
		if grep -q -E 'MDB_|LMDB|data.mdb: damaged|listing tables' "$tmp/v.err"; then
			kind=lmdb
		elif grep -q -E 'checksum' "$tmp/v.err"; then
			kind=checksum
		elif grep -q -E 'not a boardproof database|format version|header' "$tmp/v.err"; then
			kind=header
		else
			kind=other
		fi
	else
		kind=other
	fi
	n[$kind]=$((${n[$kind]} + 1))
	case $kind in WRONG | CRASH | other)
		bad_examples="$bad_examples
$label: verify --proofs exit $rc ($kind): $(head -c 300 "$tmp/v.err")" ;;
	esac
	for i in "${!positions[@]}"; do
		timeout 60 "$bin" query "$spec" "${positions[$i]}" --db "$db" >"$tmp/q.out" 2>"$tmp/q.err"
		rc=$?
		if [ $rc = 0 ] && cmp -s "$tmp/q.out" "$tmp/clean.q$i"; then
			q_same=$((q_same + 1))
		elif [ $rc = 3 ] && grep -q -E "is not solved in this database|not in the solved table" "$tmp/q.err"; then
			q_lost=$((q_lost + 1))
		elif [ $rc = 3 ]; then
			q_reported=$((q_reported + 1))
		else
			q_bad=$((q_bad + 1))
			bad_examples="$bad_examples
$label: query ${positions[$i]} exit $rc: $(head -c 300 "$tmp/q.err" "$tmp/q.out")"
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
echo "random: $copies copies x $flips byte changes = $((copies * flips)) changes"

bitruns=0 bit_missed=0
flip_record() { # NAME SPACE MIN
	local where off len before i
	where=$("$tool" kvwhere "$tmp/clean" "$2" "$3") || { echo "no $1 record found once in the file"; exit 1; }
	read -r off len <<<"$where"
	echo "$1: $len bytes at offset $off; flipping every bit in $bits of its $((len * 8))"
	for ((i = 0; i < len * 8; i += bits)); do
		cp "$tmp/clean/data.mdb" "$tmp/c/data.mdb"
		rm -f "$tmp/c/lock.mdb"
		"$tool" bit "$tmp/c/data.mdb" $((off + i / 8)) $((i % 8)) || exit 1
		before=${n[harmless]}
		classify "$tmp/c" "bit $i of the $1"
		bitruns=$((bitruns + 1))
		if [ "${n[harmless]}" != "$before" ]; then
			bit_missed=$((bit_missed + 1))
			bad_examples="$bad_examples
bit $i of the $1: not detected"
		fi
	done
}
if [ "$bits" -gt 0 ]; then
	flip_record "proof record" ".proof:r2:$full" 256
	flip_record "proven-value record" ".proven:r2:$full" 1
fi

echo "instance $full, seed $seed: $copies copies x $flips random byte changes; $bitruns single-bit flips of two records"
echo "verify --proofs outcomes over $runs damaged copies:"
for k in $kinds; do printf '  %-9s %d\n' "$k" "${n[$k]}"; done
echo "single-bit flips of the records not detected: $bit_missed of $bitruns"
echo "queries: $q_same answered as on the clean database, $q_reported reported damage (exit 3), $q_lost said the position has no stored value (exit 3), $q_bad other"
[ -n "$bad_examples" ] && echo "problems:$bad_examples" | head -40
[ "${n[WRONG]}" = 0 ] && [ "${n[CRASH]}" = 0 ] && [ "$q_bad" = 0 ] && [ "$bit_missed" = 0 ]
