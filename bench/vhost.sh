#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# vhost.sh - a QEMU guest (TCG) on voff's vhost-user port against the same
# guest on QEMU's own TAP backend: TCP throughput both ways, with the
# guest's and the host's CPU time per KB (docs/bench-vhost.md)
#
#   voff: guest eth0 <-vhost-user-> voff switch <-TAP-> vq0 netns
#   tap:  guest eth0 <-QEMU virtio-net, -netdev tap,vhost=off-> vqt0 netns
#
# Scenarios, each direction (up: guest -> namespace, down: namespace ->
# guest), iperf3 with its client in the guest:
#   voff and tap, guest offloads on, then off (QEMU device properties:
#   csum, guest_csum, host_/guest_tso4/6, _ecn, _ufo all off: the guest's
#   virtio-net negotiates no offload at all);
#   down with an MTU-sized sender (TSO and GSO off on the namespace's
#   device): voff with GRO off, then on (on the TAP port, coalescing toward
#   the guest), and the tap backend as anchor.
# Per run: Gbit/s (iperf3's server in the namespace), and per KB moved:
# the guest's CPU (non-idle time of its /proc/stat), QEMU's vCPU thread,
# QEMU as a whole, voff's switch (0 for the tap backend), in microseconds;
# per MB moved: the guest's interrupts (its /proc/interrupts, the virtio
# line) and kicks (ethtool -S: tx and rx queue kicks), voff's calls.
#
# Needs root, iperf3 (also copied into the guest), and what
# tests/integ/vhost_qemu.sh needs (QEMU, a guest kernel, busybox).
# VOFF=path of voff (required).  BASE=path of another voff: a third
# backend, "base", in the same run (before/after).  BACKENDS=the boots in
# order (default "voff base tap", base only with BASE=).  BOOTS=how many
# times that sequence runs (default 1): the medians take every boot's
# runs, as one boot of a TCG guest differs from the next more than two
# runs of one boot do.  OFFLOADS=the guest offloads to boot with
# (default "on off").  SECS per run (default 10); REPS rounds per boot
# (default 1).  PIN=0: leave the scheduler free (by default, on two CPUs
# or more, the guest's vCPU thread runs alone on CPU 1, QEMU's other
# threads, the switch and iperf3's server on CPU 0, the same for every
# backend).  SHORT=1: 2-second runs, one round, one boot (a check that
# everything runs, not figures).  Markdown table on stdout, progress on
# stderr.  Removes what it created, also on Ctrl-C.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
voff=${VOFF:?set VOFF to the voff binary}
base=${BASE:-}
offloads=${OFFLOADS:-on off}
secs=${SECS:-10}
reps=${REPS:-1}
boots=${BOOTS:-1}
if [ -n "${SHORT:-}" ]; then secs=2; reps=1; boots=1; fi
[ "$(id -u)" -eq 0 ] || { echo "vhost: needs root" >&2; exit 1; }
command -v iperf3 >/dev/null || { echo "vhost: needs iperf3" >&2; exit 1; }

GUEST_DIR=$(mktemp -d /tmp/voff-bvh-$$.XXXX)
# shellcheck source=tests/integ/lib_guest.sh
. "$root/tests/integ/lib_guest.sh"
guest_require || { echo "vhost: $GUEST_WHY" >&2; exit 1; }
guest_initramfs || { echo "vhost: initramfs not built" >&2; exit 1; }

ns=voff-bvh-$$
ctl=$GUEST_DIR/voff.ctl
sock=$GUEST_DIR/vm0.sock
swpid=
hz=$(getconf CLK_TCK)
OFF=csum=off,guest_csum=off,host_tso4=off,host_tso6=off,host_ecn=off
OFF=$OFF,host_ufo=off,guest_tso4=off,guest_tso6=off,guest_ecn=off
OFF=$OFF,guest_ufo=off

sw_stop() {
	if [ -n "$swpid" ]; then
		kill "$swpid" 2>/dev/null
		wait "$swpid" 2>/dev/null
	fi
	swpid=
}
cleanup() {
	guest_cleanup
	sw_stop
	ip netns del "$ns" 2>/dev/null
	rm -rf "$GUEST_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
say() { echo "vhost: $*" >&2; }

# setup BACKEND OFFLOADS - a fresh namespace, switch (voff) and guest
setup() {
	local props=mac=52:54:00:00:00:02,vectors=0 dev=vq0 sw_bin
	guest_cleanup
	sw_stop
	ip netns del "$ns" 2>/dev/null
	ip netns add "$ns"
	ip -n "$ns" link set lo up
	[ "$2" = off ] && props=$props,$OFF
	if [ "$1" != tap ]; then
		sw_bin=$voff
		[ "$1" = base ] && sw_bin=$base
		"$sw_bin" switch --ctl "$ctl" --port "vhost-user:$sock" \
			--port "tap:vq0@$ns" 2>"$GUEST_DIR/switch.err" &
		swpid=$!
		for _ in $(seq 100); do [ -S "$ctl" ] && break; sleep 0.05; done
		GUEST_NETNS=
		guest_start -chardev "socket,id=c0,path=$sock" \
			-netdev vhost-user,id=n0,chardev=c0 \
			-device "virtio-net-pci,netdev=n0,$props"
	else
		dev=vqt0
		GUEST_NETNS=$ns
		guest_start -netdev tap,id=n0,ifname=vqt0,script=no,downscript=no,vhost=off \
			-device "virtio-net-pci,netdev=n0,$props"
		for _ in $(seq 100); do
			ip -n "$ns" link show vqt0 >/dev/null 2>&1 && break
			sleep 0.05
		done
		ip -n "$ns" link set vqt0 up
	fi
	ip -n "$ns" addr add "$GUEST_PEER_IP/24" dev "$dev"
	guest_peer_start "$ns"
	guest_wait_boot 1 120 || { say "guest did not boot"; exit 1; }
	pin
	DEV=$dev
}

# vcpu_tid - the thread id of QEMU's vCPU ("CPU 0/TCG")
vcpu_tid() {
	local t
	for t in /proc/"$guest_pid"/task/*; do
		case $(cat "$t/comm" 2>/dev/null) in
		CPU*) echo "${t##*/}"; return 0 ;;
		esac
	done
}

pinning=${PIN:-1}
[ "$(nproc)" -ge 2 ] || pinning=0
peer_pin=()
[ "$pinning" = 1 ] && peer_pin=(taskset -c 0)
# pin - the vCPU thread alone on CPU 1, the rest on CPU 0 (unless PIN=0)
pin() {
	[ "$pinning" = 1 ] || return 0
	taskset -a -p -c 0 "$guest_pid" >/dev/null
	[ -n "$swpid" ] && taskset -a -p -c 0 "$swpid" >/dev/null
	taskset -p -c 1 "$(vcpu_tid)" >/dev/null
}

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

# calls - the notifications voff's switch has sent its guest
calls() {
	"$voff" ctl --ctl "$ctl" -j stats 2>/dev/null | python3 -c '
import json, sys
print(sum(p.get("vhost_guest_calls", 0) for p in json.load(sys.stdin)))' 2>/dev/null ||
		echo 0
}

run_n=0
# measure DIR ID - one iperf3 run, the guest's step ID; prints "gbps guest
# vcpu qemu switch irq kicks calls" (guest to switch in us per KB, then the
# guest's interrupts, its kicks and voff's calls per MB), or nothing when it
# failed
measure() {
	local dir=$1 id=$2 r='' json q0 q1 v0 v1 s0=0 s1=0 c0=0 c1=0
	[ "$dir" = down ] && r=-R
	json=$GUEST_DIR/$id.json
	ip netns exec "$ns" "${peer_pin[@]}" iperf3 -s -1 -J >"$json" 2>/dev/null &
	local spid=$!
	sleep 0.3
	q0=$(ticks "$guest_pid")
	v0=$(guest_vcpu_ticks)
	[ -n "$swpid" ] && s0=$(ticks "$swpid") && c0=$(calls)
	guest_step "$id" $((secs + 40)) "
n() { awk '/virtio/ { i += \$2 } END { print i + 0 }' /proc/interrupts
      ethtool -S eth0 2>/dev/null | awk '/_kicks:/ { k += \$2 } END { print k + 0 }'; }
a=\$(head -1 /proc/stat) an=\$(n)
iperf3 -c $GUEST_PEER_IP -t $secs $r >/dev/null 2>&1
echo \"@@ $id rc=\$?\"
b=\$(head -1 /proc/stat) bn=\$(n)
echo \"@@ $id t0=\$a \"\$an
echo \"@@ $id t1=\$b \"\$bn" || { say "$id: no end"; }
	q1=$(ticks "$guest_pid")
	v1=$(guest_vcpu_ticks)
	[ -n "$swpid" ] && s1=$(ticks "$swpid") && c1=$(calls)
	wait "$spid" 2>/dev/null
	python3 - "$json" "$dir" "$hz" "$(guest_val "$id" t0)" \
		"$(guest_val "$id" t1)" $((v1 - v0)) $((q1 - q0)) \
		$((s1 - s0)) $((c1 - c0)) <<'PY'
import json, sys
f, d, hz = sys.argv[1], sys.argv[2], int(sys.argv[3])
t0, t1 = sys.argv[4].split(), sys.argv[5].split()
vcpu, qemu, sw = (int(x) / hz for x in sys.argv[6:9])
calls = int(sys.argv[9])
try:
    e = json.load(open(f))["end"]
    s = e["sum_received"] if d == "up" else e["sum_sent"]
    kb = s["bytes"] / 1024
    gbps = s["bytes"] * 8 / s["seconds"] / 1e9
    # user nice system idle iowait irq softirq steal, in USER_HZ (100)
    busy = lambda t: sum(int(x) for i, x in enumerate(t[1:9]) if i not in (3, 4))
    guest = (busy(t1) - busy(t0)) / 100
    us = lambda sec: sec * 1e6 / kb
    # the guest's interrupts and kicks (the last two fields), calls: per MB
    mb = s["bytes"] / 1e6
    irq, kicks = (int(t1[i]) - int(t0[i]) for i in (-2, -1))
    print("%.3f %.2f %.2f %.2f %.2f %.2f %.2f %.2f" % (gbps, us(guest),
          us(vcpu), us(qemu), us(sw), irq / mb, kicks / mb, calls / mb))
except Exception:
    pass
PY
}

# row NAME DIR - REPS measurements, kept in $GUEST_DIR/rows/NAME.DIR (a
# later boot of the same backend adds to them); table() takes the medians
row() {
	local name=$1 dir=$2 i m
	mkdir -p "$GUEST_DIR/rows"
	grep -qx "$name.$dir" "$GUEST_DIR/rows.order" 2>/dev/null ||
		echo "$name.$dir" >>"$GUEST_DIR/rows.order"
	for ((i = 0; i < reps; i++)); do
		run_n=$((run_n + 1))
		m=$(measure "$dir" "i$run_n")
		[ -n "$m" ] && echo "$m" >>"$GUEST_DIR/rows/$name.$dir"
		say "$name $dir: ${m:-failed}"
	done
}

# table - one row per NAME.DIR, medians over all its runs (every boot),
# the Gbit/s also in $GUEST_DIR/NAME.DIR for the ratios
table() {
	local r
	echo "| scenario | direction | Gbit/s | guest us/KB | vCPU us/KB | QEMU us/KB | switch us/KB | guest irq/MB | guest kicks/MB | voff calls/MB |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	while read -r r; do
		python3 -c '
import statistics, sys
name, d = sys.argv[1].rsplit(".", 1)
try:
    rows = [list(map(float, l.split())) for l in open(sys.argv[2]) if l.strip()]
except OSError:
    rows = []
if not rows:
    print("| %s | %s | failed | | | | | | | |" % (name, d)); sys.exit()
m = [statistics.median(c) for c in zip(*rows)]
print("| %s | %s |" % (name, d) + "".join(" %.2f |" % x for x in m))
open(sys.argv[3], "w").write("%f\n" % m[0])' "$r" "$GUEST_DIR/rows/$r" \
			"$GUEST_DIR/$r"
	done <"$GUEST_DIR/rows.order"
}

ratio() {
	python3 -c 'import sys
a, b = (float(open(f).read()) if f else 0 for f in sys.argv[1:3])
print("%.2fx" % (a / b) if b else "n/a")' "$GUEST_DIR/$1" "$GUEST_DIR/$2" \
		2>/dev/null || echo n/a
}

for ((boot = 0; boot < boots; boot++)); do
	for be in ${BACKENDS:-voff ${base:+base} tap}; do
		for off in $offloads; do
			say "$be, guest offloads $off: booting"
			setup "$be" "$off"
			row "$be-off$off" up
			row "$be-off$off" down
			[ "$off" = on ] || continue
			# MTU-sized sender toward the guest.
			ip netns exec "$ns" ethtool -K "$DEV" tso off gso off >/dev/null
			if [ "$be" != tap ]; then
				"$voff" ctl --ctl "$ctl" limits vq0 gro off >/dev/null
				row "$be-mtu-gro-off" down
				"$voff" ctl --ctl "$ctl" limits vq0 gro on >/dev/null
				row "$be-mtu-gro-on" down
			else
				row tap-mtu down
			fi
		done
	done
done
guest_cleanup
sw_stop

table
echo
echo "| ratio | up | down |"
echo "|---|---|---|"
echo "| voff, offloads on / off | $(ratio voff-offon.up voff-offoff.up) | $(ratio voff-offon.down voff-offoff.down) |"
echo "| tap, offloads on / off | $(ratio tap-offon.up tap-offoff.up) | $(ratio tap-offon.down tap-offoff.down) |"
echo "| offloads on, voff / tap | $(ratio voff-offon.up tap-offon.up) | $(ratio voff-offon.down tap-offon.down) |"
echo "| MTU sender, voff GRO on / off | | $(ratio voff-mtu-gro-on.down voff-mtu-gro-off.down) |"
if [ -n "$base" ]; then
	echo "| base, offloads on / off | $(ratio base-offon.up base-offoff.up) | $(ratio base-offon.down base-offoff.down) |"
	echo "| offloads on, base / tap | $(ratio base-offon.up tap-offon.up) | $(ratio base-offon.down tap-offon.down) |"
	echo "| offloads on, voff / base | $(ratio voff-offon.up base-offon.up) | $(ratio voff-offon.down base-offon.down) |"
	echo "| MTU sender, base GRO on / off | | $(ratio base-mtu-gro-on.down base-mtu-gro-off.down) |"
fi
echo
pinned="vCPU thread pinned alone to CPU 1"
[ "$pinning" = 1 ] || pinned="no pinning"
echo "(TCG guest, ${secs} s per run, ${reps} round(s) per boot, ${boots} boot(s) of each; medians; $pinned)"
