#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# test.sh - the whole test suite: builds and runs CTest twice, in the plain
# gcc build (preset "default") and under ASan+UBSan (preset "dev").  Unit
# tests, fuzz-corpus replays and integration tests (these need root and
# network namespaces; they skip otherwise) run in both.  Warnings are errors
# when CI is set.  Exits non-zero when any build or test fails.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
scripts/bootstrap.sh || exit 1

export VOFF_WERROR=${VOFF_WERROR:-$([[ -n "${CI:-}" ]] && echo ON || echo OFF)}
jobs=$(nproc 2>/dev/null || echo 2)
rc=0
for preset in default dev; do
	echo "==== build and test: preset $preset"
	if ! cmake --preset "$preset" >/dev/null ||
	   ! cmake --build --preset "$preset" -j "$jobs"; then
		echo "==== $preset: build FAILED"
		rc=1
		continue
	fi
	ctest --preset "$preset" -j "$jobs" || rc=1
done
exit $rc
