#!/bin/bash
# SPDX-License-Identifier: MIT
#
# switch_prom.sh - `voff ctl stats --prometheus` is the Prometheus text
# exposition format as a real parser reads it (the Python
# prometheus_client's, Debian's python3-prometheus-client; and `promtool
# check metrics` when Debian's prometheus is installed), every family
# has its HELP and TYPE, and the values are the switch's: counters as
# `voff ctl -j stats` gives them, drops by reason as labels, settings as
# gauges, a vhost-user port's own counters and state beside.  Needs no
# root: the switch runs over pcap ports and a vhost-user port no VMM
# connects to.  Skips (77) without any parser.
#
#   sample.pcap -> [pcap port a]--voff switch--[pcap port b] (no sink:
#                                               every frame to it drops)
set -u

data=${VOFF_DATA:-$(cd "$(dirname "$0")/../data" && pwd)}
py=
for p in python3 /usr/bin/python3; do
	if "$p" -c 'import prometheus_client.parser' 2>/dev/null; then
		py=$p
		break
	fi
done
[ -n "$py" ] || command -v promtool >/dev/null ||
	{ echo "skip: no Prometheus parser (python3-prometheus-client, prometheus)"; exit 77; }
tag=prom
# shellcheck source=tests/integ/lib_ns.sh
. "$(dirname "$0")/lib_ns.sh"
tmp=$LIB_TMP

cp "$data/sample.pcap" "$tmp/a.pcap"
head -c 24 "$data/sample.pcap" >"$tmp/b.pcap"
a=$tmp/a.pcap b=$tmp/b.pcap vm=$tmp/vm.sock
printf 'ports add pcap:%s,sink=%s/a-out.pcap\nports add pcap:%s\nlimits %s gso_max_size 9000 gro on\nports add vhost-user:%s\n' \
	"$a" "$tmp" "$b" "$b" "$vm" >"$tmp/x.conf"
sw_start --config "$tmp/x.conf"
wait_until 100 stat_above "$b" tx_dropped 0 || bad "no drop counted at b"
vctl -j stats >"$tmp/stats.json"
vctl stats --prometheus >"$tmp/all.prom"
vctl stats "$b" --prometheus >"$tmp/b.prom"

if [ -n "$py" ]; then
	if "$py" - "$tmp/all.prom" "$tmp/stats.json" "$a" "$b" "$vm" <<'PY'; then
import json, sys
from prometheus_client.parser import text_string_to_metric_families
text = open(sys.argv[1]).read()
stats = {s["port"]: s for s in json.load(open(sys.argv[2]))}
a, b, vm = sys.argv[3], sys.argv[4], sys.argv[5]
fams = {f.name: f for f in text_string_to_metric_families(text)}
def val(family, **labels):
    for s in fams[family].samples:
        if all(s.labels.get(k) == v for k, v in labels.items()):
            return s.value
    raise KeyError((family, labels))
# Every family has its help and type; counters end in _total.
for line in text.splitlines():
    if line.startswith("# TYPE "):
        _, _, name, typ = line.split(" ")
        assert "# HELP %s " % name in text, name
        assert typ in ("counter", "gauge"), line
        assert (typ == "counter") == name.endswith("_total"), line
# Counters as -j stats has them (the parser drops _total from names).
for port in (a, b):
    for k in ("rx_packets", "tx_packets", "rx_bytes", "tx_bytes",
              "flooded", "gso_segs", "rx_held", "rx_kernel_dropped"):
        assert val("voff_port_" + k, port=port) == stats[port][k], (port, k)
    for r in ("no_egress", "runt", "no_buffer"):
        assert val("voff_switch_drops", port=port, reason=r) == \
            stats[port]["drop_" + r], (port, r)
assert val("voff_port_rx_packets", port=a) > 0
assert fams["voff_port_rx_kernel_dropped"].documentation.startswith(
    "Frames the kernel dropped"), fams["voff_port_rx_kernel_dropped"]
# b's sends all drop, under their reason; the sum is tx_dropped.
tx = [s for s in fams["voff_port_drops"].samples
      if s.labels["port"] == b and s.labels["direction"] == "tx"]
assert tx and sum(s.value for s in tx) == stats[b]["tx_dropped"] > 0, tx
# Settings as gauges; a bool is 0 or 1.
assert val("voff_port_gso_max_size", port=b) == 9000
assert val("voff_port_gso_max_size", port=a) == 65536
assert val("voff_port_gro", port=b) == 1 and val("voff_port_gro", port=a) == 0
assert val("voff_port_info", port=a, kind="pcap", netns="") == 1
assert val("voff_port_failed", port=a) == 0
assert val("voff_ctl_requests") >= 1 and val("voff_ctl_monitors") == 0
assert fams["voff_port_rx_packets"].type == "counter"
assert fams["voff_port_gso_max_size"].type == "gauge"
# A vhost-user port's own counters, for it alone; its state as gauges.
for k in ("connects", "disconnects", "starts", "stops", "guest_calls",
          "messages", "refused_peer"):
    f = fams["voff_port_vhost_" + k]
    assert f.type == "counter", f
    assert [(s.labels["port"], s.value) for s in f.samples] == \
        [(vm, stats[vm]["vhost_" + k])], f
assert fams["voff_port_vhost_connects"].documentation.startswith(
    "vhost-user: connections"), fams["voff_port_vhost_connects"]
for k in ("connected", "running"):
    f = fams["voff_port_vhost_" + k]
    assert f.type == "gauge", f
    assert [(s.labels["port"], s.value) for s in f.samples] == [(vm, 0)], f
assert "voff_port_vhost_features" not in fams
assert val("voff_port_info", port=vm, kind="vhost-user", netns="") == 1
PY
		ok "prometheus_client parses it; values match -j stats"
	else bad "prometheus_client: $(head -20 "$tmp/all.prom")"; fi
	if "$py" - "$tmp/b.prom" "$b" <<'PY'; then
import sys
from prometheus_client.parser import text_string_to_metric_families
ports = {s.labels["port"] for f in text_string_to_metric_families(
    open(sys.argv[1]).read()) for s in f.samples if "port" in s.labels}
assert ports == {sys.argv[2]}, ports
PY
		ok "stats PORT --prometheus: that port only"
	else bad "stats PORT --prometheus"; fi
fi
if command -v promtool >/dev/null; then
	if promtool check metrics <"$tmp/all.prom" >"$tmp/promtool" 2>&1; then
		ok "promtool check metrics: clean"
	else bad "promtool: $(cat "$tmp/promtool")"; fi
fi
if vctl -j stats --prometheus >/dev/null 2>"$tmp/err"; then bad "-j with --prometheus"
elif [ "$(cat "$tmp/err")" = "voff ctl: usage: stats [PORT] --prometheus (no -j)" ]; then
	ok "-j and --prometheus refused together"
else bad "-j --prometheus: $(cat "$tmp/err")"; fi
if vctl stats nope --prometheus >/dev/null 2>"$tmp/err"; then bad "no port nope"
elif grep -q "no port 'nope'" "$tmp/err"; then ok "unknown port: the switch's error"
else bad "unknown port: $(cat "$tmp/err")"; fi

sw_stop
[ "$fails" -eq 0 ]
