#!/bin/sh
# SPDX-License-Identifier: MIT
# Which first moves win Mirador: for each size N, `boardproof prove mirador:NxN
# --openings --save-proof` (every first move proven in turn, with the game's advised
# guidance), then `boardproof verify mirador:NxN --proofs` re-derives every saved proof
# from the rules. Writes one JSON object (the values of every first move, a map of
# them by row, the counts, the searches' nodes and the verify's verdict) to standard
# output; data/mirador_openings.json is its output for sizes 10 to 16.
#
#   bench/mirador_openings.sh BIN [SIZES...]    (default sizes: 10 11 12 13 14 15)
#
# Figures, never pass/fail (a failed verify is recorded as such).
set -eu
BIN=${1:?usage: mirador_openings.sh BIN [SIZES...]}
shift
[ $# -gt 0 ] || set -- 10 11 12 13 14 15
DIR=$(mktemp -d /tmp/mirador_openings_XXXXXX)
trap 'rm -rf "$DIR"' EXIT
for n in "$@"; do
	spec="mirador:${n}x${n}"
	rm -rf "$DIR/db"
	/usr/bin/time -f %U -o "$DIR/time$n" "$BIN" prove "$spec" --openings --save-proof \
		--db "$DIR/db" --memory 2G --threads 1 --json >"$DIR/open$n.json"
	# a failed verify is kept in its JSON ("ok": false), not an error here
	"$BIN" verify "$spec" --proofs --db "$DIR/db" --json >"$DIR/verify$n.json" || true
done
python3 - "$DIR" "$BIN" "$@" <<'PY'
import json, subprocess, sys
d, binary, sizes = sys.argv[1], sys.argv[2], sys.argv[3:]
version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
out = {"about": "Mirador's first moves, each proven a win or a loss for the first player "
       "(red) by `boardproof prove mirador:NxN --openings --save-proof` (df-pn, the game's "
       "advised guidance), every saved proof re-derived from the rules by `boardproof "
       "verify mirador:NxN --proofs`. map: a row per row of the grid (letters from the "
       "top), a character per column (numbers from the left): W the move wins, . it loses. "
       "Written by bench/mirador_openings.sh.",
       "version": version, "sizes": []}
for n in sizes:
    o = json.load(open(f"{d}/open{n}.json"))
    v = json.load(open(f"{d}/verify{n}.json"))
    vals = {}
    for m in o["openings"]:
        vals[(m["move"][0], int(m["move"][1:]))] = m["value"]
    rows = sorted({k[0] for k in vals})
    cols = sorted({k[1] for k in vals})
    counts = {}
    for x in vals.values():
        counts[x] = counts.get(x, 0) + 1
    out["sizes"].append({
        "instance": o["instance"],
        "openings": len(vals),
        "counts": counts,
        "map": ["".join("W" if vals.get((r, c)) == "win" else
                        "." if vals.get((r, c)) == "loss" else "?" for c in cols)
                for r in rows],
        "nodes": o["nodes"],
        "cpu_seconds": float(open(f"{d}/time{n}").read().split()[-1]),
        "stopped": o["stopped"],
        "saved_proofs_checked": v.get("checked"),
        "saved_proofs_failed": v.get("failed"),
        "verify_ok": v.get("ok"),
        "moves": [{"move": m["move"], "value": m["value"], "proof_size": m["proof_size"]}
                  for m in o["openings"]],
    })
print(json.dumps(out, indent=1))
PY
