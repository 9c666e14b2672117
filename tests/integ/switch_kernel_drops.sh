#!/bin/bash
# SPDX-License-Identifier: MIT
#
# switch_kernel_drops.sh - frames the kernel drops while the switch does
# not read (stopped by SIGSTOP) are its ports' rx_kernel_dropped in `voff
# ctl stats`, as the kernel counts them, under --drop-caps (the TAP in a
# namespace is asked over a netlink socket made there at open)
#
#   ns A: ka 10.68.0.1 <-tap:ka@A-> voff switch --drop-caps
#                                      <-packet:pb@B-> pb (ns B) <-veth-> pa (ns C)
#
# A: 3000 UDP datagrams into the TAP (its queue to the switch holds 1000):
# rx_kernel_dropped = the device's tx_dropped.  C: 3000 frames into the
# veth (the port's receive ring holds 512): every frame pb received is
# read by the switch or counted as rx_kernel_dropped.
# Needs root, ip and python3; skips with 77 otherwise.
set -u
tag=kdr
# shellcheck source=tests/integ/lib_ns.sh
. "$(dirname "$0")/lib_ns.sh"
ns_require python3

A=$(ns_add a) B=$(ns_add b) C=$(ns_add c)
for n in "$A" "$B" "$C"; do
	ip netns exec "$n" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
	ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
done
ip -n "$C" link add pa type veth peer name pb netns "$B"
ip -n "$C" link set pa up
ip -n "$B" link set pb up
sw_start --drop-caps --port "tap:ka@$A" --port "packet:pb@$B"
addr_tap "$A" ka 10.68.0.1/24
ip -n "$A" neigh add 10.68.0.2 lladdr 02:00:00:00:00:02 dev ka nud permanent

# link_stat NS DEV DIR KEY - one counter of `ip -s -j link`
link_stat() {
	ip -n "$1" -s -j link show "$2" |
		python3 -c "import json,sys; print(json.load(sys.stdin)[0]['stats64']['$3']['$4'])"
}

td0=$(link_stat "$A" ka tx dropped)
rx0=$(link_stat "$B" pb rx packets)
kill -STOP "$swpid"
ip netns exec "$A" python3 -c "
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(3000):
    s.sendto(i.to_bytes(4, 'big'), ('10.68.0.2', 9))"
ip netns exec "$C" python3 -c "
import socket
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(('pa', 0))
f = bytes.fromhex('02000000000b02000000000a88b5') + bytes(50)
for i in range(3000):
    s.send(f)"
kill -CONT "$swpid"
# The switch reads what the kernel kept, then the counts stand still: the
# same twice in a row, 0.2 s apart (10 s at most).
prev=x
stats_still() {
	local cur
	cur=$(vctl -j stats | md5sum)
	[ "$cur" = "$prev" ] && return 0
	prev=$cur
	sleep 0.1
	return 1
}
wait_until 50 stats_still ||
	echo "# the counters still moved after 10 s (see the checks below)"

td=$(($(link_stat "$A" ka tx dropped) - td0))
kd=$(stat_of ka rx_kernel_dropped)
if [ "$td" -gt 0 ] && [ "$kd" -eq "$td" ]; then
	ok "TAP: rx_kernel_dropped $kd = the device's tx_dropped"
else
	bad "TAP: rx_kernel_dropped $kd, the device's tx_dropped $td"
fi
rx=$(($(link_stat "$B" pb rx packets) - rx0))
kd=$(stat_of pb rx_kernel_dropped)
got=$(($(stat_of pb rx_packets) + $(stat_of pb rx_dropped)))
if [ "$kd" -gt 0 ] && [ $((got + kd)) -eq "$rx" ]; then
	ok "packet: $rx received by pb = $got read by the switch + $kd rx_kernel_dropped"
else
	bad "packet: pb received $rx, the switch read $got, rx_kernel_dropped $kd"
fi
sw_alive || bad "the switch died"
[ "$fails" -eq 0 ]
