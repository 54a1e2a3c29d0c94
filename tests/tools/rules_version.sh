#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A table solved under another rules version (tests/tools/fixtures/rules_v1, written by
# the rules-version-1 build) is never answered from: query, verify, solve, claims,
# openings and prove (which would use it as its endgame oracle) exit 3
# naming both versions and saying how to re-solve; list shows the version; the
# database is unchanged by all of it; solve --replace solves the table anew.
# rules_version.sh BOARDPROOF FIXTURE-DIR
set -u
bin=$1 fixture=$2
spec='glorieta:hex2,hand=2'
tmp=$(mktemp -d)
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { rm -rf "$tmp"; }' EXIT
export LC_ALL=C
cp "$fixture/data.mdb" "$tmp/"
before=$(sha256sum "$tmp/data.mdb" | cut -d' ' -f1)
. "$(dirname "${BASH_SOURCE[0]}")/check_lib.sh" # fail, pass, check
v1='solved under rules version 1' v2='implements rules version 2'
check query 3 "$v1" "$v2" "--replace" -- "$bin" query "$spec" --db "$tmp"
check query_json 3 "$v1" -- "$bin" query "$spec" --db "$tmp" --json
check verify 3 "$v1" "$v2" -- "$bin" verify "$spec" --db "$tmp"
check verify_all 3 "$v1" -- "$bin" verify --db "$tmp"
check solve 3 "$v1" "$v2" "--replace" -- "$bin" solve "$spec" --db "$tmp"
check prove 3 "$v1" "$v2" -- "$bin" prove "$spec" --db "$tmp" --time-limit 5
check claims 3 "$v1" "$v2" -- "$bin" claims "$spec" --db "$tmp"
check openings 3 "$v1" -- "$bin" openings "$spec" --db "$tmp"
check list 0 "outdated" -- "$bin" list --db "$tmp"
check list_json 0 '"rules_version": 1' '"value": "outdated"' -- "$bin" list --db "$tmp" --json
after=$(sha256sum "$tmp/data.mdb" | cut -d' ' -f1)
if [ "$before" = "$after" ]; then pass=$((pass + 1)); else
	fail=$((fail + 1)); echo "FAIL unchanged: the refusals changed data.mdb"
fi
check replace 0 "positions:" -- "$bin" solve "$spec" --db "$tmp" --replace
check query_after 0 "value:" -- "$bin" query "$spec" --db "$tmp"
check verify_after 0 '"ok": true' -- "$bin" verify "$spec" --db "$tmp" --json
check list_after 0 '"rules_version": 2' -- "$bin" list --db "$tmp" --json
echo "rules_version: $pass passed, $fail failed"
[ "$fail" = 0 ]
