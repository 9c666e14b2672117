#!/bin/bash
# SPDX-License-Identifier: MIT
#
# fault_link.sh - link and consumer faults under load: while iperf3 runs
# va -> vb through `voff switch`,
#  - an AF_PACKET port's interface (e1) goes down and up five times; the
#    port must receive again after each flap (ping through it);
#  - a slow/dead consumer: a packet port (s1) whose interface has a tbf
#    qdisc at 8 kbit/s gets a UDP blast; its drops are counted, the main
#    flow is not held back;
#  - a TAP whose device is down (vt) gets the same blast: every write fails
#    and is counted as a drop;
#  - at the end e1's veth is deleted: the port is marked failed and removed.
#
#   ns A  va 10.82.0.1 <-TAP->              <-TAP-> vb 10.82.0.2  ns B
#   ns E  e0 10.82.0.5 =veth= e1 <-packet->  voff switch
#   ns S  s0 10.82.0.6 =veth= s1 <-packet->   (tbf 8kbit on s1)
#   ns T  vt 10.82.0.7 (down)    <-TAP->
#
# Checks also: the switch never exits, descriptors unchanged, RSS bounded.
# Needs root, iperf3, python3, tc; skips (77) otherwise.
set -u
tag=fl
# shellcheck source=tests/integ/lib_ns.sh
. "$(dirname "$0")/lib_ns.sh"
ns_require iperf3 python3 tc

A=$(ns_add a) B=$(ns_add b) E=$(ns_add e) S=$(ns_add s) T=$(ns_add t)
for x in "$E:e" "$S:s"; do
	n=${x%:*} d=${x#*:}
	ip -n "$n" link add "${d}0" type veth peer name "${d}1" ||
		{ echo "skip: no veth"; exit 77; }
	ip -n "$n" link set "${d}0" up
	ip -n "$n" link set "${d}1" up
done
ip -n "$E" addr add 10.82.0.5/24 dev e0
ip -n "$S" addr add 10.82.0.6/24 dev s0
sw_start --port "tap:va@$A" --port "tap:vb@$B" --port "packet:e1@$E" \
	--port "packet:s1@$S" --port "tap:vt@$T"
addr_tap "$A" va 10.82.0.1/24
addr_tap "$B" vb 10.82.0.2/24
addr_tap "$T" vt 10.82.0.7/24

# Every host learned, and reachable from A, before the faults.
for h in 10.82.0.5 10.82.0.6 10.82.0.7; do
	nsping "$A" "$h" ||
		bad "no ping to $h before the faults"
done
mac_s=$(ip -n "$S" -br link show s0 | awk '{ print $3 }')
mac_t=$(ip -n "$T" -br link show vt | awk '{ print $3 }')
ip -n "$A" neigh replace 10.82.0.6 lladdr "$mac_s" dev va nud permanent
ip -n "$A" neigh replace 10.82.0.7 lladdr "$mac_t" dev va nud permanent
iperf_run "$A" "$B" 10.82.0.2 1 "$LIB_TMP/warm.json" >/dev/null
fd0=$(sw_fds) rss0=$(sw_rss_kb)
echo "# baseline: $fd0 descriptors, VmRSS $rss0 KiB"

# blast ADDR SECONDS: UDP as fast as python sends it, from A
blast() {
	ip netns exec "$A" python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
end = time.time() + float(sys.argv[2]); d = bytes(1400); n = 0
while time.time() < end:
    for _ in range(64):
        try:
            s.sendto(d, (sys.argv[1], 9)); n += 1
        except OSError:
            pass
print(n)' "$1" "$2"
}

tc -n "$S" qdisc add dev s1 root tbf rate 8kbit burst 1600 limit 3000
vt_drop0=$(stat_of vt tx_dropped)
vb_tx0=$(stat_of vb tx_packets)
iperf_run "$A" "$B" 10.82.0.2 8 "$LIB_TMP/load.json" &
ipid=$!
# The faults come once the flow is under way.
wait_until 100 stat_above vb tx_packets $((vb_tx0 + 100)) ||
	bad "no iperf3 traffic to vb before the faults"
ip -n "$T" link set vt down
vt_tx0=$(stat_of vt tx_packets)
blast 10.82.0.6 2 >"$LIB_TMP/blast_s" &
bs=$!
blast 10.82.0.7 2 >"$LIB_TMP/blast_t" &
bt=$!
# Each flap holds the link down, then up, for 0.3 s: the time is the fault.
for _ in 1 2 3 4 5; do
	ip -n "$E" link set e1 down
	sleep 0.3
	ip -n "$E" link set e1 up
	sleep 0.3
done
wait "$bs" "$bt"
fault_load_end "$ipid"

sent_s=$(cat "$LIB_TMP/blast_s") sent_t=$(cat "$LIB_TMP/blast_t")
drop_s=$(stat_of s1 tx_dropped) drop_t=$(($(stat_of vt tx_dropped) - vt_drop0))
echo "# dead consumers: s1 (tbf) $drop_s of $sent_s dropped," \
	"vt (down) $drop_t of $sent_t dropped"
if [ "$drop_s" -gt 0 ]; then ok "slow packet consumer: drops counted"
else bad "no drops counted on s1"; fi
# vt is down: what the switch sends it is all dropped, none sent.
vt_tx=$(($(stat_of vt tx_packets) - vt_tx0))
if [ "$drop_t" -gt 1000 ] && [ "$vt_tx" -eq 0 ]; then
	ok "down TAP: every write counted as a drop"
else
	bad "vt: $drop_t dropped, $vt_tx sent while down"
fi
if vctl -j stats vt | grep -q '"tx_drop_eio"'; then
	ok "down TAP drops named eio"
else
	bad "vt drop reasons: $(vctl stats vt | grep drop)"
fi

# After the flaps the packet port receives again, the consumers recover.
tc -n "$S" qdisc del dev s1 root
ip -n "$T" link set vt up
if nsping "$E" 10.82.0.1; then
	ok "packet port forwards after 5 link flaps"
else
	bad "packet port dead after link flaps: $(vctl ports | grep e1)"
fi
if nsping "$S" 10.82.0.1; then
	ok "slow consumer recovers"; else bad "s1 after tbf removed"; fi
if nsping "$T" 10.82.0.1; then
	ok "down TAP recovers when up"; else bad "vt after up"; fi
# The packet port's interface deleted: the port fails, and is removable.
ip -n "$E" link del e0
nsbcast "$A" 10.82.0.255
e1_failed() { vctl ports | grep -q "e1 .*FAILED"; }
if wait_until 100 e1_failed; then ok "deleted interface: packet port failed"
else bad "packet port after its interface went: $(vctl ports | grep e1)"; fi
if vctl ports del e1; then ok "failed packet port removed"; else bad "ports del e1"; fi
fd1=$(sw_fds) rss1=$(sw_rss_kb)
echo "# after: $fd1 descriptors, VmRSS $rss1 KiB"
if [ "$fd1" -eq $((fd0 - 1)) ]; then ok "no descriptor leaked"
else bad "descriptors $fd0 -> $fd1 (want $((fd0 - 1)))"; fi
if [ "$rss1" -lt $((rss0 + 8192)) ]; then ok "RSS bounded (+$((rss1 - rss0)) KiB)"
else bad "RSS grew $rss0 -> $rss1 KiB"; fi
if sw_stop; then ok "switch stopped cleanly"; else bad "switch exit status"; fi
[ "$fails" -eq 0 ]
