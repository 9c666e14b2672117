#!/bin/bash
# SPDX-License-Identifier: MIT
#
# man.sh - the manual pages under man/ must format without a single groff
# or man warning (man --warnings), as passt checks its page.  Skips (77)
# when man(1) is not installed.

set -u

command -v man >/dev/null 2>&1 || { echo "skip: man(1) not installed"; exit 77; }

dir="$(cd "$(dirname "$0")/../../man" && pwd)"
fail=0
n=0
for page in "$dir"/*.[1-9]; do
	[ -e "$page" ] || continue
	n=$((n + 1))
	# Warnings go to standard error; the formatted page is discarded.
	if ! warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null); then
		echo "FAIL: $page: man exited with an error"
		fail=1
	fi
	if [ -n "$warn" ]; then
		echo "FAIL: $page has warnings:"
		echo "$warn"
		fail=1
	else
		echo "ok: $(basename "$page")"
	fi
done
if [ "$n" -eq 0 ]; then
	echo "FAIL: no manual pages in $dir"
	exit 1
fi
exit $fail
