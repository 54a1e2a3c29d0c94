#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The explorer's answers agree with `query --json` (every member it prints: instance,
# position, value, remoteness, terminal, every move with its value, remoteness, group
# and resulting position, in order) at every position along seeded random
# games of three tiny instances, each reached through /api/query's moves= from the
# start; and each move's "position" is the position that the next answer shows.
# serve_agree.sh BOARDPROOF
set -u
. "$(dirname "${BASH_SOURCE[0]}")/json_lib.sh" # jqe: jq -e that fails on no input
bin=$1
for tool in curl jq; do
	command -v $tool >/dev/null || { echo "SKIP serve_agree: $tool is not installed"; exit 77; }
done
export LC_ALL=C
unset BOARDPROOF_DB
tmp=$(mktemp -d)
pid=
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"; }' EXIT
db=$tmp/db
specs=(taifas:3x3 chicken:hex2 blooms:hex2)
for s in "${specs[@]}"; do "$bin" solve "$s" --db "$db" >/dev/null || { echo "solve $s failed"; exit 1; }; done
"$bin" serve --db "$db" --port 0 --json >"$tmp/serve.json" &
pid=$!
url=
for _ in $(seq 100); do
	url=$(jq -r .url "$tmp/serve.json" 2>/dev/null) && [ -n "$url" ] && [ "$url" != null ] && break
	sleep 0.05
done
[ -n "$url" ] || { echo "server did not start"; exit 1; }
# every member `query --json` prints (the check below fails if it ever prints more)
view='{instance, position, value, remoteness, terminal, moves: [.moves[] | {move, value, remoteness, group, position}]}'
fields='keys == ["instance", "moves", "position", "remoteness", "terminal", "value"]
	and all(.moves[]; keys == ["group", "move", "position", "remoteness", "value"])'
RANDOM=20261123
walked=0 differ=0 refused=0
for spec in "${specs[@]}"; do
	for game in 1 2; do
		moves="" expect=""
		for ply in $(seq 20); do # Blooms can go on forever: 20 plies at most
			curl -s "${url}api/query?instance=$spec${moves:+&moves=$moves}" >"$tmp/w"
			pos=$(jq -r .position "$tmp/w")
			if [ -n "$expect" ] && [ "$pos" != "$expect" ]; then
				differ=$((differ + 1)); echo "$spec: the move's position was '$expect', the answer shows '$pos'"
			fi
			jq -c "$view" "$tmp/w" >"$tmp/api"
			"$bin" query "$spec" "$pos" --db "$db" --json >"$tmp/q" 2>"$tmp/qerr"
			if [ $? = 2 ] && jqe .terminal "$tmp/w" >/dev/null && grep -q "bad position" "$tmp/qerr"; then
				# Blooms prints a game ended by two passes with over=1, which it
				# refuses to parse by design (RULES.md 8: not a position); the API
				# reaches it by moves. Nothing to compare with: said, not hidden
				refused=$((refused + 1)); echo "note: query refuses the API's text of a finished game: $(cat "$tmp/qerr")"
				break
			fi
			jqe "$fields" "$tmp/q" >/dev/null || { differ=$((differ + 1)); echo "query --json prints members the comparison misses: $(head -c 200 "$tmp/q")"; }
			jq -c "$view" "$tmp/q" >"$tmp/cli"
			walked=$((walked + 1))
			if ! cmp -s "$tmp/api" "$tmp/cli"; then
				differ=$((differ + 1)); echo "$spec: differs from query at '$pos'"; diff "$tmp/cli" "$tmp/api" | head -4
			fi
			pick=$(jq -r --argjson r $RANDOM \
				'.moves | if length == 0 then empty else .[$r % length] | "\(.move | @uri) \(.position)" end' "$tmp/w")
			[ -n "$pick" ] || break
			moves="${moves:+$moves+}${pick%% *}" expect=${pick#* }
		done
	done
done
echo "serve_agree: $walked positions along 6 random games compared with query ($refused finished positions query refuses to parse)"
[ $walked -gt 30 ] && [ $differ = 0 ] && echo "serve_agree: 1 passed, 0 failed" && exit 0
echo "serve_agree: 0 passed, 1 failed ($differ differences)"
exit 1
