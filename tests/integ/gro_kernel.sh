#!/bin/bash
# SPDX-License-Identifier: MIT
#
# gro_kernel.sh - the kernel as GRO oracle for voff's engine
#
#   netns voff-gro-$$ (lib_gro_ns.sh):
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
[ -x "$bin" ] || { echo "skip: $bin missing"; exit 77; }
# shellcheck source=tests/integ/lib_gro_ns.sh
. "$(dirname "$0")/lib_gro_ns.sh"
gro_ns_setup
gro_ns_run "$bin" "$@"
