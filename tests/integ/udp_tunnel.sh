#!/bin/bash
# SPDX-License-Identifier: MIT
#
# udp_tunnel.sh - the example program examples/udp_tunnel.c: two instances
# in two namespaces ("hosts") carry iperf3 TCP through their TUN devices
#
#   ns A                                            ns B
#   tun0 10.98.0.1 fd98::1                          tun0 10.98.0.2 fd98::2
#     udp_tunnel -l U_A -r U_B  <== UDP trains ==>  udp_tunnel -l U_B -r U_A
#   ua 192.168.98.1 fd97::1  <------- veth ------->  ub 192.168.98.2 fd97::2
#
# Runs: IPv4 underlay (ping, A->B and B->A), IPv6 underlay with IPv6
# inside, the plain mode (-p: no UDP_SEGMENT, no UDP_GRO), and the
# sender's veth without transmit checksum offload.  Each run moves 32 MiB
# by TCP, checked end to end by SHA-256 (peer.py), then runs iperf3 for
# the same size (it must send them all and see bytes arrive), and checks
# the tunnels' counters: the sender's TUN handed over super-packets, voff cut
# them into datagrams that left in UDP_SEGMENT trains (none in plain
# mode), the receiver got trains and wrote super-packets to its TUN
# (voff's GRO), no datagram was refused or truncated, every byte iperf3
# counted crossed the UDP socket and the receiving TUN, and no fallback
# happened (on a kernel before 6.11, the veth without tx checksum gives
# exactly one EIO fallback).  Throughput is printed, never asserted.
# Needs root, iperf3, ethtool and python3; skips (77) otherwise.
set -u
tag=ut
# shellcheck source=tests/integ/lib_ns.sh
. "$(dirname "$0")/lib_ns.sh"
ns_require iperf3 ethtool python3
tunnel=${VOFF_BUILD:-}/examples/udp_tunnel
[ -x "$tunnel" ] || { echo "skip: no examples/udp_tunnel (VOFF_EXAMPLES off?)"; exit 77; }

A=$(ns_add a) B=$(ns_add b)
ip link add ua netns "$A" type veth peer ub netns "$B"
ip -n "$A" addr add 192.168.98.1/24 dev ua
ip -n "$B" addr add 192.168.98.2/24 dev ub
ip -n "$A" addr add fd97::1/64 dev ua nodad
ip -n "$B" addr add fd97::2/64 dev ub nodad
ip -n "$A" link set ua up
ip -n "$B" link set ub up

SIZE=$((32 * 1024 * 1024))
py=$(dirname "$0")/peer.py
pa='' pb=''

# up UA UB [ARGS...] - start both tunnels, address their TUNs
up() {
	local ua=$1 ub=$2
	shift 2
	ip netns exec "$A" "$tunnel" -t tun0 -l "$ua" -r "$ub" "$@" \
		>"$LIB_TMP/a.out" 2>&1 &
	pa=$!
	ip netns exec "$B" "$tunnel" -t tun0 -l "$ub" -r "$ua" "$@" \
		>"$LIB_TMP/b.out" 2>&1 &
	pb=$!
	lib_pids+=("$pa" "$pb")
	wait_until 100 tuns_up || echo "# no tun0 in both namespaces after 10 s"
	ip -n "$A" addr add 10.98.0.1/24 dev tun0 &&
		ip -n "$A" addr add fd98::1/64 dev tun0 nodad &&
		ip -n "$B" addr add 10.98.0.2/24 dev tun0 &&
		ip -n "$B" addr add fd98::2/64 dev tun0 nodad
}

# tuns_up - both tunnels made their tun0
tuns_up() {
	ip -n "$A" link show tun0 >/dev/null 2>&1 &&
		ip -n "$B" link show tun0 >/dev/null 2>&1
}

# b_read_all - nothing waits in B's UDP sockets (its Recv-Q)
b_read_all() {
	ip netns exec "$B" ss -Huan | awk '$2 != 0 { busy = 1 } END { exit busy }'
}

# down - stop A, then B once it read what A sent last (so it counts it);
# both print counters
down() {
	kill "$pa" 2>/dev/null
	wait "$pa"
	wait_until 50 b_read_all || echo "# B's UDP sockets still hold data"
	kill "$pb" 2>/dev/null
	wait "$pb"
}

# st FILE SECTION KEY - one counter of a tunnel's closing report
st() {
	awk -v s="$2:" -v k="$3" '$1 == s {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] } }' "$1"
}

# iperf CLIENT_NS ADDR NAME [ARGS...] - SIZE bytes by TCP; prints the bytes
iperf() {
	local c=$1 addr=$2 name=$3 s out=$LIB_TMP/iperf.json
	shift 3
	s=$([ "$c" = "$A" ] && echo "$B" || echo "$A")
	if ! IPERF_PORT=5299 iperf_run "$c" "$s" "$addr" 0 "$out" -n "$SIZE" "$@"; then
		echo "# $name: iperf3 failed: $(head -c 300 "$out")" >&2
		echo 0
		return
	fi
	python3 - "$out" "$SIZE" "$name" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["end"]
sent, got = j["sum_sent"]["bytes"], j["sum_received"]["bytes"]
bps = j["sum_received"]["bits_per_second"]
print("# %s: %d bytes sent, %d received, %.2f Gbit/s (not asserted)"
      % (sys.argv[3], sent, got, bps / 1e9), file=sys.stderr)
print(got if sent >= int(sys.argv[2]) and got > 0 else 0)
PY
}

# xfer CLIENT_NS ADDR - SIZE random bytes by TCP to ADDR, checked by their
# SHA-256 at the other end (tests/integ/peer.py); prints SIZE or 0
xfer() {
	local c=$1 addr=$2 s spid rc
	s=$([ "$c" = "$A" ] && echo "$B" || echo "$A")
	ip netns exec "$s" python3 "$py" server tcp "$addr" "$SIZE" 5298 &
	spid=$!
	ip netns exec "$c" timeout 120 python3 "$py" client tcp "$addr" "$SIZE" 5298
	rc=$?
	wait "$spid"
	[ "$rc" -eq 0 ] && echo "$SIZE" || echo 0
}

# want COND... - "ok MSG" when the test command COND succeeds, else "bad MSG";
# the message is the last argument
want() {
	local msg=${!#}
	if "${@:1:$#-1}"; then ok "$msg"; else bad "$msg"; fi
}

# check NAME TX RX XFER IPERF MODE EIO - the counters of a run where TX
# sent XFER bytes (checked end to end) and iperf3 IPERF bytes to RX
# (files a.out or b.out).  MODE: trains (UDP_SEGMENT out, UDP_GRO in),
# tx_trains (the wire segments the trains: datagrams arrive singly), plain
check() {
	local name=$1 tx=$LIB_TMP/$2 rx=$LIB_TMP/$3 mode=$6 eio=$7 k bytes
	local txt rxt calls dgrams
	if [ "$4" -ne "$SIZE" ]; then
		bad "$name: $SIZE bytes did not arrive intact"
		return
	fi
	ok "$name: $SIZE bytes arrived intact (SHA-256)"
	if [ "$5" -le 0 ]; then
		bad "$name: iperf3 did not run"
		return
	fi
	ok "$name: iperf3 sent $SIZE bytes or more, received $5"
	bytes=$(($4 + $5))
	want [ "$(st "$tx" udp tx_dropped)" = 0 ] "$name: the sender dropped nothing"
	want [ "$(st "$rx" udp rx_dropped)$(st "$rx" udp tx_dropped)" = 00 ] \
		"$name: the receiver dropped nothing"
	want [ "$(st "$tx" tun rx_gso)" -gt 0 ] "$name: super-packets from the TUN"
	want [ "$(st "$tx" udp tx_gso_pkts)" = "$(st "$tx" tun rx_gso)" ] \
		"$name: each cut by voff's GSO"
	want [ "$(st "$rx" udp rx_datagrams)" -le "$(st "$tx" udp tx_datagrams)" ] \
		"$name: no datagram received that was not sent"
	want [ "$(st "$rx" udp rx_bytes)" -ge "$bytes" ] \
		"$name: every byte crossed the UDP sockets"
	want [ "$(st "$rx" tun tx_bytes)" -ge "$bytes" ] \
		"$name: every byte reached the receiving TUN"
	want [ "$(st "$rx" tun tx_gso)" -gt 0 ] \
		"$name: voff's GRO wrote super-packets to the TUN"
	txt=$(st "$tx" udp tx_trains) rxt=$(st "$rx" udp rx_trains)
	calls=$(st "$tx" udp tx_calls) dgrams=$(st "$tx" udp tx_datagrams)
	if [ "$mode" = plain ]; then
		want [ "$txt$rxt" = 00 ] "$name: no train either way"
		want [ "$(st "$tx" udp tx_msgs)" = "$dgrams" ] \
			"$name: one datagram per message"
	elif [ "$eio" = 0 ]; then
		want [ "$txt" -gt 0 ] "$name: $txt UDP_SEGMENT trains sent"
		want [ $((dgrams / calls)) -ge 4 ] \
			"$name: $calls sendmmsg() for $dgrams datagrams"
		[ "$mode" = tx_trains ] ||
			want [ "$rxt" -gt 0 ] "$name: $rxt UDP_GRO trains received"
	fi
	for k in fallback_gso_probe fallback_gro_probe fallback_train; do
		want [ "$(st "$tx" udp $k)" = 0 ] "$name: $k 0"
	done
	want [ "$(st "$tx" udp fallback_gso_eio)" = "$eio" ] \
		"$name: fallback_gso_eio $eio"
}

# Trains over a device without transmit checksum: EIO before Linux 6.11.
eio_expected() {
	local v
	v=$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')
	[ "$v" -lt 6011 ] && echo 1 || echo 0
}

up 192.168.98.1 192.168.98.2
if nsping "$A" 10.98.0.2; then ok "v4 underlay: ping through the tunnel"; else bad "v4 underlay: ping"; fi
x=$(xfer "$A" 10.98.0.2)
n=$(iperf "$A" 10.98.0.2 "v4 underlay A->B")
down
check "v4 underlay A->B" a.out b.out "$x" "$n" trains 0

up 192.168.98.1 192.168.98.2
x=$(xfer "$B" 10.98.0.1)
n=$(iperf "$A" 10.98.0.2 "v4 underlay B->A" -R)
down
check "v4 underlay B->A" b.out a.out "$x" "$n" trains 0

up "[fd97::1]" "[fd97::2]"
x=$(xfer "$A" fd98::2)
n=$(iperf "$A" fd98::2 "v6 underlay, v6 inside")
down
check "v6 underlay, v6 inside" a.out b.out "$x" "$n" trains 0

up 192.168.98.1 192.168.98.2 -p
x=$(xfer "$A" 10.98.0.2)
n=$(iperf "$A" 10.98.0.2 "plain mode")
down
check "plain mode" a.out b.out "$x" "$n" plain 0

ip netns exec "$A" ethtool -K ua tx off >/dev/null
up 192.168.98.1 192.168.98.2
x=$(xfer "$A" 10.98.0.2)
n=$(iperf "$A" 10.98.0.2 "sender without tx checksum")
down
# The veth cuts the trains in software: datagrams arrive one by one.
check "sender without tx checksum" a.out b.out "$x" "$n" tx_trains \
	"$(eio_expected)"

[ "$fails" -eq 0 ] || { echo "FAIL: $fails check(s)"; exit 1; }
echo "udp_tunnel: all checks passed"
