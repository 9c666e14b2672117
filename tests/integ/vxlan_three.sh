#!/bin/bash
# SPDX-License-Identifier: MIT
#
# vxlan_three.sh - three hosts on one VXLAN segment, with head-end
# replication (tests/integ/lib_vxlan.sh draws them):
#
#   host 1: voff switch, ns A, remotes host 2 and host 3
#   host 2: the kernel's vxlan0 + br0, ns B, remotes host 1 and host 3
#   host 3: voff switch, ns C, remotes host 1 and host 2
#
# A broadcast from A (ARP) reaches both other hosts: ping A -> B, A -> C
# and B -> C (which does not cross host 1); host 1's fdb names each MAC's
# own VTEP and its port replicated each flooded frame to both remotes;
# 8 MiB A -> C and C -> B checked by SHA-256; a unicast frame from A goes
# to one VTEP only (host 3's counters do not see A -> B's transfer).
# Needs root, ethtool, bridge and the vxlan module; skips (77) otherwise.
set -u
tag=v3
# shellcheck source=tests/integ/lib_vxlan.sh
. "$(dirname "$0")/lib_vxlan.sh"
vx_require ethtool bridge

SIZE=$((8 * 1024 * 1024))
ctl3=$LIB_TMP/voff3.ctl
vx_underlay 3
vx_voff_host 1 "$ctl" 192.168.77.2 192.168.77.3
vx_kernel_host 2 192.168.77.1 192.168.77.3
# The kernel's vxlan leaves inner checksums to the device (vxlan_kernel.sh).
ip netns exec "$H2" ethtool -K u2 tx off >/dev/null 2>&1
vx_voff_host 3 "$ctl3" 192.168.77.1 192.168.77.2

want nsping "$A" 10.77.0.2 5 "ARP and ping A -> B (kernel host)"
want nsping "$A" 10.77.0.3 5 "ARP and ping A -> C (voff host)"
want nsping "$B" 10.77.0.3 5 "ARP and ping B -> C (not through host 1)"
mb=$(vx_mac "$B" v2) mc=$(vx_mac "$C" t3) ma=$(vx_mac "$A" t1)
want [ "$(vx_fdb_remote "$ctl" "$mb")" = 192.168.77.2:4789 ] \
	"host 1: B behind host 2"
want [ "$(vx_fdb_remote "$ctl" "$mc")" = 192.168.77.3:4789 ] \
	"host 1: C behind host 3"
want [ "$(vx_fdb_remote "$ctl3" "$mb")" = 192.168.77.2:4789 ] \
	"host 3: B behind host 2"
want [ "$(vx_kfdb_dst "$H2" "$mc")" = 192.168.77.3 ] \
	"host 2's kernel: C behind host 3"
want [ "$(vx_kfdb_dst "$H2" "$ma")" = 192.168.77.1 ] \
	"host 2's kernel: A behind host 1"
want [ "$(vx_fdb_remote "$ctl3" "$ma")" = 192.168.77.1:4789 ] \
	"host 3: A behind host 1"
# Five broadcasts from A (the TAP's GRO may merge them into one UDP
# super-packet, which the port cuts again): each datagram to each of the
# two remotes, and host 3 receives all five.
fl=$(vx_stat "$ctl" vxlan42 vxlan_tx_flooded)
dg=$(vx_stat "$ctl" vxlan42 vxlan_tx_datagrams)
r3=$(vx_stat "$ctl3" vxlan42 vxlan_rx_datagrams)
nsbcast "$A" 10.77.0.255
sleep 0.5
fl=$(($(vx_stat "$ctl" vxlan42 vxlan_tx_flooded) - fl))
dg=$(($(vx_stat "$ctl" vxlan42 vxlan_tx_datagrams) - dg))
r3=$(($(vx_stat "$ctl3" vxlan42 vxlan_rx_datagrams) - r3))
want [ "$fl" -ge 1 ] "host 1 flooded the broadcasts ($fl frames)"
want [ "$dg" -ge 10 ] "to both remotes ($dg datagrams)"
want [ "$r3" -ge 5 ] "host 3 received the five ($r3 datagrams)"

want vx_xfer "$A" "$C" 10.77.0.3 "$SIZE" "8 MiB A -> C intact (SHA-256)"
want vx_xfer "$C" "$B" 10.77.0.2 "$SIZE" "8 MiB C -> B intact (SHA-256)"
# Unicast goes to one VTEP: A -> B's bytes never reach host 3.
r3=$(vx_stat "$ctl3" vxlan42 udp_rx_bytes)
want vx_xfer "$A" "$B" 10.77.0.2 "$SIZE" "8 MiB A -> B intact (SHA-256)"
want [ $(($(vx_stat "$ctl3" vxlan42 udp_rx_bytes) - r3)) -lt $((SIZE / 8)) ] \
	"host 3 did not receive A -> B's transfer"

sw_stop
want [ $? -eq 0 ] "host 1's switch exits 0"
[ "$fails" -eq 0 ] || exit 1
echo "vxlan_three: ok"
