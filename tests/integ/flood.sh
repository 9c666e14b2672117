#!/bin/bash
# SPDX-License-Identifier: MIT
#
# flood.sh - malformed frames and hostile virtio_net_hdrs into one switch
# port while iperf3 runs between two others
#
#   ns A  va 10.84.0.1 <-TAP->               <-TAP->  vb 10.84.0.2  ns B
#                              voff switch
#   ns F  flood_helper -> h0 <-packet:h0->   <-TAP->  vd 10.84.0.4  ns D
#
# flood_helper.c writes frames of 23 classes (3 valid controls, 20
# malformed: runts, csum_start/offset out of range, bad gso_type, gso_size
# 0 or huge, hdr_len huge, bad IP version/ihl/total length, bad TCP data
# offset, L4 or family not matching the gso_type, truncated headers, ...)
# into a TAP with IFF_VNET_HDR; the kernel refuses some (the helper counts
# its EINVALs), the rest reach the switch's packet port with the header
# the kernel rebuilt, addressed to vd.
#
# Strict checks (CI): class by class, paced so no socket queue overflows,
# every frame the kernel took is counted by the switch: the valid ones
# forwarded to vd, every malformed one dropped at h0 under a named reason
# (rx_drop_NAME); none reaches vd.  Then a full-speed flood of the bad
# classes during an iperf3 run: the switch survives, the flow completes,
# and written = counted by the switch + the kernel's socket-queue drops,
# which the switch reports itself (h0's rx_kernel_dropped, read from
# PACKET_STATISTICS), once the switch has read what the queue held: h0 is
# held unread while its reads are mostly malformed (rx_backoff).  The throughput kept is
# printed, never asserted: a test run may be sanitised or share its CPUs,
# so the only claim is that traffic kept flowing; bench/flood.sh measures
# the share with medians.
# Needs root, cc, iperf3, python3; skips (77) otherwise.
set -u
tag=fd
# shellcheck source=tests/integ/lib_ns.sh
. "$(dirname "$0")/lib_ns.sh"
ns_require iperf3 python3 cc
root=$(cd "$(dirname "$0")/../.." && pwd)
cc -std=c11 -D_GNU_SOURCE -O2 -o "$LIB_TMP/flood_helper" \
	"$root/tests/integ/flood_helper.c" || { bad "helper does not build"; exit 1; }

A=$(ns_add a) B=$(ns_add b) D=$(ns_add d) F=$(ns_add f)
sw_start --port "tap:va@$A" --port "tap:vb@$B" --port "tap:vd@$D"
addr_tap "$A" va 10.84.0.1/24
addr_tap "$B" vb 10.84.0.2/24
addr_tap "$D" vd 10.84.0.4/24
nsping "$D" 10.84.0.1 || bad "vd not reachable"
macd=$(ip -n "$D" -br link show vd | awk '{ print $3 }')
# The helper reads commands on a FIFO and answers on another (a coproc's
# descriptors would hang the subshells below).
mkfifo "$LIB_TMP/h.in" "$LIB_TMP/h.out"
ip netns exec "$F" "$LIB_TMP/flood_helper" h0 "$macd" 02:00:00:00:0f:01 \
	<"$LIB_TMP/h.in" >"$LIB_TMP/h.out" &
lib_pids+=($!)
exec 7>"$LIB_TMP/h.in" 8<"$LIB_TMP/h.out"
read -r l <&8
[ "$l" = ready ] || { bad "helper did not start"; exit 1; }
vctl ports add "packet:h0@$F" >/dev/null || { bad "ports add packet:h0"; exit 1; }

# helper CMD: one command; its report lines in $hout
hout=$LIB_TMP/helper.out
helper() {
	local l
	echo "$*" >&7
	: >"$hout"
	while read -r l <&8; do
		[ "$l" = end ] && break
		echo "$l" >>"$hout"
	done
}
# counters: h0 rx packets, h0 rx drops, vd tx packets, the kernel's h0 rx,
# h0's frames the kernel dropped at the switch's socket
counters() {
	vctl -j stats | python3 -c '
import json, sys
p = {x["port"]: x for x in json.load(sys.stdin)}
print(p["h0"]["rx_packets"], p["h0"]["rx_dropped"], p["vd"]["tx_packets"],
      p["h0"]["rx_kernel_dropped"])' |
		tr '\n' ' '
	ip -n "$F" -s -j link show h0 | python3 -c '
import json, sys; print(json.load(sys.stdin)[0]["stats64"]["rx"]["packets"])'
}
# ---- 1: class by class, paced --------------------------------------------
# One python process drives it (the helper on descriptors 7 and 8, `voff
# ctl` for counters): a shell loop starts too many processes on a loaded
# machine.
python3 - "$voff" "$ctl" 500 >"$LIB_TMP/classes.txt" <<'PY'
import json, os, subprocess, sys, time
voff, ctl, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
hin, hout = os.fdopen(7, "w"), os.fdopen(8, "r")
def helper(cmd):
    hin.write(cmd + "\n"); hin.flush(); out = []
    for line in hout:
        if line.strip() == "end":
            return out
        out.append(line.split())
def stats():
    r = subprocess.run([voff, "ctl", "--ctl", ctl, "-j", "stats"],
                       capture_output=True, text=True, check=True)
    return {p["port"]: p for p in json.loads(r.stdout)}
fails = 0
names = [w[1] for w in helper("list")]
print("# %-18s %7s %7s | %7s %7s  %s" % ("class", "written", "refused",
      "forward", "dropped", "reasons (rx_drop_NAME at h0)"))
for c in names:
    a = stats()
    w = helper("send %s %d 20" % (c, n))[0]
    wr, rj, err = int(w[2]), int(w[4]), int(w[6])
    # Until the switch counted every frame written (10 s at most), and a
    # valid one's copies left by vd: then the counts stand.
    for _ in range(100):
        b = stats()
        if (b["h0"]["rx_packets"] + b["h0"]["rx_dropped"] -
                a["h0"]["rx_packets"] - a["h0"]["rx_dropped"] >= wr and
                (not c.startswith("ok_") or
                 b["vd"]["tx_packets"] - a["vd"]["tx_packets"] >= wr)):
            break
        time.sleep(0.1)
    fw = b["h0"]["rx_packets"] - a["h0"]["rx_packets"]
    dr = b["h0"]["rx_dropped"] - a["h0"]["rx_dropped"]
    out = b["vd"]["tx_packets"] - a["vd"]["tx_packets"]
    why = {k[8:]: v - a["h0"].get(k, 0) for k, v in b["h0"].items()
           if k.startswith("rx_drop_") and v != a["h0"].get(k, 0)}
    print("# %-18s %7d %7d | %7d %7d  %s" % (c, wr, rj, fw, dr,
          " ".join("%s=%d" % kv for kv in sorted(why.items())) or
          ("errno %d at write" % err if rj else "")))
    msg = None
    if wr + rj != n:
        msg = "helper wrote %d + refused %d of %d" % (wr, rj, n)
    elif fw + dr != wr:
        msg = "%d written, switch counted %d + %d" % (wr, fw, dr)
    elif c.startswith("ok_"):
        if fw != wr or out < wr:
            msg = "valid frames not forwarded (%d in, %d out)" % (fw, out)
    elif fw or out > 5:
        msg = "%d malformed frames accepted, %d sent to vd" % (fw, out)
    elif dr != sum(why.values()):
        msg = "drops %d but reasons sum to %d" % (dr, sum(why.values()))
    if msg:
        print("FAIL - %s: %s" % (c, msg)); fails += 1
print("classes %d failures %d" % (len(names), fails))
sys.exit(1 if fails else 0)
PY
rc=$?
cat "$LIB_TMP/classes.txt"
if [ "$rc" -eq 0 ]; then ok "every frame of every class counted (by reason)"
else bad "class-by-class accounting"; fi

# ---- 2: full speed, under iperf3 -------------------------------------------
iperf_run "$A" "$B" 10.84.0.2 4 "$LIB_TMP/base.json" || bad "unloaded iperf3"
bps0=$(iperf_bps "$LIB_TMP/base.json")
read -r rx0 dr0 _ kd0 k0 < <(counters)
fd0=$(sw_fds) rss0=$(sw_rss_kb)
vb_tx0=$(stat_of vb tx_packets)
iperf_run "$A" "$B" 10.84.0.2 4 "$LIB_TMP/load.json" &
ipid=$!
# The flood starts once the flow is under way.
wait_until 100 stat_above vb tx_packets $((vb_tx0 + 100)) ||
	bad "no iperf3 traffic to vb before the flood"
helper time 5
cp "$hout" "$LIB_TMP/flood.txt"
if wait "$ipid"; then ok "iperf3 completed under the flood"
else bad "iperf3 failed under the flood"; fi
# A port held for a malformed flood is read again within rx_backoff: wait
# for its queue to drain (every frame the kernel took counted somewhere),
# or for the switch to be gone.
drained() {
	sw_alive || return 0
	read -r rx1 dr1 _ kd1 k1 < <(counters)
	[ $((rx1 - rx0 + dr1 - dr0 + kd1 - kd0)) -ge $((k1 - k0)) ]
}
wait_until 100 drained ||
	echo "# h0's queue not drained after 10 s (see the accounting below)"
sw_alive || { bad "switch died under the flood"; exit 1; }
ok "switch alive"
bps1=$(iperf_bps "$LIB_TMP/load.json")
read -r wr rj < <(awk '{ w += $3; r += $5 } END { print w, r }' "$LIB_TMP/flood.txt")
sw=$((rx1 - rx0 + dr1 - dr0)) kern=$((k1 - k0)) kd=$((kd1 - kd0))
echo "# flood: $wr written ($rj refused by the kernel) in 5 s;" \
	"switch counted $sw ($((dr1 - dr0)) dropped by reason)," \
	"socket queue overflow $((kern - sw)), rx_kernel_dropped $kd"
echo "# iperf3: unloaded $((bps0 / 1000000)) Mbit/s, flooded" \
	"$((bps1 / 1000000)) Mbit/s ($((bps1 * 100 / (bps0 + 1)))%)"
if [ "$kern" -eq "$wr" ] && [ $((sw + kd)) -eq "$kern" ] &&
	[ $((rx1 - rx0)) -eq 0 ]; then
	ok "every flooded frame accounted for (none accepted)"
else
	bad "accounting: written $wr, kernel rx $kern, switch $sw," \
		"kernel drops $kd, accepted $((rx1 - rx0))"
fi
if [ "$bps1" -gt 0 ]; then ok "traffic flowed under the flood"
else bad "no traffic under the flood ($bps1 of $bps0 bit/s)"; fi
fd1=$(sw_fds) rss1=$(sw_rss_kb)
if [ "$fd1" -eq "$fd0" ]; then ok "descriptors unchanged"
else bad "fds $fd0 -> $fd1"; fi
if [ "$rss1" -lt $((rss0 + 16384)) ]; then ok "RSS bounded (+$((rss1 - rss0)) KiB)"
else bad "RSS $rss0 -> $rss1 KiB"; fi
if sw_stop; then ok "switch stopped cleanly"; else bad "switch exit status"; fi
[ "$fails" -eq 0 ]
