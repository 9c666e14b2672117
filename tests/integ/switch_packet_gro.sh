#!/bin/bash
# SPDX-License-Identifier: MIT
#
# switch_packet_gro.sh - GRO on an AF_PACKET ingress fed MTU segments
# delivers super-packets to a TAP egress, bytes intact
#
#   netns voff-spg-a-$$                     voff switch         netns voff-spg-b-$$
#   a0 10.66.0.1 ==veth== a1 <--packet:a1@A,gro=on-->  <--TAP-->  vb 10.66.0.2
#   (tso, gso off: MTU frames)
#
# Needs root, ip, ethtool and python3; skips with 77 otherwise.
set -u
tag=spg
# ok, bad, vctl, sw_start, wait_until, ns_listens, the namespaces and
# the cleanup.
# shellcheck source=tests/integ/lib_ns.sh
. "$(dirname "$0")/lib_ns.sh"
ns_require ethtool python3
a=$(ns_add a) b=$(ns_add b)
ip -n "$a" link add a0 type veth peer name a1 || { echo "skip: no veth"; exit 77; }
ip netns exec "$a" ethtool -K a0 tso off gso off >/dev/null
ip -n "$a" link set a0 up
ip -n "$a" link set a1 up
ip -n "$a" addr add 10.66.0.1/24 dev a0

sw_start --port "packet:a1@$a,gro=on" --port "tap:vb@$b"
ip -n "$b" addr add 10.66.0.2/24 dev vb

py=$(dirname "$0")/peer.py
ip netns exec "$b" python3 "$py" server tcp 10.66.0.2 8000000 5203 &
s=$!
wait_until 100 ns_listens "$b" tcp 5203 || bad "the TCP server did not listen"
if ip netns exec "$a" python3 "$py" client tcp 10.66.0.2 8000000 5203; then
	ok "TCP through a GRO ingress, bytes identical"
else
	bad "TCP through a GRO ingress"
fi
wait "$s"
read -r merged out super < <(vctl -j stats | python3 -c '
import json, sys
p = {x["port"]: x for x in json.load(sys.stdin)}
print(p["a1"]["gro_merged"], p["a1"]["gro_out"], p["vb"]["tx_super"])')
if [ "$merged" -gt 0 ] && [ "$out" -gt 0 ] && [ "$super" -gt 0 ]; then
	ok "GRO merged $merged frames into $out super-packets ($super sent to vb)"
else
	bad "no GRO: merged $merged out $out tx_super $super"
fi
[ "$fails" -eq 0 ] || { sed 's/^/# switch: /' "$LIB_TMP/switch.err"; exit 1; }
