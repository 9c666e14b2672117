#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# gso_cli.sh - `voff gso` end to end, no root needed.  python3 writes a
# capture of super-packets (TCP over IPv4 and IPv6, UDP, TCP in VXLAN, a
# small frame, a non-IP frame); voff gso segments it in each mode and
# `voff inspect -j` checks the result: frame counts and lengths, every
# checksum valid (full mode), payload bytes preserved in order, and the
# exit statuses (0 done, 1 a frame refused or a file error, 2 usage).
#
#   IN.pcap --voff gso [--mss|--ufo|--max-size|--csum]--> OUT.pcap
#                                   |
#                         voff inspect -j OUT.pcap
set -uo pipefail
: "${VOFF:?path of the voff binary}"
command -v python3 >/dev/null || { echo "skip: python3 missing"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

ok() {
	echo "ok: $*"
}

# The input capture.  Checksums are left zero: GSO recomputes them.
python3 - "$tmp/in.pcap" <<'EOF'
import struct, sys

def eth(t):
    return bytes([2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1]) + struct.pack('>H', t)

def ip4(proto, plen, ident=0x1234):
    return struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + plen, ident, 0x4000,
                       64, proto, 0, bytes([192, 0, 2, 1]),
                       bytes([192, 0, 2, 2]))

def ip6(nh, plen):
    return (struct.pack('>IHBB', 0x60000000, plen, nh, 64) +
            bytes([0x20, 1, 0xd, 0xb8] + [0] * 11 + [1]) +
            bytes([0x20, 1, 0xd, 0xb8] + [0] * 11 + [2]))

def tcp(seq, flags=0x18):
    return struct.pack('>HHIIBBHHH', 1000, 2000, seq, 1, 5 << 4, flags,
                       3000, 0, 0)

def udp(plen, dport=2000):
    return struct.pack('>HHHH', 1000, dport, 8 + plen, 0)

def pay(n, seed):
    return bytes((seed + i) & 0xFF for i in range(n))

frames = []
# 1: TCP/IPv4, 3072 B payload: 1460 + 1460 + 152 by default.
frames.append(eth(0x0800) + ip4(6, 20 + 3072) + tcp(1000) + pay(3072, 1))
# 2: TCP/IPv6, 5000 B payload: 3 x 1440 + 680 by default (1500 - 60).
frames.append(eth(0x86DD) + ip6(6, 20 + 5000) + tcp(7) + pay(5000, 2))
# 3: UDP/IPv4, 4000 B payload: USO 1472 + 1472 + 1056 by default.
frames.append(eth(0x0800) + ip4(17, 8 + 4000) + udp(4000) + pay(4000, 3))
# 4: TCP/IPv4 in VXLAN over IPv4, 3000 B inner payload: 1410 per segment
# by default (1500 minus the 90 header bytes after the outer Ethernet).
inner = eth(0x0800) + ip4(6, 20 + 3000, 0x77) + tcp(5) + pay(3000, 4)
vx = bytes([8, 0, 0, 0, 0, 0, 42, 0]) + inner
frames.append(eth(0x0800) + ip4(17, 8 + len(vx)) + udp(len(vx), 4789) + vx)
# 5: a small TCP frame with valid checksums: copied unchanged.
def csum(b):
    if len(b) % 2:
        b += b'\0'
    s = sum(struct.unpack('>%dH' % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF

ip = bytearray(ip4(6, 20 + 10))
ip[10:12] = struct.pack('>H', csum(bytes(ip)))
seg = bytearray(tcp(1) + pay(10, 5))
pseudo = bytes(ip[12:20]) + struct.pack('>HH', 6, len(seg))
seg[16:18] = struct.pack('>H', csum(pseudo + bytes(seg)))
frames.append(eth(0x0800) + bytes(ip) + bytes(seg))
# 6: not IP: copied.
frames.append(eth(0x88B5) + pay(100, 6))

with open(sys.argv[1], 'wb') as f:
    f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 262144, 1))
    for i, fr in enumerate(frames):
        f.write(struct.pack('<IIII', 1000 + i, 0, len(fr), len(fr)))
        f.write(fr)
EOF

# lengths FILE: the frame lengths of a capture, space-separated.
lengths() {
	"$VOFF" inspect -j "$1" | python3 -c '
import json, sys
print(" ".join(str(f["len"]) for f in json.load(sys.stdin)))'
}

# all_ok FILE: every checksum voff inspect can check is valid.
all_ok() {
	"$VOFF" inspect -j "$1" | python3 -c '
import json, sys
bad = [l for l in sys.stdin if "\"bad\"" in l]
sys.exit(1 if bad else 0)'
}

# expect_lengths WHAT FILE WANT
expect_lengths() {
	local got
	got=$(lengths "$2")
	if [[ "$got" == "$3" ]]; then
		ok "$1: $got"
	else
		fail "$1: lengths '$got', expected '$3'"
	fi
}

# Default MSS: 1500 minus each frame's own L3 + L4 headers.
if "$VOFF" gso "$tmp/in.pcap" "$tmp/out.pcap" 2>"$tmp/err"; then
	ok "default run"
else
	fail "default run: $(cat "$tmp/err")"
fi
expect_lengths "default MSS" "$tmp/out.pcap" \
"1514 1514 206 1514 1514 1514 754 1514 1514 1098 1514 1514 284 64 114"
if all_ok "$tmp/out.pcap"; then ok "checksums (full)"; else fail "checksums (full)"; fi
grep -q "6 frames: 4 segmented into 13, 2 copied, 0 failed" "$tmp/err" ||
	fail "summary: $(cat "$tmp/err")"

# Fixed MSS: every TCP/UDP payload in 1000-byte pieces; tunnel too.
"$VOFF" gso --mss 1000 "$tmp/in.pcap" "$tmp/mss.pcap" 2>/dev/null ||
	fail "--mss 1000"
expect_lengths "--mss 1000" "$tmp/mss.pcap" \
"1054 1054 1054 126 1074 1074 1074 1074 1074 1042 1042 1042 1042 1104 1104 1104 64 114"

# The payload bytes, concatenated per flow, are those of the input.
python3 - "$tmp/in.pcap" "$tmp/mss.pcap" <<'EOF' || fail "payload concatenation"
import struct, sys

def frames(path):
    d = open(path, 'rb').read()
    off, out = 24, []
    while off < len(d):
        incl = struct.unpack('<IIII', d[off:off + 16])[2]
        out.append(d[off + 16:off + 16 + incl])
        off += 16 + incl
    return out

inp, outp = frames(sys.argv[1]), frames(sys.argv[2])
# Payload offsets: TCP4 54, TCP6 74, UDP4 42, VXLAN inner TCP 104.
want = [(inp[0][54:], [f[54:] for f in outp[0:4]]),
        (inp[1][74:], [f[74:] for f in outp[4:9]]),
        (inp[2][42:], [f[42:] for f in outp[9:13]]),
        (inp[3][104:], [f[104:] for f in outp[13:16]])]
for whole, parts in want:
    if b''.join(parts) != whole:
        sys.exit(1)
EOF

# UFO: the UDP datagram as IP fragments (1480 bytes of IP payload each).
"$VOFF" gso --ufo "$tmp/in.pcap" "$tmp/ufo.pcap" 2>/dev/null || fail "--ufo"
expect_lengths "--ufo" "$tmp/ufo.pcap" \
"1514 1514 206 1514 1514 1514 754 1514 1514 1082 1514 1514 284 64 114"
if all_ok "$tmp/ufo.pcap"; then ok "checksums (ufo)"; else fail "checksums (ufo)"; fi

# Partial checksums: same lengths, TCP/UDP checksums are seeds.
"$VOFF" gso --csum partial "$tmp/in.pcap" "$tmp/part.pcap" 2>/dev/null ||
	fail "--csum partial"
expect_lengths "--csum partial" "$tmp/part.pcap" \
"1514 1514 206 1514 1514 1514 754 1514 1514 1098 1514 1514 284 64 114"

# Resegmentation to an egress limit: pieces shorter than 2100 bytes hold
# one default-MSS segment each, or four (three in VXLAN) of MSS 500.
"$VOFF" gso --max-size 2100 "$tmp/in.pcap" "$tmp/reseg.pcap" 2>/dev/null ||
	fail "--max-size"
expect_lengths "--max-size 2100" "$tmp/reseg.pcap" \
"1514 1514 206 1514 1514 1514 754 1514 1514 1098 1514 1514 284 64 114"
"$VOFF" gso --mss 500 --max-size 2100 "$tmp/in.pcap" "$tmp/reseg2.pcap" \
	2>/dev/null || fail "--mss 500 --max-size"
expect_lengths "--max-size 2100 (input mss 500)" "$tmp/reseg2.pcap" \
"2054 1126 2074 2074 1074 2042 2042 1604 1604 64 114"

# A refused frame (UFO gso_size not a multiple of 8) is copied, exit 1.
"$VOFF" gso --ufo --mss 1001 "$tmp/in.pcap" "$tmp/bad.pcap" 2>"$tmp/err"
rc=$?
if [[ $rc -eq 1 ]] && grep -q "frame 3: gso_size" "$tmp/err"; then
	ok "refused frame: exit 1"
else
	fail "refused frame: exit $rc, $(cat "$tmp/err")"
fi

# The 64 KiB super-packet of the bundled sample (frame 14: 65483 bytes of
# TCP payload) makes 46 segments at the default MSS of 1448: the output
# batch must hold them all (it held 45: "No space left on device").
if [[ -n ${VOFF_DATA:-} ]]; then
	"$VOFF" gso "$VOFF_DATA/sample.pcap" "$tmp/sample.pcap" 2>"$tmp/err"
	rc=$?
	if [[ $rc -eq 0 ]] && grep -q "1 segmented into 46," "$tmp/err"; then
		ok "64 KiB super-packet at the default MSS"
	else
		fail "64 KiB super-packet: exit $rc, $(cat "$tmp/err")"
	fi
fi

# A frame the capture's snap length cut (frame 1 kept to 60 of its 3126
# bytes) cannot be segmented: it is copied as captured, its on-wire length
# kept, reported once with its index, and the exit status is 1.
python3 - "$tmp/in.pcap" "$tmp/snap.pcap" <<'EOF2'
import struct, sys
d = open(sys.argv[1], 'rb').read()
cap = struct.unpack('<IIII', d[24:40])[2]
out = d[:24] + struct.pack('<IIII', 1000, 0, 60, cap) + d[40:100] + d[40 + cap:]
open(sys.argv[2], 'wb').write(out)
EOF2
"$VOFF" gso "$tmp/snap.pcap" "$tmp/snap-out.pcap" 2>"$tmp/err"
rc=$?
want="voff gso: $tmp/snap.pcap: frame 1: cut by the snap length, 60 of 3126 bytes (copied unchanged; 1 such frame)
voff gso: 6 frames: 3 segmented into 10, 2 copied, 0 failed, 1 snapped"
if [[ $rc -eq 1 && $(cat "$tmp/err") == "$want" ]]; then
	ok "snapped frame: copied, reported, exit 1"
else
	fail "snapped frame: exit $rc, $(cat "$tmp/err")"
fi
expect_lengths "snapped frame first" "$tmp/snap-out.pcap" \
"60 1514 1514 1514 754 1514 1514 1098 1514 1514 284 64 114"
"$VOFF" inspect "$tmp/snap-out.pcap" | head -1 >"$tmp/first"
# (The input's checksums are zero: GSO computes them.)
[[ $(cat "$tmp/first") == "1 len=60 wire=3126 eth@0+14 ipv4@14+20:bad tcp@34+20 [|tcp]" ]] ||
	fail "snapped frame in the output: $(cat "$tmp/first")"

# Usage errors: exit 2.
for args in "" "--csum nope a b" "--mss 0 a b" "only-one"; do
	# shellcheck disable=SC2086 # word splitting of the cases is wanted
	"$VOFF" gso $args >/dev/null 2>&1
	rc=$?
	if [[ $rc -eq 2 ]]; then ok "usage '$args': exit 2"; else fail "usage '$args': exit $rc"; fi
done
"$VOFF" gso "$tmp/missing.pcap" "$tmp/x.pcap" >/dev/null 2>&1
rc=$?
if [[ $rc -eq 1 ]]; then ok "missing input: exit 1"; else fail "missing input: exit $rc"; fi

if [[ $fails -ne 0 ]]; then
	echo "$fails failure(s)"
	exit 1
fi
echo "all passed"
