#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# small.sh - small-packet rate of `voff switch` against the kernel bridge:
# iperf3 UDP with 64-byte datagrams at full speed (-u -l 64 -b 0) from ns
# A to ns B, datagrams per second received, in the topologies of
# bench/e2e.sh:
#
#   voff:   ns A va <-TAP-> voff switch <-TAP-> vb ns B
#   bridge: ns A va <-veth-> br0 (ns M) <-veth-> vb ns B
#
# REPS rounds (default 3), each running every scenario once, interleaved
# so a load that comes and goes hits them alike; prints the medians (and
# min-max) of received datagrams/s, the loss iperf3 reports, the switch's
# CPU (% of one core) and its CPU time per frame it sent to vb (which
# moves less with the machine's load than the rates do), and each rate
# over the bridge's, as Markdown.
# BASE=path of a second voff binary (e.g. main's) adds it as a scenario
# of its own in the same rounds, for a before/after in one run.
#
#   VOFF=build/release/voff [BASE=...] [REPS=3] [SECS=5] bench/small.sh
#
# Needs root and iperf3.  The machine is shared: read the ratios of one
# run, not the absolute rates.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
VOFF=${VOFF:-$root/build/release/voff}
export VOFF
reps=${REPS:-3}
secs=${SECS:-5}
base=${BASE:-}
tag=sp
# shellcheck source=tests/integ/lib_ns.sh
. "$root/tests/integ/lib_ns.sh"
ns_require iperf3 python3
raw=$LIB_TMP/raw
: >"$raw"

# setup_voff BINARY NS_A NS_B: the switch between two TAPs
setup_voff() {
	voff=$1
	sw_start --port "tap:va@$2" --port "tap:vb@$3"
	addr_tap "$2" va 10.86.0.1/24
	addr_tap "$3" vb 10.86.0.2/24
}

# setup_bridge NS_A NS_B NS_M: two veth pairs on a bridge in NS_M
setup_bridge() {
	ip -n "$3" link add br0 type bridge
	ip -n "$3" link add ea0 type veth peer name va netns "$1"
	ip -n "$3" link add eb0 type veth peer name vb netns "$2"
	for l in br0 ea0 eb0; do ip -n "$3" link set "$l" up; done
	ip -n "$3" link set ea0 master br0
	ip -n "$3" link set eb0 master br0
	ip -n "$1" addr add 10.86.0.1/24 dev va
	ip -n "$2" addr add 10.86.0.2/24 dev vb
	ip -n "$1" link set va up
	ip -n "$2" link set vb up
}

# run NAME KIND: fresh namespaces, one iperf3 run, a line in $raw
run() {
	local name=$1 kind=$2 a b m c0=0 c1=0 t0 t1 hz r fwd=0
	a=$(ns_add "a$RANDOM") b=$(ns_add "b$RANDOM") m=$(ns_add "m$RANDOM")
	case $kind in
	voff) setup_voff "$VOFF" "$a" "$b" ;;
	base) setup_voff "$base" "$a" "$b" ;;
	bridge) setup_bridge "$a" "$b" "$m" ;;
	esac
	nsping "$a" 10.86.0.2 >/dev/null
	hz=$(getconf CLK_TCK)
	[ -n "$swpid" ] && c0=$(awk '{ print $14 + $15 }' "/proc/$swpid/stat")
	t0=$(date +%s.%N)
	iperf_run "$a" "$b" 10.86.0.2 "$secs" "$LIB_TMP/out.json" \
		-u -l 64 -b 0 || echo "small: $name: iperf3 failed" >&2
	t1=$(date +%s.%N)
	if [ -n "$swpid" ]; then
		c1=$(awk '{ print $14 + $15 }' "/proc/$swpid/stat")
		fwd=$(stat_of vb tx_packets)
		sw_stop
	fi
	for n in "$a" "$b" "$m"; do ip netns del "$n"; done
	r=$(python3 - "$LIB_TMP/out.json" "$c0" "$c1" "$t0" "$t1" "$hz" \
		"$fwd" <<'PY'
import json, sys
path, c0, c1, t0, t1, hz, fwd = sys.argv[1:]
try:
    s = json.load(open(path))["end"]["sum"]
except Exception:
    sys.exit(0)
got = s["packets"] - s["lost_packets"]
cpu_s = (int(c1) - int(c0)) / int(hz)
cpu = cpu_s / (float(t1) - float(t0)) * 100
us = cpu_s / int(fwd) * 1e6 if int(fwd) else 0
print(got / s["seconds"], s["lost_percent"], cpu, us)
PY
)
	[ -n "$r" ] && printf '%s\t%s\n' "$name" "$r" >>"$raw"
	echo "small: $name: ${r:-failed}" >&2
}

scenarios=("voff|voff" "kernel bridge (veth)|bridge")
[ -n "$base" ] && scenarios=("voff|voff" "voff BASE|base" \
			     "kernel bridge (veth)|bridge")
for rep in $(seq "$reps"); do
	echo "small: round $rep of $reps" >&2
	for s in "${scenarios[@]}"; do
		run "${s%%|*}" "${s#*|}"
	done
done

python3 - "$raw" "$secs" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, vals = line.rstrip("\n").split("\t")
    runs.setdefault(name, []).append([float(v) for v in vals.split()])
print(f"iperf3 -u -l 64 -b 0, {sys.argv[2]} s a run; medians.")
print()
print("| scenario | datagrams/s | min-max | x bridge | loss % | "
      "switch CPU % | switch us/frame | runs |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
med = {n: [statistics.median(c) for c in zip(*r)] for n, r in runs.items()}
br = med.get("kernel bridge (veth)", [0])[0]
for n, m in med.items():
    rate = [x[0] for x in runs[n]]
    ratio = f"{m[0] / br:.2f}" if br else "-"
    us = m[3]
    print(f"| {n} | {m[0] / 1e3:.0f}k | {min(rate) / 1e3:.0f}k-"
          f"{max(rate) / 1e3:.0f}k | {ratio} | {m[1]:.1f} | {m[2]:.0f} "
          f"| {us:.2f} | {len(runs[n])} |")
PY
