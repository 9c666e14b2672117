#!/bin/bash
# SPDX-License-Identifier: MIT
#
# soak_short.sh - the CI soak: scripts/soak.sh for 2 minutes, or 90 s in
# an ASan build (VOFF_BUILD's cache says VOFF_SANITIZE=ON), where leaks
# and memory errors in the fault paths show up.  The full runs (10 min
# release, 5 min ASan) are by hand; docs/reliability.md has their figures.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
minutes=2
if grep -q '^VOFF_SANITIZE:BOOL=ON' "${VOFF_BUILD:-/nonexistent}/CMakeCache.txt" \
	2>/dev/null; then
	minutes=1.5
fi
exec bash "$root/scripts/soak.sh" --minutes "$minutes" --seed 8
