#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every game's strong-solving rate against the Taifas walk's, in one run (issue 14:
# "at least half the Taifas walk's rate for every other game with a tier walk and a
# tenth of it for Blooms"). Each round solves taifas:4x4 and then each instance into a
# fresh database with --threads THREADS, and prints each instance's positions a second
# (the solve's own figure, wall-clock), its CPU seconds (user + sys) and its ratio to
# the walk's rate in that round; at the end, each instance's median ratio against its
# goal (0.1 for Blooms, 0.5 for the others).
#     bench/games_ratio.sh [BP] [ROUNDS] [THREADS] [SPEC ...]
# Without SPECs: the largest instance of each game with a fast path that solves here in
# seconds (chicken:tri5 takes the longest, about ten).
set -eu
bp=${1:-build/tools/boardproof}
rounds=${2:-3}
threads=${3:-2}
shift $(($# < 3 ? $# : 3))
specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=("landscape:hex3,neutrals=3,layout=a1;c3;e3"
	"glorieta:rh3x4,ring=none,hand=2" "chicken:tri5" "blooms:tri4" "mirador:10x10")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=bench/solve_rate.sh
. "$(dirname "${BASH_SOURCE[0]}")/solve_rate.sh"
run() { solve_rate "$bp" "$1" "$threads" "$tmp"; } # spec
echo "# $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1), $(nproc) cores, --threads $threads"
for r in $(seq "$rounds"); do
	read -r tw tc < <(run taifas:4x4)
	printf 'round %d: taifas:4x4 (walk) %.2f M/s, %s CPU-s (load %s)\n' "$r" \
		"$(awk -v w="$tw" 'BEGIN { print w / 1e6 }')" "$tc" "$(cut -d' ' -f1 /proc/loadavg)"
	for i in "${!specs[@]}"; do
		read -r w c < <(run "${specs[$i]}")
		ratio=$(awk -v w="$w" -v tw="$tw" 'BEGIN { printf "%.3f", w / tw }')
		printf '  %-40s %7.2f M/s %6s CPU-s  ratio %s\n' "${specs[$i]}" \
			"$(awk -v w="$w" 'BEGIN { print w / 1e6 }')" "$c" "$ratio"
		echo "$ratio" >>"$tmp/ratios.$i"
	done
done
for i in "${!specs[@]}"; do
	goal=0.5
	case ${specs[$i]} in blooms:*) goal=0.1 ;; esac
	sort -n "$tmp/ratios.$i" | awk -v s="${specs[$i]}" -v g="$goal" '
		{ v[NR] = $1 }
		END {
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "median %-40s %.3f of the walk (goal %s): %s\n", s, m, g, (m >= g ? "met" : "not met")
		}'
done
