#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The explorer's JSON API (boardproof serve) from a shell client: curl against a tiny
# database solved here. Good requests must agree with `query --json` and `list
# --json`; bad and hostile ones (unknown instance, malformed position or move, unknown
# parameters, oversized URIs, control bytes, path traversal, other methods, garbage,
# a client that stalls) must get a 4xx JSON error, never a crash or a stall; a table
# solved meanwhile by another process is served within seconds; a table of another
# rules version is refused (409).
# serve_api.sh BOARDPROOF RULES-V1-FIXTURE-DIR
set -u
. "$(dirname "${BASH_SOURCE[0]}")/json_lib.sh" # jqe: jq -e that fails on no input
. "$(dirname "${BASH_SOURCE[0]}")/bg.sh"       # bg_start, bg_pid, bg_wait
bin=$1 fixture=${2:-}
for tool in curl jq; do
	if ! command -v $tool >/dev/null; then
		echo "SKIP serve_api: $tool is not installed (tools/run installs it)"
		exit 77
	fi
done
export LC_ALL=C
unset BOARDPROOF_DB
tmp=$(mktemp -d)
pids=()
cleanup() {
	local bp_self _; read -r bp_self _ </proc/self/stat # the process itself, not $BASHPID: a child
	[ "$bp_self" = "$$" ] || return 0 # killed before its exec runs the trap too
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

db=$tmp/db
"$bin" solve taifas:3x3 --db "$db" >/dev/null || { echo "solve failed"; exit 1; }
"$bin" solve chicken:hex2 --db "$db" >/dev/null || { echo "solve failed"; exit 1; }
T33='taifas:3x3,score=zones,tie=last-zone'
CH='chicken:hex2,both=mover,forced=decline,formed=owner'

# start SERVER-DB OUT: starts the server on a free port; sets url and pid (its status
# is read through bg_wait OUT-without-.json)
start() {
	bg_start "${2%.json}" "$bin" serve --db "$1" --port 0 --timeout 2 --threads 2 --json >"$2" 2>"$2.err"
	pid=$(bg_pid "${2%.json}")
	pids+=("$pid")
	for _ in $(seq 100); do
		url=$(jq -r .url "$2" 2>/dev/null) && [ -n "$url" ] && [ "$url" != null ] && return 0
		sleep 0.05
	done
	echo "server did not start:"; cat "$2" "$2.err"; exit 1
}
start "$db" "$tmp/serve.json"

# get NAME WANT-STATUS PATH [JQ-TEST]: GET url+PATH; the status must be WANT-STATUS, the
# body JSON, and JQ-TEST (default: an "error" member for 4xx) true of it
get() {
	local name=$1 want=$2 path=$3 test=${4:-}
	[ -n "$test" ] || { [ "$want" -ge 400 ] && test='.error | type == "string"' || test='true'; }
	local code
	code=$(curl -s -g --path-as-is --max-time 10 -o "$tmp/body" -w '%{http_code}' "$url${path#/}")
	if [ "$code" != "$want" ]; then bad "$name: status $code, want $want: $(head -c 300 "$tmp/body")"; return; fi
	if ! jqe "$test" "$tmp/body" >/dev/null 2>&1; then bad "$name: body fails '$test': $(head -c 300 "$tmp/body")"; return; fi
	ok
}

## good requests, checked against the command line
get instances 200 /api/instances '.instances | length == 2 and all(.current and .complete)'
"$bin" list --db "$db" --json | jq -c '[.tables[] | {instance, value, remoteness}]' >"$tmp/list"
curl -s "${url}api/instances" | jq -c '[.instances[] | {instance, value, remoteness}]' >"$tmp/inst"
cmp -s "$tmp/list" "$tmp/inst" && ok || bad "instances differ from list --json: $(cat "$tmp/inst")"

# same_as_query NAME SPEC API-ARGS CLI-POSITION: the API's position, value and moves
# equal query --json's
same_as_query() {
	local name=$1 spec=$2 args=$3 pos=$4
	"$bin" query "$spec" "$pos" --db "$db" --json |
		jq -c '{instance, position, value, remoteness, terminal, moves: [.moves[] | {move, value, remoteness, group, position}]}' >"$tmp/cli"
	curl -s -g "${url}api/query?$args" |
		jq -c '{instance, position, value, remoteness, terminal, moves: [.moves[] | {move, value, remoteness, group, position}]}' >"$tmp/api"
	if [ -s "$tmp/cli" ] && cmp -s "$tmp/cli" "$tmp/api"; then ok; else
		bad "$name: API and query differ"; diff "$tmp/cli" "$tmp/api" | head -5
	fi
}
same_as_query start "$T33" "instance=taifas:3x3" start
same_as_query position "$T33" "instance=taifas:3x3&position=o2/1x1/3+x+last%3Do" "o2/1x1/3 x last=o"
same_as_query moves "$T33" "instance=taifas:3x3&moves=xb2+oa1" "o2/1x1/3 x last=o"
same_as_query moves_commas "$T33" "instance=taifas:3x3&moves=xb2,oa1,xc3" "o2/1x1/2x o last=o"
same_as_query position_and_moves "$T33" "instance=taifas:3x3&position=3/1x1/3+o+last%3Dx&moves=oa1" "o2/1x1/3 x last=o"
same_as_query chicken "$CH" "instance=chicken:hex2&moves=a1" "b1/3/2 o declined=-"
same_as_query chicken_pair "$CH" "instance=chicken:hex2&moves=a1+a2%2Bb1" "bo/n2/2 b declined=-"

# every move's resulting position is what playing it gives
curl -s "${url}api/query?instance=taifas:3x3&moves=xb2" >"$tmp/q"
n=$(jq '.moves | length' "$tmp/q") mismatched=0
for i in $(seq 0 $((n - 1))); do
	m=$(jq -r ".moves[$i].move" "$tmp/q") want=$(jq -r ".moves[$i].position" "$tmp/q")
	got=$(curl -s "${url}api/query?instance=taifas:3x3&moves=xb2+$m" | jq -r .position)
	[ "$got" = "$want" ] || mismatched=$((mismatched + 1))
done
[ "$n" = 16 ] && [ $mismatched = 0 ] && ok || bad "resulting positions: $n moves, $mismatched mismatched"
# groups hold the moves in order, each with its value, in runs of equal remoteness
jqe '[.groups.winning[], .groups.drawing[], .groups.losing[] | .moves[]] == [.moves[].move]' "$tmp/q" >/dev/null && ok || bad "groups do not list the moves in order"
jqe '. as $q | [.groups | to_entries[] | .key as $k | .value[] | .remoteness as $r | .moves[] as $m
	| $q.moves[] | select(.move == $m) | (.remoteness == $r) and (.value == ({winning: "win", drawing: "draw", losing: "loss"}[$k]))] | all' \
	"$tmp/q" >/dev/null && ok || bad "groups disagree with the moves' values"
get query_fields 200 "/api/query?instance=taifas:3x3&moves=xb2+oa1" \
	'.to_move == "x" and .terminal == false and .outcome == null and (.line | map(.move)) == ["xb2", "oa1"]
	 and .line[1].position == .position and .board.shape == "square" and (.board.cells | length) == 9
	 and .board.cells[0].name == "a1" and .board.cells[0].char == "o" and .board.cells[4].char == "x"
	 and (.moves[] | select(.move == "xc3") | .cells) == [8]'
get hex_board 200 "/api/query?instance=chicken:hex2" \
	'.board.shape == "hex" and (.board.cells | map(.name)) == ["a1","a2","b1","b2","b3","c1","c2"]
	 and (.board.cells | map(.x)) == [1,3,0,2,4,1,3]'
get terminal 200 "/api/query?instance=taifas:3x3&position=xox/oxo/oxo+o+last%3Dx" \
	'.terminal == true and (.moves | length) == 0 and .outcome == .value'
get openings 200 "/api/openings?instance=taifas:3x3" '(.moves | length) == 18 and .position == "3/3/3 x last=-"'
curl -s "${url}api/openings?instance=taifas:3x3" | jq -c '[.moves[] | {move, value, remoteness}]' >"$tmp/o1"
curl -s "${url}api/query?instance=taifas:3x3" | jq -c '[.moves[] | {move, value, remoteness}]' >"$tmp/o2"
cmp -s "$tmp/o1" "$tmp/o2" && ok || bad "openings differ from the start's moves"
# the opening map says what `openings --json` says, the pie rule's worth included
for spec in taifas:3x3 chicken:hex2; do
	"$bin" openings "$spec" --db "$db" --json |
		jq -c '{instance, position, pie, value_with_choice, openings: [.openings[] | {move, value, remoteness, after_choice}]}' >"$tmp/o1"
	curl -s "${url}api/openings?instance=$spec" |
		jq -c '{instance, position, pie, value_with_choice, openings: [.moves[] | {move, value, remoteness, after_choice}]}' >"$tmp/o2"
	[ -s "$tmp/o1" ] && cmp -s "$tmp/o1" "$tmp/o2" && ok || { bad "openings $spec differ from openings --json"; diff "$tmp/o1" "$tmp/o2" | head -4; }
done
get openings_pie 200 "/api/openings?instance=taifas:3x3" \
	'.pie == true and .value_with_choice == "loss" and (.moves | all(.after_choice != null))'
get openings_no_pie 200 "/api/openings?instance=chicken:hex2" \
	'.pie == false and .value_with_choice == null and (.moves | all(.after_choice == null))'
get spelling 200 "/api/query?instance=chicken:hex2,formed=owner,both=mover" ".instance == \"$CH\""
get not_in_db 404 "/api/query?instance=chicken:hex2&position=bo/1n1/2+b+declined%3D-" \
	'(.error | test("not in the database")) and (.board.cells | length) == 7 and .position == "bo/1n1/2 b declined=-"'

## static files
code=$(curl -s -o "$tmp/page" -w '%{http_code} %{content_type}' "$url")
[ "$code" = "200 text/html; charset=utf-8" ] && grep -q 'boardproof explorer' "$tmp/page" && ok || bad "page: $code"
for f in app.js style.css index.html; do
	code=$(curl -s -o /dev/null -w '%{http_code}' "$url$f")
	[ "$code" = 200 ] && ok || bad "$f: $code"
done
code=$(curl -s -I -o /dev/null -w '%{http_code}' "$url")
[ "$code" = 200 ] && ok || bad "HEAD /: $code"

## bad requests: 4xx with a JSON error naming the bad input
get unknown_game 400 "/api/query?instance=nogame:3x3" '.error | test("unknown instance .nogame:3x3.")'
get bad_board 400 "/api/query?instance=taifas:99x99" '.error | test("unknown instance")'
get bad_key 400 "/api/query?instance=taifas:3x3,colour=red" '.error | test("colour")'
get missing_instance 400 "/api/query" '.error | test("missing instance")'
get empty_instance 400 "/api/query?instance=" '.error | test("missing instance")'
get not_solved 404 "/api/query?instance=taifas:3x4" '.error | test("not solved")'
get bad_position 400 "/api/query?instance=taifas:3x3&position=zzz" '.error | test("malformed position .zzz.")'
get bad_turn 400 "/api/query?instance=taifas:3x3&position=xxx/3/3+x+last%3Dx" '.error | test("malformed position")'
get bad_move 400 "/api/query?instance=taifas:3x3&moves=xb2+xz9" '(.error | test("move 2 .xz9.")) and (.error | test("z9"))'
get occupied 400 "/api/query?instance=taifas:3x3&moves=xb2+ob2" '.error | test("move 2 .ob2.")'
get over 400 "/api/query?instance=taifas:3x3&position=xox/oxo/oxo+o+last%3Dx&moves=xa1" '.error | test("over")'
get long_move 400 "/api/query?instance=taifas:3x3&moves=$(printf 'x%.0s' $(seq 300))" '.error | test("too long")'
get unknown_param 400 "/api/query?instance=taifas:3x3&colour=1" '.error | test("unknown parameter .colour.")'
get openings_param 400 "/api/openings?instance=taifas:3x3&moves=xb2" '.error | test("unknown parameter .moves.")'
get instances_param 400 "/api/instances?x=1" '.error | test("unknown parameter")'
get twice 400 "/api/query?instance=taifas:3x3&instance=chicken:hex2" '.error | test("twice")'
get many 400 "/api/query?a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8&i=9&j=10" '.error | test("too many")'
get control 400 "/api/query?instance=taifas:3x3%01" '.error | test("printable")'
get nul 400 "/api/query?instance=taifas:3x3&position=%00" '.error'
get utf8 400 "/api/query?instance=taifas:3x3&position=%C3%A9" '.error | test("printable")'
get long_arg 414 "/api/query?instance=taifas:3x3&position=$(head -c 5000 /dev/zero | tr '\0' 'x')" '.error | test("too long")'
get long_uri 414 "/api/query?instance=taifas:3x3&position=x&moves=$(head -c 9000 /dev/zero | tr '\0' ',')" '.error | test("too long")'
get unknown_api 404 "/api/nothing" '.error | test("unknown path")'
get claims_unknown 400 "/api/claims?instance=nogame:3x3" '.error | test("unknown instance")'
get claims_not_solved 404 "/api/claims?instance=taifas:3x5" '.error | test("not solved")'
get claims 200 "/api/claims?instance=taifas:3x3" '.instance == "'"$T33"'" and (.claims | map(.name) | index("no-draw")) != null'
get unknown_file 404 "/etc/passwd" '.error'
get traversal 400 "/../../etc/passwd" '.error | test("traversal")'
get traversal_api 400 "/api/../../etc/passwd" '.error | test("traversal")'
code=$(curl -s --path-as-is -o "$tmp/body" -w '%{http_code}' "${url}..%2f..%2fetc/passwd")
[ "${code:0:1}" = 4 ] && ! grep -q root: "$tmp/body" && ok || bad "encoded traversal: $code"
code=$(curl -s --path-as-is -o "$tmp/body" -w '%{http_code}' "${url}%2e%2e/%2e%2e/etc/passwd")
[ "$code" = 400 ] && ok || bad "%2e traversal: $code"
for m in POST PUT DELETE OPTIONS; do
	code=$(curl -s -X $m -o "$tmp/body" -w '%{http_code}' "${url}api/instances")
	[ "$code" = 405 ] && jqe .error "$tmp/body" >/dev/null && ok || bad "$m: $code"
done
code=$(curl -s -X POST --data-binary @"$bin" -o /dev/null -w '%{http_code}' "${url}api/query")
[ "$code" = 405 ] && ok || bad "POST with a big body: $code"
# a request head past what the server reads: refused with JSON before the HTTP
# library sees it (serve_api_limits.sh tries 1 MiB)
get huge_uri 414 "/api/query?instance=$(head -c 100000 /dev/zero | tr '\0' 'x')" '.error | test("too long")'
code=$(curl -s -o "$tmp/body" -w '%{http_code}' -H "X-Big: $(head -c 70000 /dev/zero | tr '\0' 'y')" "${url}api/instances")
[ "$code" = 431 ] && jqe .error "$tmp/body" >/dev/null && ok || bad "huge header: $code"
port=$(jq -r .port "$tmp/serve.json")
# garbage instead of HTTP: an answer or a closed connection, quickly
reply=$(timeout 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port; printf 'GARBAGE \\x01\\x02\\r\\n\\r\\n' >&3; head -c 12 <&3")
[ "$?" != 124 ] && ok || bad "garbage stalled the connection"

## seeded random requests made of pieces of specs, positions and moves and of bytes
## that break parsers: every answer is JSON with a 200, 400, 404 or 414 status
RANDOM=20261124
pieces=(a b c x o n 1 2 3 9 / + , = . - _ % %00 %01 %7f %80 %ff %2B %20 %3D %2F %25 : ';' "'" '"'
	'<' '>' '{' '}' '[' ']' '\\' '*' hex2 3x3 rh2x2 taifas: chicken: taifas:3x3 chicken:hex2 start
	last=x declined=- xa1 a1+b1 ra1%2Byb1 pass)
rnd() { local s="" i; for ((i = RANDOM % 10; i > 0; i--)); do s+=${pieces[RANDOM % ${#pieces[@]}]}; done; printf %s "$s"; }
odd=0
for i in $(seq 100); do
	case $((RANDOM % 4)) in
	0) path="/api/query?instance=$(rnd)" ;;
	1) path="/api/query?instance=taifas:3x3&position=$(rnd)&moves=$(rnd)" ;;
	2) path="/api/query?instance=chicken:hex2&moves=$(rnd)" ;;
	3) path="/api/$(rnd)?$(rnd)=$(rnd)" ;;
	esac
	code=$(curl -s -g --path-as-is --max-time 10 -o "$tmp/body" -w '%{http_code}' "$url${path#/}")
	case $code in 200 | 400 | 404 | 414) jqe . "$tmp/body" >/dev/null 2>&1 || { odd=$((odd + 1)); echo "not JSON: $path"; } ;;
	*) odd=$((odd + 1)); echo "status $code: $path" ;;
	esac
done
[ $odd = 0 ] && ok || bad "$odd of 100 random requests answered oddly"
get alive_after_random 200 /api/instances

## a slow client: a request that never ends is dropped after --timeout (2 s), and
## others are served meanwhile
exec 5<>/dev/tcp/127.0.0.1/"$port"
printf 'GET /api/instances HTTP/1.1\r\nHost: x\r\n' >&5
t0=$(date +%s%N)
get during_stall 200 /api/instances
fast=$(( ($(date +%s%N) - t0) / 1000000 ))
[ $fast -lt 1500 ] && ok || bad "a request during a stalled one took $fast ms"
if timeout 8 cat <&5 >/dev/null; then ok; else bad "stalled connection not closed after the timeout"; fi
exec 5<&-

## a solve writing meanwhile: requests go on, and the new table is served within
## seconds of being finished
codes=$tmp/codes
( while [ ! -e "$tmp/solved" ]; do curl -s -o /dev/null -w '%{http_code}\n' "${url}api/query?instance=taifas:3x3&moves=xb2"; curl -s -o /dev/null -w '%{http_code}\n' "${url}api/query?instance=taifas:3x4"; done >"$codes" ) &
loop=$!
"$bin" solve taifas:3x4 --db "$db" --threads 1 >/dev/null 2>&1 && touch "$tmp/solved"
touch "$tmp/solved"
wait $loop
[ -s "$codes" ] && ! grep -qv '^\(200\|404\)$' "$codes" && ok || bad "during the solve: $(sort "$codes" | uniq -c | tr '\n' ' ')"
# a table never opened before is opened on the next request; one open before would
# be reopened within BP_EXPLORER_REFRESH (2 s): wait for the answer 5 s at most
for _ in $(seq 50); do
	[ "$(curl -s -o /dev/null -w '%{http_code}' "${url}api/query?instance=taifas:3x4")" = 200 ] && break
	sleep 0.1
done
get after_solve 200 "/api/query?instance=taifas:3x4" '.value == "win" and .remoteness == 12'
get listed_after_solve 200 /api/instances '.instances | length == 3'

## still alive, and stops cleanly on SIGTERM
get alive 200 /api/instances
kill -TERM "$pid"
bg_wait "$tmp/serve"
rc=$bg_rc
[ "$rc" = 0 ] && ok || bad "serve exited $rc on SIGTERM"
[ -s "$tmp/serve.json.err" ] && bad "serve wrote to stderr: $(head -c 300 "$tmp/serve.json.err")" || ok

## a table of another rules version is refused
if [ -n "$fixture" ] && [ -f "$fixture/data.mdb" ]; then
	mkdir "$tmp/v1" && cp "$fixture/data.mdb" "$tmp/v1/"
	start "$tmp/v1" "$tmp/serve1.json"
	get outdated 409 "/api/query?instance=glorieta:hex2,hand=2" '.error | test("rules version 1")'
	get outdated_listed 200 /api/instances '.instances[0].value == "outdated" and .instances[0].current == false'
fi

## command line
"$bin" serve --port 70000 >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "bad --port '70000'" "$tmp/err" && ok || bad "bad port: exit $rc"
"$bin" serve --host nowhere >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "bad --host 'nowhere'" "$tmp/err" && ok || bad "bad host: exit $rc"
"$bin" serve --db "$tmp/none" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 3 ] && ok || bad "missing database: exit $rc"

echo "serve_api: $pass passed, $fail failed"
[ "$fail" = 0 ]
