#!/bin/bash
# SPDX-License-Identifier: MIT
#
# switch_service.sh - `voff switch --config` over TAP ports in namespaces,
# as a service lives: limit propagation logged per TAP (old -> new) and
# seen with `ip -d link`; a reload that changes a limit propagates it at
# run time and keeps the ports, their counters and MAC entries; a reload
# that changes napi is refused with the way out; a device set down and up
# is logged down and up; a device deleted fails its port, and a reload
# re-opens it (recovered) and traffic flows again.  Needs root; skips (77).
#
#   ns A  sva 10.83.0.1  <-TAP->  voff switch --config  <-TAP->  svb 10.83.0.2  ns B
set -u
tag=svc
# shellcheck source=tests/integ/lib_ns.sh
. "$(dirname "$0")/lib_ns.sh"
ns_require python3
tmp=$LIB_TMP
A=$(ns_add a) B=$(ns_add b)
conf=$tmp/sw.conf

gso_of() {	# NS DEV: the device's gso_max_size
	ip -n "$1" -d link show "$2" | grep -o 'gso_max_size [0-9]*' | head -1 |
		awk '{ print $2 }'
}
addrs() {
	addr_tap "$A" sva 10.83.0.1/24
	addr_tap "$B" svb 10.83.0.2/24
	ip netns exec "$A" sysctl -qw net.ipv6.conf.sva.disable_ipv6=1
	ip netns exec "$B" sysctl -qw net.ipv6.conf.svb.disable_ipv6=1
}

cat >"$conf" <<EOF
# two TAPs; b takes 32 KiB super-packets at most
ports add tap:sva@$A
ports add tap:svb@$B
limits svb gso_max_size 32768
EOF
sw_start --config "$conf"
addrs
if wait_log "info: port sva: gso_max_size 65536 -> 32768, gso_max_segs 65535 -> 65535 (propagated)" &&
   [ "$(gso_of "$A" sva)" = 32768 ]; then
	ok "propagation to sva logged (65536 -> 32768) and applied"
else bad "propagation: $(gso_of "$A" sva); $(grep propagated "$tmp/switch.err")"; fi
if nsping "$A" 10.83.0.2; then ok "ping through the switch"; else bad "ping"; fi
rx0=$(stat_of sva rx_packets)
fdb0=$(vctl fdb | awk '$2 == "sva" { print $1 }')

# A reload that changes a limit: propagated at run time, ports kept.
sed -i 's/gso_max_size 32768/gso_max_size 16000/' "$conf"
if vctl reload && wait_log "port sva: gso_max_size 32768 -> 16000" &&
   [ "$(gso_of "$A" sva)" = 16000 ]; then
	ok "reload: new limit propagated to sva at run time"
else bad "reload propagation: $(gso_of "$A" sva)"; fi
rx1=$(stat_of sva rx_packets)
fdb1=$(vctl fdb | awk '$2 == "sva" { print $1 }')
if [ "$rx0" -gt 0 ] && [ "$rx1" -ge "$rx0" ] && [ -n "$fdb0" ] &&
   [ "$fdb1" = "$fdb0" ] && ! grep -q "port sva removed" "$tmp/switch.err"; then
	ok "sva kept through the reload: counters ($rx0 -> $rx1), MAC $fdb0"
else bad "sva after reload: rx $rx0 -> $rx1, fdb '$fdb0' -> '$fdb1'"; fi
if nsping "$A" 10.83.0.2; then ok "ping after the reload (addresses kept)"
else bad "ping after reload"; fi

# napi cannot change on a running TAP: refused, with the way out.
sed -i "s/^ports add tap:svb@$B\$/ports add tap:svb@$B,napi=on/" "$conf"
if vctl reload 2>"$tmp/err"; then bad "napi change accepted"
elif [ "$(cat "$tmp/err")" = "voff ctl: $conf:3: port 'svb': runs as 'tap:svb@$B', not 'tap:svb@$B,napi=on'; what a port is opened with cannot change while it runs (after \`ports del svb\` it is re-created)" ]; then
	ok "napi change refused, nothing changed"
else bad "napi reload: $(cat "$tmp/err")"; fi
sed -i "s/,napi=on\$//" "$conf"

# Down and up, as the switch sees it: frames refused, then taken.  The
# switch tells at its next tick (a second): broadcasts (flooded to svb) go
# on until the log holds TEXT.
bcast_log() {	# TEXT
	nsbcast "$A" 10.83.0.255
	grep -qsF -- "$1" "$tmp/switch.err"
}
ip -n "$B" link set svb down
if wait_until 100 bcast_log "warning: port svb down: its device refuses frames (Input/output error)"; then
	ok "svb down logged"
else bad "no down: $(tail -3 "$tmp/switch.err")"; fi
ip -n "$B" link set svb up
if wait_until 100 bcast_log "notice: port svb up"; then ok "svb up logged"
else bad "no up: $(tail -3 "$tmp/switch.err")"; fi

# Deleted under the switch: failed; a reload re-opens it.
ip -n "$B" link del svb
if wait_log "error: port svb failed:"; then ok "svb failed logged"
else bad "no failure: $(tail -3 "$tmp/switch.err")"; fi
if vctl reload && wait_log "notice: port svb recovered: re-opened" &&
   wait_log "reloaded: 1 added, 0 removed, 0 changed, 1 unchanged" &&
   ip -n "$B" link show svb >/dev/null 2>&1; then
	ok "reload re-created the failed svb"
else bad "recovery: $(tail -5 "$tmp/switch.err")"; fi
addr_tap "$B" svb 10.83.0.2/24
# The new device has a new MAC address: A forgets the old one.
ip -n "$A" neigh flush dev sva
if nsping "$A" 10.83.0.2 5; then ok "traffic through the re-created svb"
else bad "no traffic after recovery"; fi

if sw_stop; then ok "switch stopped cleanly"; else bad "switch exit status"; fi
[ "$fails" -eq 0 ]
