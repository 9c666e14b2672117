#!/bin/bash
# SPDX-License-Identifier: MIT
#
# switch_syslog.sh - `voff switch --syslog` logs to /dev/log: each event
# one datagram, facility daemon with the event's level ("<29>" is daemon
# and notice), identity "voff" with the pid, nothing on standard error.
# The test gives the switch a /dev/log of its own: in a private mount
# namespace a tmpfs covers /dev, where a listener binds the socket (the
# host's /dev is left alone).  Needs root and unshare(1); skips (77).
#
#   voff switch --syslog --> /dev/log (tmpfs, private mounts) --> listener
set -u
: "${VOFF:?}"
data=${VOFF_DATA:-$(cd "$(dirname "$0")/../data" && pwd)}
[ "$(id -u)" -eq 0 ] || { echo "skip: not root"; exit 77; }
for tool in unshare python3; do
	command -v "$tool" >/dev/null || { echo "skip: no $tool"; exit 77; }
done
unshare -m true 2>/dev/null || { echo "skip: unshare -m refused"; exit 77; }
voff=$(readlink -f "$VOFF")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/voff-syslog-$$.XXXX)
trap 'rm -rf "$tmp"' EXIT
head -c 24 "$data/sample.pcap" >"$tmp/s.pcap"

# In its own mount namespace: /dev/log is ours, the rest of /dev linked
# from a bind of the real one.
unshare -m bash -s "$tmp" "$voff" "$here/dgram_sink.py" <<'SH'
set -u
tmp=$1 voff=$2 sink=$3
mount --make-rprivate / || exit 77
mkdir "$tmp/dev"
mount --bind /dev "$tmp/dev" && mount -t tmpfs tmpfs /dev || exit 77
ln -s "$tmp/dev/null" /dev/null
python3 "$sink" /dev/log "$tmp/syslog" 10 stopping &
py=$!
for _ in $(seq 50); do [ -S /dev/log ] && break; sleep 0.1; done
"$voff" switch --syslog --port "pcap:$tmp/s.pcap" --ctl "$tmp/ctl" \
	--log-level notice 2>"$tmp/stderr" &
sw=$!
for _ in $(seq 100); do [ -S "$tmp/ctl" ] && break; sleep 0.05; done
"$voff" ctl --ctl "$tmp/ctl" limits "$tmp/s.pcap" rx_budget 9
"$voff" ctl --ctl "$tmp/ctl" ports del "$tmp/s.pcap"
kill "$sw"
wait "$sw"
echo "$sw" >"$tmp/pid"
wait "$py"
SH
rc=$?
[ "$rc" -eq 77 ] && { echo "skip: no private mount namespace"; exit 77; }
pid=$(cat "$tmp/pid" 2>/dev/null)
fails=0
check() {	# PATTERN WHAT
	if grep -qE "$1" "$tmp/syslog"; then echo "ok - $2"
	else echo "FAIL - $2: $(cat "$tmp/syslog")"; fails=$((fails + 1)); fi
}
re="^<29>[A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8} voff\\[$pid\\]: "
check "${re}port $tmp/s.pcap added \\(pcap:$tmp/s.pcap\\)\$" "port added: daemon.notice, voff[pid]"
check "${re}started: 1 ports, control socket $tmp/ctl\$" "start"
check "${re}port $tmp/s.pcap removed\$" "port removed"
check "${re}stopping on SIGTERM\$" "stop"
if grep -q "rx_budget" "$tmp/syslog"; then
	echo "FAIL - an info event passed --log-level notice"
	fails=$((fails + 1))
else echo "ok - info events left out at notice"; fi
if [ -s "$tmp/stderr" ]; then
	echo "FAIL - standard error: $(cat "$tmp/stderr")"
	fails=$((fails + 1))
else echo "ok - nothing on standard error"; fi
[ "$fails" -eq 0 ]
