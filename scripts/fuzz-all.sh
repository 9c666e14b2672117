#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# fuzz-all.sh - run every libFuzzer target in turn, one core, and tabulate
#
#   fuzz-all.sh [--merge] SECONDS [TARGET...]
#
# Runs scripts/fuzz.sh TARGET SECONDS for each target (all fuzz/fuzz_*.c by
# default), one after the other, then prints one row per target: seconds
# run, executions, executions per second, corpus entries at the end of the
# run (libFuzzer's "corp:"), coverage (edges "cov" and features "ft") and
# findings (new files in fuzz/artifacts/).  With --merge, new inputs are
# minimised into fuzz/corpus/TARGET/ (libFuzzer -merge=1: only inputs that
# add coverage are kept).  Exits 1 when any target found something, 2 on a
# usage or build error, else 0.  The environment of fuzz.sh applies
# (VOFF_FUZZ_BUILD, VOFF_FUZZ_ARGS); logs stay where fuzz.sh puts them.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
merge=0
if [[ ${1:-} == --merge ]]; then
	merge=1
	shift
fi
if [[ $# -lt 1 || ! $1 =~ ^[0-9]+$ ]]; then
	echo "usage: $0 [--merge] SECONDS [TARGET...]" >&2
	exit 2
fi
secs=$1
shift
if [[ $# -gt 0 ]]; then
	targets=("$@")
else
	targets=()
	for f in "$root"/fuzz/fuzz_*.c; do
		t=${f##*/fuzz_}
		targets+=("${t%.c}")
	done
fi
build=${VOFF_FUZZ_BUILD:-$root/build/fuzz}

rows=()
found=0
for t in "${targets[@]}"; do
	out=$("$root/scripts/fuzz.sh" "$t" "$secs" 2>&1)
	rc=$?
	printf '%s\n' "$out" >&2
	if [[ $rc -eq 2 ]]; then
		echo "fuzz-all.sh: $t: usage or build error" >&2
		exit 2
	fi
	log=$(sed -n 's/^fuzz.sh: log //p' <<<"$out")
	scratch=${log%.log}
	ran=$(sed -n 's/^fuzz.sh: ran \([0-9]*\)s.*/\1/p' <<<"$out")
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" |
		tail -1)
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
	ft=$(grep -Eo 'ft: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
	corp=$(grep -Eo 'corp: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
	findings=$(sed -n 's/.*, \([0-9]*\) findings$/\1/p' <<<"$out")
	[[ $rc -ne 0 && ${findings:-0} -eq 0 ]] && findings=1
	[[ ${findings:-0} -ne 0 ]] && found=1
	if [[ $merge -eq 1 && -d $scratch ]]; then
		before=$(find "$root/fuzz/corpus/$t" -type f | wc -l)
		"$build/fuzz/fuzz_$t" -merge=1 "$root/fuzz/corpus/$t" \
			"$scratch" >/dev/null 2>&1
		after=$(find "$root/fuzz/corpus/$t" -type f | wc -l)
		echo "fuzz-all.sh: $t: merged $((after - before)) entries" >&2
	fi
	rows+=("$(printf '%-10s %6s %12s %9s %7s %7s %7s %8s' "$t" \
		"${ran:-?}" "${execs:-?}" "${speed:-?}" "${corp:-?}" \
		"${cov:-?}" "${ft:-?}" "${findings:-?}")")
done

printf '%-10s %6s %12s %9s %7s %7s %7s %8s\n' target seconds execs \
	execs/s corpus cov ft findings
printf '%s\n' "${rows[@]}"
exit $found
