#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fault injection (tests/fault/fault.c, loaded with LD_PRELOAD) in `serve` while it
# answers API requests: the Nth allocation, write, sync or LMDB call (each LMDB
# function a site of its own) counted after the server has started fails, once, while
# a fixed list of requests is sent in turn: every endpoint of the API (the instances,
# a query by moves, the openings, a query of a hex board, a malformed position, an
# instance not solved, the claims of two instances, computed by the explorer's worker
# thread, whose calls count and fail like the others, and of an instance not solved or
# unknown, an unknown API path), the page, every file of tools/web and a page that is
# not there. The clean answers of the page's files must be the files, and the claims
# what `claims --json` prints. Every answer must be the clean server's (status and
# body) or a 5xx with a JSON error naming the cause; the server must never crash or
# hang (every request has 10 s; a connection closed unanswered is counted apart: a
# failed allocation inside libmicrohttpd's own thread, where none of this program
# runs, does that), must answer the whole list right afterwards (the fault has
# passed; the list is sent three times and the third must be all right: so a failure
# the worker met is not kept for later requests),
# and must end with exit 0 on SIGTERM; the database must be byte for byte unchanged.
#
#   faults_serve.sh BOARDPROOF SHIM [MOST [SEED]]
#
# A site called more than MOST times (default 6) while the list is answered gets MOST
# failing calls drawn with SEED, always its first and last. Skipped (exit 77) without
# curl or jq, or when boardproof was built without libmicrohttpd.
set -u
bin=$1
shim=$2
most=${3:-6}
seed=${4:-20261124}
for tool in curl jq; do
	command -v $tool >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
. "$(dirname "${BASH_SOURCE[0]}")/faults_lib.sh" # $tmp, problem, picks
. "$(dirname "${BASH_SOURCE[0]}")/bg.sh"         # bg_start, bg_pid, bg_done, bg_wait
if "$bin" serve --help 2>&1 | grep -q "built without libmicrohttpd"; then
	echo "SKIP: boardproof was built without libmicrohttpd"
	exit 77
fi
db=$tmp/db
"$bin" solve taifas:3x3 --db "$db" >/dev/null && "$bin" solve chicken:hex2 --db "$db" >/dev/null ||
	{ echo "solve failed"; exit 1; }
cp "$db/data.mdb" "$tmp/data.orig"
# every endpoint of the API (tools/explorer.c's routes), each answer the clean server
# gives (200, 400, 404), and every file of the page (tools/web, compiled in)
requests=(
	"api/instances"
	"api/query?instance=taifas:3x3&moves=xb2+oa1"
	"api/openings?instance=taifas:3x3"
	"api/query?instance=chicken:hex2"
	"api/query?instance=taifas:3x3&position=zzz"
	"api/query?instance=taifas:3x4"
	"api/claims?instance=taifas:3x3"
	"api/claims?instance=chicken:hex2"
	"api/claims?instance=taifas:3x4"
	"api/claims?instance=nosuchgame:3x3"
	"api/nothing"
	""
	"nothing.html"
)
web=$(dirname "${BASH_SOURCE[0]}")/../../tools/web
pages=()
for f in "$web"/*; do
	requests+=("${f##*/}")
	pages+=("$f")
done
[ ${#pages[@]} -gt 0 ] || { echo "no page files in $web"; exit 1; }

pid=""
# start ENV...: the server, with the environment given (the shim's variables); sets url
# and pid; fails when it does not come up
start() {
	# the last server's answer must not be read for this one's: the redirection below
	# happens in the child, maybe after the first look (a run saw every request
	# refused, sent to the port of the server before)
	rm -f "$tmp/serve.json"
	bg_start "$tmp/serve" env "$@" "$bin" serve --db "$db" --port 0 --timeout 2 --threads 2 --json \
		>"$tmp/serve.json" 2>"$tmp/serve.err"
	pid=$(bg_pid "$tmp/serve")
	url=""
	for _ in $(seq 200); do
		url=$(jq -r .url "$tmp/serve.json" 2>/dev/null) && [ -n "$url" ] && [ "$url" != null ] && return 0
		bg_done "$tmp/serve" && return 1
		sleep 0.02
	done
	return 1
}
# stop: SIGTERM; the exit status in $stopped (124: it did not end within 10 s)
stop() {
	[ -n "$pid" ] && kill -TERM $pid 2>/dev/null
	for _ in $(seq 500); do
		bg_done "$tmp/serve" && break
		sleep 0.02
	done
	if ! bg_done "$tmp/serve"; then
		[ -n "$pid" ] && kill -9 $pid
		bg_wait "$tmp/serve"
		stopped=124
	else
		bg_wait "$tmp/serve"
		stopped=$bg_rc
	fi
	pid=""
}
cleanup_serve() { [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; }
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { cleanup_serve; cleanup; }' EXIT
# ask I: request I; its body and then its status (three digits) in $tmp/ans.I, in one
# process (the loop sends thousands); curl's failure (no answer within 10 s,
# connection refused) is status 000, with curl's exit in $curl_rc
ask() {
	curl -s -g --max-time 10 -w '%{http_code}' "$url${requests[$1]}" >"$tmp/ans.$1"
	curl_rc=$?
}
# status_of FILE, body_of FILE: the parts of an answer
status_of() { tail -c 3 "$1"; }
body_of() { head -c -3 "$1"; }

# the clean answers
start || { echo "the server did not start: $(cat "$tmp/serve.err")"; exit 1; }
for i in "${!requests[@]}"; do
	ask "$i"
	mv "$tmp/ans.$i" "$tmp/want.$i"
	[ "$(status_of "$tmp/want.$i")" != 000 ] || { echo "request $i: no answer from the clean server"; exit 1; }
done
# the clean answers are the right ones where that is cheap to know: the page's files
# byte for byte, the claims as `claims --json` prints them
for f in "${pages[@]}"; do
	for i in "${!requests[@]}"; do
		[ "${requests[$i]}" = "${f##*/}" ] || continue
		[ "$(status_of "$tmp/want.$i")" = 200 ] && body_of "$tmp/want.$i" | cmp -s - "$f" ||
			{ echo "request $i (${requests[$i]}): not the file $f"; exit 1; }
	done
done
for spec in taifas:3x3 chicken:hex2; do
	for i in "${!requests[@]}"; do
		[ "${requests[$i]}" = "api/claims?instance=$spec" ] || continue
		"$bin" claims "$spec" --db "$db" --json >"$tmp/claims.json" 2>/dev/null
		[ "$(status_of "$tmp/want.$i")" = 200 ] && body_of "$tmp/want.$i" | cmp -s - "$tmp/claims.json" ||
			{ echo "request $i (${requests[$i]}): not what claims --json prints"; exit 1; }
	done
done
stop
# the calls of start-up alone, then of start-up and the list
start BOARDPROOF_FAULT_COUNT="$tmp/c0" LD_PRELOAD="$shim" || { echo "the server did not start under the shim"; exit 1; }
stop
start BOARDPROOF_FAULT_COUNT="$tmp/c1" LD_PRELOAD="$shim" || exit 1
for i in "${!requests[@]}"; do ask "$i"; done
stop
[ -s "$tmp/c0" ] && [ -s "$tmp/c1" ] || { echo "the fault shim did not load (LD_PRELOAD=$shim)"; exit 1; }

fail=0 runs=0 absorbed=0 refused=0 dropped=0
RANDOM=$seed
line=""
while read -r site total; do
	[ "$site" = lmdb ] && continue # tried function by function (lmdb.*)
	boot=$(awk -v s="$site" '$1 == s { print $2 }' "$tmp/c0")
	calls=$((total - boot))
	[ "$calls" -gt 0 ] || continue
	tried=0
	for n in $(picks "$calls"); do
		at=$((boot + n))
		what="$site call $at (the list's call $n of $calls)"
		runs=$((runs + 1))
		tried=$((tried + 1))
		if ! start BOARDPROOF_FAULT="$site:$at" LD_PRELOAD="$shim"; then
			# the calls of start-up vary a little from run to run: a fault there must
			# end the server with a message
			stop
			grep -q "^boardproof: serve: \|\"error\"" "$tmp/serve.err" "$tmp/serve.json" && [ "$stopped" -lt 124 ] ||
				problem "$what: the server died starting (exit $stopped): $(head -c 300 "$tmp/serve.err")"
			continue
		fi
		# the list three times: the fault falls in the first or (the library's own
		# calls vary a little from run to run) the second; the third must be right.
		# The second is sent only when the first showed nothing of the fault (it fails
		# one call, once: seen in the first, it has passed)
		hit=0
		for pass in 1 2 3; do
			[ "$pass" = 2 ] && [ "$hit" != 0 ] && continue
			for i in "${!requests[@]}"; do
				ask "$i"
				cmp -s "$tmp/ans.$i" "$tmp/want.$i" && continue
				code=$(status_of "$tmp/ans.$i")
				if [ "$pass" != 3 ] && [ "${code:0:1}" = 5 ] &&
					body_of "$tmp/ans.$i" | jq -e -s 'length == 1 and (.[0].error | type == "string" and length > 0)' >/dev/null 2>&1; then
					hit=$((hit + 1))
					echo "  $what: request $i: $code $(body_of "$tmp/ans.$i" | jq -r .error)"
					continue
				fi
				# the connection closed with no answer (curl: empty reply, reset), not a
				# hang: an allocation inside libmicrohttpd's own thread, setting up the
				# connection, where no code of this program runs (see RELIABILITY.md)
				if [ "$pass" != 3 ] && [ "$code" = 000 ] && { [ $curl_rc = 52 ] || [ $curl_rc = 56 ]; }; then
					hit=$((hit + 1))
					dropped=$((dropped + 1))
					echo "  $what: request $i: connection closed with no answer (curl exit $curl_rc)"
					continue
				fi
				problem "$what: pass $pass, request $i (${requests[$i]}): status $code (curl exit $curl_rc), want $(status_of "$tmp/want.$i"): $(body_of "$tmp/ans.$i" | head -c 200)"
			done
		done
		bg_done "$tmp/serve" && problem "$what: the server is gone: $(head -c 300 "$tmp/serve.err")"
		stop
		[ "$stopped" = 0 ] || problem "$what: the server ended with exit $stopped: $(head -c 300 "$tmp/serve.err")"
		if [ "$hit" = 0 ]; then absorbed=$((absorbed + 1)); else refused=$((refused + 1)); fi
		cmp -s "$db/data.mdb" "$tmp/data.orig" || problem "$what: the database changed"
	done
	line="$line $site $tried/$calls"
done <"$tmp/c1"
echo "serve: made to fail (site tried/calls while answering):$line"
echo "faults (serve): $runs runs ($absorbed answered everything right, $refused answered some request 5xx with a JSON error or, $dropped times, closed a connection unanswered inside libmicrohttpd); $fail failures"
[ "$fail" = 0 ]
