#!/bin/bash
# SPDX-License-Identifier: MIT
#
# systemd.sh - the unit systemd/voff@.service: `systemd-analyze verify`
# finds nothing wrong in it (with the voff under test as its command and
# voff(1) as its documentation); every option its commands give exists;
# the example configuration reads; its CapabilityBoundingSet is exactly
# what a running switch with a namespaced port keeps (CapBnd in
# /proc/PID/status); and a switch confined as the unit confines it
# (those capabilities only, no new privileges) starts from a
# configuration with TAP ports in namespaces, reloads one more in, and
# answers.  Skips (77) without systemd-analyze, or where it cannot run;
# the parts that need root and namespaces skip alone.
set -u
: "${VOFF:?}"
root=$(cd "$(dirname "$0")/../.." && pwd)
unit=$root/systemd/voff@.service
command -v systemd-analyze >/dev/null ||
	{ echo "skip: no systemd-analyze (package systemd)"; exit 77; }
tag=sd
# shellcheck source=tests/integ/lib_ns.sh
. "$(dirname "$0")/lib_ns.sh"
tmp=$LIB_TMP
voff=$(readlink -f "$VOFF")

# ---- systemd-analyze verify -------------------------------------------
# The unit as installed, but running the voff under test: verify checks
# that every command exists and that its man page opens.
mkdir -p "$tmp/unit" "$tmp/man/man1"
sed "s|/usr/bin/voff|$voff|g" "$unit" >"$tmp/unit/voff@.service"
ln -s "$root/man/voff.1" "$tmp/man/man1/voff.1"
MANPATH=$tmp/man SYSTEMD_LOG_COLOR=0 systemd-analyze verify \
	"$tmp/unit/voff@.service" >"$tmp/verify" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && [ ! -s "$tmp/verify" ]; then
	ok "systemd-analyze verify: clean"
elif grep -q "voff@" "$tmp/verify"; then
	bad "systemd-analyze verify: $(cat "$tmp/verify")"
else
	echo "skip: systemd-analyze cannot run here: $(head -3 "$tmp/verify")"
	exit 77
fi

# Every option of ExecStart= and ExecReload= is one voff switch takes.
"$voff" switch --help >"$tmp/help"
grep -E '^Exec(Start|Reload)=/usr/bin/voff' "$unit" |
	grep -oE -- '--[a-z-]+' | sort -u >"$tmp/opts"
while read -r o; do
	if grep -qE -- "^${o} |\\[${o}[] ]| ${o} " "$tmp/help"; then
		ok "voff switch takes $o"
	else bad "the unit uses $o, which voff switch --help lacks"; fi
done <"$tmp/opts"
if "$voff" switch --check --config "$root/etc/voff/example.conf"; then
	ok "the example configuration reads"
else bad "example.conf"; fi

# ---- capabilities: the unit's are what the switch keeps -------------------
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$unit")
# Linux capability numbers (linux/capability.h) of the names the unit uses.
declare -A capnr=([CAP_NET_ADMIN]=12 [CAP_NET_RAW]=13 [CAP_SYS_ADMIN]=21)
mask=0
for c in $caps; do
	[ -n "${capnr[$c]:-}" ] || { bad "unknown capability $c in the unit"; continue; }
	mask=$((mask | (1 << capnr[$c])))
done
if [ "$(id -u)" -ne 0 ] || ! ip netns add "voff-sd-probe-$$" 2>/dev/null; then
	echo "skip: not root or no netns: the unit's capabilities not run"
	[ "$fails" -eq 0 ]
	exit
fi
ip netns del "voff-sd-probe-$$"
command -v setpriv >/dev/null || { echo "skip: no setpriv"; [ "$fails" -eq 0 ]; exit; }
A=$(ns_add a) B=$(ns_add b) C=$(ns_add c)
printf 'ports add tap:sda@%s\nports add tap:sdb@%s\n' "$A" "$B" >"$tmp/x.conf"
sw_start --config "$tmp/x.conf"
bnd=$(awk '/^CapBnd:/ { print $2 }' "/proc/$swpid/status")
if [ "$((16#$bnd))" -eq "$mask" ]; then
	ok "CapabilityBoundingSet=$caps is what the switch keeps ($bnd)"
else bad "unit $(printf '%x' "$mask"), switch keeps $bnd"; fi
sw_stop

# Confined as the unit: only those capabilities, no new privileges.
bset=-all
for c in $caps; do c=${c#CAP_}; bset=$bset,+${c,,}; done
"$voff" switch --check --config "$tmp/x.conf" || bad "check"
setpriv --bounding-set "$bset" --no-new-privs -- \
	"$voff" switch --config "$tmp/x.conf" --ctl "$ctl" \
	2>"$tmp/switch.err" &
swpid=$!
wait_until 100 sw_up
if [ -S "$ctl" ] && vctl ports | grep -q " sdb "; then
	ok "confined as the unit: started with TAPs in namespaces"
else bad "confined start: $(cat "$tmp/switch.err")"; fi
printf 'ports add tap:sdc@%s\n' "$C" >>"$tmp/x.conf"
if vctl reload && ip -n "$C" link show sdc >/dev/null 2>&1; then
	ok "confined as the unit: a reload adds a TAP in a namespace"
else bad "confined reload: $(tail -3 "$tmp/switch.err")"; fi
if sw_stop; then ok "confined switch stopped cleanly"; else bad "exit status"; fi
[ "$fails" -eq 0 ]
