#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# demo.sh - the main job (the README's first command): `voff switch`
# between two network namespaces, measured with iperf3 with offloads on and
# off, a limited egress with and without limit propagation, and GRO on and
# off on an MTU-sized ingress; prints a table (scripts/demo-switch.sh does
# the work).  Needs root; installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.." || exit 1
exec scripts/demo-switch.sh "$@"
