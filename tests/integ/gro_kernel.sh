#!/bin/bash
# SPDX-License-Identifier: MIT
#
# gro_kernel.sh - the kernel as GRO oracle for voff's engine
#
#   netns voff-gro-$$:
#     test_gro_kernel --AF_PACKET--> va ===veth===> vb --GRO (threaded NAPI,
#     (CPU 0, SCHED_FIFO            (tso/gso off)    pinned to CPU 0)
#      per batch of <= 64)                             |
#     test_gro_kernel <--AF_PACKET + PACKET_VNET_HDR---'
#     ... and the same frames through voff_gro_receive(): per-flow outputs
#     must be equal (lengths, gso_type/size, bytes, checksum flags).
#
# Needs root (CAP_NET_ADMIN), ip, ethtool and the unit test binary
# (VOFF_BUILD/tests/test_gro_kernel); skips with 77 otherwise.
# VOFF_GRO_KERNEL_N sets the sequences per family (default 500).
set -u

bin=${VOFF_BUILD:-}/tests/test_gro_kernel
[ "$(id -u)" -eq 0 ] || { echo "skip: not root"; exit 77; }
[ -x "$bin" ] || { echo "skip: $bin missing"; exit 77; }
command -v ethtool >/dev/null || { echo "skip: ethtool missing"; exit 77; }
ns=voff-gro-$$
ip netns add "$ns" 2>/dev/null || { echo "skip: cannot create a netns"; exit 77; }
trap 'ip netns del "$ns" 2>/dev/null' EXIT
in_ns() { ip netns exec "$ns" "$@"; }

in_ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 || true
in_ns ip link add name va type veth peer name vb || { echo "skip: no veth"; exit 77; }
in_ns ip link set va address 02:00:00:00:00:01
in_ns ip link set vb address 02:00:00:00:00:02
in_ns ethtool -K va tso off gso off >/dev/null 2>&1
in_ns ethtool -K vb gro on rx-udp-gro-forwarding on >/dev/null 2>&1 ||
	{ echo "skip: cannot enable GRO on veth"; exit 77; }
in_ns ip link set va up
in_ns ip link set vb up
# Threads named napi/vb-* may belong to other namespaces' veths (another
# run of this test): ours is the one that appears when we turn it on.
napi_pids() { ps -eo pid=,comm= | awk '$2 ~ /^napi\/vb-/ { print $1 }' | sort; }
before=$(napi_pids)
in_ns sh -c 'echo 1 > /sys/class/net/vb/threaded' ||
	{ echo "skip: no threaded NAPI"; exit 77; }
sleep 0.2
napi=$(comm -13 <(echo "$before") <(napi_pids) | head -n 1)
[ -n "$napi" ] || { echo "skip: NAPI thread of vb not found"; exit 77; }
taskset -p 1 "$napi" >/dev/null || { echo "skip: cannot pin NAPI"; exit 77; }

echo "kernel $(uname -r), NAPI thread $napi pinned to CPU 0"
VOFF_GRO_KERNEL=1 in_ns "$bin" "$@"
