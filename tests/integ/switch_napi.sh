#!/bin/bash
# SPDX-License-Identifier: MIT
#
# switch_napi.sh - a TAP port opened with napi=on (IFF_NAPI) carries TCP
# with bytes intact, also with its NAPI threaded and the kernel's GRO off
# on it (the set-up bench/e2e.sh uses to count the receiving stack's CPU
# on the receiving side), and super-packets from voff's GRO reach it whole
#
#   ns A: va 10.67.0.1 (tso, gso off) <-tap:va,gro=on-> voff switch
#         <-tap:vb,napi=on-> ns B: vb 10.67.0.2 (threaded NAPI, gro off)
#
# Needs root, ip, ethtool and python3; skips with 77 otherwise.
set -u
tag=nap
# shellcheck source=tests/integ/lib_ns.sh
. "$(dirname "$0")/lib_ns.sh"
ns_require ethtool python3

A=$(ns_add a) B=$(ns_add b)
sw_start --port "tap:va@$A,gro=on,gro_flush_timeout=20000" \
	--port "tap:vb@$B,napi=on"
addr_tap "$A" va 10.67.0.1/24
addr_tap "$B" vb 10.67.0.2/24
ip netns exec "$A" ethtool -K va tso off gso off >/dev/null
ip netns exec "$B" ethtool -K vb gro off >/dev/null
if ip netns exec "$B" sh -c 'echo 1 > /sys/class/net/vb/threaded' \
	2>/dev/null; then
	threaded=1
else
	threaded=0
	echo "note: threaded NAPI not available, plain NAPI only"
fi

ip netns exec "$B" python3 "$(dirname "$0")/peer.py" server tcp 10.67.0.2 8000000 5204 &
srv=$!
wait_until 100 ns_listens "$B" tcp 5204 || bad "the TCP server did not listen"
if ip netns exec "$A" python3 "$(dirname "$0")/peer.py" client tcp 10.67.0.2 \
	8000000 5204; then
	ok "TCP into a NAPI TAP, bytes identical"
else
	bad "TCP into a NAPI TAP"
fi
wait "$srv"

merged=$(stat_of va gro_merged)
super=$(stat_of vb tx_super)
if [ "$merged" -gt 0 ] && [ "$super" -gt 0 ]; then
	ok "GRO merged $merged frames; $super super-packets written to vb"
else
	bad "no super-packets into the NAPI TAP: merged $merged, tx_super $super"
fi
# The kernel received them on vb as written: its rx counter matches what
# the switch wrote (a few frames of ARP and neighbour discovery aside),
# far fewer than the MTU frames: its own GRO is off, only voff merged.
rx=$(ip -n "$B" -s -j link show vb | python3 -c '
import json, sys; print(json.load(sys.stdin)[0]["stats64"]["rx"]["packets"])')
tx=$(stat_of vb tx_packets)
if [ "$rx" -ge "$((tx - 5))" ] && [ "$rx" -le "$((tx + 5))" ] &&
	[ "$rx" -lt "$(stat_of va rx_packets)" ]; then
	ok "vb received $rx packets, the switch wrote $tx"
else
	bad "vb received $rx packets, the switch wrote $tx"
fi
if [ "$threaded" -eq 1 ]; then
	if pgrep '^napi/vb-' >/dev/null; then
		ok "vb's NAPI runs in its own kernel thread"
	else
		bad "no NAPI thread for vb"
	fi
fi
# A NAPI flag on a kind that has none is refused with a clear error.
if vctl ports add "packet:lo@$A,napi=on" >/dev/null 2>&1; then
	bad "napi=on accepted on a packet port"
else
	ok "napi=on refused on a packet port"
fi
sw_alive || bad "the switch died"
[ "$fails" -eq 0 ]
