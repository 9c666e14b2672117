#!/bin/bash
# SPDX-License-Identifier: MIT
#
# switch_ctl_idle.sh - idle or slow control clients never hold up the
# switch: with several connections open that send nothing (or half a
# request), `voff ctl` still answers at once, and the idle ones are
# closed by the switch after its idle limit (5 s).  Needs no root: the
# switch runs over two pcap ports.  Skips (77) without python3.
set -u

voff=${VOFF:-voff}
data=${VOFF_DATA:-$(cd "$(dirname "$0")/../data" && pwd)}
command -v python3 >/dev/null || { echo "skip: python3 missing"; exit 77; }
tmp=$(mktemp -d /tmp/voff-ctlidle-$$.XXXXXX)
ctl=$tmp/ctl
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
ok() { echo "ok - $*"; }
bad() { echo "FAIL - $*"; fails=$((fails + 1)); }

cp "$data/sample.pcap" "$tmp/in-a.pcap"
cp "$data/sample.pcap" "$tmp/in-b.pcap"
"$voff" switch --ctl "$ctl" --port "pcap:$tmp/in-a.pcap,sink=$tmp/a.pcap" \
	--port "pcap:$tmp/in-b.pcap,sink=$tmp/b.pcap" 2>"$tmp/err" &
pid=$!
for _ in $(seq 50); do [ -S "$ctl" ] && break; sleep 0.1; done
[ -S "$ctl" ] || { cat "$tmp/err"; echo "FAIL - no control socket"; exit 1; }

# Four silent clients and one with half a request, then a real request.
python3 - "$ctl" "$voff" <<'PY' || fails=$((fails + 1))
import socket, subprocess, sys, time
path, voff = sys.argv[1], sys.argv[2]
held = []
for i in range(5):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    if i == 4:
        s.sendall(b"sta")          # no newline: a request never finished
    held.append(s)
t0 = time.monotonic()
r = subprocess.run([voff, "ctl", "--ctl", path, "ports"],
                   capture_output=True, text=True, timeout=10)
dt = time.monotonic() - t0
if r.returncode != 0 or "pcap" not in r.stdout:
    print("FAIL - ctl ports with idle clients: rc %d out %r err %r"
          % (r.returncode, r.stdout, r.stderr))
    sys.exit(1)
# Generous on a loaded machine: the old serial server took 200 ms per
# silent client, so 1 s per request would not tell; what matters is no
# wait on the idle ones at all.
if dt > 0.9:
    print("FAIL - ctl ports took %.2f s with 5 idle clients" % dt)
    sys.exit(1)
print("ok - ctl ports answered in %.3f s with 5 idle clients open" % dt)
# The switch closes idle connections after 5 s: each reads EOF.
deadline = time.monotonic() + 12
closed = 0
for s in held:
    s.settimeout(max(0.1, deadline - time.monotonic()))
    try:
        if s.recv(100) == b"":
            closed += 1
    except (socket.timeout, ConnectionResetError):
        pass
if closed != 5:
    print("FAIL - %d of 5 idle connections closed by the switch" % closed)
    sys.exit(1)
print("ok - all 5 idle connections closed by the switch")
PY
if kill -0 "$pid" 2>/dev/null; then
	ok "switch alive after idle clients"
else
	bad "switch exited"
fi
kill "$pid"
wait "$pid"
rc=$?
pid=
if [ $rc -eq 0 ]; then
	ok "switch exits 0 on SIGTERM"
else
	bad "switch exit status $rc"
fi
[ $fails -eq 0 ] || { echo "switch_ctl_idle: $fails failed"; exit 1; }
echo "switch_ctl_idle: all passed"
