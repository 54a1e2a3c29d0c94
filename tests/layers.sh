#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/layers.sh ROOT [EXPECTED]: the layer check (README "Layout"). Reads every
# `#include "..."` line of the .c and .h files under ROOT's library folders and fails
# on one that points the wrong way:
#
#     canon/          -> canon/ only
#     store/          -> canon/, store/ (and the build's bp_config.h)
#     solver/games/   -> canon/, solver/games/ (the rules need no store and no engine)
#     solver/         -> canon/, store/, solver/games/, solver/
#     tools/          -> the public headers below, tools/, bp_config.h
#
# Public headers (what tools/ may use): canon/board.h, canon/error.h, canon/text.h,
# store/store.h, solver/games/game.h (the game interface), solver/games/perft.h,
# solver/solve.h, solver/engine.h, solver/probe.h, solver/verify.h,
# solver/enumerate.h, solver/reach.h, solver/claims.h, solver/plan.h, and proof-number
# search's
# solver/dfpn.h, solver/dfpn_db.h, solver/proof.h. A game's own header
# (solver/games/taifas.h), the rule helpers, the engines' headers and the store's
# internals are not public: a tool that needs one names a game or an engine.
#
# Each wrong include prints "FILE:LINE: LAYER must not include HEADER". With EXPECTED
# (a file), the check passes only when its report is exactly that file's text: the
# test suite runs it on tests/layers/, a tree of deliberately wrong includes, so the
# check is seen to fail where it must.
set -u
root=$1 expected=${2:-}
public=" canon/board.h canon/error.h canon/text.h store/store.h solver/games/game.h solver/games/perft.h solver/solve.h solver/engine.h solver/probe.h solver/verify.h solver/enumerate.h solver/reach.h solver/claims.h solver/plan.h solver/dfpn.h solver/dfpn_db.h solver/proof.h "

allowed() { # layer header
	local layer=$1 h=$2
	case $layer in
	canon) [[ $h == canon/* ]] ;;
	store) [[ $h == canon/* || $h == store/* || $h == bp_config.h ]] ;;
	games) [[ $h == canon/* || $h == solver/games/* ]] ;;
	solver) [[ $h == canon/* || $h == store/* || $h == solver/* ]] ;;
	tools) [[ $h == tools/* || $h == bp_config.h || $public == *" $h "* ]] ;;
	esac
}

report=$(
	cd "$root" || exit 2
	for f in $(find canon store solver tools -name '*.[ch]' 2>/dev/null | LC_ALL=C sort); do
		case $f in
		solver/games/*) layer=games ;;
		*) layer=${f%%/*} ;;
		esac
		grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | while IFS= read -r line; do
			n=${line%%:*}
			h=$(sed 's/.*include[[:space:]]*"\([^"]*\)".*/\1/' <<<"$line")
			allowed "$layer" "$h" || echo "$f:$n: $layer must not include $h"
		done
	done
)
if [ -n "$expected" ]; then
	if [ -n "$report" ] && [ "$report" = "$(cat "$expected")" ]; then
		echo "layers: the check finds exactly the wrong includes of $root"
		exit 0
	fi
	echo "layers: on $root the check reported:"
	echo "${report:-(nothing)}"
	echo "expected:"
	cat "$expected"
	exit 1
fi
if [ -n "$report" ]; then
	echo "$report"
	echo "layers: $(wc -l <<<"$report") include(s) point the wrong way (see tests/layers.sh)"
	exit 1
fi
echo "layers: every include points down"
