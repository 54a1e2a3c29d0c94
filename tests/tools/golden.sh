#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Golden tests of the command line: each tests/tools/golden/NAME.args holds one
# command line (shell words, after `boardproof`); NAME.out holds what it must print:
# stdout, then "--- stderr" and stderr, then "--- exit N". NAME.setup, when present,
# holds command lines run first (one a line, output discarded; a failing one fails the
# test), for commands that need a solved database; NAME.stdin, when present, is the
# command's standard input (else /dev/null). Each test runs in its own empty
# directory. Run with a pinned environment. `golden.sh BINARY DIR --update` rewrites
# the .out files.
# A line may chain commands with `&& "$bin" ...` (a solve, then a query of its
# database). Figures that depend on the clock or the machine are pinned out of stdout
# before the comparison: JSON "seconds", "positions_per_second" and
# "peak_memory_bytes", and the text "time:" and "memory:" lines of solve and the time
# on the last line of a family's solve.
set -u
bin=$1 dir=$2 update=${3:-}
export LC_ALL=C NO_COLOR=1 TZ=UTC
# the default database lives under the home directory: pin one that does not exist
export HOME=/nonexistent/golden-home
unset BOARDPROOF_DB XDG_DATA_HOME
pass=0 fail=0
tmp=$(mktemp -d)
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { rm -rf "$tmp"; }' EXIT
for args in "$dir"/*.args; do
	name=$(basename "$args" .args)
	line=$(cat "$args")
	work="$tmp/work/$name"
	mkdir -p "$work"
	if [ -f "$dir/$name.setup" ]; then
		while IFS= read -r step; do
			[ -n "$step" ] || continue
			if ! (cd "$work" && eval "\"$bin\" $step" >/dev/null 2>"$tmp/setup.err" </dev/null); then
				echo "FAIL $name: setup 'boardproof $step' failed:"
				cat "$tmp/setup.err"
				fail=$((fail + 1))
				continue 2
			fi
		done <"$dir/$name.setup"
	fi
	input=/dev/null
	[ -f "$dir/$name.stdin" ] && input="$(cd "$dir" && pwd)/$name.stdin"
	(cd "$work" && eval "\"$bin\" $line" >"$tmp/raw" 2>"$tmp/stderr" <"$input")
	rc=$?
	sed -E -e 's/"(seconds|positions_per_second|peak_memory_bytes)": [0-9.]+/"\1": (pinned)/g' \
		-e 's/^(time: +)[0-9.]+ s, [0-9]+ positions per second/\1(pinned)/' \
		-e 's/^(memory: +peak )[0-9.]+ MiB/\1(pinned)/' \
		-e 's/^(positions: .*, in )[0-9.]+ s$/\1(pinned)/' "$tmp/raw" >"$tmp/stdout"
	{ cat "$tmp/stdout"; echo "--- stderr"; cat "$tmp/stderr"; echo "--- exit $rc"; } >"$tmp/got"
	if [ "$update" = --update ]; then
		cp "$tmp/got" "$dir/$name.out"
		continue
	fi
	if cmp -s "$tmp/got" "$dir/$name.out"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL $name: boardproof $line"
		diff -u "$dir/$name.out" "$tmp/got" | head -40
	fi
done
echo "golden: $pass passed, $fail failed"
[ "$fail" = 0 ]
