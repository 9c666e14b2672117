#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# demo.sh - the main job: build voff (release) and show what it sees in the
# bundled sample capture, one line per frame, then the same as JSON.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
voff=build/release/voff
echo "== voff inspect tests/data/sample.pcap"
"$voff" inspect tests/data/sample.pcap
echo
echo "== voff inspect -j tests/data/sample.pcap (first 3 frames)"
"$voff" inspect -j tests/data/sample.pcap | sed -n 1,3p
