#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# e2e.sh - end-to-end benchmark of `voff switch` with the kernel as anchor:
# the scenarios of scripts/demo-switch.sh, plus the same two namespaces
# joined by a kernel bridge (veth pairs) and by one veth pair.  REPS rounds,
# each running every scenario once (interleaved, so a load that comes and
# goes on the machine hits all scenarios alike); prints medians (Gbit/s,
# switch CPU %, receiver service demand in us/KB) as a Markdown table with
# the ratio of each throughput to the kernel bridge's, then the issue's
# three targets, met or not; writes the medians as TSV and draws PNG plots
# from them (bench/e2e-plot.sh, gnuplot).
#
#   voff:   ns A va <-TAP-> voff switch <-TAP-> vb ns B
#   bridge: ns A va <-veth-> br0 (ns M) <-veth-> vb ns B
#   veth:   ns A va <-veth-> vb ns B
#
# and, as the anchor of the GRO target, the kernel's own GRO: MTU frames
# over the veth pair with the receiving end's GRO off, then on.
#
# Needs root and iperf3.  VOFF=path of voff (required); REPS (default 3);
# SECS per run (default 3); CC, the TCP congestion control for every run
# (default cubic: the machine's default bbr paces every skb with a timer,
# which halves the kernel's own veth numbers here, see docs/baselines.md §1);
# OUT, where the TSV and the plots go (default docs/img; OUT= for none);
# ONLY, a bash regular expression: run only the scenarios it matches;
# BASE, a second voff binary (an older build): every "voff, ..." scenario
# then also runs as "voff BASE, ..." with that binary, right after its
# twin in every round (ONLY picks a twin by the main scenario's name), and
# the table gets a column "main / BASE" (Gbit/s, main's median over
# BASE's); the BASE scenarios go into the TSV and the plots as bars of
# their own.  Progress, with the load average at the start and the end,
# goes to stderr.  Removes everything it created, also on Ctrl-C.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
main_bin=${VOFF:?set VOFF to the voff binary}
voff=$main_bin
base_bin=${BASE:-}
reps=${REPS:-3}
secs=${SECS:-3}
cc=${CC:-cubic}
only=${ONLY:-.}
outdir=${OUT-$root/docs/img}
[ "$(id -u)" -eq 0 ] || { echo "e2e: needs root" >&2; exit 1; }
command -v iperf3 >/dev/null || { echo "e2e: needs iperf3" >&2; exit 1; }

a=voff-ea-$$ b=voff-eb-$$ m=voff-em-$$ ctl=/tmp/voff-e2e-$$.ctl
out=/tmp/voff-e2e-$$.json raw=/tmp/voff-e2e-$$.raw spid=/tmp/voff-e2e-$$.pid
pid=
stop_switch() {
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		pid=
	fi
}
# An iperf3 server left over by a failed run (it serves one client, -1).
stop_server() {
	local p
	if [ -s "$spid" ]; then
		p=$(cat "$spid")
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = iperf3 ] &&
			kill "$p" 2>/dev/null
		rm -f "$spid"
	fi
	return 0
}
reset_ns() {
	local n
	stop_switch
	for n in "$a" "$b" "$m"; do ip netns del "$n" 2>/dev/null || true; done
	ip netns add "$a"
	ip netns add "$b"
	ip -n "$a" link set lo up
	ip -n "$b" link set lo up
}
cleanup() {
	stop_switch
	stop_server
	for n in "$a" "$b" "$m"; do ip netns del "$n" 2>/dev/null || true; done
	rm -f "$ctl" "$out" "$raw"
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

# one run: prints "gbps switch_cpu us_per_kb", or nothing when iperf3 failed
one() {
	local hz c0=0 c1=0 t0 t1
	hz=$(getconf CLK_TCK)
	ip netns exec "$b" iperf3 -s -1 -D -B 10.99.0.2 -I "$spid"
	sleep 0.3
	[ -n "$pid" ] && c0=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
	t0=$(date +%s.%N)
	if ! ip netns exec "$a" iperf3 -c 10.99.0.2 -t "$secs" -C "$cc" -J \
		> "$out"; then
		echo "e2e: iperf3 failed, run left out" >&2
		return 0
	fi
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

# scenario NAME SETUP...: one run, appended to $raw as "NAME<TAB>values"
scenario() {
	local name=$1 r
	shift
	"$@"
	r=$(one)
	stop_switch
	stop_server
	[ -n "$r" ] && printf '%s\t%s\n' "$name" "$r" >> "$raw"
	echo "e2e: $name: ${r:-failed}" >&2
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
# The kernel's own GRO, measured the same way: MTU frames over a veth pair,
# the receiving end's GRO off or on (the stack runs in the sender's
# softirq either way, as it runs in the switch's write() for voff).
s_veth_gro() {
	setup_veth; mtu_sender
	ip netns exec "$b" ethtool -K vb gro "$1" >/dev/null
}
s_veth_gro_off() { s_veth_gro off; }
s_veth_gro_on() { s_veth_gro on; }

scenarios=(
	"voff, offloads on|s_on"
	"voff, offloads off (MTU)|s_off"
	"voff, limit 16000, no propagation|s_lim_noprop"
	"voff, limit 16000, propagated|s_lim_prop"
	"voff, MTU ingress, GRO off|s_gro_off"
	"voff, MTU ingress, GRO on|s_gro_on"
	"kernel bridge (veth)|setup_bridge"
	"veth pair|setup_veth"
	"veth, MTU sender, GRO off|s_veth_gro_off"
	"veth, MTU sender, GRO on|s_veth_gro_on"
)
: > "$raw"
echo "e2e: start: $(uptime)" >&2
for rep in $(seq "$reps"); do
	echo "e2e: round $rep of $reps" >&2
	for s in "${scenarios[@]}"; do
		sn=${s%%|*}
		[[ $sn =~ $only ]] || continue
		scenario "$sn" "${s#*|}"
		# The BASE binary's twin of a voff scenario, same round.
		if [ -n "$base_bin" ] && [[ $sn == "voff, "* ]]; then
			voff=$base_bin
			scenario "voff BASE, ${sn#voff, }" "${s#*|}"
			voff=$main_bin
		fi
	done
done
echo "e2e: end: $(uptime)" >&2

tsv=
if [ -n "$outdir" ]; then
	mkdir -p "$outdir"
	tsv=$outdir/e2e.tsv
fi
python3 "$root/bench/e2e-summary.py" "$raw" "$tsv" "$cc" "$secs"
if [ -n "$tsv" ]; then
	"$root/bench/e2e-plot.sh" "$tsv" "$outdir" >&2 ||
		echo "e2e: no plots (gnuplot missing?)" >&2
fi
