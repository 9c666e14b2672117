#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bootstrap.sh - install the Debian packages voff needs, only those missing.
#
# Idempotent and quiet: prints one line per package it installs and nothing
# when everything is there.  Needs root to install (it says so otherwise).
# linux-source-6.12 is the kernel's GRO selftest, built at test time by
# tests/integ/gro_selftest.sh (its GPL code stays out of this repository).
#   scripts/bootstrap.sh          build and test dependencies
#   scripts/bootstrap.sh --bench  also DPDK (libdpdk-dev), for bench/ ratios,
#                                 and gnuplot for the plots of bench/e2e.sh
set -euo pipefail

pkgs=(cmake ninja-build gcc make pkg-config libpcap-dev libmnl-dev
      libjson-c-dev clang libclang-rt-14-dev iproute2 ethtool man-db
      shellcheck cppcheck libcap-dev libseccomp-dev
      python3 kmod iperf3 liburing-dev dpkg-dev debhelper lintian
      systemd python3-prometheus-client linux-source-6.12)
if [[ "${1:-}" == "--bench" ]]; then
	pkgs+=(libdpdk-dev linux-perf valgrind gnuplot-nox)
fi

missing=()
for p in "${pkgs[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[[ "$status" == "install ok installed" ]] || missing+=("$p")
done
# A python3 elsewhere on PATH (pyenv, say) serves the tests as well.
if command -v python3 >/dev/null 2>&1; then
	kept=()
	for p in "${missing[@]}"; do [[ "$p" == python3 ]] || kept+=("$p"); done
	missing=("${kept[@]+"${kept[@]}"}")
fi
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -ne 0 ]]; then
	echo "bootstrap: missing packages: ${missing[*]}" \
		"(run as root to install)" >&2
	exit 1
fi
echo "bootstrap: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" \
	>/tmp/voff-bootstrap.log 2>&1; then
	apt-get update -qq >>/tmp/voff-bootstrap.log 2>&1
	apt-get install -y -qq --no-install-recommends "${missing[@]}" \
		>>/tmp/voff-bootstrap.log 2>&1 || {
		echo "bootstrap: apt-get failed," \
			"see /tmp/voff-bootstrap.log" >&2
		exit 1
	}
fi
