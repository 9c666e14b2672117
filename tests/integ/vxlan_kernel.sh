#!/bin/bash
# SPDX-License-Identifier: MIT
#
# vxlan_kernel.sh - voff's VXLAN port against the kernel's vxlan device
# (tests/integ/lib_vxlan.sh draws the hosts):
#
#   ns A (TAP t1) - voff switch, vxlan:42 in host 1 - underlay -
#   host 2: vxlan0 (dstport 4789) + br0 - veth - ns B
#
# ARP and ping A <-> B (the broadcast goes by head-end replication), the
# MACs learned on both sides (voff's fdb names host 2's VTEP, the kernel's
# vxlan0 host 1's), 16 MiB by TCP each way checked by SHA-256, iperf3 -t 3
# each way, and, with the underlay's offloads off so the capture holds
# wire frames, every underlay frame decoded by tshark as VXLAN VNI 42 with
# every checksum good.  Then the kernel's own GRO on its vxlan device off
# and on: 16 MiB each way again, and voff's socket received UDP_GRO trains
# and sent UDP_SEGMENT trains.  Last, voff's port with udp_csum=off: zero
# outer checksums on the wire from host 1 only, and data intact both ways.
# Rates are printed, never asserted.
# Needs root, iperf3, ethtool, tshark (scripts/bootstrap.sh installs it)
# and the vxlan module; skips (77) otherwise.
set -u
tag=vk
# shellcheck source=tests/integ/lib_vxlan.sh
. "$(dirname "$0")/lib_vxlan.sh"
vx_require iperf3 ethtool tshark bridge

SIZE=$((16 * 1024 * 1024))
vx_underlay 2
vx_voff_host 1 "$ctl" 192.168.77.2
vx_kernel_host 2 192.168.77.1
# The kernel's vxlan leaves the inner checksum to the device, and a veth
# never computes it: a UDP socket at the other end (voff's, any userspace
# VTEP's) would read unfinished checksums.  A NIC computes them; without
# transmit checksum offload the kernel does (docs/overlay.md).
ip netns exec "$H2" ethtool -K u2 tx off >/dev/null 2>&1

want nsping "$A" 10.77.0.2 5 "ARP and ping A -> B"
want nsping "$B" 10.77.0.1 "ping B -> A"
ma=$(vx_mac "$A" t1) mb=$(vx_mac "$B" v2)
want [ "$(vx_fdb_remote "$ctl" "$mb")" = 192.168.77.2:4789 ] \
	"voff learned B's MAC behind host 2's VTEP"
want [ "$(vx_kfdb_dst "$H2" "$ma")" = 192.168.77.1 ] \
	"the kernel's vxlan0 learned A's MAC behind host 1"
want [ "$(vx_stat "$ctl" vxlan42 vxlan_tx_flooded)" -gt 0 ] \
	"broadcasts replicated to the remote"

want vx_xfer "$A" "$B" 10.77.0.2 "$SIZE" "16 MiB A -> B intact (SHA-256)"
want vx_xfer "$B" "$A" 10.77.0.1 "$SIZE" "16 MiB B -> A intact (SHA-256)"
want vx_iperf "$A" "$B" 10.77.0.2 "iperf3 A -> B" "iperf3 -t 3 A -> B"
want vx_iperf "$A" "$B" 10.77.0.2 "iperf3 B -> A" -R "iperf3 -t 3 B -> A"
want [ "$(vx_stat "$ctl" vxlan42 udp_tx_trains)" -gt 0 ] \
	"voff sent UDP_SEGMENT trains"
want [ "$(vx_stat "$ctl" vxlan42 gro_out)" -gt 0 ] \
	"voff's GRO merged decapsulated segments into super-packets"
want [ "$(vx_stat "$ctl" t1 tx_super)" -gt 0 ] \
	"TCP inside the tunnel reached the TAP as super-packets"
for k in rx_drop_vxlan_vni rx_drop_vxlan_flags rx_drop_vxlan_reserved \
	rx_drop_trunc_vxlan rx_drop_vxlan_runt udp_fallback_train \
	udp_fallback_gso_eio; do
	want [ "$(vx_stat "$ctl" vxlan42 $k)" = 0 ] "vxlan42 $k 0"
done

# Wire frames: no checksum or segmentation offload on the underlay, no GRO
# where it is captured.
ip netns exec "$H1" ethtool -K u1 tx off >/dev/null 2>&1
ip netns exec "$U" ethtool -K p1 gro off >/dev/null 2>&1
ip netns exec "$U" ethtool -K p2 gro off >/dev/null 2>&1
ip netns exec "$H2" ethtool -K u2 tx off >/dev/null 2>&1
cap=$LIB_TMP/underlay.pcap
vx_capture p2 "$cap"
want nsping "$A" 10.77.0.2 "ping A -> B while capturing"
want vx_xfer "$A" "$B" 10.77.0.2 $((2 * 1024 * 1024)) \
	"2 MiB A -> B while capturing"
want vx_xfer "$B" "$A" 10.77.0.1 $((2 * 1024 * 1024)) \
	"2 MiB B -> A while capturing"
vx_capture_end
want vx_tshark_check "$cap" "underlay capture" \
	"every underlay frame is VXLAN VNI 42 with good checksums"
ip netns exec "$H1" ethtool -K u1 tx on >/dev/null 2>&1
ip netns exec "$U" ethtool -K p1 gro on >/dev/null 2>&1
ip netns exec "$U" ethtool -K p2 gro on >/dev/null 2>&1

# The kernel's GRO on its vxlan device off, then on.
for g in off on; do
	ip netns exec "$H2" ethtool -K vxlan0 gro "$g" >/dev/null 2>&1 ||
		{ bad "ethtool -K vxlan0 gro $g"; continue; }
	want vx_xfer "$A" "$B" 10.77.0.2 "$SIZE" \
		"vxlan0 gro $g: 16 MiB A -> B intact"
	want vx_xfer "$B" "$A" 10.77.0.1 "$SIZE" \
		"vxlan0 gro $g: 16 MiB B -> A intact"
done
want [ "$(vx_stat "$ctl" vxlan42 udp_rx_trains)" -gt 0 ] \
	"voff received UDP_GRO trains"

# Outer UDP checksums of zero (udp_csum=off, IPv4 only): the port made
# again with it; on the wire every datagram host 1 sends carries checksum
# 0 and every one host 2 sends a real one, and the kernel's vxlan takes
# them: data intact both ways.
"$voff" ctl --ctl "$ctl" ports del vxlan42 >/dev/null
want "$voff" ctl --ctl "$ctl" ports add \
	"vxlan:$VNI@$H1,local=192.168.77.1,remote=192.168.77.2,udp_csum=off" \
	"vxlan42 re-added with udp_csum=off"
cap0=$LIB_TMP/zero.pcap
vx_capture p2 "$cap0"
want nsping "$A" 10.77.0.2 5 "udp_csum=off: ARP and ping A -> B"
want vx_xfer "$A" "$B" 10.77.0.2 $((2 * 1024 * 1024)) \
	"udp_csum=off: 2 MiB A -> B intact"
want vx_xfer "$B" "$A" 10.77.0.1 $((2 * 1024 * 1024)) \
	"udp_csum=off: 2 MiB B -> A intact"
vx_capture_end
zero_check() {
	tshark -n -r "$cap0" -Y 'udp.port == 4789' -T fields \
		-E occurrence=f -e ip.src -e udp.checksum 2>/dev/null |
		python3 -c '
import sys
n = {"zero": 0, "nonzero": 0, "bad": 0}
for line in sys.stdin:
    src, csum = line.split()
    zero = int(csum, 16) == 0
    if src == "192.168.77.1":
        n["zero" if zero else "bad"] += 1
    elif src == "192.168.77.2":
        n["bad" if zero else "nonzero"] += 1
print("# udp_csum=off: %(zero)d datagrams from host 1 with checksum 0, "
      "%(nonzero)d from host 2 with one, %(bad)d otherwise" % n)
sys.exit(0 if n["zero"] and n["nonzero"] and not n["bad"] else 1)'
}
want zero_check "udp_csum=off: host 1 sends outer UDP checksums of zero"

sw_stop
want [ $? -eq 0 ] "the switch exits 0"
[ "$fails" -eq 0 ] || exit 1
echo "vxlan_kernel: ok"
