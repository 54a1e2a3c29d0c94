#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The explorer's claims and its limits (boardproof serve), from a shell client:
#  - /api/claims answers exactly what `claims SPEC --json` prints, for three instances,
#    again from memory, and with errors as JSON;
#  - while the claims of a larger table are computed, /api/query goes on answering;
#  - oversized requests (a 100 KiB and a 1 MiB request line, a 200 KiB and a 1 MiB
#    header) and malformed heads get a 4xx with a JSON error, never the library's HTML;
#  - slow clients (40 holding half a head, then 300, more than the server keeps
#    waiting) do not stall others, and the ones waiting longest are told so (408);
#  - the database file is not written;
#  - stopped while claims are computed, it answers the waiting client and exits.
# serve_api_limits.sh BOARDPROOF
set -u
. "$(dirname "${BASH_SOURCE[0]}")/json_lib.sh" # jqe: jq -e that fails on no input
. "$(dirname "${BASH_SOURCE[0]}")/bg.sh"       # bg_start, bg_pid, bg_wait
bin=$1
for tool in curl jq; do
	command -v $tool >/dev/null || { echo "SKIP serve_api_limits: $tool is not installed"; exit 77; }
done
export LC_ALL=C
unset BOARDPROOF_DB
tmp=$(mktemp -d)
pid=
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
ms() { echo $(($(date +%s%N) / 1000000)); }

db=$tmp/db
for s in taifas:3x3 chicken:hex2 blooms:hex2 taifas:4x4; do
	"$bin" solve "$s" --db "$db" >/dev/null || { echo "solve $s failed"; exit 1; }
done
sum0=$(cksum <"$db/data.mdb") # the server only reads: the data file stays as it is
# one thread: a claims walk run inside it would hold every other request
bg_start "$tmp/serve" "$bin" serve --db "$db" --port 0 --timeout 3 --threads 1 --json \
	>"$tmp/serve.json" 2>"$tmp/serve.err"
pid=$(bg_pid "$tmp/serve")
url=
for _ in $(seq 100); do
	url=$(jq -r .url "$tmp/serve.json" 2>/dev/null) && [ -n "$url" ] && [ "$url" != null ] && break
	sleep 0.05
done
[ -n "$url" ] || { echo "server did not start"; cat "$tmp/serve.err"; exit 1; }
port=$(jq -r .port "$tmp/serve.json")

# raw NAME WANT-STATUS FILE: sends FILE as it is and reads the answer: the status must
# be WANT-STATUS and the body JSON with an "error"
raw() {
	local name=$1 want=$2 file=$3
	timeout 20 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port; cat '$file' >&3; cat <&3" >"$tmp/raw" 2>/dev/null
	local code
	code=$(head -1 "$tmp/raw" | cut -d' ' -f2)
	if [ "$code" != "$want" ]; then bad "$name: status '$code', want $want: $(head -c 300 "$tmp/raw")"; return; fi
	sed '1,/^\r$/d' "$tmp/raw" | jqe '.error | type == "string"' >/dev/null 2>&1 && ok ||
		bad "$name: the body is not a JSON error: $(head -c 300 "$tmp/raw")"
}

# curl_json NAME WANT-STATUS CURL-ARGS...: the same through curl
curl_json() {
	local name=$1 want=$2
	shift 2
	local code
	code=$(curl -s --max-time 20 -o "$tmp/body" -w '%{http_code}' "$@")
	if [ "$code" != "$want" ]; then bad "$name: status $code, want $want: $(head -c 300 "$tmp/body")"; return; fi
	jqe '.error | type == "string"' "$tmp/body" >/dev/null 2>&1 && ok || bad "$name: not a JSON error: $(head -c 300 "$tmp/body")"
}

## claims: the same text as the command line, byte for byte
for s in taifas:3x3 chicken:hex2 blooms:hex2; do
	"$bin" claims "$s" --db "$db" --json >"$tmp/cli"
	code=$(curl -s --max-time 60 -o "$tmp/api" -w '%{http_code}' "${url}api/claims?instance=$s")
	[ "$code" = 200 ] && [ -s "$tmp/cli" ] && cmp -s "$tmp/cli" "$tmp/api" && ok ||
		{ bad "claims $s: status $code, differs from claims --json"; diff "$tmp/cli" "$tmp/api" | head -4; }
	curl -s "${url}api/claims?instance=$s" >"$tmp/api2" # from memory now
	cmp -s "$tmp/cli" "$tmp/api2" && ok || bad "claims $s asked again differ"
done
jqe '[.claims[] | select(.witness != null)] | length > 0' "$tmp/cli" >/dev/null && ok || bad "no witness in the claims of blooms:hex2"
curl_json claims_unknown 400 "${url}api/claims?instance=nogame:3x3"
curl_json claims_not_solved 404 "${url}api/claims?instance=taifas:3x5"
curl_json claims_param 400 "${url}api/claims?instance=taifas:3x3&moves=xb2"
curl_json claims_missing 400 "${url}api/claims"

## queries go on while the claims of taifas:4x4 are computed (seconds of work)
t0=$(ms)
curl -s --max-time 100 -o "$tmp/big" -w '%{http_code}' "${url}api/claims?instance=taifas:4x4" >"$tmp/big.code" &
cpid=$!
sleep 0.2
slowest=0 answered=0 during=0
for i in $(seq 20); do
	t=$(ms)
	code=$(curl -s --max-time 20 -o /dev/null -w '%{http_code}' "${url}api/query?instance=taifas:3x3&moves=xb2")
	d=$(($(ms) - t))
	[ "$code" = 200 ] && answered=$((answered + 1))
	[ $d -gt $slowest ] && slowest=$d
	kill -0 $cpid 2>/dev/null && during=$((during + 1))
done
wait $cpid
claims_ms=$(($(ms) - t0))
echo "claims of taifas:4x4: $claims_ms ms; $during of 20 queries answered while they ran, the slowest in $slowest ms"
[ $answered = 20 ] && [ $slowest -lt 5000 ] && ok || bad "queries during claims: $answered of 20 answered, slowest $slowest ms"
# a thread blocked by the claims would hold every other query it was given until they
# end: then at most a couple would finish while they run
if [ $claims_ms -gt 3000 ]; then
	[ $during -ge 10 ] && ok || bad "only $during of 20 queries were answered while the claims ran ($claims_ms ms)"
else
	echo "note: the claims took $claims_ms ms, too short to show the queries overlap them"
fi
[ "$(cat "$tmp/big.code")" = 200 ] && jqe '.instance == "taifas:4x4,score=zones,tie=last-zone" and (.claims | length) > 0' "$tmp/big" >/dev/null &&
	ok || bad "claims taifas:4x4: $(cat "$tmp/big.code") $(head -c 200 "$tmp/big")"

## oversized and malformed requests: JSON 4xx from the server itself
x100k=$(head -c 102400 /dev/zero | tr '\0' x)
curl_json uri_100k 414 "${url}api/query?instance=$x100k"
# one request per connection (every head passes the server's own check): a huge
# request after a good one, even from a client that would keep the connection
code=$(curl -s -o /dev/null -o "$tmp/body" -w '%{http_code} ' "${url}api/instances" "${url}api/query?instance=$x100k")
[ "$code" = "200 414 " ] && jqe .error "$tmp/body" >/dev/null && ok || bad "a huge request after a good one: $code $(head -c 200 "$tmp/body")"
curl -s -D "$tmp/head" -o /dev/null "${url}api/claims?instance=taifas:3x3"
grep -qi '^connection: close' "$tmp/head" && ok || bad "a claims answer keeps the connection: $(cat "$tmp/head")"
{ printf 'GET /api/query?instance='; head -c 1048576 /dev/zero | tr '\0' x; printf ' HTTP/1.1\r\nHost: x\r\n\r\n'; } >"$tmp/req"
raw uri_1m 414 "$tmp/req"
printf 'X-Big: %s\r\n' "$(head -c 204800 /dev/zero | tr '\0' y)" >"$tmp/header" # curl -H @FILE: too long for an argument
curl_json header_200k 431 -H @"$tmp/header" "${url}api/instances"
{ printf 'GET /api/instances HTTP/1.1\r\nHost: x\r\nX-Big: '; head -c 1048576 /dev/zero | tr '\0' y; printf '\r\n\r\n'; } >"$tmp/req"
raw header_1m 431 "$tmp/req"
curl_json many_headers 431 $(for i in $(seq 40); do printf -- "-H X-H$i:%s " "$(head -c 1000 /dev/zero | tr '\0' z)"; done) "${url}api/instances"
curl_json uri_9k 414 "${url}api/query?instance=taifas:3x3&moves=$(head -c 9000 /dev/zero | tr '\0' ',')"
printf 'GARBAGE \001\002\r\n\r\n' >"$tmp/req" && raw garbage 400 "$tmp/req"
printf 'GET / HTTP/1.1\r\n\r\n' >"$tmp/req" && raw no_host 400 "$tmp/req"
printf 'GET / HTTP/2.0\r\nHost: x\r\n\r\n' >"$tmp/req" && raw http2 400 "$tmp/req"
printf 'GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n' >"$tmp/req" && raw folded 400 "$tmp/req"
printf 'GET / HTTP/1.1\r\nHost x\r\n\r\n' >"$tmp/req" && raw no_colon 400 "$tmp/req"
printf 'GET / HTTP/1.1\r\nHost: x\r\nX: a\001b\r\n\r\n' >"$tmp/req" && raw control 400 "$tmp/req"
printf 'GET /api/instances HTTP/1.0\r\n\r\n' >"$tmp/req" && timeout 10 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port; cat '$tmp/req' >&3; cat <&3" >"$tmp/raw"
head -1 "$tmp/raw" | grep -q ' 200 ' && ok || bad "an HTTP/1.0 request without Host: $(head -1 "$tmp/raw")"

## slow clients: 40 connections holding half a head; others are answered meanwhile
fds=()
for i in $(seq 40); do
	exec {fd}<>/dev/tcp/127.0.0.1/"$port" && printf 'GET /api/instances HTTP/1.1\r\nHo' >&$fd && fds+=("$fd")
done
# waiting for the rest of their heads costs no CPU (a server polling the same bytes
# again and again would burn what CPU it gets, 39 ticks in 1 s under a load of 17):
# CPU ticks of the server over 1 s
ticks() { awk '{print $14 + $15}' /proc/"$pid"/stat 2>/dev/null || echo 0; }
c0=$(ticks)
sleep 1
spent=$(($(ticks) - c0))
[ "$spent" -lt 15 ] && ok || bad "the server spent $spent CPU ticks in 1 s beside 40 slow clients"
slowest=0 answered=0
for i in $(seq 10); do
	t=$(ms)
	code=$(curl -s --max-time 10 -o /dev/null -w '%{http_code}' "${url}api/query?instance=chicken:hex2")
	d=$(($(ms) - t))
	[ "$code" = 200 ] && answered=$((answered + 1))
	[ $d -gt $slowest ] && slowest=$d
done
echo "with ${#fds[@]} slow connections open: $answered of 10 queries answered, the slowest in $slowest ms"
[ ${#fds[@]} = 40 ] && [ $answered = 10 ] && [ $slowest -lt 5000 ] && ok || bad "queries beside slow clients: $answered of 10, slowest $slowest ms"
# the slow ones are told after --timeout (3 s) that they were too slow, with JSON
timeout 10 cat <&${fds[0]} >"$tmp/slow"
head -1 "$tmp/slow" | grep -q ' 408 ' && sed '1,/^\r$/d' "$tmp/slow" | jqe .error >/dev/null && ok ||
	bad "a slow client was not answered 408 with JSON: $(head -c 200 "$tmp/slow")"
for fd in "${fds[@]}"; do exec {fd}<&-; done

# 300 slow connections, more than the 256 the server keeps waiting: the oldest are
# pushed out (408), new clients still get in
fds=()
for i in $(seq 300); do
	exec {fd}<>/dev/tcp/127.0.0.1/"$port" && printf 'GET / HTTP/1.1\r\n' >&$fd && fds+=("$fd")
done
t=$(ms)
code=$(curl -s --max-time 10 -o /dev/null -w '%{http_code}' "${url}api/instances")
d=$(($(ms) - t))
[ "$code" = 200 ] && [ $d -lt 5000 ] && ok || bad "a query beside 300 slow clients: status $code in $d ms"
timeout 5 cat <&${fds[0]} >"$tmp/slow"
head -1 "$tmp/slow" | grep -q ' 408 ' && ok || bad "the oldest of 300 slow clients was not pushed out: $(head -c 200 "$tmp/slow")"
for fd in "${fds[@]}"; do exec {fd}<&-; done

## alive, quiet, and stops cleanly
code=$(curl -s -o /dev/null -w '%{http_code}' "${url}api/instances")
[ "$code" = 200 ] && ok || bad "not alive at the end: $code"
kill -TERM "$pid"
bg_wait "$tmp/serve"
rc=$bg_rc
pid=
[ "$rc" = 0 ] && ok || bad "serve exited $rc on SIGTERM"
[ -s "$tmp/serve.err" ] && bad "serve wrote to stderr: $(head -c 300 "$tmp/serve.err")" || ok
[ "$(cksum <"$db/data.mdb")" = "$sum0" ] && ok || bad "the database file changed while serving"

## stopped while claims are computed: the waiting client is answered (503, JSON) and
## the server exits at once instead of finishing the walk
bg_start "$tmp/serve2" "$bin" serve --db "$db" --port 0 --json >"$tmp/serve2.json" 2>"$tmp/serve2.err"
pid=$(bg_pid "$tmp/serve2")
url=
for _ in $(seq 100); do
	url=$(jq -r .url "$tmp/serve2.json" 2>/dev/null) && [ -n "$url" ] && [ "$url" != null ] && break
	sleep 0.05
done
# the request is sent on a connection made before the stop (bash's /dev/tcp returns
# once it is established), so it is answered whether it is still queued, in the gate
# or parked in the handler
hostport=${url#http://}
hostport=${hostport%/}
exec 3<>"/dev/tcp/${hostport%:*}/${hostport##*:}"
printf 'GET /api/claims?instance=taifas:4x4 HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n' "$hostport" >&3
sleep 0.5
t=$(ms)
kill -TERM "$pid"
bg_wait "$tmp/serve2"
rc=$bg_rc
d=$(($(ms) - t))
pid=
timeout 30 cat <&3 >"$tmp/stopped.raw"
exec 3<&-
code=$(head -n 1 "$tmp/stopped.raw" | cut -d' ' -f2)
sed '1,/^\r*$/d' "$tmp/stopped.raw" >"$tmp/stopped"
echo "stopped during claims in $d ms; the waiting client got $code"
[ "$rc" = 0 ] && [ $d -lt 20000 ] && ok || bad "stopping during claims: exit $rc after $d ms"
{ [ "$code" = 503 ] || [ "$code" = 200 ]; } && jqe . "$tmp/stopped" >/dev/null && ok ||
	bad "the client waiting for claims got $code: $(head -c 200 "$tmp/stopped")"

echo "serve_api_limits: $pass passed, $fail failed"
[ "$fail" = 0 ]
