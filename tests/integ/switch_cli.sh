#!/bin/bash
# SPDX-License-Identifier: MIT
#
# switch_cli.sh - what an operator sees from `voff switch` and `voff ctl`:
# a bad --port says which part is wrong and exits 2 before anything is
# opened; `voff ctl` refuses its own bad options without connecting, says
# "voff ctl:" before the switch's error replies, refuses a value out of a
# setting's range with the range, takes a port id where it takes a name,
# prints headers, and does not offer pcap: in its help.  Needs no root:
# the switch runs over two pcap ports.
#
#   in-a.pcap -> [pcap port A]--\
#                                voff switch <-- voff ctl (unix socket)
#   in-b.pcap -> [pcap port B]--/
set -u

data=${VOFF_DATA:-$(cd "$(dirname "$0")/../data" && pwd)}
command -v python3 >/dev/null || { echo "skip: python3 missing"; exit 77; }
tag=cli
# ok, bad, vctl, sw_start, $LIB_TMP and the cleanup; no namespace is made.
# shellcheck source=tests/integ/lib_ns.sh
. "$(dirname "$0")/lib_ns.sh"
tmp=$LIB_TMP

# ---- voff switch: port specs are checked first, exit 2 -------------------
expect 2 "voff switch: --port tap:x1,gro=maybe: gro: expected on or off" \
	"$voff" switch --ctl "$ctl" --port tap:x1,gro=maybe
expect 2 "voff switch: --port bogus:x: unknown port kind 'bogus' (kinds: tap, tun, packet, pcap, vhost-user, vxlan)" \
	"$voff" switch --ctl "$ctl" --port bogus:x
# The options listed are the table's, whatever it holds.
"$voff" switch --ctl "$ctl" --port tap:x1,foo=1 2>"$tmp/err"
rc=$?
case "$(cat "$tmp/err")" in
"voff switch: --port tap:x1,foo=1: unknown option 'foo' (options: gso_max_size, gso_max_segs, gro_max_size, gro_flush_timeout, gro, napi"*")")
	if [ "$rc" -eq 2 ]; then ok "unknown option listed the options"
	else bad "unknown option: status $rc"; fi ;;
*) bad "unknown option: $(cat "$tmp/err")" ;;
esac
expect 2 "voff switch: --busy-poll: 10001 out of range (0..10000)" \
	"$voff" switch --ctl "$ctl" --busy-poll 10001 --port tap:x1
expect 2 "voff switch: --busy-poll: '5us' is not a number" \
	"$voff" switch --ctl "$ctl" --busy-poll 5us --port tap:x1
expect 2 "voff switch: --port tap:an-interface-name: interface name too long (max 15 bytes)" \
	"$voff" switch --ctl "$ctl" --port tap:an-interface-name
# A bad spec after a good one: nothing was opened or created.
expect 2 "voff switch: --port tap:x,gro_max_size=70000: gro_max_size: 70000 is out of range (0..65536 bytes)" \
	"$voff" switch --ctl "$ctl" --port "pcap:$tmp/never.pcap" \
	--port tap:x,gro_max_size=70000
if [ -e "$ctl" ] || [ -e "$tmp/never.pcap" ]; then bad "something was created"
else ok "nothing created for a refused spec"; fi
if "$voff" switch --help | grep -q "^  gro_max_size=0..65536 bytes, default 65536$"; then
	ok "switch --help lists the settings"
else bad "switch --help: $("$voff" switch --help)"; fi

# ---- a running switch ---------------------------------------------------
cp "$data/sample.pcap" "$tmp/in-a.pcap"
cp "$data/sample.pcap" "$tmp/in-b.pcap"
sw_start --port "pcap:$tmp/in-a.pcap,sink=$tmp/a.pcap" \
	--port "pcap:$tmp/in-b.pcap,sink=$tmp/b.pcap"
requests() { vctl -j server | python3 -c 'import json,sys; print(json.load(sys.stdin)["requests"])'; }

# Client options are the client's: an unknown one never reaches the switch.
n0=$(requests)
expect 2 "voff ctl: unknown option '--bogus' (try voff ctl --help)" \
	vctl --bogus ports
expect 2 "voff ctl: --ctl needs a PATH" "$voff" ctl --ctl
n1=$(requests)
if [ "$n1" -eq $((n0 + 1)) ]; then ok "bad options sent nothing"
else bad "requests $n0 -> $n1: a bad option reached the switch"; fi

# Error replies carry the client's name; ranges are enforced and named.
expect 1 "voff ctl: gro_max_size: 70000 is out of range (0..65536 bytes)" \
	vctl limits 0 gro_max_size 70000
expect 1 "voff ctl: unknown command 'frob' (try help)" vctl frob
expect 1 "voff ctl: no port 'nope'" vctl stats nope
if vctl -j limits 0 gro_max_size 70000 2>&1 >/dev/null |
	python3 -c 'import json,sys; assert "out of range" in json.load(sys.stdin)["error"]'; then
	ok "JSON error reply is JSON"
else bad "JSON error reply"; fi
if [ "$(vctl -j limits 0 | python3 -c 'import json,sys; print(json.load(sys.stdin)["gro_max_size"])')" = 65536 ]; then
	ok "refused value left gro_max_size alone"
else bad "gro_max_size changed"; fi

# Headers, the netns column, ids as PORT.
vctl ports >"$tmp/ports"
if head -1 "$tmp/ports" | grep -q "^ID  NAME .* NETNS .* IFINDEX"; then ok "ports header"
else bad "ports header: $(head -1 "$tmp/ports")"; fi
if [ "$(vctl -j ports | python3 -c 'import json,sys; print([p["netns"] for p in json.load(sys.stdin)])')" = "[None, None]" ]; then
	ok "ports JSON has netns"
else bad "ports JSON: $(vctl -j ports)"; fi
if vctl fdb | head -1 | grep -q "^MAC  *PORT  *VLAN AGE"; then ok "fdb header"
else bad "fdb header: $(vctl fdb | head -1)"; fi
if vctl ports del 1 && [ "$(vctl -j ports | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" = 1 ]; then
	ok "ports del by id"
else bad "ports del 1"; fi

# Help offers what this switch takes: no pcap: over the socket.
vctl help >"$tmp/help"
if grep -q "^  tap:NAME\[@NETNS\]$" "$tmp/help" && ! grep -q "pcap:" "$tmp/help"; then
	ok "help offers tap:, not pcap:"
else bad "help: $(cat "$tmp/help")"; fi
if "$voff" ctl --help | grep -q "^  gso_max_size=193..65554 bytes" &&
   ! "$voff" ctl --help | grep -q "pcap:"; then
	ok "ctl --help from the tables"
else bad "ctl --help"; fi

if sw_stop; then ok "switch stopped cleanly"; else bad "switch exit status"; fi
[ "$fails" -eq 0 ]
