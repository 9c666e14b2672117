# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# lib_ns.sh - shell helpers the switch's integration tests source: their
# own namespaces (removed at exit), a `voff switch` under test, its log,
# iperf3 runs, counters from `voff ctl -j stats`, the switch's descriptors
# and RSS, and a command's exact status and message
#
# Not a test itself: it ends in .sh only to sit with the tests, and exits
# 77 (skip) when run directly.  A sourcing script sets `tag` (a short word
# naming its namespaces) first, then calls ns_require and ns_add.

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	echo "skip: a library, sourced by the fault/flood/soak tests"
	exit 77
fi

voff=${VOFF:-voff}
tag=${tag:-t}
LIB_TMP=$(mktemp -d "/tmp/voff-$tag-$$.XXXX")
ctl=$LIB_TMP/voff.ctl
swpid=
lib_pids=()
fails=0

ok() { echo "ok - $*"; }
bad() { echo "FAIL - $*"; fails=$((fails + 1)); }
vctl() { "$voff" ctl --ctl "$ctl" "$@"; }

# ns_reset - stop the switches and remove the namespaces made so far
# (a benchmark starts each scenario afresh with it)
ns_reset() {
	local p
	for p in "${lib_pids[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	lib_pids=()
	if [ -n "$swpid" ]; then
		kill "$swpid" 2>/dev/null
		wait "$swpid" 2>/dev/null
		swpid=
	fi
	# ns_add runs in $(...): its namespaces are found by name, not kept
	# in a variable.
	for p in $(ip netns list | awk '{ print $1 }' |
		   grep -E "^voff-$tag-[a-z0-9]+-$$\$"); do
		ip netns del "$p" 2>/dev/null
	done
	return 0
}

lib_cleanup() {
	ns_reset
	rm -rf "$LIB_TMP"
}
trap lib_cleanup EXIT
# A test stopped by a signal cleans up too.
trap 'exit 130' INT
trap 'exit 143' TERM

# ns_sweep - remove the namespaces of earlier runs whose script is gone:
# one killed outright (CTest's timeout sends SIGKILL, which no trap sees)
# leaves its voff-TAG-NAME-PID namespaces behind; a live PID's are kept.
ns_sweep() {
	local n pid
	for n in $(ip netns list | awk '{ print $1 }' |
		   grep -E '^voff-[a-z0-9]+-[a-z0-9]+-[0-9]+$'); do
		pid=${n##*-}
		[ -d "/proc/$pid" ] && continue
		ip netns del "$n" 2>/dev/null &&
			echo "# removed $n, left by a run that was killed"
	done
	return 0
}

# ns_require TOOL... - skip (77) unless root, with every tool and a netns
ns_require() {
	local t
	[ "$(id -u)" -eq 0 ] || { echo "skip: not root"; exit 77; }
	ns_sweep
	[ -x "$voff" ] || command -v "$voff" >/dev/null ||
		{ echo "skip: no voff"; exit 77; }
	for t in ip "$@"; do
		command -v "$t" >/dev/null || { echo "skip: $t missing"; exit 77; }
	done
	ip netns add "voff-$tag-$$-probe" 2>/dev/null ||
		{ echo "skip: cannot create a netns"; exit 77; }
	ip netns del "voff-$tag-$$-probe"
}

# ns_add SUFFIX - create namespace voff-$tag-SUFFIX-$$ (lo up); prints it
ns_add() {
	local n="voff-$tag-$1-$$"
	ip netns add "$n" || return 1
	ip -n "$n" link set lo up
	echo "$n"
}

# sw_start ARGS... - run `voff switch ARGS --ctl $ctl`, wait for the socket
# (10 s; at once when the switch exits first)
sw_start() {
	"$voff" switch --ctl "$ctl" "$@" 2>"$LIB_TMP/switch.err" &
	swpid=$!
	wait_until 100 sw_up && [ -S "$ctl" ] && return 0
	echo "FAIL - switch did not start (no socket $ctl):" \
		"$(cat "$LIB_TMP/switch.err")"
	exit 1
}
# sw_up - the switch's control socket is there, or the switch is gone
sw_up() { [ -S "$ctl" ] || ! sw_alive; }

# expect STATUS MESSAGE CMD... - CMD exits STATUS and says exactly MESSAGE
# on standard error (which goes to $LIB_TMP/err, its output to .../out)
expect() {
	local want=$1 msg=$2 rc
	shift 2
	"$@" >"$LIB_TMP/out" 2>"$LIB_TMP/err"
	rc=$?
	if [ "$rc" -eq "$want" ] && [ "$(cat "$LIB_TMP/err")" = "$msg" ]; then
		ok "$* -> $rc: $msg"
	else
		bad "$*: status $rc (want $want), said '$(cat "$LIB_TMP/err")'" \
			"(want '$msg')"
	fi
}

# wait_until TENTHS CMD... - until CMD succeeds, trying every 0.1 s for
# at most TENTHS tenths of a second; fails if it never does
wait_until() {
	local n=$1
	shift
	for _ in $(seq "$n"); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

# wait_file FILE TEXT - until FILE holds TEXT (8 s); fails if it never does
wait_file() { wait_until 80 grep -qsF -- "$2" "$1"; }

# wait_log TEXT - until the log of the switch sw_start ran holds TEXT
wait_log() { wait_file "$LIB_TMP/switch.err" "$1"; }

sw_alive() { [ -n "$swpid" ] && kill -0 "$swpid" 2>/dev/null; }
sw_fds() { find "/proc/$swpid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }
sw_rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$swpid/status"; }

# sw_stop - SIGTERM and wait; returns the switch's exit status
sw_stop() {
	local rc
	kill "$swpid" 2>/dev/null
	wait "$swpid"
	rc=$?
	swpid=
	return $rc
}

# addr_tap NS DEV ADDR4 ADDR6 - addresses on a switch TAP (already up)
addr_tap() {
	ip -n "$1" addr add "$3" dev "$2"
	[ -n "${4:-}" ] && ip -n "$1" addr add "$4" dev "$2" nodad
	return 0
}

# stat_of PORT KEY - one counter from `voff ctl -j stats` (0 when PORT has
# no such counter; nothing, and status 1, when the request fails).  Read
# with sed: the object is flat, and a loaded machine starts no python for
# each poll of a wait.
stat_of() {
	local j v
	j=$(vctl -j stats "$1") || return 1
	v=$(sed -n "s/.*[{,]\"$2\":\([0-9][0-9]*\).*/\1/p" <<<"$j")
	echo "${v:-0}"
}

# iperf_run CLIENT_NS SERVER_NS ADDR SECONDS OUT [ARGS...] - one iperf3
# run (JSON in OUT) with its own one-shot server on port ${IPERF_PORT:-5201};
# SECONDS 0 leaves the end to ARGS (-n BYTES)
iperf_run() {
	local cns=$1 sns=$2 addr=$3 secs=$4 out=$5 port=${IPERF_PORT:-5201}
	local spid rc=1 t=()
	shift 5
	[ "$secs" = 0 ] || t=(-t "$secs")
	ip netns exec "$sns" iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
	spid=$!
	if wait_until 100 ns_listens "$sns" tcp "$port"; then
		ip netns exec "$cns" iperf3 -c "$addr" -p "$port" "${t[@]}" \
			-J "$@" >"$out" 2>&1 && rc=0
	else
		echo "iperf3 server in $sns never listened on port $port" >"$out"
	fi
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	return $rc
}

# iperf_bps JSONFILE - received bits per second of an iperf3 -J run (0 if
# it failed)
iperf_bps() {
	python3 - "$1" <<'PY'
import json, sys
try:
    j = json.load(open(sys.argv[1]))
    e = j["end"]
    s = e.get("sum_received") or e.get("sum")
    print(0 if "error" in j else int(s["bits_per_second"]))
except Exception:
    print(0)
PY
}

# fault_load_end PID - the end of a fault test's load, iperf_run PID
# writing $LIB_TMP/load.json: it completed and moved traffic (the rate is
# printed, never asserted: speed is for bench/), and the switch is alive
# (else the test ends at once, with status 1)
fault_load_end() {
	local bps

	if wait "$1"; then ok "iperf3 completed through the faults"
	else bad "iperf3 failed: $(tail -3 "$LIB_TMP/load.json")"; fi
	bps=$(iperf_bps "$LIB_TMP/load.json")
	echo "# throughput under faults: $((bps / 1000000)) Mbit/s"
	if [ "$bps" -gt 0 ]; then ok "traffic flowed through the faults"
	else bad "no traffic through the faults ($bps bit/s)"; fi
	if sw_alive; then ok "switch alive"; else bad "switch exited"; exit 1; fi
}

# nsping NS ADDR [COUNT] - ICMP echo from NS (raw socket; no ping needed):
# 0 when a reply came back within a second of one of COUNT tries
nsping() {
	ip netns exec "$1" python3 - "$2" "${3:-3}" <<'PY'
import os, socket, struct, sys, time
addr, count = sys.argv[1], int(sys.argv[2])
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
s.settimeout(1.0)
def csum(b):
    t = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    t = (t >> 16) + (t & 0xFFFF); t += t >> 16
    return ~t & 0xFFFF
ident = os.getpid() & 0xFFFF
for seq in range(count):
    h = struct.pack("!BBHHH", 8, 0, 0, ident, seq) + b"voff" * 8
    h = h[:2] + struct.pack("!H", csum(h)) + h[4:]
    s.sendto(h, (addr, 0))
    end = time.time() + 1.0
    while time.time() < end:
        try:
            d, _ = s.recvfrom(2048)
        except socket.timeout:
            break
        ihl = (d[0] & 15) * 4
        if d[ihl] == 0 and struct.unpack("!H", d[ihl + 4:ihl + 6])[0] == ident:
            sys.exit(0)
sys.exit(1)
PY
}

# nsbcast NS BCAST - a few UDP broadcasts from NS (flooded to every port)
nsbcast() {
	ip netns exec "$1" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
for _ in range(5):
    s.sendto(b"voff", (sys.argv[1], 9))' "$2"
}

# ns_listens NS tcp|udp PORT - a TCP socket listens, or a UDP socket is
# bound, on PORT in namespace NS
ns_listens() {
	[ -n "$(ip netns exec "$1" ss -Hln --"$2" "sport = :$3")" ]
}

# stat_above PORT KEY N - the counter KEY of PORT (`voff ctl -j stats`) is
# above N
stat_above() { [ "$(stat_of "$1" "$2")" -gt "$3" ] 2>/dev/null; }
