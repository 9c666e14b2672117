#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# e2e-summary.py - the report of bench/e2e.sh from its raw runs: medians as
# a Markdown table with each throughput's ratio to the kernel bridge, the
# issue's three targets met or not, and (when TSV is not "") the medians
# with min and max as TSV for bench/e2e-plot.sh.
#
#   e2e-summary.py RAW TSV CC SECS
#
# RAW has one line per run: scenario name, a tab, then "Gbit/s switch-CPU-%
# rx-us/KB" separated by spaces.  The names it knows for the targets are
# the ones bench/e2e.sh uses; with the kernel's veth GRO pair it also
# prints that pair's ratios beside voff's.  With runs of e2e.sh's BASE
# scenarios ("voff BASE, ..."), the table gets a column "main / BASE":
# each voff scenario's Gbit/s over its BASE twin's ("-" elsewhere).
import statistics
import sys

raw, tsv, cc, secs = sys.argv[1:]
runs = {}
for line in open(raw):
    name, vals = line.rstrip("\n").split("\t")
    runs.setdefault(name, []).append([float(v) for v in vals.split()])
med = {n: [statistics.median(c) for c in zip(*r)] for n, r in runs.items()}
br = med.get("kernel bridge (veth)", [0])[0]
BASE = "voff BASE, "
has_base = any(n.startswith(BASE) for n in med)
print(f"One TCP stream ({cc}), {secs} s a run; medians.")
print()
if has_base:
    print("| scenario | Gbit/s | x bridge | main / BASE | switch CPU % "
          "| rx us/KB | runs |")
    print("|---|---:|---:|---:|---:|---:|---:|")
else:
    print("| scenario | Gbit/s | x bridge | switch CPU % | rx us/KB | runs |")
    print("|---|---:|---:|---:|---:|---:|")
for n, m in med.items():
    ratio = f"{m[0] / br:.2f}" if br else "-"
    cell = ""
    if has_base:
        twin = BASE + n[len("voff, "):] if n.startswith("voff, ") else None
        b = med.get(twin, [0])[0] if twin else 0
        cell = f" {m[0] / b:.2f} |" if b else " - |"
    print(f"| {n} | {m[0]:.2f} | {ratio} |{cell} {m[1]:.0f} | {m[2]:.3f} "
          f"| {len(runs[n])} |")
if tsv:
    with open(tsv, "w") as f:
        f.write("scenario\truns\tgbps\tgbps_min\tgbps_max\tcpu\t"
                "cpu_min\tcpu_max\tsd\tsd_min\tsd_max\n")
        for n, r in runs.items():
            cols = []
            for i in range(3):
                c = [x[i] for x in r]
                cols += [statistics.median(c), min(c), max(c)]
            f.write(n + "\t" + str(len(r)) + "\t" +
                    "\t".join(f"{v:.4g}" for v in cols) + "\n")


def ratio(num, i, den, j):
    """med[num][i] / med[den][j]; NaN when either is missing or zero."""
    if num not in med or den not in med or not med[den][j]:
        return float("nan")
    return med[num][i] / med[den][j]


print()
print("| target | measured | goal | met |")
print("|---|---:|---:|---|")
ON, OFF = "voff, offloads on", "voff, offloads off (MTU)"
BR = "kernel bridge (veth)"
GOFF, GON = "voff, MTU ingress, GRO off", "voff, MTU ingress, GRO on"
for what, val, goal in (
        ("offloads on / offloads off, Gbit/s", ratio(ON, 0, OFF, 0), 8),
        ("offloads on / kernel bridge, Gbit/s", ratio(ON, 0, BR, 0), 0.9),
        ("rx us/KB, GRO off / GRO on", ratio(GOFF, 2, GON, 2), 3)):
    print(f"| {what} | {val:.2f}x | >= {goal}x | "
          f"{'yes' if val >= goal else 'no'} |")
KOFF, KON = "veth, MTU sender, GRO off", "veth, MTU sender, GRO on"
if KOFF in med and KON in med:
    print()
    print("The kernel's own GRO, same measure (veth, MTU sender, the "
          "receiver's GRO off / on):")
    print(f"rx us/KB {ratio(KOFF, 2, KON, 2):.2f}x, "
          f"Gbit/s {ratio(KON, 0, KOFF, 0):.2f}x; "
          f"voff's: rx us/KB {ratio(GOFF, 2, GON, 2):.2f}x, "
          f"Gbit/s {ratio(GON, 0, GOFF, 0):.2f}x")
