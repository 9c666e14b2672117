#!/bin/bash
# SPDX-License-Identifier: MIT
#
# fault_tap.sh - TAP faults under load: while iperf3 runs va -> vb through
# `voff switch`, a third port's TAP device is deleted under the switch, a
# fourth port's whole namespace is deleted, and ports are added and removed
# by `voff ctl` twenty times over
#
#   ns A  va 10.81.0.1  <-TAP->             <-TAP->  vb 10.81.0.2  ns B
#                               voff switch
#   ns C  vc (deleted)  <-TAP->             <-TAP->  vd  ns D (deleted)
#                                       +  vx (added/removed) in ns C
#
# Checks: iperf3 completes with a sane rate, the switch stays alive and
# marks the dead ports failed (not polled, still removable), `ports del`
# releases them, the switch holds the same descriptors as before, its
# RSS grew by less than 16 MiB and not again over a second round of port
# churn and traffic.  Needs root, iperf3, python3; skips (77).
set -u
tag=ft
# shellcheck source=tests/integ/lib_ns.sh
. "$(dirname "$0")/lib_ns.sh"
ns_require iperf3 python3
# Under ASan the freed memory it holds back (its quarantine, 256 MiB by
# default) would fill across the rounds and read as growth in the RSS
# checks below; 1 MiB of it keeps use-after-free detection and lets RSS
# show what the switch keeps.  LeakSanitizer still checks at exit.
[ -n "${ASAN_OPTIONS:-}" ] &&
	export ASAN_OPTIONS="$ASAN_OPTIONS:quarantine_size_mb=1"

A=$(ns_add a) B=$(ns_add b) C=$(ns_add c) D=$(ns_add d)
sw_start --port "tap:va@$A" --port "tap:vb@$B"
# What the switch holds without the ports that will die (a TAP port may
# hold more than one descriptor: its device, an io_uring).
fd_two=$(sw_fds)
# port_retry=0: they stay failed (ports added at run time are re-opened
# by themselves otherwise, and vc's TAP would be created again).
if ! vctl ports add "tap:vc@$C,port_retry=0" >/dev/null ||
   ! vctl ports add "tap:vd@$D,port_retry=0" >/dev/null; then
	bad "ports add"
	exit 1
fi
addr_tap "$A" va 10.81.0.1/24
addr_tap "$B" vb 10.81.0.2/24
addr_tap "$C" vc 10.81.0.3/24
addr_tap "$D" vd 10.81.0.4/24

# Warm up (pool buffers touched, MACs learned), then the baseline.
iperf_run "$A" "$B" 10.81.0.2 1 "$LIB_TMP/warm.json" >/dev/null
fd0=$(sw_fds) rss0=$(sw_rss_kb)
echo "# baseline: $fd0 descriptors, VmRSS $rss0 KiB"

vb_tx0=$(stat_of vb tx_packets) vd_rx0=$(stat_of vd rx_packets)
iperf_run "$A" "$B" 10.81.0.2 8 "$LIB_TMP/load.json" &
ipid=$!
# The faults come once the flow is under way.
wait_until 100 stat_above vb tx_packets $((vb_tx0 + 100)) ||
	bad "no iperf3 traffic to vb before the faults"
# Traffic to the ports that are about to die: broadcasts flood to them.
nsbcast "$C" 10.81.0.255
ip -n "$C" link del vc
vc_failed() { vctl ports | grep -q "vc .*FAILED"; }
wait_until 100 vc_failed || bad "vc not failed after its device went"
# D's namespace goes with its traffic to the switch under way.
nsping "$D" 10.81.0.1 &
wait_until 100 stat_above vd rx_packets "$vd_rx0" ||
	bad "no traffic from D before its namespace went"
ip netns del "$D"
# The kernel tears the namespace down in the background, with nothing to
# see from here (vd stays up for the switch): give it that time, under
# load, before the churn.
sleep 0.5
# Ports come and go while the flow runs.
churn=0
for i in $(seq 20); do
	vctl ports add "tap:vx$i@$C" >/dev/null && churn=$((churn + 1))
	vctl ports del "vx$i" >/dev/null || churn=$((churn - 100))
done
if [ "$churn" -eq 20 ]; then ok "20 ports added and removed under load"
else bad "port churn ($churn)"; fi
vctl ports >"$LIB_TMP/ports.txt"
if grep -q "vc .*FAILED" "$LIB_TMP/ports.txt"; then
	ok "the deleted TAP is marked failed"
else
	bad "vc not failed: $(grep vc "$LIB_TMP/ports.txt")"
fi
fault_load_end "$ipid"

# The failed ports are still removable; their descriptors go with them.
if vctl ports del vc && vctl ports del vd; then ok "failed ports removed"
else bad "ports del of failed ports"; fi
if iperf_run "$A" "$B" 10.81.0.2 1 "$LIB_TMP/after.json"; then
	ok "traffic after the faults"
else
	bad "traffic after the faults"
fi
fd1=$(sw_fds) rss1=$(sw_rss_kb)
echo "# after: $fd1 descriptors, VmRSS $rss1 KiB"
# vc and vd are gone: back to what the switch held with va and vb only.
if [ "$fd1" -eq "$fd_two" ]; then ok "no descriptor leaked"
else bad "descriptors $fd0 -> $fd1 (want $fd_two, as with va and vb only)"; fi
# Pool buffers are touched lazily: those a TAP port posted for its
# multishot read (a sixteenth of the pool) are new to the data path when
# the port goes, so the first round may grow by up to two ports' worth
# (8 MiB each); a leak grows again in a second round of the same faults
# (under ASan, with the quarantine bounded above, by up to about 1 MiB
# without one).
if [ "$rss1" -lt $((rss0 + 16384)) ]; then ok "RSS bounded (+$((rss1 - rss0)) KiB)"
else bad "RSS grew $rss0 -> $rss1 KiB"; fi
for i in $(seq 20); do
	vctl ports add "tap:vy$i@$C" >/dev/null && vctl ports del "vy$i" >/dev/null
done
iperf_run "$A" "$B" 10.81.0.2 1 "$LIB_TMP/again.json" >/dev/null ||
	bad "traffic after a second round of churn"
rss2=$(sw_rss_kb)
echo "# after a second round: VmRSS $rss2 KiB"
if [ "$rss2" -lt $((rss1 + 2048)) ]; then
	ok "a second round of churn holds RSS (+$((rss2 - rss1)) KiB)"
else bad "RSS grew again $rss1 -> $rss2 KiB: a leak"; fi
vctl -j stats >"$LIB_TMP/stats.json"
if sw_stop; then ok "switch stopped cleanly"; else bad "switch exit status"; fi
[ "$fails" -eq 0 ]
