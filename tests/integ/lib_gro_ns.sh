# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# lib_gro_ns.sh - the namespace of the GRO kernel oracle, sourced by
# tests/integ/gro_kernel.sh and tests/vectors/generate.sh
#
#   netns voff-gro-PID:
#     sender --AF_PACKET--> va ===veth===> vb --GRO (threaded NAPI,
#     (CPU 0, SCHED_FIFO   (tso/gso off)    pinned to CPU 0)
#      per batch of <= 64)                    |
#     sender <--AF_PACKET + PACKET_VNET_HDR---'
#
# gro_ns_setup creates it (removed at exit) or exits 77 (skip) without
# root, ethtool, veth, GRO on veth or threaded NAPI; then `gro_ns_run CMD`
# runs CMD inside it with VOFF_GRO_KERNEL=1 (tests/lib/gro_oracle.h).
# Not a test itself: it exits 77 when run directly.

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	echo "skip: a library, sourced by the GRO kernel oracle scripts"
	exit 77
fi

gro_ns=voff-gro-$$

in_gro_ns() { ip netns exec "$gro_ns" "$@"; }

# Threads named napi/vb-* may belong to other namespaces' veths (another
# run of the oracle): ours is the one that appears when we turn it on.
gro_napi_pids() {
	ps -eo pid=,comm= | awk '$2 ~ /^napi\/vb-/ { print $1 }' | sort
}

gro_ns_setup() {
	local before napi
	[ "$(id -u)" -eq 0 ] || { echo "skip: not root"; exit 77; }
	command -v ethtool >/dev/null ||
		{ echo "skip: ethtool missing"; exit 77; }
	ip netns add "$gro_ns" 2>/dev/null ||
		{ echo "skip: cannot create a netns"; exit 77; }
	trap 'ip netns del "$gro_ns" 2>/dev/null' EXIT
	in_gro_ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 || true
	in_gro_ns ip link add name va type veth peer name vb ||
		{ echo "skip: no veth"; exit 77; }
	in_gro_ns ip link set va address 02:00:00:00:00:01
	in_gro_ns ip link set vb address 02:00:00:00:00:02
	in_gro_ns ethtool -K va tso off gso off >/dev/null 2>&1
	in_gro_ns ethtool -K vb gro on rx-udp-gro-forwarding on \
		>/dev/null 2>&1 ||
		{ echo "skip: cannot enable GRO on veth"; exit 77; }
	in_gro_ns ip link set va up
	in_gro_ns ip link set vb up
	before=$(gro_napi_pids)
	in_gro_ns sh -c 'echo 1 > /sys/class/net/vb/threaded' ||
		{ echo "skip: no threaded NAPI"; exit 77; }
	# The kernel starts the thread in the background: until it shows (5 s;
	# this file is sourced without tests/integ/lib_ns.sh's wait_until).
	for _ in $(seq 50); do
		napi=$(comm -13 <(echo "$before") <(gro_napi_pids) | head -n 1)
		[ -n "$napi" ] && break
		sleep 0.1
	done
	[ -n "$napi" ] || { echo "skip: NAPI thread of vb not found"; exit 77; }
	taskset -p 1 "$napi" >/dev/null ||
		{ echo "skip: cannot pin NAPI"; exit 77; }
	echo "kernel $(uname -r), NAPI thread $napi pinned to CPU 0"
}

gro_ns_run() { VOFF_GRO_KERNEL=1 in_gro_ns "$@"; }
