#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# e2e-plot.sh - PNG plots of one bench/e2e.sh run, drawn by gnuplot:
#
#   e2e-throughput.png   Gbit/s per scenario (median, min..max of the runs)
#   e2e-demand.png       receiver service demand, us/KB (lower is better)
#   e2e-cpu.png          the switch's CPU, % of one core
#
#   bench/e2e-plot.sh SUMMARY.tsv [OUTDIR]      (OUTDIR: docs/img)
#
# SUMMARY.tsv is what e2e.sh writes with SUMMARY=...: a header line, then
# one line per scenario: name, runs, then median, min and max of Gbit/s,
# switch CPU % and rx us/KB, tab-separated; a run with BASE= set adds
# its "voff BASE, ..." scenarios as lines, and so as bars, of their own.
# Exits 77 without gnuplot.
set -euo pipefail

sum=${1:?usage: e2e-plot.sh SUMMARY.tsv [OUTDIR]}
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${2:-$root/docs/img}
command -v gnuplot >/dev/null || { echo "e2e-plot: no gnuplot" >&2; exit 77; }
mkdir -p "$dir"
# shellcheck source=bench/lib_plot.sh
. "$root/bench/lib_plot.sh"

# plot FILE TITLE YLABEL COLUMN(median; min and max follow) COLOUR DIGITS
plot() {
	gnuplot <<EOF
$(plot_head "$dir/$1" "$2" "$3")
set style histogram errorbars gap 1 lw 1
set style fill solid 0.6 border -1
set boxwidth 0.8
set yrange [0:*]
set grid ytics
set xtics rotate by -30 left noenhanced
set bmargin 9
set key autotitle columnhead
set key off
plot "$sum" using $4:$(($4 + 1)):$(($4 + 2)):xtic(1) lc rgb "$5", \\
	"" using 0:$4:(sprintf("%.${6}f", \$$4)) with labels offset 0.8,0.6 \\
	font ",9"
EOF
}

plot e2e-throughput.png "voff switch vs kernel: one TCP stream, ns A -> ns B" \
	"Gbit/s (median; bars: min..max)" 3 "#3a7bd5" 2
plot e2e-demand.png "Receiver service demand (lower is better)" \
	"CPU us per KB received" 9 "#d5793a" 3
plot e2e-cpu.png "voff switch process CPU" "% of one core" 6 "#4a9a4a" 0
echo "e2e-plot: wrote $dir/e2e-throughput.png e2e-demand.png e2e-cpu.png"
