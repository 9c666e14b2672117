#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# small.sh - `voff switch` against the kernel bridge, in one run: 64-byte
# frames a second each way and both ways at once, round-trip times (ping
# and a TCP request/response, p50 and p99) and bulk TCP throughput, for
# voff (default, and with --busy-poll) and the bridge, in the topologies
# of bench/e2e.sh:
#
#   voff:   ns A va <-TAP-> voff switch <-TAP-> vb ns B
#   bridge: ns A va <-veth-> br0 (ns M) <-veth-> vb ns B
#   packet: ns A va <-veth-> ea (ns M) <-packet port-> voff switch
#           <-packet port-> eb (ns M) <-veth-> vb ns B   (PACKET=1)
#
# Per scenario and round, in one set-up:
#   * 64-byte UDP (iperf3 -u -l 64 -b 0) A -> B, B -> A (-R) and both
#     (--bidir), SECS seconds each: frames a second delivered to the
#     receiving interface (its rx_packets: what the switch or the bridge
#     forwarded, whatever the receiving iperf3 then managed to read), and
#     for A -> B the switch's CPU time per frame it sent;
#   * round trips by bench/rr.c: 500 ICMP echoes 2 ms apart (ping's
#     rhythm), and 5000 TCP transactions of 1 byte back to back (netperf's
#     TCP_RR), avg, p50 and p99 in microseconds;
#   * one TCP stream A -> B (cubic) for SECS seconds: Gbit/s.
# REPS rounds (default 3), each running every scenario once, interleaved
# so a load that comes and goes hits them alike; medians are printed as
# Markdown with each figure over the bridge's, written as TSV and drawn
# (bench/small-plot.sh, gnuplot) into OUT.
#
#   VOFF=build/release/voff [BASE=...] [BUSY=50] [REPS=3] [SECS=3] \
#	[OUT=docs/img] [ONLY=regex] bench/small.sh
#
# BUSY: the --busy-poll windows in microseconds, one busy-poll scenario
# each (default 50; "50 3000" for two; 0: none); BASE: a second voff
# binary (e.g. main's) as scenarios of its own (default and each BUSY
# window), for a before/after in the same rounds; OUT= (empty) draws
# nothing; ONLY: run only the scenarios whose name it matches;
# PACKET=1 adds voff over packet ports on veths, with its receive ring
# and without (rx_ring=off).
# Needs root, iperf3 and cc; gnuplot for the plots.  The machine is shared:
# read the ratios of one run, and give the load it ran under.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
VOFF=${VOFF:-$root/build/release/voff}
export VOFF
reps=${REPS:-3}
secs=${SECS:-3}
base=${BASE:-}
busy=${BUSY:-50}
packet=${PACKET:-0}
outdir=${OUT-$root/docs/img}
only=${ONLY:-.}
tag=sp
# shellcheck source=tests/integ/lib_ns.sh
. "$root/tests/integ/lib_ns.sh"
# shellcheck source=bench/lib_topo.sh
. "$root/bench/lib_topo.sh"
ns_require iperf3 python3 cc
cc -std=c11 -D_GNU_SOURCE -O2 -o "$LIB_TMP/rr" "$root/bench/rr.c" || exit 1
raw=$LIB_TMP/raw
: >"$raw"

# setup_vpkt NS_A NS_B NS_M SPEC_OPTS: the switch between two packet
# ports on veths in NS_M (SPEC_OPTS: ",rx_ring=off" or empty)
setup_vpkt() {
	ip -n "$3" link add ea type veth peer name va netns "$1"
	ip -n "$3" link add eb type veth peer name vb netns "$2"
	ip -n "$3" link set ea up
	ip -n "$3" link set eb up
	ip -n "$1" addr add 10.86.0.1/24 dev va
	ip -n "$2" addr add 10.86.0.2/24 dev vb
	ip -n "$1" link set va up
	ip -n "$2" link set vb up
	voff=$VOFF
	sw_out=eb
	sw_start --port "packet:ea@$3$4" --port "packet:eb@$3$4"
}

# rx_of NS DEV: the interface's rx_packets
rx_of() {
	ip -n "$1" -s -j link show "$2" | python3 -c '
import json, sys; print(json.load(sys.stdin)[0]["stats64"]["rx"]["packets"])'
}

# cpu_ticks: the switch's utime + stime (0 without a switch)
cpu_ticks() {
	if [ -n "$swpid" ]; then
		awk '{ print $14 + $15 }' "/proc/$swpid/stat"
	else
		echo 0
	fi
}

now() { date +%s.%N; }

# put NAME METRIC VALUE: one measurement
put() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$raw"; }

# rate NAME DIR A B: 64-byte frames/s delivered, DIR ab, ba or bi
rate() {
	local name=$1 dir=$2 a=$3 b=$4 ra0 rb0 ra1 rb1 t0 t1 c0 c1 f0 f1 args=()
	case $dir in
	ba) args=(-R) ;;
	bi) args=(--bidir) ;;
	esac
	ra0=$(rx_of "$a" va) rb0=$(rx_of "$b" vb) c0=$(cpu_ticks) t0=$(now)
	[ -n "$swpid" ] && f0=$(stat_of "$sw_out" tx_packets)
	iperf_run "$a" "$b" 10.86.0.2 "$secs" "$LIB_TMP/out.json" \
		-u -l 64 -b 0 "${args[@]}" ||
		echo "small: $name $dir: iperf3 failed" >&2
	t1=$(now) c1=$(cpu_ticks)
	ra1=$(rx_of "$a" va) rb1=$(rx_of "$b" vb)
	[ -n "$swpid" ] && f1=$(stat_of "$sw_out" tx_packets)
	put "$name" "rate_$dir" "$(python3 - "$dir" "$ra0" "$ra1" "$rb0" \
		"$rb1" "$t0" "$t1" <<'PY'
import sys
d, ra0, ra1, rb0, rb1, t0, t1 = sys.argv[1:]
s = float(t1) - float(t0)
a, b = (int(ra1) - int(ra0)) / s, (int(rb1) - int(rb0)) / s
print({"ab": b, "ba": a, "bi": a + b}[d])
PY
)"
	if [ "$dir" = ab ] && [ -n "$swpid" ]; then
		put "$name" us_frame "$(python3 -c "
print(($c1 - $c0) / $(getconf CLK_TCK) / max(1, $f1 - $f0) * 1e6)")"
	fi
}

# rtt NAME A MODE ARGS...: rr's figures into the raw file
rtt() {
	local name=$1 a=$2 mode=$3 out
	shift 3
	out=$(ip netns exec "$a" "$LIB_TMP/rr" "$mode" 10.86.0.2 "$@") ||
		{ echo "small: $name rr $mode failed" >&2; return; }
	for k in avg p50 p99; do
		put "$name" "${mode}_$k" \
			"$(sed -n "s/.* $k=\([0-9.]*\).*/\1/p" <<<"$out")"
	done
}

# bulk NAME A B: one TCP stream, Gbit/s, and the switch's CPU %
bulk() {
	local name=$1 a=$2 b=$3 c0 c1 t0 t1
	c0=$(cpu_ticks) t0=$(now)
	iperf_run "$a" "$b" 10.86.0.2 "$secs" "$LIB_TMP/bulk.json" -C cubic ||
		echo "small: $name bulk: iperf3 failed" >&2
	c1=$(cpu_ticks) t1=$(now)
	put "$name" bulk_gbps "$(iperf_bps "$LIB_TMP/bulk.json" |
		awk '{ print $1 / 1e9 }')"
	put "$name" bulk_cpu "$(python3 -c "
print(($c1 - $c0) / $(getconf CLK_TCK) / ($t1 - $t0) * 100)")"
}

# run NAME KIND [SWITCH ARGS...]: fresh namespaces, every measurement
run() {
	local name=$1 kind=$2 a b m srv
	shift 2
	a=$(ns_add "a$RANDOM") b=$(ns_add "b$RANDOM") m=$(ns_add "m$RANDOM")
	case $kind in
	voff) setup_voff "$VOFF" "$a" "$b" "$@" ;;
	base) setup_voff "$base" "$a" "$b" "$@" ;;
	bridge) setup_bridge "$a" "$b" "$m" ;;
	vpkt) setup_vpkt "$a" "$b" "$m" "${1:-}" ;;
	esac
	nsping "$a" 10.86.0.2 >/dev/null
	for d in ab ba bi; do rate "$name" "$d" "$a" "$b"; done
	ip netns exec "$b" "$LIB_TMP/rr" server &
	srv=$!
	rtt "$name" "$a" icmp -n 500 -i 2000
	rtt "$name" "$a" tcp -n 5000
	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
	bulk "$name" "$a" "$b"
	[ -n "$swpid" ] && sw_stop
	for n in "$a" "$b" "$m"; do ip netns del "$n"; done
	echo "small: $name: $(grep -c "^$name	" "$raw") figures" >&2
}

scenarios=("voff|voff")
for us in $busy; do
	[ "$us" != 0 ] && scenarios+=("voff --busy-poll $us|voff|--busy-poll|$us")
done
if [ -n "$base" ]; then
	scenarios+=("voff BASE|base")
	for us in $busy; do
		[ "$us" != 0 ] &&
			scenarios+=("voff BASE --busy-poll $us|base|--busy-poll|$us")
	done
fi
[ "$packet" = 1 ] && scenarios+=("voff, packet ports|vpkt|" \
	"voff, packet ports, rx_ring=off|vpkt|,rx_ring=off")
scenarios+=("kernel bridge (veth)|bridge")
echo "small: $(uptime)" >&2
for rep in $(seq "$reps"); do
	echo "small: round $rep of $reps" >&2
	for s in "${scenarios[@]}"; do
		IFS='|' read -r -a f <<<"$s"
		[[ ${f[0]} =~ $only ]] || continue
		run "${f[0]}" "${f[@]:1}"
	done
done
echo "small: $(uptime)" >&2

tsv=$LIB_TMP/small.tsv
python3 - "$raw" "$secs" "$reps" "$tsv" <<'PY'
import statistics, sys
raw, secs, reps, tsv = sys.argv[1:]
runs = {}
order = []
for line in open(raw):
    name, metric, val = line.rstrip("\n").split("\t")
    if not val:
        continue
    if name not in runs:
        order.append(name)
    runs.setdefault(name, {}).setdefault(metric, []).append(float(val))
med = {n: {k: statistics.median(v) for k, v in m.items()}
       for n, m in runs.items()}
br = med.get("kernel bridge (veth)", {})

def get(n, k):
    return med[n].get(k, float("nan"))

def x(n, k):
    b = br.get(k)
    return f"{get(n, k) / b:.2f}" if b else "-"

print(f"Medians of {reps} rounds, {secs} s per throughput run.")
print()
print("64-byte UDP, frames/s delivered to the receiving interface:")
print()
print("| scenario | A->B | x bridge | B->A | x bridge | both | x bridge "
      "| switch us/frame |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for n in order:
    us = med[n].get("us_frame")
    us = f"{us:.2f}" if us else "-"
    print(f"| {n} | {get(n, 'rate_ab') / 1e3:.0f}k | {x(n, 'rate_ab')} "
          f"| {get(n, 'rate_ba') / 1e3:.0f}k | {x(n, 'rate_ba')} "
          f"| {get(n, 'rate_bi') / 1e3:.0f}k | {x(n, 'rate_bi')} | {us} |")
print()
print("Round trips, microseconds (ping: 500 echoes 2 ms apart; TCP: 5000 "
      "1-byte transactions back to back):")
print()
print("| scenario | ping avg | x bridge | p50 | p99 | TCP RR avg | x bridge "
      "| p50 | p99 |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for n in order:
    print(f"| {n} | {get(n, 'icmp_avg'):.1f} | {x(n, 'icmp_avg')} "
          f"| {get(n, 'icmp_p50'):.1f} | {get(n, 'icmp_p99'):.1f} "
          f"| {get(n, 'tcp_avg'):.1f} | {x(n, 'tcp_avg')} "
          f"| {get(n, 'tcp_p50'):.1f} | {get(n, 'tcp_p99'):.1f} |")
print()
print("Bulk, one TCP stream A -> B (cubic):")
print()
print("| scenario | Gbit/s | x bridge | switch CPU % |")
print("|---|---:|---:|---:|")
for n in order:
    print(f"| {n} | {get(n, 'bulk_gbps'):.2f} | {x(n, 'bulk_gbps')} "
          f"| {get(n, 'bulk_cpu'):.0f} |")
cols = ["rate_ab", "rate_ba", "rate_bi", "icmp_p50", "icmp_p99",
        "tcp_p50", "tcp_p99", "bulk_gbps"]
with open(tsv, "w") as f:
    f.write("scenario\t" + "\t".join(cols) + "\n")
    for n in order:
        f.write(n + "\t" + "\t".join(f"{get(n, c):.3f}" for c in cols)
                + "\n")
PY
if [ -n "$outdir" ]; then
	mkdir -p "$outdir"
	cp "$tsv" "$outdir/small.tsv"
	"$root/bench/small-plot.sh" "$outdir/small.tsv" "$outdir" >&2
fi
exit 0
