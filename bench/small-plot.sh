#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# small-plot.sh - PNG plots of one bench/small.sh run, drawn by gnuplot:
#
#   small-rate.png   64-byte frames/s delivered, A->B, B->A and both
#   small-rtt.png    round trips, p50 and p99 (ping, TCP request/response)
#   small-bulk.png   one TCP stream, Gbit/s
#
#   bench/small-plot.sh SMALL.tsv [OUTDIR]      (OUTDIR: docs/img)
#
# SMALL.tsv is what small.sh writes: a header line, then one line per
# scenario: its name and the medians of rate_ab, rate_ba, rate_bi
# (frames/s), icmp_p50, icmp_p99, tcp_p50, tcp_p99 (us) and bulk_gbps,
# tab-separated.  Exits 77 without gnuplot.
set -euo pipefail

tsv=${1:?usage: small-plot.sh SMALL.tsv [OUTDIR]}
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${2:-$root/docs/img}
command -v gnuplot >/dev/null || { echo "small-plot: no gnuplot" >&2; exit 77; }
mkdir -p "$dir"
# shellcheck source=bench/lib_plot.sh
. "$root/bench/lib_plot.sh"

# plot FILE TITLE YLABEL "PLOT CLAUSES" [log]: log for a logarithmic y
plot() {
	local y="set yrange [0:*]"
	[ "${5:-}" = log ] && y="set logscale y; set yrange [1:*]"
	gnuplot <<GP
$(plot_head "$dir/$1" "$2" "$3")
set style histogram clustered gap 1
set style fill solid 0.7 border -1
set boxwidth 0.9
$y
set grid ytics
set xtics noenhanced
set key top left Left reverse noenhanced
plot $4
GP
}

plot small-rate.png "64-byte UDP through the switch and the bridge (iperf3 -b 0)" \
	"thousand frames/s delivered" \
	"\"$tsv\" skip 1 using (\$2/1e3):xtic(1) title \"A -> B\" lc rgb \"#3a7bd5\", \
	 \"\" skip 1 using (\$3/1e3) title \"B -> A\" lc rgb \"#7aa6e8\", \
	 \"\" skip 1 using (\$4/1e3) title \"both ways\" lc rgb \"#1d3f73\""
plot small-rtt.png "Round trips (ping 2 ms apart; TCP 1-byte request/response)" \
	"microseconds (log scale)" \
	"\"$tsv\" skip 1 using 5:xtic(1) title \"ping p50\" lc rgb \"#4a9a4a\", \
	 \"\" skip 1 using 6 title \"ping p99\" lc rgb \"#9fd39f\", \
	 \"\" skip 1 using 7 title \"TCP RR p50\" lc rgb \"#d5793a\", \
	 \"\" skip 1 using 8 title \"TCP RR p99\" lc rgb \"#f0b48a\"" log
plot small-bulk.png "Bulk: one TCP stream A -> B (cubic)" "Gbit/s" \
	"\"$tsv\" skip 1 using 9:xtic(1) title \"Gbit/s\" lc rgb \"#3a7bd5\""
echo "small-plot: wrote $dir/small-rate.png small-rtt.png small-bulk.png"
