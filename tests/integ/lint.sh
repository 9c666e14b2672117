#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# lint.sh - static checks as a test: shellcheck over every shell script and
# cppcheck over the library and the command (warnings, style, portability
# and performance classes; each suppression below says why).  Skips (77)
# when neither tool is installed.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
ran=0
rc=0

if command -v shellcheck >/dev/null; then
	ran=1
	mapfile -t scripts < <(ls scripts/*.sh tests/integ/*.sh .ci/run completion/*.bash)
	shellcheck "${scripts[@]}" || rc=1
fi

if command -v cppcheck >/dev/null; then
	ran=1
	# missingIncludeSystem: system headers are not given to cppcheck.
	# unusedFunction: the public API is used by programs, not the library.
	# constParameterCallback: callbacks must match their table's type.
	cppcheck --quiet --error-exitcode=1 --std=c11 --inline-suppr \
		--enable=warning,style,performance,portability \
		--suppress=missingIncludeSystem --suppress=unusedFunction \
		--suppress=constParameterCallback \
		-D__GNUC__ -D__x86_64__ -I include -I src/lib \
		src/lib src/voff || rc=1
fi

[[ $ran -eq 1 ]] || exit 77
[[ $rc -eq 0 ]] && echo "lint: clean"
exit $rc
