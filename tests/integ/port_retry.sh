#!/bin/bash
# SPDX-License-Identifier: MIT
#
# port_retry.sh - failed ports come back by themselves: devices deleted
# under a running `voff switch` and re-created with the same name (a
# container's veth, a VM's TAP), a VXLAN port whose socket was destroyed,
# and a port added at run time are re-opened without any reload
#
#   ns A  va 10.83.0.1  <-TAP->              <-packet-> e1 =veth= e0 10.83.0.5  ns E
#                               voff switch                (deleted, re-created)
#   ns T  vt 10.83.0.7  <-TAP->              <-TAP->    vc 10.83.0.8  ns C
#         (deleted: the switch creates it again)        (port_retry=0)
#                                            <-packet-> f1 =veth= f0 10.83.0.6  ns F
#                                              (added at run time: `ports add`)
#                                            vxlan:42 in H1 192.168.77.1
#                                              = underlay (lib_vxlan.sh) =
#                                            H2 192.168.77.2: kernel vxlan0,
#                                              br0, veth v2 10.83.0.9  ns B
#
# Checks, with exact states and log lines: a deleted device fails its
# port (FAILED, one error line saying it will be re-opened); attempts
# while the device is absent are counted (retries) and logged once at
# info, never again above debug; the device back, the port recovers
# (ok, "port e1 recovered: re-opened") within a bounded wait and a ping
# crosses it; a TAP port re-creates its device itself; a VXLAN port's
# socket destroyed (`ss -K`) fails it, its local address removed makes
# the attempts fail, and the address back it is re-opened by the timer
# (the failed port gave up its UDP port, so the new socket binds it) and
# a ping crosses it to the kernel's vxlan; port_retry=0 leaves a port
# failed until a reload re-opens it; the switch holds as many
# descriptors as before the faults.  A veth port added at run time with
# its own setting and MAC entry is re-opened as a declared one, with
# both, and `ports del` ends its attempts.  With --drop-caps every
# attempt fails with EPERM, logged once with the reason.  Needs root,
# python3; the VXLAN case needs the vxlan module, bridge and ss.
set -u
tag=rt
# shellcheck source=tests/integ/lib_vxlan.sh
. "$(dirname "$0")/lib_vxlan.sh"
ns_require python3

A=$(ns_add a) E=$(ns_add e) T=$(ns_add t) C=$(ns_add c) F=$(ns_add f)
# veth NS: e0 (10.83.0.5) and e1, both up, in NS
veth() {
	ip -n "$1" link add e0 type veth peer name e1 &&
		ip -n "$1" link set e0 up && ip -n "$1" link set e1 up &&
		ip -n "$1" addr add 10.83.0.5/24 dev e0
}
veth "$E" || { echo "skip: no veth"; exit 77; }
conf=$LIB_TMP/switch.conf
echo "ports add packet:e1@$E" >"$conf"
# The VXLAN case: host 2 the kernel's (ns B, 10.83.0.9), host 1 this
# switch's port vxlan42, declared in the file.
vx=
if command -v bridge >/dev/null && command -v ss >/dev/null; then
	vx_underlay 2
	if ip -n "$H2" link add vxprobe type vxlan id 1 dstport 4790 \
		local 192.168.77.2 2>/dev/null; then
		ip -n "$H2" link del vxprobe
		vx_kernel_host 2 192.168.77.1
		ip -n "$B" addr add 10.83.0.9/24 dev v2
		echo "ports add vxlan:42@$H1,local=192.168.77.1,remote=192.168.77.2" >>"$conf"
		vx=1
	fi
fi
[ -n "$vx" ] || echo "# skip the VXLAN case: no vxlan module, bridge or ss"
sw_start --port "tap:va@$A" --port "tap:vt@$T" \
	--port "tap:vc@$C,port_retry=0" --config "$conf"
log=$LIB_TMP/switch.err
addr_tap "$A" va 10.83.0.1/24
addr_tap "$T" vt 10.83.0.7/24
addr_tap "$C" vc 10.83.0.8/24
for h in 10.83.0.5 10.83.0.7 10.83.0.8 ${vx:+10.83.0.9}; do
	nsping "$A" "$h" 5 || bad "no ping to $h before the faults"
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

# 3. A VXLAN port whose socket is destroyed (`ss -K`, as a tool that
# kills sockets does): its receive fails (ECONNABORTED) while the socket
# still holds 192.168.77.1:4789.  With its local address removed the
# attempts fail; the address back, the timer re-opens it: the failed port
# gave its UDP port up, so the new socket binds it.
if [ -n "$vx" ]; then
	ip -n "$H1" addr del 192.168.77.1/24 dev u1
	ip netns exec "$H1" ss -K -u -a 'sport = :4789' >/dev/null
	if wait_state vxlan42 FAILED &&
	   wait_log "port vxlan42 failed: Software caused connection abort; no longer polled, re-opened when it opens again"
	then ok "socket destroyed: vxlan42 FAILED, its line says it will be re-opened"
	else bad "vxlan42 after ss -K: $(state vxlan42): $(grep vxlan42 "$log")"; fi
	if [ "$(ip netns exec "$H1" ss -u -a -n 'sport = :4789' | grep -c ':4789')" -eq 0 ]
	then ok "the failed vxlan42 holds no socket on port 4789"
	else bad "port 4789 still bound: $(ip netns exec "$H1" ss -u -a -n 'sport = :4789')"; fi
	wait_until 100 retries_ge vxlan42 2
	n=$(stat_of vxlan42 retries)
	if [ "$n" -ge 2 ] && [ "$(state vxlan42)" = FAILED ] &&
	   [ "$(lines "port vxlan42: re-open 1 failed: Cannot assign requested address; next in 2 s")" -eq 1 ] &&
	   [ "$(lines "port vxlan42: re-open")" -eq 1 ]; then
		ok "vxlan42: $n attempts without its address, logged once"
	else
		bad "vxlan42: $n attempts, $(state vxlan42): $(grep 'vxlan42: re-open' "$log")"
	fi
	ip -n "$H1" addr add 192.168.77.1/24 dev u1
	if wait_state vxlan42 ok && wait_log "port vxlan42 recovered: re-opened"
	then ok "address back: vxlan42 recovered by the timer, no reload"
	else bad "vxlan42 after its address came back: $(state vxlan42)"; fi
	m=$(stat_of vxlan42 retries)
	if [ "$m" -gt "$n" ] && [ "$(lines "port vxlan42: re-open")" -eq 1 ] &&
	   [ "$(lines "reloaded")" -eq 0 ]; then
		ok "vxlan42 keeps its count: $m attempts, the last one re-opened it"
	else
		bad "vxlan42 retries after recovery: $m (want more than $n)"
	fi
	if nsping "$A" 10.83.0.9 5 && nsping "$B" 10.83.0.1; then
		ok "ping across the re-opened VXLAN port to the kernel's vxlan"
	else
		bad "no ping across vxlan42 after it recovered"
	fi
fi

# 4. port_retry=0: failed until a reload re-opens it.
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
# 5. A veth added at run time, with a setting and a MAC entry of its own:
# deleted, re-created, re-opened as a declared port is, with both;
# `ports del` ends its attempts.
# vethf - f0 (10.83.0.6) and f1 in ns F, both up
vethf() {
	ip -n "$F" link add f0 type veth peer name f1 &&
		ip -n "$F" link set f0 up && ip -n "$F" link set f1 up &&
		ip -n "$F" addr add 10.83.0.6/24 dev f0
}
vethf
if ! { vctl ports add "packet:f1@$F" && vctl limits f1 rx_budget 32 &&
	vctl fdb add 02:00:00:00:00:0f f1; } >/dev/null; then
	bad "ports add, limits, fdb add of f1 at run time"
fi
saved_f1() { vctl save | grep -E '^(ports add packet:f1@|limits f1 |fdb add [0-9a-f:]* f1$)'; }
want_f1="ports add packet:f1@$F
limits f1 rx_budget 32
fdb add 02:00:00:00:00:0f f1"
if [ "$(saved_f1)" = "$want_f1" ] && nsping "$F" 10.83.0.1 5; then
	ok "f1 added at run time, ping through it"
else
	bad "f1 at run time: $(saved_f1)"
fi
ip -n "$F" link del f0
nsbcast "$A" 10.83.0.255
if wait_state f1 FAILED &&
   wait_log "; no longer polled, re-opened when it opens again (tried after 1 s, then at waits doubling up to 60 s: port_retry; \`voff ctl ports del f1\` removes it)"
then ok "f1 failed, its line says it will be re-opened"
else bad "f1 failed line: $(grep 'f1 failed' "$log")"; fi
wait_until 100 retries_ge f1 1
vethf
if wait_state f1 ok && wait_log "port f1 recovered: re-opened" &&
   [ "$(stat_of f1 retries)" -ge 2 ]; then
	ok "veth back: f1, added at run time, recovered without a reload"
else
	bad "f1 after its veth came back: $(state f1), $(stat_of f1 retries) attempts"
fi
if [ "$(saved_f1)" = "$want_f1" ]; then ok "f1 keeps its setting and MAC entry"
else bad "f1 after recovery: $(saved_f1)"; fi
if nsping "$F" 10.83.0.1; then ok "ping through the re-opened f1"
else bad "no ping through f1 after it recovered"; fi
ip -n "$F" link del f0
nsbcast "$A" 10.83.0.255
wait_state f1 FAILED
vctl ports del f1 >/dev/null
k=$(lines "port f1: re-open")
vethf
sleep 2.5
if [ -z "$(state f1)" ] && [ "$(lines "port f1: re-open")" -eq "$k" ] &&
   [ "$(lines "port f1 recovered")" -eq 1 ]; then
	ok "ports del f1: no attempt after it"
else
	bad "f1 after ports del: '$(state f1)', $(grep 'port f1' "$log" | tail -3)"
fi

# Added at start, then recovered: the re-open's removed and added are info.
if [ "$(lines "notice: port e1 ")" -eq 2 ] &&
   [ "$(lines "info: port e1 removed")" -eq 1 ] &&
   [ "$(lines "info: port e1 added (packet:e1@$E)")" -eq 1 ]; then
	ok "e1: notice lines for its start and its recovery only"
else
	bad "notice lines of e1: $(grep 'notice: port e1 ' "$log")"
fi
if sw_stop; then ok "switch stopped cleanly"; else bad "switch exit status"; fi

# 6. --drop-caps: an attempt opens nothing, fails, is logged once.
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
