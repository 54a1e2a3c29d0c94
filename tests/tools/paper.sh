#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Regenerates a small paper from scratch (two tiny Taifas instances solved into an
# empty database) and compares it, figures included, with the committed one in
# tests/tools/paper/. The rules version number is masked, so that a version change
# alone does not fail it (the lead regenerates papers after such a change).
# The database also holds a saved proof (taifas:3x3, no table), for the proofs section.
# `paper.sh BINARY DIR --update` rewrites the committed copy.
set -u
bin=$1 dir=$2 update=${3:-}
export LC_ALL=C NO_COLOR=1 TZ=UTC
unset BOARDPROOF_DB
tmp=$(mktemp -d)
trap '{ read -r bp_self _ </proc/self/stat; [ "$bp_self" != "$$" ]; } || { rm -rf "$tmp"; }' EXIT
cd "$tmp" || exit 1
for spec in taifas:2x3 taifas:2x3,tie=draw; do
	"$bin" solve "$spec" --db db >/dev/null || { echo "FAIL: solve $spec"; exit 1; }
done
# and a value proven without a table, with its saved proof
"$bin" prove taifas:3x3 --save-proof --db db >/dev/null || { echo "FAIL: prove"; exit 1; }
"$bin" paper taifas --db db --out papers >/dev/null || { echo "FAIL: paper"; exit 1; }
find papers -type f -exec sed -i 's/rules version [0-9][0-9]*/rules version N/g' {} +
if [ "$update" = --update ]; then
	rm -rf "${dir:?}"/*
	cp -r papers/. "$dir"/
	echo "paper: updated $dir"
	exit 0
fi
if diff -r "$dir" papers; then
	echo "paper: the regenerated paper equals the committed one"
else
	echo "FAIL: the regenerated paper differs from $dir (paper.sh BINARY DIR --update)"
	exit 1
fi
