#!/bin/bash
# SPDX-License-Identifier: MIT
#
# switch_packet_gro.sh - GRO on an AF_PACKET ingress fed MTU segments
# delivers super-packets to a TAP egress, bytes intact
#
#   netns voff-spa-$$                       voff switch         netns voff-spb-$$
#   a0 10.66.0.1 ==veth== a1 <--packet:a1@A,gro=on-->  <--TAP-->  vb 10.66.0.2
#   (tso, gso off: MTU frames)
#
# Needs root, ip, ethtool and python3; skips with 77 otherwise.
set -u

voff=${VOFF:-voff}
[ "$(id -u)" -eq 0 ] || { echo "skip: not root"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 missing"; exit 77; }
command -v ethtool >/dev/null || { echo "skip: ethtool missing"; exit 77; }
a=voff-spa-$$ b=voff-spb-$$ ctl=/tmp/voff-spg-$$.ctl
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	ip netns del "$a" 2>/dev/null
	ip netns del "$b" 2>/dev/null
	rm -f "$ctl"
}
trap cleanup EXIT
ip netns add "$a" 2>/dev/null || { echo "skip: cannot create a netns"; exit 77; }
ip netns add "$b"
ip -n "$a" link add a0 type veth peer name a1 || { echo "skip: no veth"; exit 77; }
ip netns exec "$a" ethtool -K a0 tso off gso off >/dev/null
ip -n "$a" link set a0 up
ip -n "$a" link set a1 up
ip -n "$a" link set lo up
ip -n "$b" link set lo up
ip -n "$a" addr add 10.66.0.1/24 dev a0

"$voff" switch --port "packet:a1@$a,gro=on" --port "tap:vb@$b" --ctl "$ctl" &
pid=$!
for _ in $(seq 50); do [ -S "$ctl" ] && break; sleep 0.1; done
[ -S "$ctl" ] || { echo "FAIL - switch did not start"; exit 1; }
ip -n "$b" addr add 10.66.0.2/24 dev vb

py=$(dirname "$0")/peer.py
fails=0
ip netns exec "$b" python3 "$py" server tcp 10.66.0.2 8000000 5203 &
s=$!
sleep 0.4
if ip netns exec "$a" python3 "$py" client tcp 10.66.0.2 8000000 5203; then
	echo "ok - TCP through a GRO ingress, bytes identical"
else
	echo "FAIL - TCP through a GRO ingress"; fails=1
fi
wait "$s"
read -r merged out super < <("$voff" ctl --ctl "$ctl" -j stats | python3 -c '
import json, sys
p = {x["port"]: x for x in json.load(sys.stdin)}
print(p["a1"]["gro_merged"], p["a1"]["gro_out"], p["vb"]["tx_super"])')
if [ "$merged" -gt 0 ] && [ "$out" -gt 0 ] && [ "$super" -gt 0 ]; then
	echo "ok - GRO merged $merged frames into $out super-packets ($super sent to vb)"
else
	echo "FAIL - no GRO: merged $merged out $out tx_super $super"; fails=1
fi
[ "$fails" -eq 0 ]
