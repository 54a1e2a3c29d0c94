# SPDX-License-Identifier: MIT
# Sourced by bench/walk_ratio.sh and bench/games_ratio.sh (not run on its own).
# solve_rate BINARY SPEC THREADS DIR: solves SPEC into a fresh database under DIR with
# --threads THREADS and prints "positions-a-second cpu-seconds" (the solve's own
# wall-clock rate, and user + sys from /usr/bin/time).
solve_rate() {
	rm -rf "$4/db"
	/usr/bin/time -f "%U %S" -o "$4/time" "$1" solve "$2" --db "$4/db" \
		--threads "$3" --json >"$4/out"
	printf '%s %s\n' "$(grep -o '"positions_per_second": [0-9]*' "$4/out" | grep -o '[0-9]*$')" \
		"$(awk '{ printf "%.2f", $1 + $2 }' "$4/time")"
}
