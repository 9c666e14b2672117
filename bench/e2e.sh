#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# e2e.sh - end-to-end benchmark of `voff switch` with the kernel as anchor:
# the scenarios of scripts/demo-switch.sh, plus the same two namespaces
# joined by a kernel bridge (veth pairs) and by one veth pair, each run
# REPS times; prints medians (Gbit/s, switch CPU %, receiver service demand
# in us/KB) as a Markdown table.
#
#   voff:   ns A va <-TAP-> voff switch <-TAP-> vb ns B
#   bridge: ns A va <-veth-> br0 (ns M) <-veth-> vb ns B
#   veth:   ns A va <-veth-> vb ns B
#
# Needs root and iperf3.  VOFF=path of voff (required); REPS (default 3);
# SECS per run (default 3).  Removes everything it created, also on Ctrl-C.
set -euo pipefail

voff=${VOFF:?set VOFF to the voff binary}
reps=${REPS:-3}
secs=${SECS:-3}
[ "$(id -u)" -eq 0 ] || { echo "e2e: needs root" >&2; exit 1; }
command -v iperf3 >/dev/null || { echo "e2e: needs iperf3" >&2; exit 1; }

a=voff-ea-$$ b=voff-eb-$$ m=voff-em-$$ ctl=/tmp/voff-e2e-$$.ctl
out=/tmp/voff-e2e-$$.json
pid=
stop_switch() {
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		pid=
	fi
}
reset_ns() {
	stop_switch
	for n in "$a" "$b" "$m"; do ip netns del "$n" 2>/dev/null || true; done
	ip netns add "$a"
	ip netns add "$b"
	ip -n "$a" link set lo up
	ip -n "$b" link set lo up
}
cleanup() {
	stop_switch
	for n in "$a" "$b" "$m"; do ip netns del "$n" 2>/dev/null || true; done
	rm -f "$ctl" "$out"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

addrs() {
	ip -n "$a" addr add 10.99.0.1/24 dev va
	ip -n "$b" addr add 10.99.0.2/24 dev vb
	ip -n "$a" link set va up
	ip -n "$b" link set vb up
}
setup_voff() {	# voff switch options
	reset_ns
	"$voff" switch --port "tap:va@$a" --port "tap:vb@$b" --ctl "$ctl" "$@" &
	pid=$!
	for _ in $(seq 50); do [ -S "$ctl" ] && break; sleep 0.1; done
	addrs
}
setup_bridge() {
	reset_ns
	ip netns add "$m"
	ip -n "$m" link add br0 type bridge
	ip -n "$m" link add ea0 type veth peer name va
	ip -n "$m" link add eb0 type veth peer name vb
	ip -n "$m" link set va netns "$a"
	ip -n "$m" link set vb netns "$b"
	for l in br0 ea0 eb0; do ip -n "$m" link set "$l" up; done
	ip -n "$m" link set ea0 master br0
	ip -n "$m" link set eb0 master br0
	addrs
}
setup_veth() {
	reset_ns
	ip -n "$a" link add va type veth peer name vb
	ip -n "$a" link set vb netns "$b"
	addrs
}
vctl() { "$voff" ctl --ctl "$ctl" "$@" >/dev/null; }
mtu_sender() { ip netns exec "$a" ethtool -K va tso off gso off >/dev/null; }

# one run: prints "gbps switch_cpu us_per_kb"
one() {
	local hz c0=0 c1=0 t0 t1
	hz=$(getconf CLK_TCK)
	ip netns exec "$b" iperf3 -s -1 -D -B 10.99.0.2
	sleep 0.3
	[ -n "$pid" ] && c0=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
	t0=$(date +%s.%N)
	ip netns exec "$a" iperf3 -c 10.99.0.2 -t "$secs" -J > "$out"
	t1=$(date +%s.%N)
	[ -n "$pid" ] && c1=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
	python3 - "$c0" "$c1" "$t0" "$t1" "$hz" "$out" <<'PY'
import json, sys
c0, c1, t0, t1, hz, path = sys.argv[1:]
end = json.load(open(path))["end"]
rx = end["sum_received"]
cpu = end["cpu_utilization_percent"]["remote_total"] / 100 * rx["seconds"]
sw = (int(c1) - int(c0)) / int(hz) / (float(t1) - float(t0)) * 100
print(rx["bits_per_second"] / 1e9, sw, cpu * 1e6 / (rx["bytes"] / 1024))
PY
}

# scenario NAME SETUP...: REPS runs, one Markdown row of medians
scenario() {
	local name=$1 rows=""
	shift
	for _ in $(seq "$reps"); do
		"$@"
		rows+="$(one)"$'\n'
		stop_switch
	done
	printf '%s' "$rows" | python3 -c '
import statistics, sys
name = sys.argv[1]
r = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
med = [statistics.median(c) for c in zip(*r)]
print(f"| {name} | {med[0]:.2f} | {med[1]:.0f} | {med[2]:.3f} | {len(r)} |")
' "$name"
}

s_on() { setup_voff; }
s_off() { setup_voff; mtu_sender; vctl features vb tso off gso off; }
s_lim_noprop() { setup_voff --no-propagate; vctl limits vb gso_max_size 16000; }
s_lim_prop() { setup_voff; vctl limits vb gso_max_size 16000; }
s_gro_off() { setup_voff; mtu_sender; }
s_gro_on() {
	setup_voff; mtu_sender
	vctl features va gro on
	vctl limits va gro_flush_timeout 20000
}

echo "| scenario | Gbit/s | switch CPU % | rx us/KB | runs |"
echo "|---|---:|---:|---:|---:|"
scenario "voff, offloads on" s_on
scenario "voff, offloads off (MTU)" s_off
scenario "voff, limit 16000, no propagation" s_lim_noprop
scenario "voff, limit 16000, propagated" s_lim_prop
scenario "voff, MTU ingress, GRO off" s_gro_off
scenario "voff, MTU ingress, GRO on" s_gro_on
scenario "kernel bridge (veth)" setup_bridge
scenario "veth pair" setup_veth
