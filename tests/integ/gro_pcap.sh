#!/bin/bash
# SPDX-License-Identifier: MIT
#
# gro_pcap.sh - `voff gro` over small generated captures
#
#   frames.py --> in.pcap --> voff gro [options] --> out.pcap --> voff inspect
#
# Checks the frame boundaries voff gro writes (lengths in order) for the
# batch-end default, a flush timeout driven by capture timestamps, a lower
# --max-size, UDP with and without --no-udp, and that every written frame's
# IPv4 and TCP/UDP checksums verify; then the usage and read errors.
# Needs python3 to write the input captures (skips with 77 otherwise).
set -u

VOFF=${VOFF:?set VOFF to the voff binary}
command -v python3 >/dev/null || { echo "skip: python3 missing"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# gen NAME SPEC...: SPEC is proto:sport:seq:len:id:flags:time_us
gen() {
	local name=$1
	shift
	python3 - "$tmp/$name.pcap" "$@" <<'PY'
import struct, sys
def csum(b):
    if len(b) % 2:
        b += b'\0'
    s = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
def frame(proto, sport, seq, n, ident, flags):
    pay = bytes((seq + i) & 255 for i in range(n))
    src, dst = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])
    if proto == 'tcp':
        l4 = struct.pack('!HHIIBBHHH', sport, 80, seq, 1, 0x50, flags,
                         3000, 0, 0) + pay
        num, at = 6, 16
    else:
        l4 = struct.pack('!HHHH', sport, 80, 8 + n, 0) + pay
        num, at = 17, 6
    c = csum(src + dst + struct.pack('!xBH', num, len(l4)) + l4) or 0xffff
    l4 = l4[:at] + struct.pack('!H', c) + l4[at + 2:]
    h = struct.pack('!BBHHHBBH', 0x45, 0, 20 + len(l4), ident, 0x4000, 64,
                    num, 0) + src + dst
    h = h[:10] + struct.pack('!H', csum(h)) + h[12:]
    return bytes([2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 8, 0]) + h + l4
with open(sys.argv[1], 'wb') as f:
    f.write(struct.pack('<IHHiIII', 0xa1b23c4d, 2, 4, 0, 0, 262144, 1))
    for spec in sys.argv[2:]:
        p, sport, seq, n, ident, flags, us = spec.split(':')
        fr = frame(p, int(sport), int(seq), int(n), int(ident), int(flags, 0))
        ns = 1000000000 + int(us) * 1000
        f.write(struct.pack('<IIII', ns // 10**9, ns % 10**9, len(fr),
                            len(fr)) + fr)
PY
}

# expect NAME "LEN LEN ..." [voff gro options]: run and compare lengths.
expect() {
	local name=$1 want=$2 got
	shift 2
	if ! "$VOFF" gro "$@" "$tmp/$name.pcap" "$tmp/$name.out.pcap" \
		2>"$tmp/err"; then
		echo "FAIL $name: voff gro failed: $(cat "$tmp/err")"
		fail=1
		return
	fi
	"$VOFF" inspect "$tmp/$name.out.pcap" >"$tmp/inspect"
	got=$(sed -n 's/^[0-9]* len=\([0-9]*\) .*/\1/p' "$tmp/inspect" |
		tr '\n' ' ' | sed 's/ $//')
	if [ "$got" != "$want" ]; then
		echo "FAIL $name $*: lengths '$got', want '$want'"
		fail=1
	fi
	if grep -q ':bad' "$tmp/inspect"; then
		echo "FAIL $name: a checksum does not verify"
		cat "$tmp/inspect"
		fail=1
	fi
}

# One flow of five 100-byte segments ending in PSH, one other flow.
gen tcp tcp:1000:1:100:0:0x10:0 tcp:1000:101:100:1:0x10:1 \
	tcp:1000:201:100:2:0x10:2 tcp:1000:301:100:3:0x10:3 \
	tcp:2000:1:100:0:0x10:4 tcp:1000:401:100:4:0x18:6
expect tcp "554 154"
# Held at most 2.5 us of capture time: the first train leaves when the
# 3 us frame arrives, the next at 6 us, before the PSH segment, which then
# has nothing to join and passes.
expect tcp "354 154 154 154" --flush-timeout 2500
# Merged IP datagrams of at most 240 bytes: two segments each.
expect tcp "254 254 154 154" --max-size 240
# One flow at a time: port 2000 evicts the first train; the PSH segment
# then has nothing to join.
expect tcp "454 154 154" --max-flows 1
# UDP: equal datagrams merge, a smaller one ends the train.
gen udp udp:7:0:200:0:0:0 udp:7:0:200:1:0:1 udp:7:0:50:2:0:2 \
	udp:7:0:200:3:0:3
expect udp "492 242"
expect udp "242 242 92 242" --no-udp

# A frame the capture's snap length cut (the third of a train, kept to 60
# of its 154 bytes) cannot be merged: the held train leaves first, the cut
# frame passes as captured with its on-wire length, the rest merges; one
# note names it and the exit status stays 0.
python3 - "$tmp/tcp.pcap" "$tmp/snap.pcap" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
out, pos, n = bytearray(d[:24]), 24, 0
while pos < len(d):
    s, ns, cap, ln = struct.unpack_from('<IIII', d, pos)
    body = d[pos + 16:pos + 16 + cap]
    n += 1
    if n == 3:
        body = body[:60]
    out += struct.pack('<IIII', s, ns, len(body), ln) + body
    pos += 16 + cap
open(sys.argv[2], 'wb').write(out)
PY
"$VOFF" gro "$tmp/snap.pcap" "$tmp/snap.out.pcap" 2>"$tmp/err"
rc=$?
want="voff gro: $tmp/snap.pcap: frame 3: cut by the snap length, 60 of 154 bytes (passed unchanged; 1 such frame)
voff gro: 6 frames in, 4 out (2 super-packets of 4 segments), 0 passed, 0 bad checksums, 1 snapped"
if [ $rc -ne 0 ] || [ "$(cat "$tmp/err")" != "$want" ]; then
	echo "FAIL snapped frame: exit $rc, $(cat "$tmp/err")"
	fail=1
fi
got=$("$VOFF" inspect "$tmp/snap.out.pcap" |
	sed 's/^[0-9]* \(len=[0-9]*\( wire=[0-9]*\)\{0,1\}\) .*/\1/' | tr '\n' ' ')
if [ "$got" != "len=254 len=60 wire=154 len=254 len=154 " ]; then
	echo "FAIL snapped frame: output '$got'"
	fail=1
fi

# Usage and read errors.
"$VOFF" gro "$tmp/tcp.pcap" 2>/dev/null
[ $? -eq 2 ] || { echo "FAIL: one file must be a usage error"; fail=1; }
"$VOFF" gro --max-size 70000 "$tmp/tcp.pcap" "$tmp/x.pcap" 2>/dev/null
[ $? -eq 2 ] || { echo "FAIL: --max-size 70000 accepted"; fail=1; }
"$VOFF" gro "$tmp/none.pcap" "$tmp/x.pcap" 2>/dev/null
[ $? -eq 1 ] || { echo "FAIL: a missing input must exit 1"; fail=1; }

[ $fail -eq 0 ] && echo "gro_pcap: all passed"
exit $fail
