# SPDX-License-Identifier: MIT
# Sourced by the command-line scripts that check exit codes and messages
# (rules_version.sh, sparse_index.sh). Needs $tmp, a scratch directory.
#   check NAME WANT-EXIT NEEDLE... -- COMMAND...
# runs COMMAND and counts a pass when it exits WANT-EXIT and every NEEDLE is in its
# output or its errors; otherwise counts a failure and prints both.
fail=0 pass=0
check() {
	local name=$1 want=$2
	shift 2
	local needles=()
	while [ "$1" != -- ]; do needles+=("$1"); shift; done
	shift
	"$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	local ok=1
	[ "$rc" = "$want" ] || ok=0
	for n in "${needles[@]}"; do grep -qF -- "$n" "$tmp/out" "$tmp/err" || ok=0; done
	if [ $ok = 1 ]; then pass=$((pass + 1)); else
		fail=$((fail + 1))
		echo "FAIL $name: exit $rc (want $want)"; cat "$tmp/out" "$tmp/err"
	fi
}
