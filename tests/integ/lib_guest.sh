# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# lib_guest.sh - a real Linux guest under QEMU (TCG) for the vhost-user
# test, benchmark and demo: the guest kernel found in /boot, a busybox
# initramfs built in a temporary directory, QEMU started and stopped, and
# commands run in the guest
#
# Not a test itself (CTest skips lib_*.sh).  The guest asks the host what
# to do: its init brings eth0 up and then fetches http://PEER/step over
# and over (tests/integ/guest_peer.py serves it from the host's network
# namespace) and runs what it gets.  A step prints "@@ ID KEY=VALUE" lines
# on the serial console, which QEMU writes to a file the host reads.
#
# Needs: qemu-system-x86_64, a /boot/vmlinuz-VERSION whose modules are in
# /lib/modules/VERSION (Debian's linux-image-amd64) and a static busybox
# (busybox-static; a dynamic one is copied with its libraries).
# guest_require says what is missing.  The kernel is the newest
# /boot/vmlinuz-* with its modules, whatever the host runs;
# VOFF_GUEST_KERNEL=PATH picks another (VOFF_GUEST_KVER: the version of
# its /lib/modules, else the one in its name).
#
# The sourcing script sets GUEST_DIR (a directory of its own) first.

# GUEST_* are read by the scripts that source this.
# shellcheck disable=SC2034

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	echo "skip: a library, sourced by vhost_qemu.sh, bench/ and scripts/"
	exit 77
fi

GUEST_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
GUEST_IP=${GUEST_IP:-10.0.0.2}
GUEST_PEER_IP=${GUEST_PEER_IP:-10.0.0.1}
GUEST_PEER_PORT=${GUEST_PEER_PORT:-8080}
GUEST_MEM=${GUEST_MEM:-512}
GUEST_KERNEL=
GUEST_KVER=
GUEST_INITRD=
GUEST_WHY=
guest_pid=
guest_log=
guest_n=0	# guests started: each has its own serial log

# guest_require - 0 when QEMU, a guest kernel and busybox are here (sets
# GUEST_KERNEL, GUEST_KVER); else 1 with the reason in GUEST_WHY
guest_require() {
	local k v
	command -v qemu-system-x86_64 >/dev/null ||
		{ GUEST_WHY="qemu-system-x86_64 missing (qemu-system-x86)"; return 1; }
	[ -x /bin/busybox ] ||
		{ GUEST_WHY="no /bin/busybox (busybox-static)"; return 1; }
	if [ -n "${VOFF_GUEST_KERNEL:-}" ]; then
		GUEST_KERNEL=$VOFF_GUEST_KERNEL
		GUEST_KVER=${VOFF_GUEST_KVER:-${GUEST_KERNEL##*/vmlinuz-}}
	else
		# The newest kernel image whose modules are installed.
		for k in $(find /boot -maxdepth 1 -name 'vmlinuz-*' 2>/dev/null |
			   sort -rV); do
			v=${k##*/vmlinuz-}
			if [ -r "$k" ] && [ -f "/lib/modules/$v/modules.dep" ]; then
				GUEST_KERNEL=$k
				GUEST_KVER=$v
				break
			fi
		done
	fi
	if [ -z "$GUEST_KERNEL" ] || [ ! -r "$GUEST_KERNEL" ] ||
	   [ ! -f "/lib/modules/$GUEST_KVER/modules.dep" ]; then
		GUEST_WHY="no guest kernel with modules (linux-image-amd64)"
		return 1
	fi
	return 0
}

# guest_mod_order NAME... - the module files NAME needs, dependencies
# first, each once (relative to /lib/modules/$GUEST_KVER); built-in ones
# are left out
guest_mod_order() {
	local dep=/lib/modules/$GUEST_KVER/modules.dep
	local builtin=/lib/modules/$GUEST_KVER/modules.builtin
	local seen=" " m
	visit() {
		local name=$1 deps i line path d
		line=$(grep -E "(^|/)${name}\.ko(\.[a-z]+)?:" "$dep" | head -1)
		if [ -z "$line" ]; then
			grep -qE "(^|/)${name}\.ko\$" "$builtin" 2>/dev/null &&
				return 0
			echo "guest: module $name not found for $GUEST_KVER" >&2
			return 1
		fi
		path=${line%%:*}
		case $seen in *" $path "*) return 0 ;; esac
		read -r -a deps <<<"${line#*:}"
		for ((i = ${#deps[@]} - 1; i >= 0; i--)); do
			d=${deps[i]##*/}
			visit "${d%%.ko*}" || return 1
		done
		path=${line%%:*}
		case $seen in *" $path "*) return 0 ;; esac
		seen="$seen$path "
		echo "$path"
	}
	for m in "$@"; do visit "$m" || return 1; done
}

# guest_copy_bin ROOT BIN - BIN and the shared libraries it needs (ldd)
# into ROOT at the same paths
guest_copy_bin() {
	local root=$1 bin=$2 f
	mkdir -p "$root/$(dirname "$bin")"
	cp -L "$bin" "$root/$bin"
	for f in $(ldd "$bin" 2>/dev/null | grep -oE '/[^ ]+'); do
		mkdir -p "$root/$(dirname "$f")"
		cp -L "$f" "$root/$f"
	done
}

# guest_initramfs - build $GUEST_DIR/initrd.gz: busybox, the virtio-net
# modules of $GUEST_KVER (decompressed), iperf3 and ethtool when the host
# has them, and the init that runs the host's steps
guest_initramfs() {
	local root=${GUEST_DIR:?set by the sourcing script}/root m f n=0
	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,mod,etc}
	guest_copy_bin "$root" /bin/busybox	# static or not
	for f in sh ash mount ip insmod sleep cat echo head sha256sum cut \
		 wget timeout reboot poweroff grep awk sed rm ls seq date \
		 sync tr kill dd taskset; do
		ln -s busybox "$root/bin/$f"
	done
	for m in $(guest_mod_order virtio_pci virtio_net) ; do
		n=$((n + 1))
		f=$root/mod/$(printf %02d "$n")-${m##*/}
		case $m in
		*.ko.xz) xz -dc "/lib/modules/$GUEST_KVER/$m" >"${f%.xz}" ;;
		*.ko.zst) zstd -qdc "/lib/modules/$GUEST_KVER/$m" >"${f%.zst}" ;;
		*.ko.gz) gzip -dc "/lib/modules/$GUEST_KVER/$m" >"${f%.gz}" ;;
		*) cp "/lib/modules/$GUEST_KVER/$m" "$f" ;;
		esac
	done
	[ "$n" -gt 0 ] || return 1
	for f in /usr/bin/iperf3 /usr/sbin/ethtool; do
		[ -x "$f" ] && guest_copy_bin "$root" "$f"
	done
	cat >"$root/init" <<'EOF'
#!/bin/sh
# The guest's init: modules, eth0, then the host's steps forever.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs -o size=80% tmp /tmp
for m in /mod/*.ko; do insmod "$m"; done
for w in $(cat /proc/cmdline); do
	case $w in
	voff.ip=*) ip=${w#voff.ip=} ;;
	voff.peer=*) peer=${w#voff.peer=} ;;
	esac
done
ip link set lo up
for i in $(seq 50); do [ -e /sys/class/net/eth0 ] && break; sleep 0.1; done
ip link set eth0 up
ip addr add "$ip" dev eth0
echo "@@ boot $(cat /proc/sys/kernel/random/boot_id)"
while :; do
	rm -f /tmp/step
	if timeout 5 wget -q -O /tmp/step "http://$peer/step" 2>/dev/null &&
	   [ -s /tmp/step ]; then
		sh /tmp/step </dev/null
	else
		sleep 0.3
	fi
done
EOF
	chmod +x "$root/init"
	(cd "$root" && find . | busybox cpio -o -H newc 2>/dev/null) |
		gzip -1 >"$GUEST_DIR/initrd.gz" || return 1
	GUEST_INITRD=$GUEST_DIR/initrd.gz
}

# guest_peer_start NS - the host's end (guest_peer.py) in namespace NS
# (its address must be there)
guest_peer_start() {
	mkdir -p "$GUEST_DIR/peer"
	ip netns exec "$1" python3 "$GUEST_LIB_DIR/guest_peer.py" \
		"$GUEST_PEER_IP" "$GUEST_PEER_PORT" "$GUEST_DIR/peer" \
		>"$GUEST_DIR/peer.log" 2>&1 &
	guest_peer_pid=$!
}

# guest_peer_stop - the host's end stopped
guest_peer_stop() {
	if [ -n "${guest_peer_pid:-}" ]; then
		kill "$guest_peer_pid" 2>/dev/null
		wait "$guest_peer_pid" 2>/dev/null
	fi
	guest_peer_pid=
}

# guest_start NETARGS... - boot a guest whose network is NETARGS (QEMU
# options); its console goes to $guest_log.  QEMU runs in namespace
# GUEST_NETNS when that is set (a TAP backend's device lands there)
guest_start() {
	local in=()
	[ -n "${GUEST_NETNS:-}" ] && in=(ip netns exec "$GUEST_NETNS")
	guest_n=$((guest_n + 1))
	guest_log=$GUEST_DIR/serial$guest_n.log
	: >"$guest_log"
	"${in[@]}" qemu-system-x86_64 -nodefaults -no-user-config -display none \
		-name voff-guest,debug-threads=on \
		-accel tcg -cpu max -smp 1 -m "$GUEST_MEM" \
		-object "memory-backend-memfd,id=mem,size=${GUEST_MEM}M,share=on" \
		-numa node,memdev=mem \
		-kernel "$GUEST_KERNEL" -initrd "$GUEST_INITRD" \
		-append "console=ttyS0 quiet loglevel=3 panic=-1 voff.ip=$GUEST_IP/24 voff.peer=$GUEST_PEER_IP:$GUEST_PEER_PORT" \
		-serial "file:$guest_log" \
		-monitor "unix:$GUEST_DIR/monitor$guest_n,server=on,wait=off" \
		"$@" \
		>"$GUEST_DIR/qemu$guest_n.err" 2>&1 &
	guest_pid=$!
}

# guest_alive - QEMU still runs
guest_alive() { [ -n "$guest_pid" ] && kill -0 "$guest_pid" 2>/dev/null; }

# guest_reset - reset the machine through QEMU's monitor (system_reset),
# whatever the guest is doing
guest_reset() {
	python3 - "$GUEST_DIR/monitor$guest_n" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.settimeout(5)
def prompt():
    # Up to the monitor's next "(qemu) " prompt: what came before is done.
    got = b""
    while b"(qemu) " not in got:
        d = s.recv(4096)
        if not d:
            sys.exit(1)
        got += d
prompt()                # the banner
s.sendall(b"system_reset\n")
prompt()                # the command done
s.close()
PY
}

# guest_stop - end QEMU (SIGKILL: as if it crashed) and wait for it
guest_stop() {
	[ -n "$guest_pid" ] || return 0
	kill -9 "$guest_pid" 2>/dev/null
	wait "$guest_pid" 2>/dev/null
	guest_pid=
}

# guest_console - the console so far, without carriage returns
guest_console() { tr -d '\r' <"$guest_log"; }

# guest_boots - how many times the current guest reached its step loop
guest_boots() { guest_console | grep -c '^@@ boot '; }

# guest_wait_boot N SECONDS - until the guest booted N times
guest_wait_boot() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		[ "$(guest_boots)" -ge "$1" ] && return 0
		guest_alive || return 1
		sleep 0.1
	done
	return 1
}

# guest_wait_line TEXT SECONDS - until a console line starts with TEXT
guest_wait_line() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		guest_console | grep -q -- "^$1" && return 0
		guest_alive || return 1
		kill -0 "$guest_peer_pid" 2>/dev/null ||
			{ echo "guest: the host's end died:" \
				"$(tail -3 "$GUEST_DIR/peer.log")" >&2; return 1; }
		sleep 0.1
	done
	return 1
}

# guest_step ID SECONDS SCRIPT - run SCRIPT (sh) in the guest, wait until it
# ends; its "@@ ID KEY=VALUE" lines are then read by guest_val
guest_step() {
	local id=$1 secs=$2
	printf 'echo "@@ %s begin"\n%s\necho "@@ %s end"\n' "$id" "$3" "$id" \
		>"$GUEST_DIR/peer/step.tmp"
	mv "$GUEST_DIR/peer/step.tmp" "$GUEST_DIR/peer/step"
	guest_wait_line "@@ $id end" "$secs"
}

# guest_step_start ID SCRIPT - the same without waiting (a step that
# reboots or powers off never ends)
guest_step_start() {
	printf 'echo "@@ %s begin"\n%s\n' "$1" "$2" >"$GUEST_DIR/peer/step.tmp"
	mv "$GUEST_DIR/peer/step.tmp" "$GUEST_DIR/peer/step"
}

# guest_val ID KEY - the last value the guest printed as "@@ ID KEY=VALUE"
guest_val() {
	guest_console | sed -n "s/^@@ $1 $2=//p" | tail -1
}

# guest_peer_val NAME - a digest the host's end noted (sent, got)
guest_peer_val() { cut -d' ' -f1 "$GUEST_DIR/peer/$1" 2>/dev/null; }

# guest_vcpu_ticks - clock ticks the guest's vCPU thread (QEMU's "CPU
# 0/TCG") has run, user + system
guest_vcpu_ticks() {
	local t
	for t in /proc/"$guest_pid"/task/*; do
		case $(cat "$t/comm" 2>/dev/null) in
		CPU*) awk '{ print $14 + $15 }' "$t/stat"; return 0 ;;
		esac
	done
	echo 0
}

# guest_cleanup - QEMU and the host's end stopped (call from an EXIT trap)
guest_cleanup() {
	guest_stop
	guest_peer_stop
}
