#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# vxlan.sh - the overlay benchmark of issue #16: TCP between ns A and ns B
# across two "hosts" (namespaces joined by veths to an underlay bridge, as
# tests/integ/lib_vxlan.sh draws them), both ways, in the same run through
#
#   voff:    ns A -TAP- voff switch, vxlan:42,gro=on (host 1) - underlay -
#            (host 2) voff switch, vxlan:42,gro=on -TAP- ns B
#   kernel:  ns A -veth- br0 + vxlan0 (host 1) - underlay -
#            (host 2) vxlan0 + br0 -veth- ns B
#   single:  voff with udp_offload=off: no UDP_SEGMENT, no UDP_GRO, one
#            datagram per system call on the VXLAN sockets
#   base:    with BASE= set, the voff scenario with that binary on both
#            hosts (an older build, for a before/after in the same run)
#
# inner MTU 1450 everywhere.  REPS rounds, each running every scenario
# once (interleaved, so a load that comes and goes hits them alike).  For
# the voff scenarios it also reads the VXLAN ports' socket counters
# (udp_tx_calls, udp_rx_calls of `voff ctl stats`) of both switches around
# each run: send calls (sendmmsg()) and receive calls (recvmsg(), one per
# train, or recvmmsg()) per MB that iperf3 moved (the TAP's reads and
# writes are not counted).  With STRACE=1 it also runs
# `strace -c -f` on host 1's switch during the A -> B runs, as a
# cross-check of the counters (strace slows the switch: its runs are not
# the throughput figures' runs).
#
# Prints medians and the ratios: voff/kernel each way, trains/single each
# way, system calls per MB single/trains; writes the medians as TSV
# (vxlan.tsv) and PNG plots (gnuplot; skipped cleanly without it).
# For every scenario, kernel overlay included, it also reads /proc/stat
# around each run: "machine busy %" is the whole machine's CPU time spent
# in user, nice, system, irq, softirq and steal over the run (100 % = every
# CPU busy), and "CPUs per Gbit/s" that busy share in CPUs over the run's
# Gbit/s; the throughput plot shows each median with the runs' min..max.
#
# Needs root, iperf3, ethtool, python3 and the vxlan module.
# VOFF=path of voff (required); REPS (default 3); SECS per iperf3 run
# (default 10); CC, the congestion control (default cubic, as e2e.sh);
# OUT, where the TSV and plots go (default docs/img; OUT= for none);
# BASE, a second voff binary to run as the "base" scenario; ONLY, a bash
# regular expression of scenarios to run (voff|kernel|single|base);
# SHORT=1: REPS=1, SECS=2, about a minute in all.  Progress goes to
# stderr.  Removes everything it created, also on Ctrl-C.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
: "${VOFF:?set VOFF to the voff binary}"
if [ "${SHORT:-0}" = 1 ]; then
	reps=${REPS:-1} secs=${SECS:-2}
else
	reps=${REPS:-3} secs=${SECS:-10}
fi
cc=${CC:-cubic}
only=${ONLY:-.}
outdir=${OUT-$root/docs/img}
strace_on=${STRACE:-0}
base_bin=${BASE:-}
voff_bin=$VOFF

tag=vb
# shellcheck source=tests/integ/lib_vxlan.sh
. "$root/tests/integ/lib_vxlan.sh"
# shellcheck source=bench/lib_plot.sh
. "$root/bench/lib_plot.sh"
[ "$(id -u)" -eq 0 ] || { echo "vxlan: needs root" >&2; exit 1; }
vx_require iperf3 ethtool >&2 || exit 1
[ "$strace_on" = 1 ] && ! command -v strace >/dev/null &&
	{ echo "vxlan: STRACE=1 needs strace" >&2; exit 1; }

ctl2=$LIB_TMP/voff2.ctl
raw=$LIB_TMP/raw.tsv
pids=()

say() { echo "vxlan: $*" >&2; }

# cpu_stat - "busy total" jiffies of all CPUs from /proc/stat's cpu line:
# busy = user + nice + system + irq + softirq + steal, total = busy + idle
# + iowait (guest time is already inside user)
cpu_stat() {
	awk '$1 == "cpu" { b = $2 + $3 + $4 + $7 + $8 + $9
		print b, b + $5 + $6; exit }' /proc/stat
}

# setup SCENARIO - the two hosts afresh; $pids: the switches, if any
setup() {
	ns_reset
	rm -f "$ctl" "$ctl2"
	pids=()
	vx_underlay 2
	case $1 in
	kernel)
		vx_kernel_host 1 192.168.77.2
		vx_kernel_host 2 192.168.77.1
		;;
	voff | single | base)
		vx_opts=
		[ "$1" = single ] && vx_opts=,udp_offload=off
		voff=$voff_bin
		[ "$1" = base ] && voff=$base_bin
		vx_voff_host 1 "$ctl" 192.168.77.2 >&2
		vx_voff_host 2 "$ctl2" 192.168.77.1 >&2
		pids=("$swpid" "${lib_pids[-1]}")
		;;
	esac
	# ARP, and the MACs learned on both hosts, before timing anything.
	nsping "$A" 10.77.0.2 5 && nsping "$B" 10.77.0.1 3
}

# ticks - CPU ticks (user + system) of the switches, summed
ticks() {
	local p sum=0
	for p in "${pids[@]}"; do
		sum=$((sum + $(awk '{ print $14 + $15 }' "/proc/$p/stat")))
	done
	echo "$sum"
}

# calls KEY - a VXLAN socket counter summed over both switches
calls() {
	echo $(($(vx_stat "$ctl" vxlan42 "$1") + $(vx_stat "$ctl2" vxlan42 "$1")))
}

# strace_c - host 1's switch under strace -c -f while iperf3 runs A -> B
# once more; prints "sendmmsg receive-calls bytes" (receive calls:
# recvmsg() and recvmmsg() together)
strace_c() {
	local st=$LIB_TMP/strace.txt out=$LIB_TMP/strace.json sp
	strace -c -f -qq -o "$st" -p "${pids[0]}" &
	sp=$!
	sleep 0.5
	IPERF_PORT=5299 iperf_run "$A" "$B" 10.77.0.2 "$secs" "$out" -C "$cc"
	kill -INT "$sp" 2>/dev/null
	wait "$sp" 2>/dev/null
	python3 - "$st" "$out" <<'PY'
import json, sys
n = {"sendmmsg": 0, "recvmsg": 0, "recvmmsg": 0}
for line in open(sys.argv[1]):
    f = line.split()
    if f and f[-1] in n:
        n[f[-1]] = int(f[3])
b = json.load(open(sys.argv[2]))["end"]["sum_received"]["bytes"]
print(n["sendmmsg"], n["recvmsg"] + n["recvmmsg"], b)
PY
}

# run SCENARIO DIR - one iperf3 run; appends a row to $raw: scenario, dir,
# Gbit/s, switches' CPU % (of one core, summed), send and receive calls
# per MB (both hosts), or "-" where they do not apply
run() {
	local s=$1 dir=$2 out=$LIB_TMP/iperf.json hz t0 t1 c0 c1
	local tx0=0 rx0=0 tx1=0 rx1=0 bytes bps cpu=- txmb=- rxmb=- arg=()
	local m0 m1 busy
	[ "$dir" = "B->A" ] && arg=(-R)
	hz=$(getconf CLK_TCK)
	if [ ${#pids[@]} -gt 0 ]; then
		tx0=$(calls udp_tx_calls) rx0=$(calls udp_rx_calls)
		c0=$(ticks)
	fi
	m0=$(cpu_stat)
	t0=$(date +%s.%N)
	if ! IPERF_PORT=5299 iperf_run "$A" "$B" 10.77.0.2 "$secs" "$out" \
		-C "$cc" "${arg[@]}"; then
		say "$s $dir: iperf3 failed, run left out"
		return 0
	fi
	t1=$(date +%s.%N)
	m1=$(cpu_stat)
	busy=$(awk -v a="$m0" -v b="$m1" 'BEGIN { split(a, x); split(b, y)
		printf "%.1f", (y[1] - x[1]) * 100 / (y[2] - x[2]) }')
	bps=$(iperf_bps "$out")
	bytes=$(python3 -c 'import json,sys
print(json.load(open(sys.argv[1]))["end"]["sum_received"]["bytes"])' "$out")
	if [ ${#pids[@]} -gt 0 ]; then
		c1=$(ticks)
		tx1=$(calls udp_tx_calls) rx1=$(calls udp_rx_calls)
		read -r cpu txmb rxmb < <(python3 -c '
import sys
c0, c1, hz, t0, t1, tx, rx, b = map(float, sys.argv[1:])
mb = b / 1e6
print("%.0f %.1f %.1f" % ((c1 - c0) / hz / (t1 - t0) * 100, tx / mb, rx / mb))
' "$c0" "$c1" "$hz" "$t0" "$t1" $((tx1 - tx0)) $((rx1 - rx0)) "$bytes")
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$s" "$dir" \
		"$(python3 -c "print('%.3f' % ($bps / 1e9))")" "$cpu" "$txmb" \
		"$rxmb" "$busy" >> "$raw"
	say "$s $dir: $((bps / 1000000)) Mbit/s, switches ${cpu}% CPU," \
		"send calls/MB $txmb, receive calls/MB $rxmb"
	say "$s $dir: machine busy ${busy}%"
}

scenarios=(voff kernel single)
[ -n "$base_bin" ] && scenarios+=(base)
: > "$raw"
: > "$LIB_TMP/strace.tsv"
for rep in $(seq "$reps"); do
	say "round $rep of $reps (${secs}s per run)"
	for s in "${scenarios[@]}"; do
		[[ $s =~ $only ]] || continue
		if ! setup "$s"; then
			say "$s: no ping across the overlay, scenario left out"
			continue
		fi
		run "$s" "A->B"
		run "$s" "B->A"
		if [ "$strace_on" = 1 ] && [ ${#pids[@]} -gt 0 ]; then
			printf '%s\t%s\n' "$s" "$(strace_c)" \
				>> "$LIB_TMP/strace.tsv"
		fi
	done
done
ns_reset

tsv=
if [ -n "$outdir" ]; then
	mkdir -p "$outdir"
	tsv=$outdir/vxlan.tsv
fi
python3 - "$raw" "${tsv:-}" "$cc" "$secs" "$LIB_TMP/strace.tsv" \
	"$(nproc)" <<'PY'
import statistics, sys
raw, tsv, cc, secs, stf, ncpu = sys.argv[1:]
names = {"voff": "voff overlay (trains)",
         "kernel": "kernel overlay (vxlan + bridge)",
         "single": "voff, one datagram per call",
         "base": "voff overlay, BASE binary (trains)"}
runs = {}
for line in open(raw):
    s, d, g, cpu, tx, rx, busy = line.rstrip("\n").split("\t")
    runs.setdefault((s, d), []).append((g, cpu, tx, rx, busy))

def med(s, d, i):
    v = [float(r[i]) for r in runs.get((s, d), []) if r[i] != "-"]
    return statistics.median(v) if v else None

def fmt(v, f="%.2f"):
    return "-" if v is None else f % v

def span(s, d):
    v = [float(r[0]) for r in runs[(s, d)]]
    return min(v), max(v)

def per_gbit(s, d):
    g, b = med(s, d, 0), med(s, d, 4)
    return None if not g or b is None else b / 100 * int(ncpu) / g

print("\nVXLAN overlay, TCP ns A <-> ns B, inner MTU 1450, "
      "CC %s, %s s per run; medians" % (cc, secs))
print("\n| Path | Dir | runs | Gbit/s | switches CPU % | send calls/MB"
      " | receive calls/MB |\n|---|---|---|---|---|---|---|")
rows = []
for s in ("voff", "kernel", "single", "base"):
    for d in ("A->B", "B->A"):
        if (s, d) not in runs:
            continue
        r = [med(s, d, i) for i in range(4)]
        rows.append((names[s], d, len(runs[(s, d)]), r,
                     span(s, d) + (med(s, d, 4), per_gbit(s, d))))
        print("| %s | %s | %d | %s | %s | %s | %s |" % (
            names[s], d, len(runs[(s, d)]), fmt(r[0]), fmt(r[1], "%.0f"),
            fmt(r[2], "%.1f"), fmt(r[3], "%.1f")))

print("\nThe whole machine's CPU (%s CPUs; /proc/stat over each run, 100 %% "
      "= all busy); medians\n" % ncpu)
print("| Path | Dir | Gbit/s (min..max) | machine busy % | CPUs per Gbit/s |")
print("|---|---|---|---|---|")
for s in ("voff", "kernel", "single", "base"):
    for d in ("A->B", "B->A"):
        if (s, d) in runs:
            lo, hi = span(s, d)
            print("| %s | %s | %.2f (%.2f..%.2f) | %s | %s |" % (
                names[s], d, med(s, d, 0), lo, hi,
                fmt(med(s, d, 4), "%.0f"), fmt(per_gbit(s, d), "%.3f")))

def ratio(a, b):
    return "-" if a is None or b is None or b == 0 else "%.2fx" % (a / b)

print()
for d in ("A->B", "B->A"):
    print("voff / kernel %s: %s (target 0.7x or more)"
          % (d, ratio(med("voff", d, 0), med("kernel", d, 0))))
for d in ("A->B", "B->A"):
    print("trains / one per call %s: %s (target 3x or more)"
          % (d, ratio(med("voff", d, 0), med("single", d, 0))))
for d in ("A->B", "B->A"):
    if ("base", d) in runs:
        print("voff / BASE %s: %s; BASE / kernel: %s"
              % (d, ratio(med("voff", d, 0), med("base", d, 0)),
                 ratio(med("base", d, 0), med("kernel", d, 0))))
def calls(s):
    v = [med(s, d, i) for d in ("A->B", "B->A") for i in (2, 3)]
    return None if None in v else sum(v)
print("system calls per MB, one per call / trains: %s "
      "(send + receive calls; target 10x or more)"
      % ratio(calls("single"), calls("voff")))
try:
    st = [l.rstrip("\n").split("\t") for l in open(stf)]
except OSError:
    st = []
for s, v in st:
    snd, rcv, b = map(int, v.split())
    print("strace -c, host 1, %s A->B: sendmmsg %.1f/MB, "
          "recvmsg + recvmmsg %.1f/MB"
          % (names[s], snd / (b / 1e6), rcv / (b / 1e6)))
if tsv:
    with open(tsv, "w") as f:
        f.write("path\tdir\truns\tgbps\tcpu\tsendmmsg_per_mb"
                "\trecv_calls_per_mb")
        f.write("\tgbps_min\tgbps_max\tmachine_busy\tcpus_per_gbps\n")
        for n, d, k, r, m in rows:
            f.write("%s %s\t%s\t%d\t%s\t%s\t%s\t%s" % (
                n, d, d, k, fmt(r[0], "%.3f"), fmt(r[1], "%.0f"),
                fmt(r[2], "%.2f"), fmt(r[3], "%.2f")))
            f.write("\t%.3f\t%.3f\t%s\t%s\n" % (
                m[0], m[1], fmt(m[2], "%.1f"), fmt(m[3], "%.3f")))
    print("\nwrote " + tsv)
PY

[ -n "$tsv" ] || exit 0
if ! command -v gnuplot >/dev/null; then
	say "no plots (no gnuplot)"
	exit 0
fi
# plot FILE TITLE YLABEL COLUMN COLOUR [FILTER]: one bar per row of the TSV;
# with ERRBARS set to "MIN:MAX" (columns), bars from min to max as well
plot() {
	local data=$LIB_TMP/plot.tsv using=$4 style='' dx=0
	head -1 "$tsv" > "$data"
	tail -n +2 "$tsv" | awk -F'\t' -v c="$4" '$c != "-"' >> "$data"
	[ "$(wc -l < "$data")" -gt 1 ] || return 0
	if [ -n "${ERRBARS:-}" ]; then
		using=$4:$ERRBARS
		style="set style histogram errorbars gap 1 lw 1" dx=0.8
	fi
	gnuplot <<EOF
$(plot_head "$outdir/$1" "$2" "$3")
$style
set style fill solid 0.6 border -1
set boxwidth 0.8
set yrange [0:*]
set grid ytics
set xtics rotate by -30 left noenhanced
set bmargin 10
set key autotitle columnhead
set key off
plot "$data" using $using:xtic(1) lc rgb "$5", \\
	"" using 0:$4:(sprintf("%.2f", \$$4)) with labels offset $dx,0.6 font ",9"
EOF
}
ERRBARS=8:9 plot vxlan-throughput.png \
	"VXLAN overlay: TCP ns A <-> ns B (median)" \
	"Gbit/s (median; bars: min..max)" 4 "#3a7bd5" &&
	plot vxlan-syscalls.png "VXLAN sockets: sendmmsg() per MB moved" \
		"calls per MB (host 1 + host 2)" 6 "#d5793a" &&
	plot vxlan-recvcalls.png "VXLAN sockets: receive calls per MB moved" \
		"calls per MB (host 1 + host 2)" 7 "#4a9a4a" &&
	say "wrote $outdir/vxlan-throughput.png vxlan-syscalls.png" \
		"vxlan-recvcalls.png"
