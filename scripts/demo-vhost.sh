#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# demo-vhost.sh - a virtual machine on `voff switch`: a Linux guest under
# QEMU (TCG, Debian's kernel in a busybox initramfs built on the spot) on a
# vhost-user port, a TAP port into a network namespace:
#
#   QEMU guest eth0 10.0.0.2 <--vhost-user--> voff switch <--TAP--> vq0 10.0.0.1
#
# Shows what the guest negotiated, TCP both ways with iperf3 (Gbit/s, the
# guest's CPU per KB), 8 MiB each way with SHA-256 compared, the
# super-packets that crossed whole, then a guest reboot and the port's
# counters after it.  Under TCG every guest instruction is emulated: the
# figures are a TCG guest's, far below a KVM one's (docs/bench-vhost.md).
# Needs root; installs what is missing first.  VOFF=path uses a built voff,
# otherwise it builds one.  DEMO_SECS per iperf3 run (default 3).  Removes
# everything it created, also on Ctrl-C.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

secs=${DEMO_SECS:-3}
if [ -z "${VOFF:-}" ]; then
	scripts/bootstrap.sh || exit 1
	cmake --preset release >/dev/null &&
		cmake --build --preset release -j 2 >/dev/null || exit 1
	VOFF=build/release/voff
fi
[ "$(id -u)" -eq 0 ] || { echo "demo-vhost: needs root" >&2; exit 1; }
command -v iperf3 >/dev/null ||
	{ echo "demo-vhost: needs iperf3 (scripts/bootstrap.sh)" >&2; exit 1; }

GUEST_DIR=$(mktemp -d /tmp/voff-dvh-$$.XXXX)
# shellcheck source=tests/integ/lib_guest.sh
. tests/integ/lib_guest.sh
ns=voff-dvh-$$
ctl=$GUEST_DIR/voff.ctl
sock=$GUEST_DIR/vm0.sock
pid=
cleanup() {
	guest_cleanup
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	ip netns del "$ns" 2>/dev/null
	rm -rf "$GUEST_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
die() { echo "demo-vhost: $*" >&2; exit 1; }

guest_require || die "$GUEST_WHY"
echo "guest kernel $GUEST_KVER; building its initramfs"
guest_initramfs || die "initramfs not built"
ip netns add "$ns"
ip -n "$ns" link set lo up
"$VOFF" switch --ctl "$ctl" --port "vhost-user:$sock" --port "tap:vq0@$ns" \
	2>"$GUEST_DIR/switch.err" &
pid=$!
for _ in $(seq 100); do [ -S "$ctl" ] && break; sleep 0.05; done
[ -S "$ctl" ] || die "the switch did not start: $(cat "$GUEST_DIR/switch.err")"
ip -n "$ns" addr add "$GUEST_PEER_IP/24" dev vq0
guest_peer_start "$ns"
vs() {
	"$VOFF" ctl --ctl "$ctl" -j stats "$1" | python3 -c \
		"import json,sys; print(json.load(sys.stdin)[0].get('$2', 0))"
}

t0=$(date +%s.%N)
# vectors=0: QEMU 7.2 under TCG crashes when a vhost-user device's driver
# starts with MSI-X.
guest_start -chardev "socket,id=c0,path=$sock" \
	-netdev vhost-user,id=n0,chardev=c0 \
	-device virtio-net-pci,netdev=n0,mac=52:54:00:00:00:02,vectors=0
guest_wait_boot 1 120 || die "the guest did not boot: $(tail -5 "$guest_log")"
printf 'guest up in %.1f s (TCG)\n' "$(echo "$(date +%s.%N) - $t0" | bc)"
python3 - "$(vs "$sock" vhost_features)" <<'PY'
import sys
f = int(sys.argv[1])
names = {0: "CSUM", 1: "GUEST_CSUM", 7: "GUEST_TSO4", 8: "GUEST_TSO6",
         9: "GUEST_ECN", 11: "HOST_TSO4", 12: "HOST_TSO6", 13: "HOST_ECN",
         15: "MRG_RXBUF", 28: "INDIRECT_DESC", 29: "EVENT_IDX",
         32: "VERSION_1"}
print("negotiated:", " ".join(n for b, n in sorted(names.items()) if f >> b & 1))
PY

# iperf3 DIR: the guest's client against the namespace's server
n=0
iperf() {
	local r='' id json
	n=$((n + 1))
	id=p$n
	json=$GUEST_DIR/$id.json
	[ "$1" = down ] && r=-R
	ip netns exec "$ns" iperf3 -s -1 -J >"$json" 2>/dev/null &
	local s=$!
	sleep 0.3
	guest_step "$id" $((secs + 40)) "
a=\$(head -1 /proc/stat)
iperf3 -c $GUEST_PEER_IP -t $secs $r >/dev/null 2>&1
b=\$(head -1 /proc/stat)
echo \"@@ $id t0=\$a\"
echo \"@@ $id t1=\$b\""
	wait "$s" 2>/dev/null
	python3 - "$json" "$1" "$(guest_val "$id" t0)" "$(guest_val "$id" t1)" <<'PY'
import json, sys
try:
    e = json.load(open(sys.argv[1]))["end"]
    s = e["sum_received"] if sys.argv[2] == "up" else e["sum_sent"]
    busy = lambda t: sum(int(x) for i, x in enumerate(t.split()[1:9]) if i not in (3, 4))
    cpu = (busy(sys.argv[4]) - busy(sys.argv[3])) / 100
    print("  %-22s %5.2f Gbit/s   guest CPU %5.1f us/KB" % (
        "guest -> namespace" if sys.argv[2] == "up" else "namespace -> guest",
        s["bytes"] * 8 / s["seconds"] / 1e9, cpu * 1e6 / (s["bytes"] / 1024)))
except Exception as ex:
    print("  iperf3 failed:", ex)
PY
}

# xfer ID: 8 MiB each way, SHA-256 at both ends
xfer() {
	local id=$1 b=$((8 << 20)) up got
	rm -f "$GUEST_DIR/peer/got" "$GUEST_DIR/peer/sent"
	guest_step "$id" 120 "
head -c $b /dev/urandom >/tmp/up
echo \"@@ $id up=\$(sha256sum </tmp/up | cut -d' ' -f1)\"
timeout 100 nc $GUEST_PEER_IP $((GUEST_PEER_PORT + 1)) </tmp/up
timeout 100 wget -q -O /tmp/down http://$GUEST_PEER_IP:$GUEST_PEER_PORT/data?n=$b
echo \"@@ $id down=\$(sha256sum </tmp/down | cut -d' ' -f1)\"
rm -f /tmp/up /tmp/down"
	up=$(guest_val "$id" up)
	got=$(cat "$GUEST_DIR/peer/got" 2>/dev/null)
	[ -n "$up" ] && [ "$got" = "$up $b" ] && echo "  8 MiB guest -> namespace: SHA-256 equal" ||
		echo "  8 MiB guest -> namespace: DIFFERENT ($up / $got)"
	[ -n "$(guest_val "$id" down)" ] &&
		[ "$(guest_val "$id" down)" = "$(guest_peer_val sent)" ] &&
		echo "  8 MiB namespace -> guest: SHA-256 equal" ||
		echo "  8 MiB namespace -> guest: DIFFERENT"
}

echo "TCP, ${secs} s each (TCG guest: emulated copies bound it):"
iperf up
iperf down
xfer x1
echo "super-packets that crossed whole:"
echo "  from the guest (its TSO):  $(vs "$sock" rx_super) in, $(vs vq0 tx_super) out on the TAP"
echo "  to the guest (GUEST_TSO4): $(vs vq0 rx_super) in from the TAP, $(vs "$sock" tx_super) to the guest"
echo "  segmented by the switch:   $(($(vs "$sock" gso_in) + $(vs vq0 gso_in)))"

echo "guest reboot (reboot -f):"
guest_step_start r1 'reboot -f'
guest_wait_boot 2 120 || die "the guest did not come back"
echo "  ring starts $(vs "$sock" vhost_starts), stops $(vs "$sock" vhost_stops)," \
	"connections $(vs "$sock" vhost_connects), disconnections $(vs "$sock" vhost_disconnects)"
xfer x2
guest_step_start p1 'poweroff -f'
for _ in $(seq 100); do guest_alive || break; sleep 0.1; done
echo "guest powered off: connected $(vs "$sock" vhost_connected)," \
	"disconnections $(vs "$sock" vhost_disconnects)"
