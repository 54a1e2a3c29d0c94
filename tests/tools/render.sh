#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Renders pictures of every game with a real SVG renderer (rsvg-convert) and checks
# that the pixels are not blank: enough non-white pixels, several colours, and each
# stone colour the picture's legend names actually painted. Skipped (exit 77) with a
# message when rsvg-convert or python3 is missing; tools/run installs both.
set -u
bin=$1
if ! command -v rsvg-convert >/dev/null; then
	echo "SKIP: rsvg-convert not found (apt-get install librsvg2-bin)"
	exit 77
fi
if ! command -v python3 >/dev/null; then
	echo "SKIP: python3 not found"
	exit 77
fi
export LC_ALL=C
tmp=$(mktemp -d)
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { rm -rf "$tmp"; }' EXIT
fail=0
# name | spec | moves | colours (hex) that must be painted
cases=(
	"taifas|taifas:4x4|xa1 ob2 xc3|1a1a1a f5f5f0"
	"chicken|chicken:hex3|b1 a1+c3|1a1a1a f08c1e b4b4b4"
	"glorieta|glorieta:hex3|b2 a1+a2|f2c81e 1a1a1a"
	"landscape|landscape:hex3,neutrals=3,layout=a1;c3;e3|b2 c2|1a1a1a f08c1e b4b4b4"
	"blooms|blooms:hex3|rb2 ga1+kc3|d22828 9a9a9a 1a1a1a"
	"mirador|mirador:8x8|a1 d4|c82828 2850c8"
)
for c in "${cases[@]}"; do
	IFS='|' read -r name spec moves colours <<<"$c"
	if ! "$bin" render "$spec" --moves "$moves" --svg "$tmp/$name.svg" >/dev/null; then
		echo "FAIL $name: render failed"
		fail=1
		continue
	fi
	if ! rsvg-convert "$tmp/$name.svg" -o "$tmp/$name.png"; then
		echo "FAIL $name: rsvg-convert could not read the SVG"
		fail=1
		continue
	fi
	python3 - "$tmp/$name.png" "$colours" <<'PY' || { echo "FAIL $name"; fail=1; }
import struct, sys, zlib
path, want = sys.argv[1], sys.argv[2].split()
data = open(path, 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
pos, idat, w = 8, b'', 0
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
        assert depth == 8 and ctype in (2, 6), 'unexpected PNG format'
        bpp = 4 if ctype == 6 else 3
    elif kind == b'IDAT':
        idat += body
    pos += 12 + n
raw, stride = zlib.decompress(idat), w * bpp
prev, rows = bytearray(stride), []
for y in range(h):  # undo the PNG filters
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
colours, nonwhite = {}, 0
for line in rows:
    for x in range(w):
        px = tuple(line[x * bpp:x * bpp + 3])
        colours[px] = colours.get(px, 0) + 1
        nonwhite += px != (255, 255, 255)
total = w * h
print(f'{path}: {w}x{h}, {nonwhite / total:.0%} not white, {len(colours)} colours')
ok = nonwhite > total // 10 and len(colours) >= 4
for hexc in want:
    rgb = tuple(int(hexc[i:i + 2], 16) for i in (0, 2, 4))
    got = colours.get(rgb, 0)
    if got < 30:
        print(f'colour #{hexc} painted on {got} pixels only')
        ok = False
sys.exit(0 if ok else 1)
PY
done
[ "$fail" = 0 ] && echo "render: every picture has its colours"
exit $fail
