# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# lib_vxlan.sh - the hosts of the VXLAN interop tests (vxlan_*.sh), built
# from namespaces on top of lib_ns.sh:
#
#   ns A 10.77.0.1 ---- voff switch ---- vxlan:42@H1 --+
#   (TAP va, mtu 1450)   (host 1)       192.168.77.1   |
#                                                       |  underlay:
#   ns B 10.77.0.2 ---- host 2: kernel vxlan0 + br0 ---+  a bridge in
#   (veth vb)           or a second voff switch         |  ns U, one veth
#                       192.168.77.2                    |  per host
#   ns C 10.77.0.3 ---- host 3 (the same, when used) ---+
#                       192.168.77.3
#
# Not a test itself (it ends in .sh only to sit with the tests): exits 77
# when run directly.  A sourcing script sets `tag`, then calls vx_require.

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	echo "skip: a library, sourced by the vxlan_*.sh tests"
	exit 77
fi

# shellcheck source=tests/integ/lib_ns.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib_ns.sh"

VNI=42
py=$(dirname "${BASH_SOURCE[0]}")/peer.py
# The sourcing tests use these.
# shellcheck disable=SC2034
U='' H1='' H2='' H3='' A='' B='' C=''

# want COND... MSG - "ok MSG" when the command COND succeeds, else "FAIL MSG"
want() {
	local msg=${!#}
	if "${@:1:$#-1}"; then ok "$msg"; else bad "$msg"; fi
}

# not CMD... - succeeds when CMD fails (for want)
not() { ! "$@"; }

# vx_require TOOL... - lib_ns's checks, plus a kernel with vxlan
vx_require() {
	ns_require python3 "$@"
	local n="voff-$tag-$$-vxprobe"
	ip netns add "$n" || { echo "skip: cannot create a netns"; exit 77; }
	if ! ip -n "$n" link add vxprobe type vxlan id 1 dstport 4789 \
		local 127.0.0.1 2>/dev/null; then
		ip netns del "$n"
		echo "skip: no vxlan module"
		exit 77
	fi
	ip netns del "$n"
}

# vx_underlay N - namespaces U, H1..HN (192.168.77.K and fd77::K on veth
# uK) joined by a bridge in U, with GRO on every veth
vx_underlay() {
	local k h
	U=$(ns_add u)
	ip -n "$U" link add br0 type bridge
	ip -n "$U" link set br0 up
	for k in $(seq "$1"); do
		h=$(ns_add "h$k")
		eval "H$k=\$h"
		ip link add "u$k" netns "$h" type veth peer "p$k" netns "$U"
		ip -n "$U" link set "p$k" master br0
		ip -n "$U" link set "p$k" up
		# GRO where the underlay takes frames in, kept whole across
		# its bridge, so UDP_GRO trains reach the hosts' sockets.
		ip netns exec "$U" ethtool -K "p$k" gro on \
			rx-udp-gro-forwarding on >/dev/null 2>&1
		ip -n "$h" addr add "192.168.77.$k/24" dev "u$k"
		ip -n "$h" addr add "fd77::$k/64" dev "u$k" nodad
		ip -n "$h" link set "u$k" up
		ip netns exec "$h" ethtool -K "u$k" gro on >/dev/null 2>&1
	done
}

# vx_app K - the namespace of host K's application, without IPv6 (its
# router solicitations and MLD reports would be learned at any time)
vx_app() {
	local n
	n=$(ns_add "app$1") || return 1
	ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
	echo "$n"
}

# vx_kernel_host K REMOTE... - host K as the kernel does it: vxlan0 (VNI
# 42, port 4789, learning) in a bridge with a veth into a new namespace
# (ns B for host 2, C for host 3) at 10.77.0.K; REMOTE... the flood list
vx_kernel_host() {
	local k=$1 h app r first=1
	shift
	h=$(eval echo "\$H$k")
	app=$(vx_app "$k")
	# shellcheck disable=SC2034
	case $k in 1) A=$app ;; 2) B=$app ;; 3) C=$app ;; esac
	ip -n "$h" link add vxlan0 type vxlan id "$VNI" dstport 4789 \
		local "192.168.77.$k"
	for r in "$@"; do
		if [ $first = 1 ]; then
			bridge -n "$h" fdb add 00:00:00:00:00:00 dev vxlan0 dst "$r"
			first=0
		else
			bridge -n "$h" fdb append 00:00:00:00:00:00 dev vxlan0 \
				dst "$r"
		fi
	done
	ip -n "$h" link add br0 type bridge
	ip -n "$h" link set vxlan0 master br0
	ip link add "v$k" netns "$app" type veth peer "vh$k" netns "$h"
	ip -n "$h" link set "vh$k" master br0
	ip -n "$h" link set vxlan0 up
	ip -n "$h" link set "vh$k" up
	ip -n "$h" link set br0 up
	ip -n "$app" link set "v$k" mtu 1450
	ip -n "$app" addr add "10.77.0.$k/24" dev "v$k"
	ip -n "$app" link set "v$k" up
}

# vx_voff_host K CTL REMOTE... - host K as voff does it: a `voff switch`
# with a TAP into a new namespace (A for host 1, B for 2, C for 3) at
# 10.77.0.K and vxlan:42 in HK; CTL its control socket; host 1's is
# lib_ns's switch ($ctl, $swpid); $vx_opts (",udp_offload=off") is added
# to the vxlan spec when set
vx_voff_host() {
	local k=$1 sock=$2 h app spec r pid
	shift 2
	h=$(eval echo "\$H$k")
	app=$(vx_app "$k")
	# shellcheck disable=SC2034
	case $k in 1) A=$app ;; 2) B=$app ;; 3) C=$app ;; esac
	spec="vxlan:$VNI@$h,local=192.168.77.$k"
	for r in "$@"; do spec="$spec,remote=$r"; done
	spec=$spec${vx_opts:-}
	if [ "$sock" = "$ctl" ]; then
		sw_start --port "tap:t$k@$app,gro=on" --port "$spec,gro=on"
	else
		"$voff" switch --ctl "$sock" --port "tap:t$k@$app,gro=on" \
			--port "$spec,gro=on" 2>"$LIB_TMP/switch$k.err" &
		pid=$!
		lib_pids+=("$pid")
		for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.05; done
		[ -S "$sock" ] || { bad "switch $k did not start"; exit 1; }
	fi
	for _ in $(seq 50); do
		ip -n "$app" link show "t$k" >/dev/null 2>&1 && break
		sleep 0.1
	done
	ip -n "$app" link set "t$k" mtu 1450
	ip -n "$app" addr add "10.77.0.$k/24" dev "t$k"
}

# vx_mac NS DEV - the MAC of DEV
vx_mac() { ip -n "$1" -o link show "$2" | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p'; }

# vx_fdb_remote CTL MAC - the REMOTE the switch behind CTL shows for MAC
vx_fdb_remote() {
	"$voff" ctl --ctl "$1" -j fdb | python3 -c '
import json, sys
for e in json.load(sys.stdin):
    if e["mac"] == sys.argv[1]:
        print(e["remote"] or "")' "$2"
}

# vx_kfdb_dst HOST MAC - where host HOST's kernel vxlan0 learned MAC
vx_kfdb_dst() {
	bridge -n "$1" fdb show dev vxlan0 |
		awk -v m="$2" '$1 == m && $2 == "dst" { print $3; exit }'
}

# vx_stat CTL PORT KEY - one counter of `voff ctl -j stats PORT`
vx_stat() {
	"$voff" ctl --ctl "$1" -j stats "$2" |
		python3 -c "import json,sys; print(json.load(sys.stdin)[0].get('$3', 0))"
}

# vx_xfer FROM TO ADDR BYTES - BYTES random bytes by TCP, checked by their
# SHA-256 at the other end; 0 when intact
vx_xfer() {
	local spid rc
	ip netns exec "$2" python3 "$py" server tcp "$3" "$4" 5298 &
	spid=$!
	ip netns exec "$1" timeout 120 python3 "$py" client tcp "$3" "$4" 5298
	rc=$?
	wait "$spid"
	return $rc
}

# vx_iperf FROM TO ADDR NAME [ARGS...] - iperf3 -t 3; 0 when bytes arrived
# (the rate is printed, never asserted)
vx_iperf() {
	local c=$1 s=$2 addr=$3 name=$4 out=$LIB_TMP/iperf.json bps
	shift 4
	IPERF_PORT=5299 iperf_run "$c" "$s" "$addr" 3 "$out" "$@" || return 1
	bps=$(iperf_bps "$out")
	echo "# $name: $((bps / 1000000)) Mbit/s (not asserted)"
	[ "$bps" -gt 0 ]
}

# vx_capture DEV FILE - dumpcap on DEV of the underlay namespace into FILE,
# in the background (its pid in vx_cap_pid), once it is writing
vx_capture() {
	ip netns exec "$U" dumpcap -q -i "$1" -w "$2" \
		>"$LIB_TMP/dumpcap.err" 2>&1 &
	vx_cap_pid=$!
	lib_pids+=("$vx_cap_pid")
	for _ in $(seq 50); do [ -s "$2" ] && break; sleep 0.1; done
	sleep 0.3
}

# vx_capture_end - stop the capture vx_capture started, its file complete
vx_capture_end() {
	sleep 0.5
	kill -INT "$vx_cap_pid" 2>/dev/null
	wait "$vx_cap_pid" 2>/dev/null
}

# vx_tshark_check PCAP NAME - every VXLAN frame of PCAP decodes with VNI 42
# and the I flag, nothing is malformed, and every IPv4, TCP, UDP and ICMP
# checksum tshark can verify, outer and inner, is good
vx_tshark_check() {
	local cap=$1 name=$2 out=$LIB_TMP/tshark.txt
	tshark -n -r "$cap" -d udp.port==4789,vxlan \
		-o ip.check_checksum:TRUE -o udp.check_checksum:TRUE \
		-o tcp.check_checksum:TRUE -Y 'udp.port == 4789' \
		-T fields -E separator='|' -E occurrence=a \
		-e frame.number -e vxlan.vni -e vxlan.flags \
		-e ip.checksum.status -e udp.checksum.status \
		-e tcp.checksum.status -e icmp.checksum.status \
		-e _ws.malformed -e _ws.expert.severity >"$out" 2>"$LIB_TMP/tshark.err"
	python3 - "$out" "$name" <<'PY'
import sys
bad, frames, tcp = [], 0, 0
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("|")
    num, vni, flags, ip, udp, tcpst, icmp, malformed = f[:8]
    frames += 1
    if vni != "42":
        bad.append("%s: VNI %r" % (num, vni))
    if not flags or not int(flags, 0) & 0x0800:  # the I flag
        bad.append("%s: flags %r" % (num, flags))
    if malformed:
        bad.append("%s: malformed" % num)
    # 1: good, 2: unverified (a zero UDP checksum); 0 is bad.
    for what, st in (("ip", ip), ("udp", udp), ("tcp", tcpst), ("icmp", icmp)):
        if "0" in [s for s in st.split(",") if s]:
            bad.append("%s: %s checksum %s" % (num, what, st))
    if tcpst:
        tcp += 1
for b in bad[:10]:
    print("#  ", b)
print("# %s: %d VXLAN frames, %d with TCP inside, %d problems"
      % (sys.argv[2], frames, tcp, len(bad)))
sys.exit(0 if frames > 0 and tcp > 0 and not bad else 1)
PY
}
