#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# features_json.sh - `voff features -j` has the shape of `ethtool --json
# -k`: the same array of one object per device, the same keys in the same
# order, the same values, null "fixed"/"requested" on the legacy group
# lines exactly where ethtool prints them.  The kernel's device is the
# oracle: voff is given its `ethtool -k` text and must print its
# `ethtool --json -k`.
#
#   netns voff-fjson-PID
#   +-----------------------------------+
#   |  va <==veth==> vb                 |
#   |  ethtool -k va     --> base.txt   |
#   |  ethtool --json -k va             |
#   |     ==  voff features -j -b base.txt
#   +-----------------------------------+
#
# Then the same after `ethtool -K va sg off gro on` (a requested feature
# that stays off), and with -L, whose "limits" object must hold the
# values of the text's limits line.  Skips (77) when not root, or when
# ip, ethtool (with --json) or python3 are missing (lib_ns.sh).
set -uo pipefail

tag=fjson
# shellcheck source=tests/integ/lib_ns.sh
. "$(dirname "$0")/lib_ns.sh"
ns_require ethtool python3
NS=$(ns_add a) || exit 1
TMP=$LIB_TMP
nsx() { ip netns exec "$NS" "$@"; }
nsx ip link add va type veth peer name vb || exit 1
nsx ethtool --json -k va >/dev/null 2>&1 ||
	{ echo "skip: ethtool has no --json"; exit 77; }

# same WHAT: ethtool's JSON and voff's, as Python objects, key order too.
same() {
	nsx ethtool -k va >"$TMP/base.txt" || exit 1
	nsx ethtool --json -k va >"$TMP/ethtool.json" || exit 1
	if ! "$voff" features -j -b "$TMP/base.txt" >"$TMP/voff.json"; then
		bad "$1: voff features failed"
		return
	fi
	if python3 - "$TMP/ethtool.json" "$TMP/voff.json" <<'PY'; then
import json, sys
a = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
if a != b or [list(o) for o in a] != [list(o) for o in b]:
    for k in list(a[0]):
        if a[0].get(k) != b[0].get(k):
            print(f"  {k}: ethtool {a[0].get(k)} voff {b[0].get(k)}")
    sys.exit(1)
PY
		ok "$1"
	else
		bad "$1: voff's JSON is not ethtool's"
	fi
}

same "a fresh veth"
nsx ethtool -K va sg off gro on >/dev/null 2>&1
same "after sg off gro on"

# -L: the limits object carries the limits line's values.
"$voff" features -L -b veth -l gso_max_size=30000 >"$TMP/lim.txt"
"$voff" features -L -j -b "$TMP/lim.txt" >"$TMP/lim.json"
if python3 - "$TMP/lim.txt" "$TMP/lim.json" <<'PY'; then
import json, sys
line = [l for l in open(sys.argv[1]) if l.startswith("limits:")][0].split()
want = {line[i]: int(line[i + 1]) for i in range(1, len(line), 2)}
got = json.load(open(sys.argv[2]))
sys.exit(0 if len(got) == 1 and list(got[0])[-1] == "limits"
         and got[0]["limits"] == want and list(got[0]["limits"]) == list(want)
         else 1)
PY
	ok "-L -j limits object"
else
	bad "-L -j limits object"
fi

[[ $fails -eq 0 ]] && echo "features_json: all passed"
[[ $fails -eq 0 ]]
