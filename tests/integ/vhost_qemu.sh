#!/bin/bash
# SPDX-License-Identifier: MIT
#
# vhost_qemu.sh - a real Linux guest on a vhost-user port of `voff switch`
#
#   QEMU (TCG) guest               voff switch             netns voff-vq-n-$$
#   eth0 10.0.0.2/24 <--vhost-user--> (here) <--TAP-->  vq0 10.0.0.1/24
#   (virtio-net, busybox initramfs)                     guest_peer.py
#
# The guest is Debian's kernel from /boot with its own virtio-net modules
# in a busybox initramfs built here (tests/integ/lib_guest.sh).  Shown:
#  - TCP both ways, 16 MiB of random bytes each, SHA-256 equal at both ends;
#  - super-packets cross whole both ways: the guest's TSO frames leave on
#    the TAP as super-packets, the namespace's reach the guest whole (it
#    negotiated GUEST_TSO4), nothing segmented by the switch on the way;
#  - the guest is reset (QEMU's system_reset) while traffic runs both ways: its
#    rings stop and start again over the same connection, and traffic
#    flows again with bytes intact;
#  - QEMU killed: the port sees the disconnection and listens again; a new
#    QEMU's guest works; a guest powered off disconnects cleanly;
#  - no vhost-user message of QEMU's refused, the switch ends cleanly.
# Skips (77) without root, a netns, python3, qemu-system-x86_64, a guest
# kernel with its modules in /lib/modules or a static busybox.
set -u

tag=vq
# shellcheck source=tests/integ/lib_ns.sh
. "$(dirname "$0")/lib_ns.sh"
ns_require python3
GUEST_DIR=$LIB_TMP
# shellcheck source=tests/integ/lib_guest.sh
. "$(dirname "$0")/lib_guest.sh"
guest_require || { echo "skip: $GUEST_WHY"; exit 77; }
trap 'guest_cleanup; lib_cleanup' EXIT

MB=${VOFF_VHOST_MB:-16}
ns=$(ns_add n)
sock=$LIB_TMP/vm0.sock
sw_start --port "vhost-user:$sock" --port "tap:vq0@$ns"
addr_tap "$ns" vq0 "$GUEST_PEER_IP/24"
guest_initramfs || { echo "FAIL - initramfs not built"; exit 1; }
guest_peer_start "$ns"
# QEMU 7.2 under TCG crashes when a vhost-user device's driver starts
# with MSI-X (it sets up KVM irqfds without KVM): legacy interrupts.
net=(-chardev "socket,id=c0,path=$sock"
     -netdev "vhost-user,id=n0,chardev=c0"
     -device "virtio-net-pci,netdev=n0,mac=52:54:00:00:00:02,vectors=0")

vs() { stat_of "$sock" "$1"; }
ts() { stat_of vq0 "$1"; }

# check WHAT VALUE eq|gt WANT - ok/bad on an integer comparison
check() {
	local r=1
	case $3 in
	eq) [ "$2" -eq "$4" ] 2>/dev/null && r=0 ;;
	gt) [ "$2" -gt "$4" ] 2>/dev/null && r=0 ;;
	esac
	if [ "$r" -eq 0 ]; then
		ok "$1: $2"
	else
		bad "$1: $2 (want -$3 $4)"
	fi
}

boot() {
	if guest_wait_boot "$1" 120; then
		ok "guest booted ($1)"
	else
		echo "FAIL - the guest did not boot; its console:"
		tail -20 "$guest_log"
		exit 1
	fi
}

# xfer ID - MB random bytes each way, SHA-256 compared at both ends
xfer() {
	local id=$1 n=$((MB * 1048576)) up got
	rm -f "$GUEST_DIR/peer/got" "$GUEST_DIR/peer/sent"
	if ! guest_step "$id" 180 "
head -c $n /dev/urandom >/tmp/up
echo \"@@ $id up=\$(sha256sum </tmp/up | cut -d' ' -f1)\"
timeout 120 nc $GUEST_PEER_IP $((GUEST_PEER_PORT + 1)) </tmp/up
echo \"@@ $id nc=\$?\"
rm -f /tmp/up
timeout 120 wget -q -O /tmp/down http://$GUEST_PEER_IP:$GUEST_PEER_PORT/data?n=$n
echo \"@@ $id wget=\$?\"
echo \"@@ $id down=\$(sha256sum </tmp/down | cut -d' ' -f1)\"
rm -f /tmp/down"; then
		bad "$id: the guest's transfers did not end"
		return 1
	fi
	up=$(guest_val "$id" up)
	got=$(cat "$GUEST_DIR/peer/got" 2>/dev/null)
	if [ -n "$up" ] && [ "$got" = "$up $n" ]; then
		ok "$id: guest -> namespace, $MB MiB, SHA-256 equal"
	else
		bad "$id: guest -> namespace: sent $up, received '$got'"
	fi
	if [ -n "$(guest_val "$id" down)" ] &&
	   [ "$(guest_val "$id" down)" = "$(guest_peer_val sent)" ]; then
		ok "$id: namespace -> guest, $MB MiB, SHA-256 equal"
	else
		bad "$id: namespace -> guest: sent $(guest_peer_val sent)," \
			"received $(guest_val "$id" down)"
	fi
}

# wait_stat KEY VALUE - until the vhost port's KEY is VALUE (10 s)
stat_is() { [ "$(vs "$1")" = "$2" ]; }
wait_stat() { wait_until 100 stat_is "$1" "$2"; }

# --- 1. boot, negotiate, both ways with super-packets whole ---------------
guest_start "${net[@]}"
boot 1
check "vhost: connected" "$(vs vhost_connected)" eq 1
check "vhost: rings running" "$(vs vhost_running)" eq 1
f=$(vs vhost_features)
for b in 0:CSUM 1:GUEST_CSUM 7:GUEST_TSO4 11:HOST_TSO4 15:MRG_RXBUF \
	 28:INDIRECT_DESC 29:EVENT_IDX 32:VERSION_1; do
	if (((f >> ${b%%:*}) & 1)); then
		ok "guest negotiated ${b#*:}"
	else
		bad "guest did not negotiate ${b#*:} (features $f)"
	fi
done
xfer x1
check "guest TSO frames received whole (vhost rx_super)" "$(vs rx_super)" gt 0
check "... and sent whole on the TAP (tap tx_super)" "$(ts tx_super)" gt 0
check "namespace TSO frames received (tap rx_super)" "$(ts rx_super)" gt 0
check "... and given whole to the guest (vhost tx_super)" "$(vs tx_super)" gt 0
check "no segmentation toward the TAP (gso_in)" "$(ts gso_in)" eq 0
check "no segmentation toward the guest (gso_in)" "$(vs gso_in)" eq 0
check "vhost: bad frames from the guest" "$(vs rx_dropped)" eq 0

# --- 2. reset while traffic runs both ways --------------------------------
starts=$(vs vhost_starts)
stops=$(vs vhost_stops)
tx0=$(vs tx_bytes)
rx0=$(vs rx_bytes)
guest_step_start r1 "
timeout 60 wget -q -O /dev/null http://$GUEST_PEER_IP:$GUEST_PEER_PORT/stream?n=4000000000 &
head -c 4000000000 /dev/zero | timeout 60 nc $GUEST_PEER_IP $((GUEST_PEER_PORT + 1)) &
echo \"@@ r1 running\""
guest_wait_line "@@ r1 running" 60 || bad "r1: the guest did not start its traffic"
# Until a megabyte crossed each way (30 s); the streams go on.
both_ways() {
	[ $(($(vs tx_bytes) - tx0)) -gt 1000000 ] &&
		[ $(($(vs rx_bytes) - rx0)) -gt 1000000 ]
}
wait_until 300 both_ways
check "traffic to the guest before its reset (bytes)" \
	$(($(vs tx_bytes) - tx0)) gt 1000000
check "traffic from the guest before its reset (bytes)" \
	$(($(vs rx_bytes) - rx0)) gt 1000000
# The machine is reset under the guest's feet, traffic in flight (a
# reboot -f inside waits for the guest to get there: under a loaded TCG
# it may not, see docs/vhost-user.md).
guest_reset
boot 2
check "vhost: rings stopped at the reset" "$(vs vhost_stops)" gt "$stops"
check "vhost: rings started again" "$(vs vhost_starts)" gt "$starts"
check "vhost: rings running" "$(vs vhost_running)" eq 1
check "vhost: same connection (connects)" "$(vs vhost_connects)" eq 1
check "vhost: no disconnection" "$(vs vhost_disconnects)" eq 0
sup=$(vs rx_super)
sdown=$(vs tx_super)
xfer x2
check "after the reset: guest TSO whole" $(($(vs rx_super) - sup)) gt 0
check "after the reset: TSO to the guest whole" $(($(vs tx_super) - sdown)) gt 0
check "vhost: refused messages" "$(vs vhost_refused_messages)" eq 0

# --- 3. QEMU killed, a new one -------------------------------------------
guest_stop
if wait_stat vhost_connected 0; then
	ok "QEMU killed: the port saw the disconnection"
else
	bad "QEMU killed: still connected"
fi
check "vhost: disconnections" "$(vs vhost_disconnects)" eq 1
check "vhost: dropped by voff" "$(vs vhost_protocol_drops)" eq 0
check "vhost: listening again (socket)" "$([ -S "$sock" ] && echo 1 || echo 0)" eq 1
guest_start "${net[@]}"
boot 1
check "vhost: a second connection" "$(vs vhost_connects)" eq 2
xfer x3

# --- 4. power off ---------------------------------------------------------
guest_step_start p1 "poweroff -f"
guest_gone() { ! guest_alive; }
if wait_until 300 guest_gone && wait_stat vhost_connected 0; then
	ok "guest powered off: disconnected"
else
	bad "guest powered off: QEMU or the connection still there"
fi
check "vhost: refused messages (the last connection)" \
	"$(vs vhost_refused_messages)" eq 0
check "vhost: dropped by voff" "$(vs vhost_protocol_drops)" eq 0
vctl stats "$sock" | sed 's/^/# /'

if sw_alive; then
	if sw_stop; then
		ok "switch stopped cleanly"
	else
		bad "switch exit status"
	fi
else
	bad "the switch died: $(tail -5 "$LIB_TMP/switch.err")"
fi
if grep -q "Sanitizer" "$LIB_TMP/switch.err"; then
	bad "sanitizer report: $(grep -m3 Sanitizer "$LIB_TMP/switch.err")"
fi
[ "$fails" -eq 0 ] || { echo "$fails failed"; exit 1; }
echo "all passed"
