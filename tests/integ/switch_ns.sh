#!/bin/bash
# SPDX-License-Identifier: MIT
#
# switch_ns.sh - `voff switch` between two namespaces, and `voff ctl`
#
#   netns voff-sw-a-$$           voff switch              netns voff-sw-b-$$
#   va 10.77.0.1/24  <--TAP-->  (this namespace)  <--TAP-->  vb 10.77.0.2/24
#      fd77::1/64                                               fd77::2/64
#
# TCP (bytes checked by SHA-256) and UDP over IPv4 and IPv6, TCP over a
# VLAN (tagged frames pass untouched); super-packets
# cross whole (counters); with TSO off on the egress the same transfer
# arrives as MTU segments; a lower gso_max_size is propagated to the other
# TAP; every ctl command, under traffic; bad commands fail clearly; a port
# is added and removed at run time; everything is removed at the end.
# Needs root, ip and python3; skips with 77 otherwise.
set -u
tag=sw
# ok, bad, vctl, stat_of, sw_start, sw_stop, wait_until, the namespaces
# and the cleanup.
# shellcheck source=tests/integ/lib_ns.sh
. "$(dirname "$0")/lib_ns.sh"
ns_require python3
a=$(ns_add a) b=$(ns_add b) c=$(ns_add c)

sw_start --port "tap:va@$a" --port "tap:vb@$b"
if [ "$(stat -c %a "$ctl")" = 600 ]; then ok "control socket mode 0600"; else bad "socket mode"; fi
ip -n "$a" addr add 10.77.0.1/24 dev va
ip -n "$b" addr add 10.77.0.2/24 dev vb
ip -n "$a" addr add fd77::1/64 dev va nodad
ip -n "$b" addr add fd77::2/64 dev vb nodad

# TCP bytes with a digest, UDP echo counts
py=$(dirname "$0")/peer.py
transfer() {	# proto addr size
	local port=5201 s
	[ "$1" = udp ] && port=5202	# peer.py's
	ip netns exec "$b" python3 "$py" server "$1" "$2" "$3" &
	s=$!
	wait_until 100 ns_listens "$b" "$1" "$port" ||
		bad "$1 server on port $port did not start"
	ip netns exec "$a" python3 "$py" client "$1" "$2" "$3"
	local rc=$?
	wait "$s"
	return $rc
}
if transfer tcp 10.77.0.2 8000000; then ok "TCP over IPv4"; else bad "TCP over IPv4"; fi
if transfer tcp fd77::2 8000000; then ok "TCP over IPv6"; else bad "TCP over IPv6"; fi
if transfer udp 10.77.0.2 50; then ok "UDP over IPv4"; else bad "UDP over IPv4"; fi
if transfer udp fd77::2 50; then ok "UDP over IPv6"; else bad "UDP over IPv6"; fi
if [ "$(stat_of vb tx_super)" -gt 0 ] && [ "$(stat_of vb gso_segs)" -eq 0 ]; then
	ok "super-packets pass whole (no segmentation)"; else bad "super-packets cut"; fi
if vctl fdb | grep -q " va " && vctl fdb | grep -q " vb "; then ok "fdb learned both"; else bad "fdb"; fi

# VLAN-tagged frames cross untouched: a VLAN device on each side (when
# the kernel has 802.1Q).
if ip -n "$a" link add link va name va.10 type vlan id 10 2>/dev/null; then
	ip -n "$b" link add link vb name vb.10 type vlan id 10
	ip -n "$a" addr add 10.78.0.1/24 dev va.10
	ip -n "$b" addr add 10.78.0.2/24 dev vb.10
	ip -n "$a" link set va.10 up
	ip -n "$b" link set vb.10 up
	if transfer tcp 10.78.0.2 4000000; then ok "TCP over VLAN 10"
	else bad "TCP over VLAN 10"; fi
else
	echo "ok - # skip VLAN: no 802.1Q in this kernel"
fi

# TSO off on vb's egress: MTU segments, same bytes.
if vctl features vb tso off; then ok "features vb tso off"; else bad "features set"; fi
if vctl features vb | grep -q "tx-tcp-segmentation: off"; then ok "features shows tso off"; else bad "features show"; fi
if transfer tcp 10.77.0.2 4000000; then ok "TCP with TSO off on the egress"; else bad "TCP TSO off"; fi
if [ "$(stat_of vb gso_segs)" -gt 0 ]; then ok "egress segmented in software"; else bad "no segmentation"; fi
vctl features vb tso on

# A lower limit on vb is propagated to va's device.
segs0=$(stat_of vb gso_segs)
if vctl limits vb gso_max_size 16000; then ok "limits set"; else bad "limits set"; fi
if ip -n "$a" -d link show va | grep -q "gso_max_size 16000"; then ok "limit propagated to va"
else bad "propagation: $(ip -n "$a" -d link show va | grep -o 'gso_max_size [0-9]*')"; fi
if transfer tcp 10.77.0.2 4000000; then ok "TCP with a lower egress limit"; else bad "TCP limited"; fi
# Propagated: va's senders build what vb takes, the switch cuts nothing.
if [ "$(stat_of vb reseg_in)" -eq 0 ] && [ "$(stat_of vb gso_segs)" -eq "$segs0" ]; then
	ok "nothing resegmented with propagation"
else
	bad "cut $(stat_of vb reseg_in)/$(stat_of vb gso_segs) despite propagation"
fi
if vctl limits vb | grep -q "gso_max_size: 16000"; then ok "limits show"; else bad "limits show"; fi
vctl limits vb gso_max_size 65536

# GRO on the ingress, under traffic.
ip netns exec "$b" python3 "$py" server tcp 10.77.0.2 8000000 &
s=$!
wait_until 100 ns_listens "$b" tcp 5201 || bad "tcp server did not start"
vb_bytes=$(stat_of vb tx_bytes)
ip netns exec "$a" python3 "$py" client tcp 10.77.0.2 8000000 &
cpid=$!
wait_until 100 stat_above vb tx_bytes $((vb_bytes + 100000)) ||
	bad "no traffic to vb before the changes"
vctl features va gro on
vctl limits va gro_flush_timeout 20000
vctl stats >/dev/null
if wait "$cpid"; then ok "TCP while GRO and limits change"; else bad "TCP under ctl changes"; fi
wait "$s"
vctl features va gro off

# Bad commands.
if vctl nonsense 2>/dev/null; then bad "unknown command accepted"; else ok "unknown command refused"; fi
if vctl features nope 2>&1 | grep -q "no port 'nope'"; then ok "unknown port named"; else bad "unknown port"; fi
if vctl features va foo on 2>&1 | grep -q "unknown feature 'foo'"; then ok "unknown feature named"; else bad "unknown feature"; fi
if vctl limits va gso_max_size 5 2>/dev/null; then bad "bad limit accepted"; else ok "out-of-range limit refused"; fi
if vctl -j limits va mtu 9000 2>&1 | grep -q '"error"'; then ok "JSON error"; else bad "JSON error"; fi

# Ports at run time.
if vctl ports add "tap:vc@$c"; then ok "ports add"; else bad "ports add"; fi
if vctl ports | grep -q " vc " && ip -n "$c" link show vc >/dev/null 2>&1; then ok "vc exists"; else bad "vc missing"; fi
if vctl ports add "tap:vc@$c" 2>/dev/null; then bad "duplicate port accepted"; else ok "duplicate port refused"; fi
if vctl ports del vc; then ok "ports del"; else bad "ports del"; fi
if ip -n "$c" link show vc >/dev/null 2>&1; then bad "vc left behind"; else ok "vc removed"; fi
if transfer tcp 10.77.0.2 2000000; then ok "traffic after port changes"; else bad "traffic after port changes"; fi

sw_stop
rc=$?
if [ "$rc" -eq 0 ]; then ok "switch stopped cleanly"; else bad "switch exit $rc"; fi
if ip -n "$a" link show va >/dev/null 2>&1; then bad "va left behind"; else ok "TAP devices removed"; fi
if [ -e "$ctl" ]; then bad "socket left behind"; else ok "socket removed"; fi
[ "$fails" -eq 0 ] || { sed 's/^/# switch: /' "$LIB_TMP/switch.err"; exit 1; }
