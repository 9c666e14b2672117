#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# switch-callgrind.sh - instructions per frame of the switch's data path,
# a deterministic figure where wall-clock times are noisy: every case of
# bench_switch runs once under callgrind, counting only inside
# voff_switch_poll() (receive, decode, forward, decide, encode, send; the
# far ends' own work is left out).  Prints a Markdown table: instructions
# per frame, and the part of them spent in voff_parse().
#
#   BENCH=build/default/bench/bench_switch [FRAMES=5000] [ONLY=regex] \
#	bench/switch-callgrind.sh
#
# Needs valgrind (callgrind_annotate comes with it).  Build with the
# default preset (RelWithDebInfo) for figures comparable across commits.
set -euo pipefail

bench=${BENCH:?set BENCH to the bench_switch binary}
frames=${FRAMES:-5000}
only=${ONLY:-.}
command -v valgrind >/dev/null || { echo "needs valgrind" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "| case | Ir/frame | of which voff_parse |"
echo "|---|---:|---:|"
for c in $("$bench" --list); do
	[[ $c =~ $only ]] || continue
	f=$tmp/$c.out
	valgrind --tool=callgrind --toggle-collect=voff_switch_poll \
		--compress-strings=no --callgrind-out-file="$f" "$bench" --case "$c" \
		--frames "$frames" >/dev/null 2>"$tmp/log" ||
		{ cat "$tmp/log" >&2; exit 1; }
	total=$(awk '/^(summary|totals):/ { print $2; exit }' "$f")
	# From /: callgrind_annotate splits a function's cost by how the
	# file name reads relative to the current directory.
	parse=$(cd / && callgrind_annotate --inclusive=yes --threshold=100 \
		"$f" 2>/dev/null |
		awk '/[:]voff_parse( |$)/ && !p { gsub(",", "", $1); p = $1 }
		END { print p + 0 }')
	awk -v c="$c" -v t="$total" -v p="$parse" -v f="$frames" 'BEGIN {
		printf "| %s | %.0f | %.0f |\n", c, t / f, p / f }'
done
