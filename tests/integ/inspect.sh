#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# inspect.sh - `voff inspect` end to end, no root needed: exact text lines
# and JSON fields for the bundled samples (tests/data, written by
# tests/unit/test_sample.c), standard input, pcapng, and captures made here
# (byte by byte with python3) for the cases the samples cannot show: a frame
# cut by the snap length, a frame too big to load, a damaged file, foreign
# link types, microsecond timestamps, an empty capture.  Checks every exit
# status (0 read to the end, 1 unreadable, 2 usage).  Where tshark is
# installed it must agree on frame count, lengths and timestamps.
set -uo pipefail
: "${VOFF:?path of the voff binary}" "${VOFF_DATA:?tests/data directory}"
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

# expect_status WANT DESCRIPTION -- COMMAND...: run, compare the exit status.
expect_status() {
	local want=$1 what=$2 got
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [[ $got -ne $want ]]; then
		fail "$what: exit $got, expected $want"
		sed 's/^/  stderr: /' "$tmp/err"
	else
		ok "$what (exit $want)"
	fi
}

# expect_text NAME FILE EXPECTED: voff inspect FILE must print EXPECTED.
expect_text() {
	local name=$1 file=$2 want=$3
	if ! "$VOFF" inspect "$file" >"$tmp/out" 2>"$tmp/err"; then
		fail "$name: voff inspect failed"
		cat "$tmp/err"
		return
	fi
	if ! diff -u <(printf '%s\n' "$want") "$tmp/out" >"$tmp/diff"; then
		fail "$name: text output differs"
		cat "$tmp/diff"
	else
		ok "$name: text output"
	fi
}

# ---- text output of the samples -------------------------------------------
sample=$VOFF_DATA/sample.pcap
rawip=$VOFF_DATA/sample-rawip.pcap

expect_text sample "$sample" "\
1 len=130 eth@0+14 ipv4@14+20:ok tcp@34+32:ok payload=64
2 len=118 eth@0+14 ipv6@14+40 ipv6_hopopts@54+8 ipv6_dstopts@62+16 tcp@78+40:ok payload=0
3 len=72 eth@0+14 ipv4@14+20:ok udp@34+8:none payload=30
4 len=158 eth@0+14 vlan@14+4 ipv4@18+20:ok tcp@38+20:ok payload=100
5 len=118 eth@0+14 qinq@14+4 vlan@18+4 ipv6@22+40 udp@62+8:ok payload=48
6 len=74 eth@0+14 ipv4@14+32:ok udp@46+8:ok payload=20
7 len=114 eth@0+14 ipv4@14+20:ok payload=80
8 len=340 eth@0+14 vlan@14+4 ipv4@18+20:ok udp@38+8:ok vxlan@46+8 eth@54+14 ipv6@68+40 tcp@108+32:ok payload=200
9 len=160 eth@0+14 ipv6@14+40 udp@54+8:ok geneve@62+16 eth@78+14 ipv4@92+20:ok udp@112+8:ok payload=40
10 len=150 eth@0+14 ipv4@14+20:ok gre@34+16:ok ipv4@50+20:ok tcp@70+20:ok payload=60
11 len=70 eth@0+14 ipv4@14+20:ok tcp@34+20:bad payload=16
12 len=44 eth@0+14 ipv4@14+20 error=trunc_tcp (frame ends inside the TCP header)
13 len=52 eth@0+14 error=ipv4_ihl (IPv4 header length below 20 bytes)
14 len=65549 eth@0+14 ipv4@14+20:ok tcp@34+32:ok payload=65483"

expect_text sample-rawip "$rawip" "\
1 len=60 ipv4@0+20:ok tcp@20+40:ok payload=0
2 len=73 ipv6@0+40 udp@40+8:ok payload=25
3 len=112 ipv6@0+40 ipv6_frag@40+8 udp@48+8:none payload=56
4 len=40 ipv4@0+20:bad udp@20+8:ok payload=12"

# ---- JSON output of the samples -------------------------------------------
"$VOFF" inspect -j "$sample" >"$tmp/sample.json" || fail "inspect -j sample"
"$VOFF" inspect -j "$rawip" >"$tmp/rawip.json" || fail "inspect -j rawip"
if python3 - "$tmp/sample.json" "$tmp/rawip.json" <<'PY'; then
import json
import sys

KEYS = ["index", "len", "layers", "offsets", "l3_off", "l4_off",
        "inner_l3_off", "inner_l4_off", "payload_len", "csum"]
bad = []


def check(cond, what):
    if not cond:
        bad.append(what)


def load(path):
    frames = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            check(line.endswith("\n") and "\n" not in line[:-1],
                  f"{path}:{n}: one object per line")
            frames.append(json.loads(line))
    return frames


def common(fr, i):
    keys = list(fr)
    want = KEYS + (["error"] if "error" in fr else [])
    check(keys == want, f"frame {i}: keys {keys}")
    check(fr["index"] == i, f"frame {i}: index {fr['index']}")
    check([o["proto"] for o in fr["offsets"]] == fr["layers"],
          f"frame {i}: offsets follow layers")
    end = 0
    for o in fr["offsets"]:
        check(list(o) == ["proto", "off", "len"], f"frame {i}: offset keys")
        check(o["off"] >= end and o["off"] + o["len"] <= fr["len"],
              f"frame {i}: {o} inside the frame, in order")
        end = o["off"] + o["len"]
    for v in fr["csum"].values():
        check(v in ("ok", "bad", "none"), f"frame {i}: verdict {v}")
    if "error" in fr:
        check(list(fr["error"]) == ["name", "message"],
              f"frame {i}: error keys")
        check(fr["payload_len"] is None and fr["csum"] == {},
              f"frame {i}: no payload_len/csum on error")


eth = load(sys.argv[1])
raw = load(sys.argv[2])
check(len(eth) == 14 and len(raw) == 4, "frame counts")
for i, fr in enumerate(eth + raw):
    common(fr, i + 1 if i < len(eth) else i + 1 - len(eth))

want = {
    # index: (layers, l3_off, l4_off, inner_l3, inner_l4, payload, csum)
    1: ("eth ipv4 tcp", 14, 34, None, None, 64,
        {"ipv4": "ok", "tcp": "ok"}),
    2: ("eth ipv6 ipv6_hopopts ipv6_dstopts tcp", 14, 78, None, None, 0,
        {"tcp": "ok"}),
    3: ("eth ipv4 udp", 14, 34, None, None, 30,
        {"ipv4": "ok", "udp": "none"}),
    4: ("eth vlan ipv4 tcp", 18, 38, None, None, 100,
        {"ipv4": "ok", "tcp": "ok"}),
    5: ("eth qinq vlan ipv6 udp", 22, 62, None, None, 48, {"udp": "ok"}),
    6: ("eth ipv4 udp", 14, 46, None, None, 20,
        {"ipv4": "ok", "udp": "ok"}),
    7: ("eth ipv4", 14, None, None, None, 80, {"ipv4": "ok"}),
    8: ("eth vlan ipv4 udp vxlan eth ipv6 tcp", 18, 38, 68, 108, 200,
        {"ipv4": "ok", "udp": "ok", "inner_tcp": "ok"}),
    9: ("eth ipv6 udp geneve eth ipv4 udp", 14, 54, 92, 112, 40,
        {"udp": "ok", "inner_ipv4": "ok", "inner_udp": "ok"}),
    10: ("eth ipv4 gre ipv4 tcp", 14, 34, 50, 70, 60,
         {"ipv4": "ok", "gre": "ok", "inner_ipv4": "ok", "inner_tcp": "ok"}),
    11: ("eth ipv4 tcp", 14, 34, None, None, 16,
         {"ipv4": "ok", "tcp": "bad"}),
    12: ("eth ipv4", 14, None, None, None, None, {}),
    13: ("eth", None, None, None, None, None, {}),
    14: ("eth ipv4 tcp", 14, 34, None, None, 65483,
         {"ipv4": "ok", "tcp": "ok"}),
}
for fr in eth:
    w = want[fr["index"]]
    got = (" ".join(fr["layers"]), fr["l3_off"], fr["l4_off"],
           fr["inner_l3_off"], fr["inner_l4_off"], fr["payload_len"],
           fr["csum"])
    check(got == w, f"frame {fr['index']}: {got} != {w}")
check(eth[11]["error"] == {"name": "trunc_tcp",
                           "message": "frame ends inside the TCP header"},
      f"frame 12 error {eth[11].get('error')}")
check(eth[12]["error"]["name"] == "ipv4_ihl", "frame 13 error")
check(all("error" not in fr for fr in eth[:11] + eth[13:]),
      "only frames 12 and 13 have errors")
check(eth[13]["len"] == 65549, "super-packet length")
check([fr["csum"] for fr in raw] ==
      [{"ipv4": "ok", "tcp": "ok"}, {"udp": "ok"}, {"udp": "none"},
       {"ipv4": "bad", "udp": "ok"}], "raw-ip verdicts")
check([fr["l3_off"] for fr in raw] == [0, 0, 0, 0], "raw-ip l3_off")
check(raw[2]["layers"] == ["ipv6", "ipv6_frag", "udp"], "raw-ip fragment")

for b in bad:
    print("  " + b)
sys.exit(1 if bad else 0)
PY
	ok "JSON fields of the samples"
else
	fail "JSON fields of the samples"
fi

# ---- standard input, pcapng -----------------------------------------------
"$VOFF" inspect "$sample" >"$tmp/file.txt"
if "$VOFF" inspect - <"$sample" >"$tmp/stdin.txt" &&
   cmp -s "$tmp/file.txt" "$tmp/stdin.txt"; then
	ok "standard input gives the same output"
else
	fail "standard input"
fi

if command -v editcap >/dev/null; then
	if editcap -F pcapng "$sample" "$tmp/sample.pcapng" 2>/dev/null &&
	   "$VOFF" inspect "$tmp/sample.pcapng" >"$tmp/ng.txt" &&
	   cmp -s "$tmp/file.txt" "$tmp/ng.txt"; then
		ok "pcapng gives the same output"
	else
		fail "pcapng"
	fi
else
	echo "skip: editcap missing, pcapng not checked"
fi

# ---- captures made here -----------------------------------------------------
# mkcap OUT MAGIC LINKTYPE [CAPLEN:LEN[:SEC:FRAC]]...: a classic pcap file
# whose records hold the bytes of frame 1 of the sample (an IPv4/TCP frame
# of 130 bytes), repeated or cut to CAPLEN; a CAPLEN above 130 pads it.
mkcap() {
	python3 - "$sample" "$@" <<'PY'
import struct
import sys

src, out, magic, linktype = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
with open(src, "rb") as f:
    data = f.read()
frame = data[24 + 16:24 + 16 + 130]
body = struct.pack("=IHHiIII", int(magic, 0), 2, 4, 0, 0, 262144,
                   int(linktype))
for rec in sys.argv[5:]:
    parts = [int(x) for x in rec.split(":")]
    caplen, length = parts[0], parts[1]
    sec, frac = (parts[2], parts[3]) if len(parts) > 2 else (1, 0)
    payload = (frame * (caplen // len(frame) + 1))[:caplen]
    body += struct.pack("=IIII", sec, frac, caplen, length) + payload
with open(out, "wb") as f:
    f.write(body)
PY
}

# A frame cut by the snap length is flagged and parsed as far as it goes.
mkcap "$tmp/snap.pcap" 0xa1b23c4d 1 130:130 40:130 130:130
expect_text snapped "$tmp/snap.pcap" "\
1 len=130 eth@0+14 ipv4@14+20:ok tcp@34+32:ok payload=64
2 len=40 snapped eth@0+14 ipv4@14+20 error=trunc_tcp (frame ends inside the TCP header)
3 len=130 eth@0+14 ipv4@14+20:ok tcp@34+32:ok payload=64"
if "$VOFF" inspect -j "$tmp/snap.pcap" | sed -n 2p |
   python3 -c 'import json,sys; o=json.load(sys.stdin); sys.exit(not (o["snapped"] is True and o["len"] == 40 and list(o)[2] == "snapped" and o["error"]["name"] == "trunc_tcp"))'; then
	ok "snapped frame in JSON"
else
	fail "snapped frame in JSON"
fi

# A frame too big for any packet is reported and the run goes on.
mkcap "$tmp/big.pcap" 0xa1b23c4d 1 130:130 70000:70000 130:130
expect_text too-big "$tmp/big.pcap" "\
1 len=130 eth@0+14 ipv4@14+20:ok tcp@34+32:ok payload=64
2 len=0 error=too_big (frame larger than the buffer)
3 len=130 eth@0+14 ipv4@14+20:ok tcp@34+32:ok payload=64"

# Microsecond timestamps, and a capture with no frames at all.
mkcap "$tmp/usec.pcap" 0xa1b2c3d4 1 130:130:5:250000
expect_text usec "$tmp/usec.pcap" \
	"1 len=130 eth@0+14 ipv4@14+20:ok tcp@34+32:ok payload=64"
mkcap "$tmp/empty.pcap" 0xa1b23c4d 1
expect_status 0 "empty capture" -- "$VOFF" inspect "$tmp/empty.pcap"
[[ -s $tmp/out ]] && fail "empty capture printed something"

# Raw IP under its other link types: LINKTYPE_IPV4 (228), old DLT_RAW (12).
python3 - "$rawip" "$tmp/ipv4lt.pcap" <<'PY'
import struct
import sys

data = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("=I", data, 20, 228)
open(sys.argv[2], "wb").write(data)
PY
"$VOFF" inspect "$rawip" >"$tmp/raw.txt"
if "$VOFF" inspect "$tmp/ipv4lt.pcap" | head -n1 | cmp -s - <(head -n1 "$tmp/raw.txt"); then
	ok "LINKTYPE_IPV4 reads as raw IP"
else
	fail "LINKTYPE_IPV4"
fi

# Damaged frames (sample frames with random bytes changed and random cuts,
# fixed seed): every one is reported, valid JSON, and the run goes on.
python3 - "$sample" "$tmp/mutants.pcap" <<'PY'
import random
import struct
import sys

data = open(sys.argv[1], "rb").read()
frames, pos = [], 24
while pos < len(data):
    _, _, cap, _ = struct.unpack_from("=IIII", data, pos)
    frames.append(data[pos + 16:pos + 16 + cap])
    pos += 16 + cap
rng = random.Random(1)
out = bytearray(data[:24])
for i in range(300):
    f = bytearray(rng.choice(frames[:13]))
    for _ in range(rng.randrange(1, 4)):
        f[rng.randrange(len(f))] = rng.randrange(256)
    if i % 3 == 0:
        f = f[:rng.randrange(len(f) + 1)]
    out += struct.pack("=IIII", 1, i, len(f), len(f)) + f
open(sys.argv[2], "wb").write(out)
PY
if "$VOFF" inspect "$tmp/mutants.pcap" >"$tmp/mut.txt" &&
   "$VOFF" inspect -j "$tmp/mutants.pcap" >"$tmp/mut.json" &&
   [[ $(wc -l <"$tmp/mut.txt") -eq 300 ]] &&
   python3 - "$tmp/mut.json" <<'PY'; then
import json
import sys

lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 300
for i, line in enumerate(lines, 1):
    o = json.loads(line)
    assert o["index"] == i
    assert [x["proto"] for x in o["offsets"]] == o["layers"]
    assert all(x["off"] + x["len"] <= o["len"] for x in o["offsets"])
    assert ("error" in o) == (o["payload_len"] is None)
PY
	ok "300 damaged frames reported, none stops the run"
else
	fail "damaged frames"
fi

# ---- exit statuses ------------------------------------------------------------
expect_status 0 "--help" -- "$VOFF" inspect --help
grep -q "usage: voff inspect" "$tmp/out" || fail "--help prints the usage on stdout"
expect_status 0 "-h" -- "$VOFF" inspect -h
expect_status 2 "no file" -- "$VOFF" inspect
grep -q "usage: voff inspect" "$tmp/err" || fail "usage error prints the usage on stderr"
expect_status 2 "two files" -- "$VOFF" inspect "$sample" "$sample"
expect_status 2 "unknown option" -- "$VOFF" inspect -x "$sample"
expect_status 2 "unknown command" -- "$VOFF" inspekt "$sample"

expect_status 1 "missing file" -- "$VOFF" inspect "$tmp/nonexistent.pcap"
grep -q "nonexistent.pcap" "$tmp/err" || fail "missing file: message names the file"
printf 'not a capture\n' >"$tmp/text.pcap"
expect_status 1 "not a capture" -- "$VOFF" inspect "$tmp/text.pcap"
mkcap "$tmp/sll.pcap" 0xa1b23c4d 113 130:130
expect_status 1 "Linux cooked link type" -- "$VOFF" inspect "$tmp/sll.pcap"
grep -q "LINUX_SLL" "$tmp/err" || fail "link type message names the link type"
expect_status 1 "directory" -- "$VOFF" inspect "$tmp"

# Damaged part way: the frames before the damage are printed, then exit 1.
head -c $((24 + 16 + 130 + 16 + 118 + 16 + 50)) "$sample" >"$tmp/cut.pcap"
expect_status 1 "file cut inside frame 3" -- "$VOFF" inspect "$tmp/cut.pcap"
if [[ $(wc -l <"$tmp/out") -eq 2 ]] && grep -q "frame 3" "$tmp/err"; then
	ok "frames before the damage printed, damage reported"
else
	fail "damaged file output"
	cat "$tmp/out" "$tmp/err"
fi

if [[ -w /dev/full ]]; then
	"$VOFF" inspect "$sample" >/dev/full 2>/dev/null
	rc=$?
	if [[ $rc -eq 1 ]]; then
		ok "unwritable output (exit 1)"
	else
		fail "unwritable output: exit $rc, expected 1"
	fi
fi

# ---- tshark reads what voff writes --------------------------------------------
if command -v tshark >/dev/null; then
	tshark -r "$sample" -T fields -e frame.len -e frame.time_epoch \
		2>/dev/null >"$tmp/tshark.txt"
	if python3 - "$tmp/sample.json" "$tmp/tshark.txt" <<'PY'; then
import json
import sys

ours = [json.loads(l)["len"] for l in open(sys.argv[1])]
theirs = [l.split("\t") for l in open(sys.argv[2]).read().splitlines()]
want_t = ["1764374400.%09d" % (i * 1000001) for i in range(len(ours))]
ok = ([int(t[0]) for t in theirs] == ours and
      [t[1] for t in theirs] == want_t)
sys.exit(0 if ok else 1)
PY
		ok "tshark agrees on lengths and ns timestamps"
	else
		fail "tshark disagrees on lengths or timestamps"
	fi
else
	echo "skip: tshark missing"
fi

if [[ $fails -ne 0 ]]; then
	echo "$fails check(s) failed"
	exit 1
fi
echo "all inspect checks passed"
