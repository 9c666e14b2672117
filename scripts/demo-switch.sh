#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# demo-switch.sh - voff's main job, measured: two namespaces joined by
# `voff switch` with TAP ports, iperf3 between them in each scenario:
#
#   netns voff-da-$$ (iperf3 -c)             netns voff-db-$$ (iperf3 -s)
#   va 10.88.0.1 <--TAP--> voff switch <--TAP--> vb 10.88.0.2
#
#   offloads on       super-packets cross whole (always-on software set)
#   offloads off      sender TSO/GSO off and egress TSO off: MTU frames
#   limit, no prop.   vb takes gso_max_size 16000, va's senders don't know:
#                     the switch resegments every super-packet
#   limit, prop.      the same limit propagated to va: nothing to cut
#   MTU in, GRO off   sender TSO/GSO off, frames cross one by one
#   MTU in, GRO on    the switch coalesces them on ingress (GRO)
#
# Prints Gbit/s, the switch's CPU (% of one core) and the receiver's
# service demand (iperf3 server CPU time per KB received, as netperf
# defines it).  Needs root and iperf3.  Removes everything it created, also
# on Ctrl-C.  VOFF=path uses a built voff; otherwise it builds one.
# DEMO_SECS sets the seconds per run (default 3); CC the TCP congestion
# control (default cubic, as bench/e2e.sh and docs/baselines.md §1: the
# machine's default bbr paces every skb with a timer and halves these paths).
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${DEMO_SECS:-3}
cc=${CC:-cubic}
if [ -z "${VOFF:-}" ]; then
	scripts/bootstrap.sh
	cmake --preset release >/dev/null
	cmake --build --preset release -j 2 >/dev/null
	VOFF=build/release/voff
fi
[ "$(id -u)" -eq 0 ] || { echo "demo-switch: needs root" >&2; exit 1; }
command -v iperf3 >/dev/null || { echo "demo-switch: needs iperf3 (scripts/bootstrap.sh)" >&2; exit 1; }

a=voff-da-$$ b=voff-db-$$ ctl=/tmp/voff-demo-$$.ctl
pid=
stop_switch() {
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		pid=
	fi
}
cleanup() {
	stop_switch
	ip netns pids "$b" 2>/dev/null | xargs -r kill 2>/dev/null || true
	ip netns del "$a" 2>/dev/null || true
	ip netns del "$b" 2>/dev/null || true
	rm -f "$ctl" /tmp/voff-demo-$$.json
}
trap cleanup EXIT
trap 'exit 130' INT TERM
ip netns add "$a"
ip netns add "$b"
ip -n "$a" link set lo up
ip -n "$b" link set lo up

start_switch() {	# extra voff switch options
	"$VOFF" switch --port "tap:va@$a" --port "tap:vb@$b" --ctl "$ctl" "$@" &
	pid=$!
	for _ in $(seq 50); do [ -S "$ctl" ] && break; sleep 0.1; done
	ip -n "$a" addr add 10.88.0.1/24 dev va
	ip -n "$b" addr add 10.88.0.2/24 dev vb
}
vctl() { "$VOFF" ctl --ctl "$ctl" "$@" >/dev/null; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# run NAME: iperf3 for $secs seconds, one table row
run() {
	local hz t0 t1 c0 c1
	hz=$(getconf CLK_TCK)
	ip netns exec "$b" iperf3 -s -1 -D -B 10.88.0.2
	sleep 0.3
	c0=$(cpu_ticks "$pid"); t0=$(date +%s.%N)
	ip netns exec "$a" iperf3 -c 10.88.0.2 -t "$secs" -C "$cc" -J \
		> /tmp/voff-demo-$$.json
	c1=$(cpu_ticks "$pid"); t1=$(date +%s.%N)
	python3 - "$1" "$c0" "$c1" "$t0" "$t1" "$hz" \
		/tmp/voff-demo-$$.json <<'PY'
import json, sys
name, c0, c1, t0, t1, hz, path = sys.argv[1:]
j = json.load(open(path))
end = j["end"]
rx = end["sum_received"]
gbps = rx["bits_per_second"] / 1e9
sw = (int(c1) - int(c0)) / int(hz) / (float(t1) - float(t0)) * 100
# netperf service demand: CPU microseconds per KB at the receiver.
cpu = end["cpu_utilization_percent"]["remote_total"] / 100 * rx["seconds"]
sd = cpu * 1e6 / (rx["bytes"] / 1024)
print(f"{name:<24} {gbps:>8.2f} {sw:>10.0f}% {sd:>14.3f}")
PY
}
mtu_sender() { ip netns exec "$a" ethtool -K va tso off gso off >/dev/null; }

printf "%-24s %8s %11s %14s\n" scenario Gbit/s "switch CPU" "rx us/KB"
start_switch
run "offloads on"
stop_switch

start_switch
mtu_sender
vctl features vb tso off gso off
run "offloads off (MTU)"
stop_switch

start_switch --no-propagate
vctl limits vb gso_max_size 16000
run "limit 16000, no prop."
stop_switch

start_switch
vctl limits vb gso_max_size 16000
run "limit 16000, propagated"
stop_switch

start_switch
mtu_sender
run "MTU ingress, GRO off"
stop_switch

start_switch
mtu_sender
vctl features va gro on
vctl limits va gro_flush_timeout 20000
run "MTU ingress, GRO on"
stop_switch
