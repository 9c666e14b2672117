#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# completion.sh - the bash completion (completion/voff.bash) offers what the
# voff under test prints: its subcommands, each one's options and option
# values, feature and limit names, port specs, and the ports of a running
# switch (one with a pcap port, on a control socket of its own).
set -euo pipefail
: "${VOFF:?}"
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
sw=
cleanup()
{
	[[ -n $sw ]] && kill "$sw" 2>/dev/null && wait "$sw" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# shellcheck source=completion/voff.bash
source "$root/completion/voff.bash"
complete -p voff | grep -q -- '-F _voff voff'
# The completion runs the voff the user typed: here, the one under test.
COMP_WORDBREAKS=$' \t\n"\'><=;|&(:'
fails=0
# expect LINE WORD... - completing LINE offers exactly WORD... (in order).
expect()
{
	local line=$1 got want

	shift
	COMP_LINE="$VOFF $line"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_voff
	got="${COMPREPLY[*]}"
	want="$*"
	if [[ "$got" != "$want" ]]; then
		echo "FAIL: '$line' offered '$got', expected '$want'"
		fails=$((fails + 1))
	fi
}
# has LINE WORD... - completing LINE offers at least WORD...
has()
{
	local line=$1 w

	shift
	COMP_LINE="$VOFF $line"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_voff
	for w in "$@"; do
		if [[ " ${COMPREPLY[*]} " != *" $w "* ]]; then
			echo "FAIL: '$line' did not offer '$w' (got '${COMPREPLY[*]}')"
			fails=$((fails + 1))
		fi
	done
}

expect "" inspect features gso gro switch ctl
expect "g" gso gro
expect "--" --help --version
expect "inspect -" -j --json -h --help
expect "gso --c" --csum
expect "gso --csum " full partial
expect "gso --csum=p" partial
expect "gso --mss "
expect "gro --no" --no-udp
has "features --" --base --tun --bridge --limit --limits --intersect --fix
expect "features -b tap" tap tap-fresh
has "features --bond " veth tap tap-fresh bridge bond macvlan vlan none
expect "features -t csum,tso" csum,tso4 csum,tso6 csum,tso_ecn
expect "features -t uso4,udp_tunnel_gso_" uso4,udp_tunnel_gso_csum
expect "features -l gso_max_s" gso_max_size= gso_max_segs=
expect "features --limit=gro_" gro_max_size= gro_ipv4_max_size=
has "features -l " mtu= tso_max_size= gro_max_size=
expect "features tx-tcp6" tx-tcp6-segmentation
expect "features generic-" generic-segmentation-offload generic-receive-offload
has "features " scatter-gather tx-checksum-ipv4 rx-gro-list sg tx tso gso gro
expect "features tso " on off
expect "features -b veth tso off g" generic-segmentation-offload \
	generic-receive-offload gso gro
expect "features -L -n eth0 sg o" on off
expect "switch --port " tap: tun: packet: pcap: vxlan:
expect "switch --port pa" packet:
has "switch --port packet:l" lo
# After ":" and "=" (word breaks) bash replaces only what follows them.
expect "switch --port tap:t0,gro=o" on off
expect "switch --port tap:t0,gso_max_s" t0,gso_max_size= t0,gso_max_segs=
expect "switch --port tap:t0,gro=on,n" on,napi=
has "switch --" --port --ctl --no-propagate --daemon --drop-caps --seccomp \
	--config --pidfile --log-level --syslog --drop-alarm --drop-window \
	--busy-poll
expect "switch --log-level " error warning notice info debug
expect "switch --log-level=w" warning
expect "ctl " fdb features help limits monitor ports reload remotes save server stats
expect "ctl stats --p" --prometheus
expect "ctl stats t0 --pro" --prometheus
expect "ctl -j ports " add del
expect "ctl ports add tu" tun:
expect "ctl -j limits t0 " gso_max_size gso_max_segs gro_max_size \
	gro_flush_timeout gro rx_budget rx_backoff port_retry
expect "ctl limits t0 gro_max_size 1 gso_max_se" gso_max_segs
expect "ctl limits t0 gro_max_size "
expect "ctl features t0 tx-tcp-e" tx-tcp-ecn-segmentation
expect "ctl features t0 tso " on off
expect "ctl fdb " add del
expect "ctl -j remotes a" add
expect "ctl fdb del "

# The ports of a running switch, on the socket the line names.
cp "$VOFF_DATA/sample.pcap" "$tmp/in.pcap"
"$VOFF" switch --port "pcap:$tmp/in.pcap,sink=$tmp/out.pcap" \
	--ctl "$tmp/ctl" 2>"$tmp/sw.log" &
sw=$!
for _ in $(seq 50); do
	[[ -S "$tmp/ctl" ]] && break
	sleep 0.1
done
[[ -S "$tmp/ctl" ]] || { cat "$tmp/sw.log"; echo "switch did not start"; exit 1; }
expect "ctl --ctl $tmp/ctl stats " "$tmp/in.pcap"
expect "ctl --ctl=$tmp/ctl ports del " "$tmp/in.pcap"
expect "ctl --ctl $tmp/ctl -j features /" "$tmp/in.pcap"
touch "$tmp/saved.conf"
expect "ctl --ctl $tmp/ctl save $tmp/sav" "$tmp/saved.conf"

[[ $fails -eq 0 ]] || exit 1
echo "completion: ok"
