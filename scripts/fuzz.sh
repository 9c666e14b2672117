#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# fuzz.sh - run one libFuzzer target for a while: fuzz.sh TARGET SECONDS
#
# Builds fuzz_TARGET in the "fuzz" preset's directory (clang, libFuzzer,
# ASan+UBSan; configured on first use, with the library instrumented for
# coverage too), then runs it on one core for SECONDS with
# fuzz/corpus/TARGET/ as seeds and fuzz/TARGET.dict when that exists.  New
# corpus entries go to a scratch directory (printed, with the command that
# merges a minimised set back); crashes, leaks and timeouts go to
# fuzz/artifacts/.  Prints the run's executions, speed and coverage.
# Exits 0 when the run found nothing, 1 on a finding, 2 on a usage or build
# error.
#
# Environment: VOFF_FUZZ_BUILD overrides the build directory (default
# build/fuzz, the preset's); VOFF_FUZZ_ARGS adds libFuzzer options.
set -uo pipefail

if [[ $# -ne 2 || ! $2 =~ ^[0-9]+$ ]]; then
	echo "usage: $0 TARGET SECONDS   (e.g. $0 parse 600)" >&2
	exit 2
fi
target=$1
secs=$2
root=$(cd "$(dirname "$0")/.." && pwd)
build=${VOFF_FUZZ_BUILD:-$root/build/fuzz}
corpus=$root/fuzz/corpus/$target
artifacts=$root/fuzz/artifacts
dict=$root/fuzz/$target.dict

if [[ ! -f $root/fuzz/fuzz_$target.c ]]; then
	echo "fuzz.sh: no target fuzz/fuzz_$target.c" >&2
	exit 2
fi
if [[ ! -f $build/build.ninja ]]; then
	if [[ -z ${VOFF_FUZZ_BUILD:-} ]]; then
		(cd "$root" && cmake --preset fuzz >/dev/null) || exit 2
	else
		cmake -S "$root" -B "$build" -G Ninja \
			-DCMAKE_C_COMPILER=clang -DVOFF_FUZZ=ON \
			-DVOFF_SANITIZE=ON -DVOFF_BENCH=OFF \
			-DCMAKE_BUILD_TYPE=Debug >/dev/null || exit 2
	fi
fi
# The fuzz build instruments the library as well (CMakeLists.txt).
bin=$build/fuzz/fuzz_$target
if ! ninja -C "$build" -j2 "fuzz_$target" >/dev/null || [[ ! -x $bin ]]; then
	echo "fuzz.sh: build of fuzz_$target failed" >&2
	exit 2
fi

mkdir -p "$artifacts"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/voff-fuzz-$target.XXXXXX")
log=$scratch.log
# One process on one core (no -jobs: that moves the output to fuzz-N.log).
args=(-max_total_time="$secs" -timeout=10
	-print_final_stats=1 -artifact_prefix="$artifacts/$target-")
[[ -f $dict ]] && args+=(-dict="$dict")
# shellcheck disable=SC2206 # word splitting of extra options is wanted
[[ -n ${VOFF_FUZZ_ARGS:-} ]] && args+=($VOFF_FUZZ_ARGS)

before=$(find "$artifacts" -maxdepth 1 -name "$target-*" | wc -l)
touch "$scratch.stamp"
start=$(date +%s)
echo "fuzz.sh: fuzz_$target for ${secs}s, seeds $corpus, new entries $scratch"
ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
	"$bin" "${args[@]}" "$scratch" "$corpus" >"$log" 2>&1
rc=$?
end=$(date +%s)
after=$(find "$artifacts" -maxdepth 1 -name "$target-*" | wc -l)

# libFuzzer's closing lines: "#N DONE cov: C ft: F ..." and the stat:: ones.
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
cov=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
new=$(find "$scratch" -type f | wc -l)
echo "fuzz.sh: ran $((end - start))s, ${execs:-?} execs, ${speed:-?} execs/s," \
	"${cov:-cov: ?}, $new new corpus entries, $((after - before)) findings"
echo "fuzz.sh: log $log"
echo "fuzz.sh: merge a minimised set back with:"
echo "  $bin -merge=1 $corpus $scratch"
if [[ $rc -ne 0 || $after -ne $before ]]; then
	echo "fuzz.sh: FINDING (exit $rc); artifacts in $artifacts:" >&2
	find "$artifacts" -maxdepth 1 -name "$target-*" \
		-newer "$scratch.stamp" >&2
	grep -E "ERROR|runtime error|fuzz_$target:|SUMMARY" "$log" |
		head -20 >&2
	exit 1
fi
exit 0
