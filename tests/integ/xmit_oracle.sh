#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# xmit_oracle.sh - the kernel as oracle for the transmit decision: a TCP
# super-packet sent through AF_PACKET (with a virtio_net_hdr) out of a veth
# either arrives whole at the peer or in segments; voff_xmit_decide() given
# the veth's `ethtool -k` and limits must say which.
#
# TCP and UDP (USO) over IPv4; the count of frames and their checksums
# (complete or still partial) are checked.
#
#   netns voff-xmit-PID
#   +--------------------------------------------------------+
#   |  helper --AF_PACKET+vnet_hdr--> va ==veth==> vb --> helper  |
#   |           (ethtool -K va ..., ip link set va gso_max_*)     |
#   +--------------------------------------------------------+
#
# The helper (xmit_oracle_helper.c) is compiled here against the build's
# libvoff.a.  AF_PACKET marks such packets DODGY with gso_segs 0: the
# kernel then passes them whole to a veth that takes TCP GSO even past
# gso_max_segs (it only recounts gso_segs), which voff reproduces with
# VOFF_XMIT_KERNEL; voff's own default would resegment instead.
#
# Skips (77) when not root, or ip/ethtool/cc or the build are missing.
set -uo pipefail

[[ $(id -u) -eq 0 ]] || { echo "skip: not root"; exit 77; }
for t in ip ethtool cc; do
	command -v "$t" >/dev/null || { echo "skip: $t missing"; exit 77; }
done
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${VOFF_BUILD:-}
if [[ ! -f $build/libvoff.a ]]; then
	echo "skip: \$VOFF_BUILD has no libvoff.a"
	exit 77
fi

NS=voff-xmit-$$
TMP=$(mktemp -d)
cleanup() {
	ip netns del "$NS" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

san=()
if grep -q '^VOFF_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
	san=("-fsanitize=address,undefined")
fi
if ! cc -std=c11 -D_GNU_SOURCE -O1 "${san[@]}" -I"$root/include" \
	"$root/tests/integ/xmit_oracle_helper.c" "$build/libvoff.a" \
	-lpcap -lmnl -o "$TMP/helper"; then
	echo "the helper does not build"
	exit 1
fi

ip netns add "$NS" || { echo "skip: cannot create a netns"; exit 77; }
nsx() { ip netns exec "$NS" "$@"; }

pass=0
fail=0

# run "ethtool -K request" gso_max_size gso_max_segs payload mss csum [udp]
run() {
	local req=$1 size=$2 segs=$3 payload=$4 mss=$5 csum=$6 proto=${7:-tcp}
	local out
	nsx ip link del va 2>/dev/null
	nsx ip link add va type veth peer name vb || exit 1
	# shellcheck disable=SC2086 # the request is a word list on purpose
	[[ -n $req ]] && nsx ethtool -K va $req >/dev/null 2>&1
	nsx ip link set va gso_max_size "$size" gso_max_segs "$segs" || exit 1
	nsx ip link set va up
	nsx ip link set vb up
	nsx ethtool -k va >"$TMP/feat"
	if out=$(nsx "$TMP/helper" va vb "$TMP/feat" "$size" "$segs" \
		"$payload" "$mss" "$csum" "$proto"); then
		echo "ok: $proto '$req' size $size segs $segs" \
			"payload $payload: $out"
		pass=$((pass + 1))
	else
		echo "MISMATCH: $proto '$req' size $size segs $segs" \
			"payload $payload" \
			"mss $mss $csum: $out"
		fail=$((fail + 1))
	fi
}

#   request                 gso_max_size segs payload mss csum
run ""                      65536 65535 20000 1400 partial  # whole
run "tso off"               65536 65535 20000 1400 partial  # segmented
run "sg off"                65536 65535 20000 1400 partial  # no SG: no TSO
run "tx off"                65536 65535 20000 1400 partial  # no csum
run "gso off"               65536 65535 20000 1400 partial  # GSO bit only
run ""                      16000 65535 20000 1400 partial  # over the size
run ""                      20054 65535 20000 1400 partial  # len == limit
run ""                      20055 65535 20000 1400 partial  # one below
run ""                      65536 5     20000 1400 partial  # DODGY, segs 0
run ""                      65536 65535 20000 1400 none     # not partial
run "tx-tcp-segmentation off tx-tcp6-segmentation off" \
                            65536 65535 30000 1000 partial
run ""                      65536 65535 1000  1400 partial  # plain frame
run "tx off"                65536 65535 1000  1400 partial  # csum in sw
# USO: one UDP datagram of 1400 bytes per segment
run ""                      65536 65535 14000 1400 partial udp  # whole
run "tx off"                65536 65535 14000 1400 partial udp  # rule 8
run "tx-udp-segmentation off" \
                            65536 65535 14000 1400 partial udp
run "sg off"                65536 65535 14000 1400 partial udp  # no SG ok
run ""                      8000  65535 14000 1400 partial udp  # size
run "tx off"                65536 65535 1000  1400 partial udp  # csum sw

echo "xmit_oracle: $pass agree, $fail differ"
[[ $fail -eq 0 ]]
