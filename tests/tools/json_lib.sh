# SPDX-License-Identifier: MIT
# Sourced by the scripts that check JSON answers (serve_api.sh, serve_api_limits.sh,
# serve_agree.sh, prove_lemmas.sh).
#   jqe FILTER [FILE]
# succeeds when FILE (or standard input) holds exactly one JSON value and FILTER on it
# is neither false nor null. Plain `jq -e FILTER` succeeds on an empty file (jq 1.6
# runs no filter and exits 0), so an empty answer would pass every check.
jqe() {
	local filter=$1
	shift
	jq -e -s "length == 1 and (.[0] | $filter)" "$@"
}
