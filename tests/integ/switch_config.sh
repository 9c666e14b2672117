#!/bin/bash
# SPDX-License-Identifier: MIT
#
# switch_config.sh - `voff switch --config`: a bad line names the file, the
# line and the reason and nothing starts (exit 2); --port and --config
# combine (--port first, a name declared twice refused); `voff ctl save`
# writes the running state (stdout, or a file replaced atomically), a new
# switch started from it saves the identical text; a reload (`voff ctl
# reload` and SIGHUP) applies the difference and keeps unchanged ports
# with their counters and MAC entries; a refused reload changes nothing
# and says why; the pid file; logs with levels, in the journal's format
# under $JOURNAL_STREAM; sd_notify; the drop-rate alarm.  Needs no root:
# the switch runs over pcap ports.
#
#   a.pcap (frames) -> [pcap port a]--\
#                                      voff switch --config x.conf
#   b.pcap (empty)  -> [pcap port b]--/      <-- voff ctl (unix socket)
set -u

data=${VOFF_DATA:-$(cd "$(dirname "$0")/../data" && pwd)}
command -v python3 >/dev/null || { echo "skip: python3 missing"; exit 77; }
tag=cfg
# ok, bad, vctl, expect, stat_of, sw_start, sw_stop, wait_log, $LIB_TMP
# and the cleanup.
# shellcheck source=tests/integ/lib_ns.sh
. "$(dirname "$0")/lib_ns.sh"
tmp=$LIB_TMP
conf=$tmp/x.conf

cp "$data/sample.pcap" "$tmp/a.pcap"
# b: a capture header and no frame (nothing of b's in the MAC table).
head -c 24 "$data/sample.pcap" >"$tmp/b.pcap"
head -c 24 "$data/sample.pcap" >"$tmp/c.pcap"
a=$tmp/a.pcap b=$tmp/b.pcap c=$tmp/c.pcap

# ---- a bad line: file, line, reason; nothing started -------------------
cat >"$conf" <<EOF
# two ports
ports add pcap:$a,sink=$tmp/a-out.pcap

limits $a gro_max_size 70000
ports add pcap:$b
EOF
expect 2 "voff switch: $conf:4: gro_max_size: 70000 is out of range (0..65536 bytes)" \
	"$voff" switch --ctl "$ctl" --config "$conf"
if [ -e "$ctl" ] || [ -e "$tmp/a-out.pcap" ]; then bad "something was created"
else ok "nothing created for a bad file"; fi
printf 'ports add pcap:%s\nstats\n' "$a" >"$conf"
expect 2 "voff switch: $conf:2: 'stats' is not a configuration request (a file takes: ports add, features, limits, fdb add)" \
	"$voff" switch --ctl "$ctl" --config "$conf"
expect 2 "voff switch: $tmp/none.conf: No such file or directory" \
	"$voff" switch --ctl "$ctl" --config "$tmp/none.conf"
printf 'ports add pcap:%s\n' "$a" >"$conf"
expect 2 "voff switch: $conf:1: port '$a' is declared twice (first at --port)" \
	"$voff" switch --ctl "$ctl" --port "pcap:$a" --config "$conf"
expect 2 "voff switch: --log-level: expected error, warning, notice, info or debug, not 'loud'" \
	"$voff" switch --ctl "$ctl" --config "$conf" --log-level loud
expect 2 "voff switch: --drop-alarm: 101 out of range (0..100)" \
	"$voff" switch --ctl "$ctl" --config "$conf" --drop-alarm 101

# ---- started from --port and --config; save ----------------------------
cat >"$conf" <<EOF
ports add pcap:$a,sink=$tmp/a-out.pcap,gro=on   # frames come from here
limits $a gso_max_size 32768 rx_budget 16
features $a tx-checksum-ip-generic off
EOF
js=$tmp/journal.err
sw_start --port "pcap:$b" --config "$conf" --pidfile "$tmp/pid" \
	--log-level debug
cat >"$tmp/want" <<EOF
ports add pcap:$b
ports add pcap:$a,sink=$tmp/a-out.pcap
limits $a gso_max_size 32768 gro on rx_budget 16
features $a tx-checksum-ip-generic off
EOF
if vctl save >"$tmp/saved" && diff "$tmp/want" "$tmp/saved" >&2; then
	ok "save: --port first, then the file's ports, settings, features"
else bad "save"; fi
if [ "$(cat "$tmp/pid")" = "$swpid" ]; then ok "pid file holds the pid"
else bad "pid file: '$(cat "$tmp/pid" 2>/dev/null)' (want $swpid)"; fi
expect 1 "voff switch: --pidfile $tmp/pid: held by running process $swpid" \
	"$voff" switch --ctl "$tmp/ctl2" --port "pcap:$c" --pidfile "$tmp/pid"
if grep -qE '^[0-9T:.-]+Z voff switch\[[0-9]+\]: notice: port .*/a.pcap added \(pcap:' \
	"$tmp/switch.err"; then ok "log lines: time, pid, level"
else bad "log: $(head -3 "$tmp/switch.err")"; fi
if wait_log "debug: control request 'save': ok"; then ok "debug: requests logged"
else bad "no debug line for save"; fi

# save FILE: written by the client, replacing the file atomically.
echo "old" >"$tmp/saved.conf"
if vctl save "$tmp/saved.conf" && cmp -s "$tmp/saved.conf" "$tmp/want" &&
   [ -z "$(find "$tmp" -name '.voff-save-*')" ]; then
	ok "save FILE: same text, no temporary left"
else bad "save FILE"; fi
mkdir "$tmp/ro" && chmod 500 "$tmp/ro"
if [ "$(id -u)" -ne 0 ]; then
	expect 1 "voff ctl: $tmp/ro/x.conf: Permission denied" \
		vctl save "$tmp/ro/x.conf"
fi
expect 1 "voff ctl: $tmp/nodir/x.conf: No such file or directory" \
	vctl save "$tmp/nodir/x.conf"

# A new switch from the saved file saves the identical text.
"$voff" switch --ctl "$tmp/ctl2" --config "$tmp/saved.conf" 2>"$tmp/sw2.err" &
sw2=$!
wait_until 100 test -S "$tmp/ctl2" ||
	bad "second switch did not start: $(cat "$tmp/sw2.err")"
"$voff" ctl --ctl "$tmp/ctl2" save >"$tmp/saved2"
kill "$sw2"; wait "$sw2"
if cmp -s "$tmp/saved2" "$tmp/want"; then ok "save -> start -> save: identical"
else bad "second save differs: $(diff "$tmp/want" "$tmp/saved2")"; fi

# ---- reload: the difference, unchanged ports untouched ------------------
wait_until 100 stat_above "$a" rx_packets 0
rx0=$(stat_of "$a" rx_packets)
tx0=$(stat_of "$a" tx_packets)
fdb0=$(vctl -j fdb | python3 -c 'import json,sys; print(sorted((e["mac"], e["port"]) for e in json.load(sys.stdin)))')
id0=$(vctl -j ports | python3 -c "import json,sys; print([p['id'] for p in json.load(sys.stdin) if p['name'] == '$a'][0])")
cat >"$conf" <<EOF
ports add pcap:$a,sink=$tmp/a-out.pcap,gro=on
limits $a gso_max_size 16000 rx_budget 16
features $a tx-checksum-ip-generic off
ports add pcap:$c
EOF
if vctl reload; then ok "reload"; else bad "reload failed"; fi
if wait_log "config $conf reloaded: 1 added, 0 removed, 1 changed, 1 unchanged"; then
	ok "reload logged what it did"
else bad "reload log: $(tail -3 "$tmp/switch.err")"; fi
if [ "$(vctl -j limits "$a" | python3 -c 'import json,sys; print(json.load(sys.stdin)["gso_max_size"])')" = 16000 ]; then
	ok "changed setting applied"
else bad "gso_max_size not changed"; fi
fdb1=$(vctl -j fdb | python3 -c 'import json,sys; print(sorted((e["mac"], e["port"]) for e in json.load(sys.stdin)))')
id1=$(vctl -j ports | python3 -c "import json,sys; print([p['id'] for p in json.load(sys.stdin) if p['name'] == '$a'][0])")
if [ "$(stat_of "$a" rx_packets)" = "$rx0" ] && [ "$(stat_of "$a" tx_packets)" = "$tx0" ] &&
   [ "$rx0" -gt 0 ] && [ "$id1" = "$id0" ] && [ "$fdb1" = "$fdb0" ] && [ "$fdb0" != "[]" ]; then
	ok "reload kept a's id ($id0), counters (rx $rx0) and MAC entries"
else bad "reload: rx $rx0 -> $(stat_of "$a" rx_packets), id $id0 -> $id1, fdb $fdb0 -> $fdb1"; fi
# The --port port is the command line's: kept.  SIGHUP reloads too.
cat >"$conf" <<EOF
ports add pcap:$a,sink=$tmp/a-out.pcap
EOF
kill -HUP "$swpid"
if wait_log "config $conf reloaded: 0 added, 1 removed, 1 changed, 1 unchanged"; then
	ok "SIGHUP: c removed, a changed, b (--port) unchanged"
else bad "SIGHUP reload: $(tail -3 "$tmp/switch.err")"; fi
vctl save >"$tmp/before"

# A refused reload: the reason, and nothing changed.
printf 'ports add pcap:%s\nlimits %s rx_budget 0\nports add pcap:%s\n' \
	"$a" "$a" "$c" >"$conf"
expect 1 "voff ctl: $conf:2: rx_budget: 0 is out of range (1..64 frames)" \
	vctl reload
printf 'ports add pcap:%s,sink=%s/other.pcap\n' "$a" "$tmp" >"$conf"
expect 1 "voff ctl: $conf:1: port '$a': runs as 'pcap:$a,sink=$tmp/a-out.pcap', not 'pcap:$a,sink=$tmp/other.pcap'; what a port is opened with cannot change while it runs (after \`ports del $a\` it is re-created)" \
	vctl reload
if vctl save | cmp -s - "$tmp/before" && [ ! -e "$tmp/other.pcap" ]; then
	ok "refused reloads changed nothing"
else bad "a refused reload changed something"; fi
if wait_log "error: config reload refused, nothing changed: $conf:2: rx_budget"; then
	ok "refusal logged as an error"
else bad "refusal not logged"; fi
if [ "$(vctl -j server | python3 -c 'import json,sys; print(json.load(sys.stdin)["failed"])')" -ge 2 ]; then
	ok "refused reloads counted as failed requests"
else bad "server failed counter"; fi

if sw_stop; then ok "switch stopped cleanly"; else bad "switch exit status"; fi
if [ ! -e "$tmp/pid" ] && [ ! -e "$ctl" ]; then ok "pid file and socket removed"
else bad "left behind: $(ls "$tmp")"; fi
if grep -q "notice: stopping on SIGTERM" "$tmp/switch.err"; then ok "stop logged"
else bad "stop not logged"; fi

# ---- the journal's format, sd_notify, levels ---------------------------
python3 "$(dirname "$0")/dgram_sink.py" "$tmp/notify" "$tmp/notify.log" 20 \
	'^STOPPING' &
npid=$!
wait_until 100 test -S "$tmp/notify" || bad "no sd_notify socket"
printf 'ports add pcap:%s\n' "$b" >"$conf"
: >"$js"
jstream=$(stat -c '%d:%i' "$js")
NOTIFY_SOCKET=$tmp/notify JOURNAL_STREAM=$jstream \
	"$voff" switch --ctl "$ctl" --config "$conf" --log-level notice \
	2>>"$js" &
swpid=$!
wait_until 100 sw_up
vctl limits "$b" rx_budget 3
kill -HUP "$swpid"
# The reload's end: logged, and READY=1 again.
notified_twice() { [ "$(grep -c '^READY=1$' "$tmp/notify.log")" -ge 2 ]; }
if ! wait_file "$js" "config $conf reloaded" ||
   ! wait_until 100 notified_twice; then
	bad "SIGHUP: no reload seen"
fi
sw_stop
wait "$npid"
if [ "$(tr '\n' ' ' <"$tmp/notify.log")" = "READY=1 RELOADING=1 READY=1 STOPPING=1 " ]; then
	ok "sd_notify: READY, RELOADING, READY, STOPPING"
else bad "sd_notify: $(cat "$tmp/notify.log")"; fi
if [ "$(head -1 "$js")" = "<5>port $b added (pcap:$b)" ] &&
   grep -qx "<5>config $conf reloaded: 0 added, 0 removed, 1 changed, 0 unchanged" "$js" &&
   ! grep -q "rx_budget 64 -> 3" "$js"; then
	ok "journal: priority prefix, no time; info left out at notice"
else bad "journal lines: $(cat "$js")"; fi

# ---- the drop-rate alarm -------------------------------------------------
# 300 broadcast frames from a; b has no sink: every copy to b is dropped.
python3 - "$tmp/many.pcap" <<'PY'
import struct, sys
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
    frame = b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01" + b"\x88\xb5" + bytes(46)
    for i in range(300):
        f.write(struct.pack("<IIII", i, 0, len(frame), len(frame)) + frame)
PY
printf 'ports add pcap:%s,sink=%s/m-out.pcap\nports add pcap:%s\n' \
	"$tmp/many.pcap" "$tmp" "$b" >"$conf"
: >"$tmp/switch.err"
sw_start --config "$conf" --drop-alarm 50 --drop-window 1
if wait_log "warning: port $b: 100.0 % of frames dropped over the last 1 s (300 of 300: tx_dropped 300)"; then
	ok "drop-rate alarm with the reasons"
else bad "no alarm: $(cat "$tmp/switch.err")"; fi
if wait_log "notice: port $b: drop rate back to 0.0 % over the last 1 s" &&
   [ "$(grep -c "frames dropped" "$tmp/switch.err")" -eq 1 ] &&
   ! grep -q "port $tmp/many.pcap: .* dropped" "$tmp/switch.err"; then
	ok "one alarm line per window, cleared; the sender raised none"
else bad "alarm lines: $(grep -i drop "$tmp/switch.err")"; fi
sw_stop

# ---- under --drop-caps --seccomp, a reload still reads its file -----------
if "$voff" switch --check --drop-caps --seccomp --port "pcap:$b" 2>/dev/null; then
	printf 'ports add pcap:%s\n' "$b" >"$conf"
	# The sanitizer's leak check at exit needs calls the filter refuses.
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		sw_start --config "$conf" --drop-caps --seccomp
	printf 'limits %s rx_budget 5\n' "$b" >>"$conf"
	if vctl reload &&
	   [ "$(vctl -j limits "$b" | python3 -c 'import json,sys; print(json.load(sys.stdin)["rx_budget"])')" = 5 ]; then
		ok "--drop-caps --seccomp: a reload reads the file"
	else bad "reload under seccomp: $(tail -3 "$tmp/switch.err")"; fi
	printf 'ports add pcap:%s\nports add pcap:%s\n' "$b" "$c" >"$conf"
	if vctl reload 2>"$tmp/err"; then bad "a new port after --drop-caps"
	elif grep -q "cannot open it: this switch dropped the privileges to open ports" "$tmp/err"; then
		ok "--drop-caps: a reload that needs a new port is refused"
	else bad "drop-caps reload: $(cat "$tmp/err")"; fi
	sw_stop || bad "exit status under seccomp"
else
	echo "skip - this voff has no libcap or libseccomp"
fi

[ "$fails" -eq 0 ]
