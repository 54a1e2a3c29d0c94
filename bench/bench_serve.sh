#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench_serve.sh BOARDPROOF BENCH_SERVE [SPEC [REQUESTS [CONNECTIONS [SECONDS]]]]
# Load test of `boardproof serve` on loopback: solves SPEC (default taifas:4x4) into a
# temporary database, serves it, lists /api/query paths along seeded random games
# (each ply of 20 games, from the start to the end), then sends REQUESTS (default
# 2000) of them over CONNECTIONS (default 4) keep-alive connections, stopping after
# SECONDS (default 30) at most, and prints bench_serve's JSON: requests per second
# and latency percentiles. A benchmark: figures, never pass/fail on speed.
set -eu
bin=$1 client=$2 spec=${3:-taifas:4x4} n=${4:-2000} conns=${5:-4} secs=${6:-30}
tmp=$(mktemp -d)
pid=
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"; }' EXIT
"$bin" solve "$spec" --db "$tmp/db" >/dev/null
"$bin" serve --db "$tmp/db" --port 0 --json >"$tmp/serve.json" &
pid=$!
for _ in $(seq 100); do port=$(jq -r .port "$tmp/serve.json" 2>/dev/null) && [ -n "$port" ] && break; sleep 0.05; done
url="http://127.0.0.1:$port"
RANDOM=20261124
inst=$(printf %s "$spec" | jq -sRr @uri)
for game in $(seq 20); do
	moves=""
	while :; do
		path="/api/query?instance=$inst${moves:+&moves=$moves}"
		echo "$path"
		# one random legal move, URI-encoded (a Blooms pair's '+' as %2B), or nothing
		m=$(curl -s "$url$path" | jq -r --argjson r $RANDOM \
			'.moves | if length == 0 then empty else .[$r % length].move | @uri end')
		[ -n "$m" ] || break
		moves="${moves:+$moves+}$m"
	done
done >"$tmp/paths"
echo "paths: $(wc -l <"$tmp/paths") positions along 20 random games of $spec" >&2
"$client" 127.0.0.1 "$port" "$tmp/paths" "$n" "$conns" "$secs"
