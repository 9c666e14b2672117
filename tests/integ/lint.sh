#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# lint.sh - static checks as a test: shellcheck over every shell script
# (the benchmarks' too), cppcheck over the library and the command
# (warnings, style, portability and performance classes; each suppression
# below says why), and no tracked file pointing at documents outside the
# repository.  The tool checks are skipped when their tool is not
# installed.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
rc=0

# Code, comments and docs point only at the project's own docs/ (the kernel
# model, peers, baselines and style are there): users of the library have
# nothing else.  The pattern is spelled so that it does not match itself.
outside='\.\./shared|shared/(docs|seeds)|(MODEL|PEERS|BASELINES|STYLE)\.md|MODEL[ ]§'
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	hits=$(git grep -n -I -E "$outside" -- .)
else
	hits=$(grep -rnIE --exclude-dir=.git --exclude-dir=build "$outside" .)
fi
if [[ -n $hits ]]; then
	echo "lint: files point outside the repository; use docs/ instead:"
	echo "$hits"
	rc=1
fi

if command -v shellcheck >/dev/null; then
	mapfile -t scripts < <(ls scripts/*.sh tests/integ/*.sh tests/vectors/*.sh .ci/run \
		completion/*.bash)
	shellcheck "${scripts[@]}" || rc=1
	# The benchmarks source the test libraries by computed paths: -x
	# follows them from here, the top of the tree.
	shellcheck -x bench/*.sh || rc=1
fi

if command -v cppcheck >/dev/null; then
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

[[ $rc -eq 0 ]] && echo "lint: clean"
exit $rc
