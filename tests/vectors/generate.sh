#!/bin/bash
# SPDX-License-Identifier: MIT
#
# generate.sh - regenerate the golden GSO and GRO vectors of tests/vectors/
# with the running kernel as the oracle (docs/vectors.md)
#
#   gen_vectors t_gso   as root: its own network namespaces, a veth that
#                       segments in software (tests/lib/gso_oracle.h)
#   gen_vectors t_gro   in the namespace of tests/integ/lib_gro_ns.sh:
#                       veth va -> vb with GRO, threaded NAPI pinned
#                       (tests/lib/gro_oracle.h)
#
# Usage (root): [VOFF_BUILD=build/default] tests/vectors/generate.sh
# Everything is generated into a temporary directory first, and every
# case is replayed through voff there; only when all of them were made
# does it replace tests/vectors/gso and tests/vectors/gro.  Review the
# change with git diff (case.json shows every field) before committing it.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${VOFF_BUILD:-$root/build/default}/tests/gen_vectors
die() { echo "generate.sh: $*" >&2; exit 1; }

[ -x "$bin" ] ||
	die "$bin missing: build first (cmake --build --preset default)"
[ "$(id -u)" -eq 0 ] || die "needs root (network namespaces)"
tmp=$(mktemp -d /tmp/voff-vectors.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

VOFF_VECTORS_OUT=$tmp "$bin" t_gso || die "the GSO cases failed"
(
	# shellcheck source=tests/integ/lib_gro_ns.sh
	. "$here/../integ/lib_gro_ns.sh"
	gro_ns_setup
	VOFF_VECTORS_OUT=$tmp gro_ns_run "$bin" t_gro
) || die "the GRO cases failed (or the GRO oracle cannot run here)"

rm -rf "$here/gso" "$here/gro" || die "cannot remove the old vectors"
mv "$tmp/gso" "$tmp/gro" "$here/" ||
	die "cannot move the new vectors into $here"
n=$(find "$here/gso" "$here/gro" -name case.json | wc -l)
bytes=$(find "$here/gso" "$here/gro" -type f -printf '%s\n' |
	awk '{ s += $1 } END { print s }')
echo "generate.sh: $n cases, $bytes bytes in $here/gso and $here/gro"
