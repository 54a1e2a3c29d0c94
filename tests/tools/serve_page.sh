#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The explorer page in headless Chromium: Debian's chromium driven by playwright-core
# from npm (tests/tools/browser/package.json; it downloads no browser). Serves a tiny
# database solved here and runs tests/tools/browser/explorer.cjs on a square board
# (taifas:3x3) and a hex board (chicken:hex2, with a position outside the table).
# Screenshots are kept in OUT-DIR. Skips (exit 77) with the reason when node,
# chromium or playwright-core cannot be had.
# serve_page.sh BOARDPROOF BROWSER-TEST-DIR OUT-DIR
set -u
bin=$1 src=$2 out=$3
skip() { echo "SKIP serve_page: $*"; exit 77; }
command -v node >/dev/null || skip "node is not installed (apt-get install nodejs npm)"
chromium=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
[ -n "$chromium" ] && [ -x "$chromium" ] || skip "chromium is not installed (apt-get install chromium)"
pw=${PW_DIR:-$out/browser}
if [ ! -d "$pw/node_modules/playwright-core" ]; then
	command -v npm >/dev/null || skip "npm is not installed, so playwright-core cannot be installed"
	mkdir -p "$pw" && cp "$src/package.json" "$pw/"
	echo "installing playwright-core into $pw (once)"
	(cd "$pw" && timeout 300 npm install --no-audit --no-fund --loglevel=error) ||
		skip "npm install playwright-core failed (offline?)"
fi
export LC_ALL=C
unset BOARDPROOF_DB
tmp=$(mktemp -d)
pid=
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"; }' EXIT
"$bin" solve taifas:3x3 --db "$tmp/db" >/dev/null && "$bin" solve chicken:hex2 --db "$tmp/db" >/dev/null ||
	{ echo "solve failed"; exit 1; }
"$bin" serve --db "$tmp/db" --port 0 --json >"$tmp/serve.json" 2>"$tmp/serve.err" &
pid=$!
url=
for _ in $(seq 100); do
	url=$(jq -r .url "$tmp/serve.json" 2>/dev/null || sed -n 's/.*"url": "\([^"]*\)".*/\1/p' "$tmp/serve.json")
	[ -n "$url" ] && [ "$url" != null ] && break
	sleep 0.05
done
[ -n "$url" ] || { echo "server did not start"; cat "$tmp/serve.err"; exit 1; }
mkdir -p "$out"
status=0
export PW_DIR=$pw CHROMIUM=$chromium
timeout 120 node "$src/explorer.cjs" "$url" "$out/explorer-taifas.png" taifas:3x3 || status=1
timeout 120 node "$src/explorer.cjs" "$url" "$out/explorer-chicken.png" chicken:hex2 \
	chicken:hex2 'bo/1n1/2 b declined=-' || status=1
echo "screenshots: $(ls "$out"/explorer-*.png | tr '\n' ' ')"
exit $status
