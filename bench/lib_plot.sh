# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# lib_plot.sh - what the benchmarks' gnuplot figures share, sourced by
# e2e-plot.sh, small-plot.sh and vxlan.sh, so the figures of docs/img
# keep one size, font and look (not a benchmark itself)

# plot_head PNG TITLE YLABEL - the first lines of a figure's gnuplot
# script: a 900x480 PNG written to PNG, tab-separated data, TITLE and
# YLABEL, bars (set style data histogram); TITLE is taken literally
# (noenhanced: no ^ _ @ & ~ { } markup)
plot_head() {
	cat <<GP
set terminal pngcairo size 900,480 font "DejaVu Sans,10"
set output "$1"
set datafile separator "\t"
set title "$2" noenhanced
set ylabel "$3"
set style data histogram
GP
}
