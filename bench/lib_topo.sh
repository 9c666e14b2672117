# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# lib_topo.sh - the two topologies bench/small.sh and bench/rtt-stages.sh
# compare, set up in namespaces made with tests/integ/lib_ns.sh (sourced
# first): A at 10.86.0.1 on va, B at 10.86.0.2 on vb
#
#   voff:   ns A va <-TAP-> voff switch <-TAP-> vb ns B
#   bridge: ns A va <-veth-> br0 (ns M) <-veth-> vb ns B

# setup_voff BINARY NS_A NS_B [SWITCH ARGS...]: the switch between two TAPs
# (voff: the binary lib_ns.sh runs; sw_out: the port a script reads the
# forwarded count of)
# shellcheck disable=SC2034
setup_voff() {
	local bin=$1 a=$2 b=$3
	shift 3
	voff=$bin
	sw_out=vb
	sw_start --port "tap:va@$a" --port "tap:vb@$b" "$@"
	addr_tap "$a" va 10.86.0.1/24
	addr_tap "$b" vb 10.86.0.2/24
}

# setup_bridge NS_A NS_B NS_M: two veth pairs on a bridge in NS_M
setup_bridge() {
	ip -n "$3" link add br0 type bridge
	ip -n "$3" link add ea0 type veth peer name va netns "$1"
	ip -n "$3" link add eb0 type veth peer name vb netns "$2"
	for l in br0 ea0 eb0; do ip -n "$3" link set "$l" up; done
	ip -n "$3" link set ea0 master br0
	ip -n "$3" link set eb0 master br0
	ip -n "$1" addr add 10.86.0.1/24 dev va
	ip -n "$2" addr add 10.86.0.2/24 dev vb
	ip -n "$1" link set va up
	ip -n "$2" link set vb up
}
