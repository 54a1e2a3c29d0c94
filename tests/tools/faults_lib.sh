# SPDX-License-Identifier: MIT
# What the fault loops (faults.sh, faults_prove.sh, faults_engines.sh) share, sourced
# before their work: a scratch directory $tmp, removed at exit with the file system a
# loop mounts at $mnt (the full-disk checks), no fault variables inherited, and the
# helpers below (picks reads `most`, the failing calls to try at a site at most).

tmp=$(mktemp -d)
mnt=""
cleanup() {
	local bp_self _; read -r bp_self _ </proc/self/stat # the process itself, not $BASHPID: a child
	[ "$bp_self" = "$$" ] || return 0 # killed before its exec runs the trap too
	[ -n "$mnt" ] && umount "$mnt" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
export LC_ALL=C
unset BOARDPROOF_FAULT BOARDPROOF_FAULT_COUNT BOARDPROOF_FAULT_MAP

# problem TEXT: one failed check (counted in $fail)
problem() {
	echo "FAIL: $*"
	fail=$((fail + 1))
}

# picks N: the failing calls to try among 1..N: all of them when N <= $most, else the
# first, the last and $most - 2 drawn
picks() {
	local n=$1
	if [ "$n" -le "$most" ]; then
		seq 1 "$n"
		return
	fi
	{
		echo 1
		echo "$n"
		for ((i = 2; i < most; i++)); do echo $((1 + (RANDOM * 32768 + RANDOM) % n)); done
	} | sort -n -u
}
