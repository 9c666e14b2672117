#!/bin/bash
# SPDX-License-Identifier: MIT
#
# port_retry.sh - failed ports come back by themselves: devices deleted
# under a running `voff switch` and re-created with the same name (a
# container's veth, a VM's TAP) are re-opened without any reload
#
#   ns A  va 10.83.0.1  <-TAP->              <-packet-> e1 =veth= e0 10.83.0.5  ns E
#                               voff switch                (deleted, re-created)
#   ns T  vt 10.83.0.7  <-TAP->              <-TAP->    vc 10.83.0.8  ns C
#         (deleted: the switch creates it again)        (port_retry=0)
#
# Checks, with exact states and log lines: a deleted device fails its
# port (FAILED, one error line saying it will be re-opened); attempts
# while the device is absent are counted (retries) and logged once at
# info, never again above debug; the device back, the port recovers
# (ok, "port e1 recovered: re-opened") within a bounded wait and a ping
# crosses it; a TAP port re-creates its device itself; port_retry=0
# leaves a port failed until a reload re-opens it; the switch holds as
# many descriptors as before the faults.  With --drop-caps every attempt
# fails with EPERM, logged once with the reason.  Needs root, python3.
set -u
tag=rt
# shellcheck source=tests/integ/lib_ns.sh
. "$(dirname "$0")/lib_ns.sh"
ns_require python3

A=$(ns_add a) E=$(ns_add e) T=$(ns_add t) C=$(ns_add c)
# veth NS: e0 (10.83.0.5) and e1, both up, in NS
veth() {
	ip -n "$1" link add e0 type veth peer name e1 &&
		ip -n "$1" link set e0 up && ip -n "$1" link set e1 up &&
		ip -n "$1" addr add 10.83.0.5/24 dev e0
}
veth "$E" || { echo "skip: no veth"; exit 77; }
conf=$LIB_TMP/switch.conf
echo "ports add packet:e1@$E" >"$conf"
sw_start --port "tap:va@$A" --port "tap:vt@$T" \
	--port "tap:vc@$C,port_retry=0" --config "$conf"
log=$LIB_TMP/switch.err
addr_tap "$A" va 10.83.0.1/24
addr_tap "$T" vt 10.83.0.7/24
addr_tap "$C" vc 10.83.0.8/24
for h in 10.83.0.5 10.83.0.7 10.83.0.8; do
	nsping "$A" "$h" || bad "no ping to $h before the faults"
done
fd0=$(sw_fds)
echo "# baseline: $fd0 descriptors"

# state PORT - its STATE column in `voff ctl ports` (ok or FAILED)
state() { vctl ports | awk -v p="$1" '$2 == p { print $7 }'; }
# state_is PORT STATE, retries_ge PORT N - tests for wait_until
state_is() { [ "$(state "$1")" = "$2" ]; }
retries_ge() { [ "$(stat_of "$1" retries)" -ge "$2" ]; }
# wait_state PORT STATE - until it is so (10 s)
wait_state() { wait_until 100 state_is "$1" "$2"; }
# lines TEXT - how many lines of the log hold TEXT
lines() { grep -cF -- "$1" "$log"; }

# 1. A container's veth deleted, then re-created with the same name.
ip -n "$E" link del e0
nsbcast "$A" 10.83.0.255
if wait_state e1 FAILED; then ok "deleted veth: e1 FAILED"
else bad "e1 after its veth went: $(state e1)"; fi
if wait_log "; no longer polled, re-opened when it opens again (tried after 1 s, then at waits doubling up to 60 s: port_retry; \`voff ctl ports del e1\` removes it)"
then ok "the failed line says e1 will be re-opened"
else bad "failed line: $(grep 'e1 failed' "$log")"; fi
# Attempts at 1 s and 3 s after the failure fail: counted, logged once.
wait_until 100 retries_ge e1 2
n=$(stat_of e1 retries)
if [ "$n" -ge 2 ] && [ "$(state e1)" = FAILED ]; then
	ok "e1: $n failed attempts counted, still FAILED"
else
	bad "e1: $n attempts, state $(state e1)"
fi
if [ "$(lines "port e1: re-open 1 failed: No such device; next in 2 s")" -eq 1 ] &&
   [ "$(lines "port e1: re-open")" -eq 1 ]; then
	ok "one info line for the failed attempts"
else
	bad "attempt lines: $(grep 'e1: re-open' "$log")"
fi
veth "$E"
if wait_state e1 ok && wait_log "port e1 recovered: re-opened"; then
	ok "veth back: e1 recovered without a reload"
else
	bad "e1 after its veth came back: $(state e1)"
fi
if nsping "$E" 10.83.0.1; then ok "ping through the re-opened packet port"
else bad "no ping through e1 after it recovered"; fi
# Recovered, the count no longer moves: the failed attempts (another may
# have come since it was read above) and the one that re-opened it.
m=$(stat_of e1 retries)
if [ "$m" -gt "$n" ] &&
   [ "$(lines "port e1: re-open")" -eq 1 ]; then
	ok "e1 keeps its count: $m attempts, the last one re-opened it"
else
	bad "e1 retries after recovery: $m (want more than $n)"
fi
if vctl stats --prometheus | grep -q "^voff_port_retries_total{port=\"e1\"} $m\$"; then
	ok "voff_port_retries_total of e1 is $m"
else
	bad "prometheus: $(vctl stats --prometheus | grep 'retries_total{port="e1"')"
fi

# 2. A VM's TAP deleted: the first attempt creates it again.
ip -n "$T" link del vt
nsbcast "$A" 10.83.0.255
if wait_state vt FAILED || wait_log "port vt failed: "; then
	ok "deleted TAP: vt failed"
else
	bad "vt after its TAP went: $(state vt)"
fi
if wait_log "port vt recovered: re-opened" && wait_state vt ok &&
   ip -n "$T" link show vt >/dev/null 2>&1; then
	ok "vt re-opened: its TAP created again"
else
	bad "vt not re-opened: $(state vt)"
fi
addr_tap "$T" vt 10.83.0.7/24
if nsping "$T" 10.83.0.1; then ok "ping through the re-created TAP"
else bad "no ping through vt after it recovered"; fi

# 3. port_retry=0: failed until a reload re-opens it.
ip -n "$C" link del vc
nsbcast "$A" 10.83.0.255
if wait_log "port vc failed: " &&
   [ "$(lines "; no longer polled (\`voff ctl ports del vc\` removes it, a reload that lists it re-opens it)")" -eq 1 ]
then ok "vc failed, its line says a reload re-opens it"
else bad "vc failed line: $(grep 'vc failed' "$log")"; fi
sleep 2.5
if [ "$(state vc)" = FAILED ] && [ "$(stat_of vc retries)" -eq 0 ]; then
	ok "port_retry=0: vc left FAILED, never tried"
else
	bad "vc: $(state vc), $(stat_of vc retries) attempts"
fi
if vctl reload >/dev/null && [ "$(state vc)" = ok ] &&
   [ "$(lines "port vc recovered: re-opened")" -eq 1 ]; then
	ok "a reload re-opens vc"
else
	bad "reload: vc $(state vc)"
fi
addr_tap "$C" vc 10.83.0.8/24
if nsping "$C" 10.83.0.1; then ok "ping through vc after the reload"
else bad "no ping through vc after the reload"; fi
fd1=$(sw_fds)
if [ "$fd1" -eq "$fd0" ]; then ok "descriptors as before the faults ($fd1)"
else bad "descriptors $fd0 -> $fd1"; fi
# Added at start, then recovered: the re-open's removed and added are info.
if [ "$(lines "notice: port e1 ")" -eq 2 ] &&
   [ "$(lines "info: port e1 removed")" -eq 1 ] &&
   [ "$(lines "info: port e1 added (packet:e1@$E)")" -eq 1 ]; then
	ok "e1: notice lines for its start and its recovery only"
else
	bad "notice lines of e1: $(grep 'notice: port e1 ' "$log")"
fi
if sw_stop; then ok "switch stopped cleanly"; else bad "switch exit status"; fi

# 4. --drop-caps: an attempt opens nothing, fails, is logged once.
# (a voff built without libcap refuses --drop-caps: exit status 2)
if "$voff" switch --check --drop-caps --port tap:vd 2>/dev/null; then
	sw_start --drop-caps --port "tap:vd@$C,port_retry=1"
	ip -n "$C" link del vd
	wait_until 100 retries_ge vd 3
	n=$(stat_of vd retries)
	msg="port vd: re-open 1 failed: Operation not permitted (--drop-caps: this switch dropped the privileges to open ports); next in 1 s"
	if [ "$n" -ge 3 ] && [ "$(lines "$msg")" -eq 1 ] &&
	   [ "$(lines "port vd: re-open")" -eq 1 ] &&
	   [ "$(state vd)" = FAILED ]; then
		ok "--drop-caps: $n attempts refused, logged once"
	else
		bad "--drop-caps: $n attempts, state $(state vd): $(grep 'vd' "$log")"
	fi
	if sw_stop; then ok "switch stopped cleanly"; else bad "switch exit status"; fi
fi
[ "$fails" -eq 0 ]
