#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# inspect.sh - `voff inspect` end to end, no root needed: exact text lines
# and JSON fields for the bundled samples (tests/data, written by
# tests/unit/test_sample.c), standard input, pcapng, and captures made here
# (byte by byte with python3) for the cases the samples cannot show: a frame
# cut by the snap length, a frame too big to load, a damaged file, foreign
# link types, microsecond timestamps, an empty capture, 300 damaged frames.
# Checks every exit status (0 read to the end, 1 unreadable, 2 usage).
# Where tshark is installed it must agree on frame lengths and timestamps.
#
# python3 runs twice only (it starts slowly on a loaded machine): once to
# make the captures, once to check every JSON output at the end.
set -uo pipefail
: "${VOFF:?path of the voff binary}" "${VOFF_DATA:?tests/data directory}"
command -v python3 >/dev/null || { echo "skip: python3 missing"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
sample=$VOFF_DATA/sample.pcap
rawip=$VOFF_DATA/sample-rawip.pcap

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

# ---- captures made here -------------------------------------------------------
# Classic pcap files whose records hold frame 1 of the sample (IPv4/TCP,
# 130 bytes), cut or repeated to each record's stored length.
python3 - "$sample" "$rawip" "$tmp" <<'PY'
import random
import struct
import sys

sample, rawip, tmp = sys.argv[1:4]
data = open(sample, "rb").read()
frames, pos = [], 24
while pos < len(data):
    _, _, cap, _ = struct.unpack_from("=IIII", data, pos)
    frames.append(data[pos + 16:pos + 16 + cap])
    pos += 16 + cap
first = frames[0]
NSEC, USEC = 0xa1b23c4d, 0xa1b2c3d4


def cap(name, magic, linktype, records):
    body = struct.pack("=IHHiIII", magic, 2, 4, 0, 0, 262144, linktype)
    for caplen, length, sec, frac in records:
        payload = (first * (caplen // len(first) + 1))[:caplen]
        body += struct.pack("=IIII", sec, frac, caplen, length) + payload
    open(f"{tmp}/{name}", "wb").write(body)


cap("snap.pcap", NSEC, 1, [(130, 130, 1, 0), (40, 130, 1, 1),
                           (130, 130, 1, 2), (70, 130, 1, 3),
                           (34, 130, 1, 4)])
# Sample frames 2 (IPv6, hop-by-hop, destination options, TCP) and 13 (IPv4
# header length below 20: malformed before any cut), cut by a snap length.
body = data[:24]
for n, cut in ((1, 60), (1, 100), (12, 40)):
    body += struct.pack("=IIII", 1, n, cut, len(frames[n])) + frames[n][:cut]
open(f"{tmp}/snap2.pcap", "wb").write(body)
cap("big.pcap", NSEC, 1, [(130, 130, 1, 0), (70000, 70000, 1, 1),
                          (130, 130, 1, 2)])
cap("usec.pcap", USEC, 1, [(130, 130, 5, 250000)])
cap("empty.pcap", NSEC, 1, [])
cap("sll.pcap", NSEC, 113, [(130, 130, 1, 0)])

# The raw-IP sample under LINKTYPE_IPV4 (228).
raw = bytearray(open(rawip, "rb").read())
struct.pack_into("=I", raw, 20, 228)
open(f"{tmp}/ipv4lt.pcap", "wb").write(raw)

# Sample frames with random bytes changed and random cuts (fixed seed).
rng = random.Random(1)
out = bytearray(data[:24])
for i in range(300):
    f = bytearray(rng.choice(frames[:13]))
    for _ in range(rng.randrange(1, 4)):
        f[rng.randrange(len(f))] = rng.randrange(256)
    if i % 3 == 0:
        f = f[:rng.randrange(len(f) + 1)]
    out += struct.pack("=IIII", 1, i, len(f), len(f)) + f
open(f"{tmp}/mutants.pcap", "wb").write(out)
PY

# ---- text output of the samples ---------------------------------------------
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
cp "$tmp/out" "$tmp/file.txt"

expect_text sample-rawip "$rawip" "\
1 len=60 ipv4@0+20:ok tcp@20+40:ok payload=0
2 len=73 ipv6@0+40 udp@40+8:ok payload=25
3 len=112 ipv6@0+40 ipv6_frag@40+8 udp@48+8:none payload=56
4 len=40 ipv4@0+20:bad udp@20+8:ok payload=12"
cp "$tmp/out" "$tmp/raw.txt"

# ---- standard input, pcapng, other raw-IP link types --------------------------
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

if "$VOFF" inspect "$tmp/ipv4lt.pcap" >"$tmp/ipv4lt.txt" &&
   cmp -s "$tmp/raw.txt" "$tmp/ipv4lt.txt"; then
	ok "LINKTYPE_IPV4 reads as raw IP"
else
	fail "LINKTYPE_IPV4"
fi

# ---- frames the samples cannot show -------------------------------------------
# A frame cut by the snap length: what was captured is decoded, the cut
# marked as tcpdump marks it ([|tcp]), the on-wire length shown, and the
# checksums wholly captured (IPv4 headers) checked.  Not an error.
expect_text snapped "$tmp/snap.pcap" "\
1 len=130 eth@0+14 ipv4@14+20:ok tcp@34+32:ok payload=64
2 len=40 wire=130 eth@0+14 ipv4@14+20:ok [|tcp]
3 len=130 eth@0+14 ipv4@14+20:ok tcp@34+32:ok payload=64
4 len=70 wire=130 eth@0+14 ipv4@14+20:ok tcp@34+32 [|tcp]
5 len=34 wire=130 eth@0+14 ipv4@14+20:ok [|tcp]"
# IPv6 extension headers by name; a frame malformed before its cut is an
# error still.
expect_text snapped2 "$tmp/snap2.pcap" "\
1 len=60 wire=118 eth@0+14 ipv6@14+40 [|ipv6_hopopts]
2 len=100 wire=118 eth@0+14 ipv6@14+40 ipv6_hopopts@54+8 ipv6_dstopts@62+16 [|tcp]
3 len=40 wire=52 eth@0+14 error=ipv4_ihl (IPv4 header length below 20 bytes)"

# A frame too big for any packet is reported and the run goes on.
expect_text too-big "$tmp/big.pcap" "\
1 len=130 eth@0+14 ipv4@14+20:ok tcp@34+32:ok payload=64
2 len=0 wire=70000 error=too_big (frame larger than the buffer)
3 len=130 eth@0+14 ipv4@14+20:ok tcp@34+32:ok payload=64"

# Microsecond timestamps, and a capture with no frames at all.
expect_text usec "$tmp/usec.pcap" \
	"1 len=130 eth@0+14 ipv4@14+20:ok tcp@34+32:ok payload=64"
expect_status 0 "empty capture" -- "$VOFF" inspect "$tmp/empty.pcap"
[[ -s $tmp/out ]] && fail "empty capture printed something"

# 300 damaged frames: each is reported (checked in JSON below).
expect_status 0 "300 damaged frames" -- "$VOFF" inspect "$tmp/mutants.pcap"
[[ $(wc -l <"$tmp/out") -eq 300 ]] || fail "damaged frames: not 300 lines"

# ---- exit statuses --------------------------------------------------------------
expect_status 0 "--help" -- "$VOFF" inspect --help
grep -q "usage: voff inspect" "$tmp/out" || fail "--help: usage on stdout"
expect_status 0 "-h" -- "$VOFF" inspect -h
expect_status 2 "no file" -- "$VOFF" inspect
grep -q "usage: voff inspect" "$tmp/err" || fail "usage error: usage on stderr"
expect_status 2 "two files" -- "$VOFF" inspect "$sample" "$sample"
expect_status 2 "unknown option" -- "$VOFF" inspect -x "$sample"
expect_status 2 "unknown command" -- "$VOFF" inspekt "$sample"

expect_status 1 "missing file" -- "$VOFF" inspect "$tmp/nonexistent.pcap"
grep -q "nonexistent.pcap" "$tmp/err" || fail "missing file: message names it"
printf 'not a capture\n' >"$tmp/text.pcap"
expect_status 1 "not a capture" -- "$VOFF" inspect "$tmp/text.pcap"
expect_status 1 "Linux cooked link type" -- "$VOFF" inspect "$tmp/sll.pcap"
grep -q "LINUX_SLL" "$tmp/err" || fail "link type: message names the type"
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

# ---- JSON, checked all at once ----------------------------------------------------
for f in sample rawip snap mutants empty; do
	src=$tmp/$f.pcap
	[[ $f == sample ]] && src=$sample
	[[ $f == rawip ]] && src=$rawip
	"$VOFF" inspect -j "$src" >"$tmp/$f.json" || fail "inspect -j $f"
done
# A file damaged part way: the frames before it, still one valid array.
"$VOFF" inspect -j "$tmp/cut.pcap" >"$tmp/cut.json" 2>/dev/null
: >"$tmp/tshark.txt"
if command -v tshark >/dev/null; then
	tshark -r "$sample" -T fields -e frame.len -e frame.time_epoch \
		2>/dev/null >"$tmp/tshark.txt"
else
	echo "skip: tshark missing"
fi

python3 - "$tmp" <<'PY'
import json
import sys

tmp = sys.argv[1]
KEYS = ["index", "len", "wire_len", "layers", "offsets", "l3_off", "l4_off",
        "inner_l3_off", "inner_l4_off", "payload_len", "csum"]
failed = 0


def report(name, problems):
    global failed
    if problems:
        failed += 1
        print(f"FAIL: {name}")
        for p in problems[:20]:
            print("  " + p)
    else:
        print(f"ok: {name}")


def load(name, problems):
    """One JSON array per run (as ip -j), one object per frame and line."""
    with open(f"{tmp}/{name}.json") as f:
        text = f.read()
    try:
        frames = json.loads(text)
    except ValueError as e:
        problems.append(f"{name}: not one JSON document: {e}")
        return []
    if not isinstance(frames, list):
        problems.append(f"{name}: not an array")
        return []
    if text.count("\n") != max(len(frames), 1):
        problems.append(f"{name}: not one frame per line")
    return frames


def shape(fr, i, bad):
    """Keys, order and consistency every object must have."""
    keys = list(fr)
    want = KEYS[:3] + (["snapped"] if "snapped" in fr else []) + KEYS[3:]
    want += ["cut"] if "cut" in fr else []
    want += ["error"] if "error" in fr else []
    if ("snapped" in fr) != (fr["wire_len"] > fr["len"] > 0):
        bad.append(f"frame {i}: snapped {fr.get('snapped')} but len "
                   f"{fr['len']} of {fr['wire_len']}")
    if "cut" in fr and ("snapped" not in fr or fr["payload_len"] is not None):
        bad.append(f"frame {i}: cut without snapped, or with payload_len")
    if keys != want:
        bad.append(f"frame {i}: keys {keys}")
    if fr["index"] != i:
        bad.append(f"frame {i}: index {fr['index']}")
    if [o["proto"] for o in fr["offsets"]] != fr["layers"]:
        bad.append(f"frame {i}: offsets do not follow layers")
    end = 0
    for o in fr["offsets"]:
        if list(o) != ["proto", "off", "len"]:
            bad.append(f"frame {i}: offset keys {list(o)}")
        if o["off"] < end or o["off"] + o["len"] > fr["len"]:
            bad.append(f"frame {i}: {o} out of order or past the frame")
        end = o["off"] + o["len"]
    if any(v not in ("ok", "bad", "none") for v in fr["csum"].values()):
        bad.append(f"frame {i}: verdicts {fr['csum']}")
    if "error" in fr:
        if list(fr["error"]) != ["name", "message"]:
            bad.append(f"frame {i}: error keys {list(fr['error'])}")
        if fr["payload_len"] is not None or fr["csum"] != {}:
            bad.append(f"frame {i}: payload_len/csum set despite error")
    elif fr["payload_len"] is None and "cut" not in fr:
        bad.append(f"frame {i}: payload_len null without error")


# The bundled samples, field by field.
bad = []
eth = load("sample", bad)
raw = load("rawip", bad)
if len(eth) != 14 or len(raw) != 4:
    bad.append(f"frame counts {len(eth)} {len(raw)}")
for frames in (eth, raw):
    for i, fr in enumerate(frames, 1):
        shape(fr, i, bad)
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
    got = (" ".join(fr["layers"]), fr["l3_off"], fr["l4_off"],
           fr["inner_l3_off"], fr["inner_l4_off"], fr["payload_len"],
           fr["csum"])
    if got != want.get(fr["index"]):
        bad.append(f"frame {fr['index']}: {got}")
errors = {fr["index"]: fr["error"] for fr in eth if "error" in fr}
if errors != {12: {"name": "trunc_tcp",
                   "message": "frame ends inside the TCP header"},
              13: {"name": "ipv4_ihl",
                   "message": "IPv4 header length below 20 bytes"}}:
    bad.append(f"errors {errors}")
if eth and eth[-1]["len"] != 65549:
    bad.append("super-packet length")
if [fr["csum"] for fr in raw] != [{"ipv4": "ok", "tcp": "ok"},
                                  {"udp": "ok"}, {"udp": "none"},
                                  {"ipv4": "bad", "udp": "ok"}]:
    bad.append("raw-ip verdicts")
if [fr["l3_off"] for fr in raw] != [0, 0, 0, 0]:
    bad.append("raw-ip l3_off")
report("JSON fields of the samples", bad)

# The snapped frame.
bad = []
snap = load("snap", bad)
for i, fr in enumerate(snap, 1):
    shape(fr, i, bad)
want = [(130, 130, None, {"ipv4": "ok", "tcp": "ok"}),
        (40, 130, "tcp", {"ipv4": "ok"}),
        (130, 130, None, {"ipv4": "ok", "tcp": "ok"}),
        (70, 130, "tcp", {"ipv4": "ok"}),
        (34, 130, "tcp", {"ipv4": "ok"})]
got = [(fr["len"], fr["wire_len"], fr.get("cut"), fr["csum"]) for fr in snap]
if got != want or any("error" in fr for fr in snap):
    bad.append(f"snapped frames {got}")
report("snapped frame in JSON", bad)

# No frames: an empty array; damaged part way: the two frames before.
bad = []
if load("empty", bad) != []:
    bad.append("empty capture: not []")
cut = load("cut", bad)
if [fr["index"] for fr in cut] != [1, 2]:
    bad.append(f"damaged file: {len(cut)} objects")
report("empty and damaged files in JSON", bad)

# 300 damaged frames: all reported, all well-formed objects.
bad = []
mut = load("mutants", bad)
if len(mut) != 300:
    bad.append(f"{len(mut)} objects")
for i, fr in enumerate(mut, 1):
    shape(fr, i, bad)
report("300 damaged frames in JSON", bad)

# tshark reads our nanosecond files: same lengths, same times.
theirs = [l.split("\t") for l in open(f"{tmp}/tshark.txt").read().splitlines()]
if theirs:
    want_t = ["1764374400.%09d" % (i * 1000001) for i in range(len(eth))]
    report("tshark agrees on lengths and ns timestamps",
           [] if ([int(t[0]) for t in theirs] == [fr["len"] for fr in eth]
                  and [t[1] for t in theirs] == want_t)
           else [str(theirs)])
sys.exit(failed)
PY
fails=$((fails + $?))

if [[ $fails -ne 0 ]]; then
	echo "$fails check(s) failed"
	exit 1
fi
echo "all inspect checks passed"
