#!/bin/bash
# SPDX-License-Identifier: MIT
#
# flood.sh - throughput kept by good traffic while malformed frames flood
# another port of `voff switch` (the figures of docs/reliability.md)
#
# usage: bench/flood.sh [--runs N] [--secs S] [--perf FILE] [--control]
#
# Same topology as tests/integ/flood.sh: iperf3 TCP va -> vb through the
# switch; tests/integ/flood_helper.c writes the 20 malformed classes in
# turn at full speed into h0 (a packet port).  Runs alternate unloaded and
# flooded, N of each (default 5, S seconds each, default 5), and the
# medians and their ratio are printed, with the flood's rate and where its
# frames ended (refused by the kernel, dropped by the switch by reason,
# lost in the packet socket's queue).  --perf records the switch during
# one flooded run (perf record -g) and prints its top symbols.
# FLOOD_NICE=N runs the flood's sender at nice N (default 0), to tell the
# CPU the flooder itself takes on a small machine from the switch's cost.
# --control adds a third run to each round: the same flood while h0 is
# detached from the switch (`ports del`, re-added after the run), so the
# switch does no work for it at all; what the good traffic loses there is
# the flood's own cost on the machine (its sender and the kernel's receive
# of its frames), which no switch can avoid.
# The machine is shared: read the ratio, not the absolute rates.
set -u
runs=5 secs=5 perf_out='' control=''
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2 ;;
	--secs) secs=$2; shift 2 ;;
	--perf) perf_out=$2; shift 2 ;;
	--control) control=1; shift ;;
	*) echo "usage: $0 [--runs N] [--secs S] [--perf FILE] [--control]" >&2
	   exit 2 ;;
	esac
done
root=$(cd "$(dirname "$0")/.." && pwd)
VOFF=${VOFF:-$root/build/release/voff}
export VOFF
tag=fb
# shellcheck source=tests/integ/lib_ns.sh
. "$root/tests/integ/lib_ns.sh"
ns_require iperf3 python3 cc
cc -std=c11 -D_GNU_SOURCE -O2 -o "$LIB_TMP/flood_helper" \
	"$root/tests/integ/flood_helper.c" || exit 1

A=$(ns_add a) B=$(ns_add b) D=$(ns_add d) F=$(ns_add f)
sw_start --port "tap:va@$A" --port "tap:vb@$B" --port "tap:vd@$D"
addr_tap "$A" va 10.85.0.1/24
addr_tap "$B" vb 10.85.0.2/24
addr_tap "$D" vd 10.85.0.4/24
nsping "$D" 10.85.0.1 >/dev/null
macd=$(ip -n "$D" -br link show vd | awk '{ print $3 }')
mkfifo "$LIB_TMP/h.in" "$LIB_TMP/h.out"
ip netns exec "$F" nice -n "${FLOOD_NICE:-0}" "$LIB_TMP/flood_helper" h0 "$macd" 02:00:00:00:0f:01 \
	<"$LIB_TMP/h.in" >"$LIB_TMP/h.out" &
lib_pids+=($!)
exec 7>"$LIB_TMP/h.in" 8<"$LIB_TMP/h.out"
read -r _ <&8
vctl ports add "packet:h0@$F" >/dev/null || exit 1

h0_counts() {	# switch rx, switch rx drops, kernel rx of h0, its socket drops
	vctl -j stats h0 | python3 -c '
import json, sys; s = json.load(sys.stdin)[0]
print(s["rx_packets"], s["rx_dropped"], s["rx_kernel_dropped"])' |
		tr '\n' ' '
	ip -n "$F" -s -j link show h0 | python3 -c '
import json, sys; print(json.load(sys.stdin)[0]["stats64"]["rx"]["packets"])'
}

# flood_result - wait for the helper's "end" line; fw, fr: frames it
# wrote, and that the kernel refused, in that flood
flood_result() {
	local l w r
	fw=0 fr=0
	while read -r l <&8; do
		[ "$l" = end ] && break
		read -r _ _ w _ r _ <<<"$l"
		fw=$((fw + w)) fr=$((fr + r))
	done
}

iperf_run "$A" "$B" 10.85.0.2 2 "$LIB_TMP/warm.json"
read -r r0 d0 q0 k0 < <(h0_counts)
wr=0 rj=0 cwr=0 crj=0
rsum=0 dsum=0 ksum=0 qsum=0
: >"$LIB_TMP/base" && : >"$LIB_TMP/flood" && : >"$LIB_TMP/ctrl"
for i in $(seq "$runs"); do
	iperf_run "$A" "$B" 10.85.0.2 "$secs" "$LIB_TMP/r.json"
	iperf_bps "$LIB_TMP/r.json" >>"$LIB_TMP/base"
	echo "time $((secs + 1))" >&7
	sleep 0.5
	if [ -n "$perf_out" ] && [ "$i" -eq 1 ]; then
		perf record -g -o "$perf_out" -p "$swpid" -- sleep "$secs" \
			>/dev/null 2>&1 &
		lib_pids+=($!)
	fi
	iperf_run "$A" "$B" 10.85.0.2 "$secs" "$LIB_TMP/r.json"
	iperf_bps "$LIB_TMP/r.json" >>"$LIB_TMP/flood"
	flood_result
	wr=$((wr + fw)) rj=$((rj + fr))
	[ -n "$control" ] || continue
	# The control run: h0 detached, so the switch never sees the flood.
	read -r r1 d1 q1 k1 < <(h0_counts)
	rsum=$((rsum + r1 - r0)) dsum=$((dsum + d1 - d0)) ksum=$((ksum + k1 - k0))
	qsum=$((qsum + q1 - q0))
	vctl ports del h0 >/dev/null || exit 1
	echo "time $((secs + 1))" >&7
	sleep 0.5
	iperf_run "$A" "$B" 10.85.0.2 "$secs" "$LIB_TMP/r.json"
	iperf_bps "$LIB_TMP/r.json" >>"$LIB_TMP/ctrl"
	flood_result
	cwr=$((cwr + fw)) crj=$((crj + fr))
	vctl ports add "packet:h0@$F" >/dev/null || exit 1
	read -r r0 d0 q0 k0 < <(h0_counts)
done
read -r r1 d1 q1 k1 < <(h0_counts)
r1=$((r1 + rsum)) d1=$((d1 + dsum)) k1=$((k1 + ksum)) q1=$((q1 + qsum))
sw_alive || { echo "FAIL - the switch died"; exit 1; }
python3 - "$LIB_TMP/base" "$LIB_TMP/flood" "$LIB_TMP/ctrl" <<'PY'
import statistics, sys
b = [int(x) / 1e6 for x in open(sys.argv[1])]
f = [int(x) / 1e6 for x in open(sys.argv[2])]
c = [int(x) / 1e6 for x in open(sys.argv[3])]
mb, mf = statistics.median(b), statistics.median(f)
print("unloaded Mbit/s: " + " ".join("%.0f" % x for x in b))
print("flooded  Mbit/s: " + " ".join("%.0f" % x for x in f))
if c:
    print("control  Mbit/s: " + " ".join("%.0f" % x for x in c) +
          " (flood with h0 detached from the switch)")
print("median unloaded %.0f, flooded %.0f: %.0f%% kept" %
      (mb, mf, 100 * mf / mb if mb else 0))
if c:
    mc = statistics.median(c)
    print("median control %.0f: %.0f%% kept with no switch work for the "
          "flood; the switch's own share: flooded/control %.0f%%" %
          (mc, 100 * mc / mb if mb else 0, 100 * mf / mc if mc else 0))
PY
flood_s=$((runs * (secs + 1)))
echo "flood: $((wr + rj)) frames in ${flood_s} s ($(((wr + rj) / flood_s))/s):" \
	"$rj refused by the kernel, $wr written;" \
	"switch dropped $((d1 - d0)) by reason, accepted $((r1 - r0))," \
	"socket queue overflow $((k1 - k0 - (r1 - r0) - (d1 - d0)))" \
	"(the switch's rx_kernel_dropped: $((q1 - q0)))"
[ -n "$control" ] && echo "control flood: $((cwr + crj)) frames:" \
	"$crj refused by the kernel, $cwr written (no switch port)"
vctl stats h0 | grep rx_drop_
if [ -n "$perf_out" ]; then
	wait "${lib_pids[-1]}" 2>/dev/null
	perf report -i "$perf_out" --no-children --stdio 2>/dev/null |
		grep -E '^ +[0-9]' | head -25
fi
