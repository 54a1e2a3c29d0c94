# SPDX-License-Identifier: MIT
# Background commands whose exit status a test reads, sourced by the tool tests. Bash's
# `wait PID` once answered "wait_for: No record of process" (exit 127) under load
# instead of a stopped solve's 130, so nothing here rests on it: the subshell that runs
# the command writes its exit status to NAME.rc, and the command's own process writes
# its pid to NAME.pid before it execs (so a signal sent to that pid reaches the command
# itself, not a shell around it). NAME is a path prefix, e.g. "$tmp/solve".
#
#   bg_start NAME CMD...   runs CMD in the background; redirections written on the
#                          bg_start line apply to CMD
#   bg_pid NAME            prints CMD's pid, once it is known; fails (prints nothing)
#                          if CMD ended or its shell died before saying it
#   bg_done NAME           true once CMD has ended (its status is written)
#   bg_wait NAME           waits for CMD to end and puts its exit status in bg_rc
#                          (128 + n if a signal n killed it), or "none" if its shell
#                          died first (not in $(...): the wait needs this shell)

declare -A bg_shell=() # NAME -> pid of the subshell that runs CMD

bg_start() {
	local name=$1
	shift
	rm -f "$name.pid" "$name.rc"
	# the subshell's own stderr is not the command's: a shell reports a foreground
	# command killed by a signal ("Killed", "Hangup"), which the old `CMD &` did not,
	# and such a line must not land in a file the test reads as CMD's stderr
	(
		exec {err}>&2 2>/dev/null
		bash -c 'echo $$ >"$0.pid" && exec "$@"' "$name" "$@" 2>&$err {err}>&-
		echo $? >"$name.rc"
	) &
	bg_shell[$name]=$!
}

bg_done() { [ -s "$1.rc" ]; }

bg_pid() {
	local name=$1 sub=${bg_shell[$1]:-}
	# one write puts the whole line, so a file that is not empty holds the whole pid
	until [ -s "$name.pid" ]; do
		bg_done "$name" && return 1
		kill -0 "$sub" 2>/dev/null || { [ -s "$name.pid" ] && break; return 1; }
		sleep 0.01
	done
	cat "$name.pid"
}

bg_wait() {
	local name=$1 sub=${bg_shell[$1]:-}
	bg_rc=none
	# waiting for the subshell only blocks until it ends, without a busy loop: its
	# answer is not used; should it answer early (no record of the process), the
	# loop polls the status file instead
	[ -n "$sub" ] && wait "$sub" 2>/dev/null
	until bg_done "$name"; do
		kill -0 "$sub" 2>/dev/null || { bg_done "$name" && break; return 1; }
		sleep 0.02
	done
	# shellcheck disable=SC2034 # the result, read by the caller
	bg_rc=$(<"$name.rc")
}
