#!/bin/bash
# SPDX-License-Identifier: MIT
#
# switch_e2e_report.sh - the report step of bench/e2e.sh without the
# benchmark: known raw runs in, the exact Markdown table (medians, ratios
# to the kernel bridge, and to the BASE binary's twins when there are
# some), the targets met or not, the TSV, and three PNG plots out (when
# gnuplot is installed).  A scenario left out by failed
# runs gives "nan" and "no", not a crash.
#
# Needs python3; skips with 77 otherwise.  Runs in a second or two.
set -u

command -v python3 >/dev/null || { echo "skip: python3 missing"; exit 77; }
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/voff-e2e-report-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0

# Three runs of the on case (median 8), one of every other scenario.
printf '%s\t%s\n' \
	"voff, offloads on" "9 40 0.3" \
	"voff, offloads on" "8 50 0.2" \
	"voff, offloads on" "7 60 0.4" \
	"voff, offloads off (MTU)" "1 90 2" \
	"voff, MTU ingress, GRO off" "1 80 2.4" \
	"voff, MTU ingress, GRO on" "2 70 0.6" \
	"kernel bridge (veth)" "10 0 0.25" > "$tmp/raw"

cat > "$tmp/want" <<'EOF'
One TCP stream (cubic), 3 s a run; medians.

| scenario | Gbit/s | x bridge | switch CPU % | rx us/KB | runs |
|---|---:|---:|---:|---:|---:|
| voff, offloads on | 8.00 | 0.80 | 50 | 0.300 | 3 |
| voff, offloads off (MTU) | 1.00 | 0.10 | 90 | 2.000 | 1 |
| voff, MTU ingress, GRO off | 1.00 | 0.10 | 80 | 2.400 | 1 |
| voff, MTU ingress, GRO on | 2.00 | 0.20 | 70 | 0.600 | 1 |
| kernel bridge (veth) | 10.00 | 1.00 | 0 | 0.250 | 1 |

| target | measured | goal | met |
|---|---:|---:|---|
| offloads on / offloads off, Gbit/s | 8.00x | >= 8x | yes |
| offloads on / kernel bridge, Gbit/s | 0.80x | >= 0.9x | no |
| rx us/KB, GRO off / GRO on | 4.00x | >= 3x | yes |
EOF
python3 "$root/bench/e2e-summary.py" "$tmp/raw" "$tmp/e2e.tsv" cubic 3 \
	> "$tmp/got" || fail=1
if ! diff -u "$tmp/want" "$tmp/got"; then
	echo "FAIL: report differs"
	fail=1
fi
want_tsv=$(printf 'voff, offloads on\t3\t8\t7\t9\t50\t40\t60\t0.3\t0.2\t0.4')
if [ "$(sed -n 2p "$tmp/e2e.tsv")" != "$want_tsv" ]; then
	echo "FAIL: TSV line: $(sed -n 2p "$tmp/e2e.tsv")"
	fail=1
fi
if [ "$(wc -l < "$tmp/e2e.tsv")" -ne 6 ]; then
	echo "FAIL: TSV has $(wc -l < "$tmp/e2e.tsv") lines, want 6"
	fail=1
fi

# Without a bridge run: no ratio column values, targets "nan" and "no".
grep -v bridge "$tmp/raw" > "$tmp/raw2"
python3 "$root/bench/e2e-summary.py" "$tmp/raw2" "" cubic 3 > "$tmp/got2" ||
	fail=1
grep -q '^| voff, offloads on | 8.00 | - | 50 | 0.300 | 3 |$' "$tmp/got2" ||
	{ echo "FAIL: row without bridge"; fail=1; }
grep -q '^| offloads on / kernel bridge, Gbit/s | nanx | >= 0.9x | no |$' \
	"$tmp/got2" || { echo "FAIL: target without bridge"; fail=1; }

# With the kernel's veth GRO pair, its ratios are printed beside voff's.
cp "$tmp/raw" "$tmp/raw3"
printf '%s\t%s\n' \
	"veth, MTU sender, GRO off" "5 0 1.0" \
	"veth, MTU sender, GRO on" "10 0 0.5" >> "$tmp/raw3"
python3 "$root/bench/e2e-summary.py" "$tmp/raw3" "" cubic 3 > "$tmp/got3" ||
	fail=1
grep -qxF "rx us/KB 2.00x, Gbit/s 2.00x; voff's: rx us/KB 4.00x, Gbit/s 2.00x" \
	"$tmp/got3" || { echo "FAIL: kernel GRO line"; cat "$tmp/got3"; fail=1; }
grep -q "kernel's own GRO" "$tmp/got" &&
	{ echo "FAIL: kernel GRO line without its runs"; fail=1; }

# With BASE twins (e2e.sh BASE=...): the main / BASE column, "-" where
# a scenario has no twin; the targets take main's figures only.
cp "$tmp/raw" "$tmp/raw4"
printf '%s\t%s\n' \
	"voff BASE, offloads on" "5 40 0.3" \
	"voff BASE, offloads on" "4 40 0.3" \
	"voff BASE, offloads on" "6 40 0.3" >> "$tmp/raw4"
python3 "$root/bench/e2e-summary.py" "$tmp/raw4" "" cubic 3 > "$tmp/got4" ||
	fail=1
for want in \
	'| scenario | Gbit/s | x bridge | main / BASE | switch CPU % | rx us/KB | runs |' \
	'| voff, offloads on | 8.00 | 0.80 | 1.60 | 50 | 0.300 | 3 |' \
	'| voff BASE, offloads on | 5.00 | 0.50 | - | 40 | 0.300 | 3 |' \
	'| voff, offloads off (MTU) | 1.00 | 0.10 | - | 90 | 2.000 | 1 |' \
	'| kernel bridge (veth) | 10.00 | 1.00 | - | 0 | 0.250 | 1 |' \
	'| offloads on / kernel bridge, Gbit/s | 0.80x | >= 0.9x | no |'; do
	grep -qxF "$want" "$tmp/got4" ||
		{ echo "FAIL: BASE report lacks: $want"; cat "$tmp/got4"; fail=1; }
done
grep -q 'main / BASE' "$tmp/got" &&
	{ echo "FAIL: main / BASE column without BASE runs"; fail=1; }

if command -v gnuplot >/dev/null; then
	"$root/bench/e2e-plot.sh" "$tmp/e2e.tsv" "$tmp/img" >/dev/null || fail=1
	for f in e2e-throughput e2e-demand e2e-cpu; do
		magic=$(head -c 4 "$tmp/img/$f.png" 2>/dev/null | od -An -tx1 |
			tr -d ' ')
		[ "$magic" = 89504e47 ] || { echo "FAIL: $f.png"; fail=1; }
	done
else
	echo "note: gnuplot missing, plots not checked"
fi

[ $fail -eq 0 ] && echo "switch_e2e_report: ok"
exit $fail
