#!/bin/bash
# SPDX-License-Identifier: MIT
#
# vxlan_srcport.sh - a VXLAN port that spreads inner flows over UDP source
# ports (srcports=8), against the kernel's vxlan device
# (tests/integ/lib_vxlan.sh draws the hosts):
#
#   ns A (TAP t1) - voff switch, vxlan:42,srcports=8 in host 1 - underlay -
#   host 2: vxlan0 (dstport 4789) + br0 - veth - ns B
#
# Host 1 has exactly 9 UDP sockets: the VXLAN port's on 4789 and 8 send
# sockets; `voff ctl stats` and the Prometheus text say 8.  ARP and ping
# both ways and 2 MiB by TCP each way (SHA-256): the kernel takes any
# source port.  Then, with the underlay's offloads off so the capture
# holds wire frames, 4 TCP transfers and 12 UDP flows from A to B while
# host 1's underlay veth is captured, and tshark shows: every datagram
# host 1 sends goes to port 4789 from one of its 8 send ports, each
# inner flow from one source port alone, and at least two distinct source
# ports over the flows.  Last, malformed srcports= values are refused
# with their exact messages.  Rates are not measured.
# Needs root, ethtool, tshark, ss and the vxlan module; skips (77)
# otherwise.
set -u
tag=vs
# shellcheck source=tests/integ/lib_vxlan.sh
. "$(dirname "$0")/lib_vxlan.sh"
vx_require ethtool tshark bridge ss

vx_underlay 2
vx_opts=,srcports=8
vx_voff_host 1 "$ctl" 192.168.77.2
vx_kernel_host 2 192.168.77.1
# The kernel's vxlan leaves the inner checksum to a veth that never fills
# it in (docs/overlay.md section 4).
ip netns exec "$H2" ethtool -K u2 tx off >/dev/null 2>&1

# The send sockets: every UDP port of host 1 but 4789 is one.
ports=$(ip netns exec "$H1" ss -Hnau | awk '{ n = split($4, a, ":");
	if (a[n] != 4789) print a[n] }' | sort -n | tr '\n' ' ')
want [ "$(echo "$ports" | wc -w)" = 8 ] "host 1 has 8 send sockets: $ports"
want [ "$(ip netns exec "$H1" ss -Hnaul | grep -c ':4789 ')" = 1 ] \
	"and the VXLAN port's socket on 4789"
want [ "$(vx_stat "$ctl" vxlan42 vxlan_srcports)" = 8 ] \
	"voff ctl stats: vxlan_srcports 8"
vctl stats --prometheus >"$LIB_TMP/prom.txt"
want grep -qxF '# TYPE voff_port_vxlan_srcports gauge' "$LIB_TMP/prom.txt" \
	"Prometheus: voff_port_vxlan_srcports is a gauge"
want grep -qxF 'voff_port_vxlan_srcports{port="vxlan42"} 8' \
	"$LIB_TMP/prom.txt" "Prometheus: voff_port_vxlan_srcports 8"
want not grep -q 'vxlan_srcports_total' "$LIB_TMP/prom.txt" \
	"Prometheus: no vxlan_srcports counter"

want nsping "$A" 10.77.0.2 5 "ARP and ping A -> B"
want nsping "$B" 10.77.0.1 "ping B -> A"
want vx_xfer "$A" "$B" 10.77.0.2 $((2 * 1024 * 1024)) \
	"2 MiB A -> B intact (SHA-256)"
want vx_xfer "$B" "$A" 10.77.0.1 $((2 * 1024 * 1024)) \
	"2 MiB B -> A intact (SHA-256)"
want [ "$(vx_stat "$ctl" vxlan42 udp_tx_trains)" -gt 0 ] \
	"the send sockets sent UDP_SEGMENT trains"
for k in udp_tx_dropped udp_fallback_train udp_fallback_gso_eio; do
	want [ "$(vx_stat "$ctl" vxlan42 $k)" = 0 ] "vxlan42 $k 0"
done

# Wire frames: no checksum or segmentation offload where host 1 sends, no
# GRO where it is captured.
ip netns exec "$H1" ethtool -K u1 tx off >/dev/null 2>&1
ip netns exec "$U" ethtool -K p1 gro off >/dev/null 2>&1
cap=$LIB_TMP/underlay.pcap
vx_capture p1 "$cap"
for i in 1 2 3 4; do
	want vx_xfer "$A" "$B" 10.77.0.2 $((256 * 1024)) \
		"TCP flow $i: 256 KiB A -> B while capturing"
done
# 12 UDP flows, 5 datagrams each, from ports 7001..7012 to B's 7000.
ip netns exec "$A" python3 - <<'PY'
import socket, time
for i in range(12):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("10.77.0.1", 7001 + i))
    for j in range(5):
        s.sendto(b"flow %d datagram %d" % (i, j), ("10.77.0.2", 7000))
    s.close()
    time.sleep(0.01)
PY
vx_capture_end

# Host 1's datagrams: outer source and destination ports, then the inner
# flow (MACs and EtherType, IP addresses and protocol, TCP or UDP ports).
tshark -n -r "$cap" -d udp.port==4789,vxlan \
	-Y 'ip.src == 192.168.77.1 && udp' -T fields -E separator='|' \
	-E occurrence=a -e udp.srcport -e udp.dstport -e eth.src -e eth.dst \
	-e eth.type -e ip.src -e ip.dst -e ip.proto -e tcp.srcport \
	-e tcp.dstport >"$LIB_TMP/flows.txt" 2>"$LIB_TMP/tshark.err"
# shellcheck disable=SC2086
python3 - "$LIB_TMP/flows.txt" $ports >"$LIB_TMP/check.txt" <<'PY'
import sys
ports = {int(p) for p in sys.argv[2:]}
flows, frames, bad = {}, 0, []
for line in open(sys.argv[1]):
    usp, udp, es, ed, et, isrc, idst, prot, tsp, tdp = \
        [f.split(",") for f in line.rstrip("\n").split("|")]
    frames += 1
    sport, dport = int(usp[0]), int(udp[0])
    if dport != 4789:
        bad.append("frame %d: to port %d" % (frames, dport))
    if sport not in ports:
        bad.append("frame %d: from port %d" % (frames, sport))
    # The inner flow: what follows the outer headers.
    key = (es[-1], ed[-1], et[-1], isrc[-1] if len(isrc) > 1 else "",
           idst[-1] if len(idst) > 1 else "",
           prot[-1] if len(prot) > 1 else "",
           tsp[0] if tsp[0] else (usp[1] if len(usp) > 1 else ""),
           tdp[0] if tdp[0] else (udp[1] if len(udp) > 1 else ""))
    flows.setdefault(key, set()).add(sport)
split = [k for k, v in flows.items() if len(v) > 1]
tcp = [k for k in flows if k[5] == "6"]
udp = [k for k in flows if k[5] == "17"]
used = set().union(*flows.values()) if flows else set()
print("frames=%d flows=%d tcp=%d udp=%d ports_used=%d split=%d bad=%d"
      % (frames, len(flows), len(tcp), len(udp), len(used), len(split),
         len(bad)))
for b in bad[:5] + ["split: %r" % (k,) for k in split[:5]]:
    print("#  ", b)
PY
sed 's/^/# /' "$LIB_TMP/check.txt"
res=$(head -1 "$LIB_TMP/check.txt")
field() { echo "$res" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
want [ "$(field frames)" -gt 100 ] "captured host 1's datagrams"
want [ "$(field bad)" = 0 ] \
	"every datagram to port 4789 from one of the 8 send ports"
want [ "$(field tcp)" -ge 4 ] "the 4 TCP flows seen"
want [ "$(field udp)" -ge 12 ] "the 12 UDP flows seen"
want [ "$(field split)" = 0 ] "each inner flow from one source port alone"
want [ "$(field ports_used)" -ge 2 ] \
	"the flows used $(field ports_used) distinct source ports (2 or more)"
ip netns exec "$H1" ethtool -K u1 tx on >/dev/null 2>&1
ip netns exec "$U" ethtool -K p1 gro on >/dev/null 2>&1

# Malformed values: refused, with the part that is wrong.
s=vxlan:43,local=192.168.77.1
for v in srcports=0 srcports=65 srcports=eight srcports=10-5 srcports=; do
	expect 2 "voff switch: --port $s,$v: srcports: expected N (1 to 64) or MIN-MAX (ports), not '${v#srcports=}'" \
		"$voff" switch --port "$s,$v"
done
expect 2 "voff switch: --port $s,srcports=1000-1099: srcports: 1000-1099 is 100 ports, at most 64" \
	"$voff" switch --port "$s,srcports=1000-1099"
expect 2 "voff switch: --port $s,srcports: option 'srcports' without a value (srcports=VALUE)" \
	"$voff" switch --port "$s,srcports"
expect 1 "voff ctl: ports add: vxlan:43@$H1,local=192.168.77.1:4790,srcports=x: srcports: expected N (1 to 64) or MIN-MAX (ports), not 'x'" \
	vctl ports add "vxlan:43@$H1,local=192.168.77.1:4790,srcports=x"

# A range at run time: a port with send sockets on exactly 40000..40003,
# all closed when it goes.
vctl ports add "vxlan:43@$H1,local=192.168.77.1:4790,srcports=40000-40003"
want [ "$(vx_stat "$ctl" vxlan43 vxlan_srcports)" = 4 ] \
	"vxlan43: vxlan_srcports 4"
range() { ip netns exec "$H1" ss -Hnau | awk '{ n = split($4, a, ":");
	if (a[n] >= 40000 && a[n] < 40100) print a[n] }' | sort -n | tr '\n' ' '; }
want [ "$(range)" = "40000 40001 40002 40003 " ] \
	"vxlan43 sends from ports 40000 to 40003"
vctl ports del vxlan43
want [ -z "$(range)" ] "its send sockets closed with it"

sw_stop
want [ $? -eq 0 ] "the switch exits 0"
[ "$fails" -eq 0 ] || exit 1
echo "vxlan_srcport: ok"
