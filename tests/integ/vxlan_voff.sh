#!/bin/bash
# SPDX-License-Identifier: MIT
#
# vxlan_voff.sh - two voff switches as the two hosts of a VXLAN overlay
# (tests/integ/lib_vxlan.sh draws them):
#
#   ns A (TAP t1) - voff switch, vxlan:42 in host 1 - underlay -
#   vxlan:42 in host 2, voff switch - (TAP t2) ns B
#
# ARP and ping both ways, each switch's fdb naming the other's VTEP,
# 16 MiB by TCP each way checked by SHA-256, iperf3 -t 3 each way, trains
# both ways (UDP_SEGMENT sent, UDP_GRO received), super-packets written to
# both TAPs, no drop of any VXLAN reason.  Then a static entry and the
# remote list changed at run time: with host 2 removed from host 1's
# remotes a static entry for B's MAC still carries A's traffic, and
# without it nothing does.  Last, VNI 43 over an IPv6 underlay replaces
# VNI 42: MTU 1430, ping, the VTEP learned, 16 MiB each way, trains.
# Rates are printed, never asserted.
# Needs root, iperf3, ethtool and the vxlan module (for the skip check
# only); skips (77) otherwise.
set -u
tag=vv
# shellcheck source=tests/integ/lib_vxlan.sh
. "$(dirname "$0")/lib_vxlan.sh"
vx_require iperf3 ethtool

SIZE=$((16 * 1024 * 1024))
ctl2=$LIB_TMP/voff2.ctl
vx_underlay 2
vx_voff_host 1 "$ctl" 192.168.77.2
vx_voff_host 2 "$ctl2" 192.168.77.1

want nsping "$A" 10.77.0.2 5 "ARP and ping A -> B"
want nsping "$B" 10.77.0.1 "ping B -> A"
ma=$(vx_mac "$A" t1) mb=$(vx_mac "$B" t2)
want [ "$(vx_fdb_remote "$ctl" "$mb")" = 192.168.77.2:4789 ] \
	"host 1 learned B's MAC behind host 2"
want [ "$(vx_fdb_remote "$ctl2" "$ma")" = 192.168.77.1:4789 ] \
	"host 2 learned A's MAC behind host 1"

want vx_xfer "$A" "$B" 10.77.0.2 "$SIZE" "16 MiB A -> B intact (SHA-256)"
want vx_xfer "$B" "$A" 10.77.0.1 "$SIZE" "16 MiB B -> A intact (SHA-256)"
want vx_iperf "$A" "$B" 10.77.0.2 "iperf3 A -> B" "iperf3 -t 3 A -> B"
want vx_iperf "$A" "$B" 10.77.0.2 "iperf3 B -> A" -R "iperf3 -t 3 B -> A"
for c in "$ctl" "$ctl2"; do
	n=$([ "$c" = "$ctl" ] && echo 1 || echo 2)
	want [ "$(vx_stat "$c" vxlan42 udp_tx_trains)" -gt 0 ] \
		"host $n sent UDP_SEGMENT trains"
	want [ "$(vx_stat "$c" vxlan42 udp_rx_trains)" -gt 0 ] \
		"host $n received UDP_GRO trains"
	want [ "$(vx_stat "$c" "t$n" tx_super)" -gt 0 ] \
		"host $n wrote super-packets to its TAP"
	for k in rx_drop_vxlan_vni rx_drop_vxlan_flags rx_drop_vxlan_reserved \
		rx_drop_trunc_vxlan rx_drop_vxlan_runt udp_fallback_train; do
		want [ "$(vx_stat "$c" vxlan42 $k)" = 0 ] "host $n: $k 0"
	done
done

# Run time: host 1 without remotes reaches B only through a static entry.
# Both keep quiet: neighbour entries that never need a probe.
ip -n "$B" neigh replace 10.77.0.1 lladdr "$ma" dev t2 nud permanent
ip -n "$A" neigh replace 10.77.0.2 lladdr "$mb" dev t1 nud permanent
sleep 1
vctl remotes del vxlan42 192.168.77.2
want [ "$(vctl remotes vxlan42)" = REMOTE ] "host 1 has no remote left"
want [ -z "$(vx_fdb_remote "$ctl" "$mb")" ] \
	"removing the remote forgot what was learned behind it"
ip -n "$A" neigh del 10.77.0.2 dev t1
want not nsping "$A" 10.77.0.2 2 "no remote, no static entry: no way to B"
ip -n "$A" neigh replace 10.77.0.2 lladdr "$mb" dev t1
vctl fdb add "$mb" vxlan42 192.168.77.2
want [ "$(vx_fdb_remote "$ctl" "$mb")" = 192.168.77.2:4789 ] \
	"the static entry shows its VTEP"
want nsping "$A" 10.77.0.2 3 "a static entry carries A -> B"
vctl fdb del "$mb"
vctl remotes add vxlan42 192.168.77.2:4789
want [ "$(vctl remotes vxlan42 | tail -1)" = 192.168.77.2:4789 ] \
	"the remote is back"
want nsping "$A" 10.77.0.2 3 "flooding again reaches B"

# An IPv6 underlay: VNI 43 over fd77::/64 replaces VNI 42 on both hosts;
# 70 bytes of outer headers leave an MTU of 1430.
for k in 1 2; do
	c=$([ $k = 1 ] && echo "$ctl" || echo "$ctl2")
	h=$([ $k = 1 ] && echo "$H1" || echo "$H2")
	app=$([ $k = 1 ] && echo "$A" || echo "$B")
	"$voff" ctl --ctl "$c" ports del vxlan42
	"$voff" ctl --ctl "$c" ports add \
		"vxlan:43@$h,local=[fd77::$k],remote=[fd77::$((3 - k))],gro=on"
	ip -n "$app" link set "t$k" mtu 1430
done
want [ "$(vx_stat "$ctl" vxlan43 rx_packets)" = 0 ] "vxlan43 added on host 1"
want [ "$("$voff" ctl --ctl "$ctl" -j limits vxlan43 |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["device"]["mtu"])')" = 1430 ] \
	"IPv6 underlay: MTU 1500 - 70"
ip -n "$A" neigh del 10.77.0.2 dev t1
ip -n "$B" neigh del 10.77.0.1 dev t2
want nsping "$A" 10.77.0.2 5 "IPv6 underlay: ARP and ping A -> B"
want [ "$(vx_fdb_remote "$ctl" "$mb")" = "[fd77::2]:4789" ] \
	"IPv6 underlay: host 1 learned B behind [fd77::2]"
want vx_xfer "$A" "$B" 10.77.0.2 "$SIZE" "IPv6 underlay: 16 MiB A -> B intact"
want vx_xfer "$B" "$A" 10.77.0.1 "$SIZE" "IPv6 underlay: 16 MiB B -> A intact"
want [ "$(vx_stat "$ctl" vxlan43 udp_tx_trains)" -gt 0 ] \
	"IPv6 underlay: trains sent"

sw_stop
want [ $? -eq 0 ] "host 1's switch exits 0"
[ "$fails" -eq 0 ] || exit 1
echo "vxlan_voff: ok"
