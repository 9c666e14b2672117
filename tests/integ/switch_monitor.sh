#!/bin/bash
# SPDX-License-Identifier: MIT
#
# switch_monitor.sh - `voff ctl monitor`: several monitors at once get
# every event as one line (text, or JSON Lines with -j); a monitor that
# never reads does not hold the switch back, loses what does not fit and
# is told how much once it reads; at most 8 monitors; a monitor ends with
# the switch.  Needs no root: the switch runs over pcap ports.
#
#   [pcap port a]--voff switch--[pcap port b]
#                     |  \___ monitor (text), monitor -j, a stalled one
#                     \______ voff ctl limits ... (the events)
set -u

data=${VOFF_DATA:-$(cd "$(dirname "$0")/../data" && pwd)}
command -v python3 >/dev/null || { echo "skip: python3 missing"; exit 77; }
command -v timeout >/dev/null || { echo "skip: timeout missing"; exit 77; }
tag=mon
# shellcheck source=tests/integ/lib_ns.sh
. "$(dirname "$0")/lib_ns.sh"
tmp=$LIB_TMP

head -c 24 "$data/sample.pcap" >"$tmp/a.pcap"
head -c 24 "$data/sample.pcap" >"$tmp/b.pcap"
a=$tmp/a.pcap
sw_start --port "pcap:$a" --port "pcap:$tmp/b.pcap" --log-level notice

vctl monitor >"$tmp/text" &
m1=$!
vctl -j monitor >"$tmp/json" &
m2=$!
lib_pids+=("$m1" "$m2")
if ! wait_file "$tmp/text" "monitor started" ||
   ! wait_file "$tmp/json" "monitor started"; then
	bad "monitors did not start"
fi
vctl limits "$a" gso_max_segs 20
vctl ports del "$tmp/b.pcap"
wait_file "$tmp/json" '"event":"port_removed"' || bad "no port_removed in JSON"
if grep -qE "^[0-9T:.-]+Z info setting: port $a: gso_max_segs 65535 -> 20\$" "$tmp/text" &&
   grep -qE "^[0-9T:.-]+Z notice port_removed: port $tmp/b.pcap removed\$" "$tmp/text"; then
	ok "text monitor: time, level, event, message (info though the log is at notice)"
else bad "text monitor: $(cat "$tmp/text")"; fi
if python3 - "$tmp/json" "$a" <<'PY'; then
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
names = [e["event"] for e in ev]
assert names[0] == "monitor", names
s = [e for e in ev if e["event"] == "setting"][0]
assert s["port"] == sys.argv[2] and s["setting"] == "gso_max_segs", s
assert s["old"] == 65535 and s["new"] == 20 and s["level"] == "info", s
r = [e for e in ev if e["event"] == "port_removed"][0]
assert r["spec"].startswith("pcap:") and r["level"] == "notice", r
assert all(set(e) >= {"time", "level", "event", "port", "message"} for e in ev)
PY
	ok "JSON monitor: one object per line, typed fields"
else bad "JSON monitor: $(cat "$tmp/json")"; fi

# A monitor that never reads: the switch answers on, the monitor loses.
python3 - "$ctl" "$tmp/slow" <<'PY' &
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect(sys.argv[1])
s.sendall(b"monitor\n")
open(sys.argv[2] + ".ready", "w").close()
while not os.path.exists(sys.argv[2] + ".go"):
    time.sleep(0.05)
# It reads what waited in the switch, flushing each piece; once nothing
# more came for 0.5 s it takes that queue as drained and says so
# (".drained"); it ends 2 s after the last data.
s.settimeout(0.5)
with open(sys.argv[2], "wb") as f:
    while True:
        try:
            d = s.recv(65536)
        except socket.timeout:
            if s.gettimeout() == 2:
                break
            open(sys.argv[2] + ".drained", "w").close()
            s.settimeout(2)
            continue
        if not d:
            break
        f.write(d)
        f.flush()
PY
slow=$!
lib_pids+=("$slow")
wait_file "$tmp/text" "monitor started (3 connected)" || bad "slow monitor not started"
answered=0
# Fifteen changes a request: rx_budget 1, 2, 1, 2, ...
changes=()
for k in $(seq 15); do changes+=(rx_budget $((k % 2 + 1))); done
for i in $(seq 60); do
	timeout 10 "$voff" ctl --ctl "$ctl" limits "$a" "${changes[@]}" || break
	timeout 10 "$voff" ctl --ctl "$ctl" ports >/dev/null && answered=$((answered + 1))
done
if [ "$answered" -eq 60 ]; then ok "switch answered 60 requests beside a stalled monitor"
else bad "only $answered of 60 requests answered"; fi
lost=$(vctl -j server | python3 -c 'import json,sys; print(json.load(sys.stdin)["events_lost"])')
if [ "$lost" -gt 0 ]; then ok "events lost by the stalled monitor counted ($lost)"
else bad "events_lost $lost"; fi
touch "$tmp/slow.go"
# It reads what waited; then two more events, which it gets whole.
wait_until 100 test -e "$tmp/slow.drained" || bad "stalled monitor never drained"
vctl limits "$a" gso_max_segs 30
wait_file "$tmp/slow" "gso_max_segs 20 -> 30" || bad "no 20 -> 30 event"
vctl limits "$a" gso_max_segs 40
wait "$slow"
if python3 - "$tmp/slow" "$lost" <<'PY'; then
import re, sys
lines = open(sys.argv[1]).read().splitlines()
lost = [i for i, l in enumerate(lines) if " warning events_lost: " in l]
assert len(lost) == 1, lost
m = re.search(r"events_lost: (\d+) events lost: this monitor reads too slowly",
              lines[lost[0]])
assert m and int(m.group(1)) == int(sys.argv[2]), lines[lost[0]]
# What came after the loss is whole: the last two changes, in order.
assert lines[-1].endswith("gso_max_segs 30 -> 40"), lines[-1]
assert all(re.match(r"^\S+Z \w+ \w+: ", l) for l in lines), "a cut line"
PY
	ok "stalled monitor: one 'events lost' line with the count, then the rest"
else bad "stalled monitor got: $(head -c 300 "$tmp/slow") ... $(tail -3 "$tmp/slow")"; fi
# The text monitor, which read, lost nothing: each change is there.
if [ "$(grep -c "setting: port $a: rx_budget" "$tmp/text")" -ge 600 ] &&
   ! grep -q events_lost "$tmp/text"; then
	ok "a monitor that reads loses nothing"
else bad "text monitor: $(grep -c rx_budget "$tmp/text") rx_budget lines"; fi

# At most 8 monitors.
for i in 3 4 5 6 7 8; do
	vctl monitor >"$tmp/m$i" &
	lib_pids+=($!)
done
for i in 3 4 5 6 7 8; do wait_file "$tmp/m$i" "monitor started" || bad "m$i"; done
if vctl monitor >/dev/null 2>"$tmp/err9"; then bad "a 9th monitor"
elif [ "$(cat "$tmp/err9")" = "voff ctl: monitor: 8 monitors already" ]; then
	ok "a 9th monitor refused"
else bad "9th monitor: $(cat "$tmp/err9")"; fi

# This switch has no --config: nothing to reload.
expect 1 "voff ctl: reload: this switch was started without --config" \
	vctl reload

# The switch stops: the monitors end, status 0.
sw_stop
if wait "$m1" && wait "$m2"; then ok "monitors end with the switch"
else bad "monitor exit status"; fi
if grep -q "stop: stopping on SIGTERM" "$tmp/text"; then ok "the stop is the last event"
else bad "no stop event"; fi
[ "$fails" -eq 0 ]
