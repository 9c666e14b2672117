#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# rtt-stages.sh - where one ping's round trip goes, stage by stage, through
# `voff switch` (two TAP ports) and through the kernel bridge, in one run
#
#   voff:   ns A va <-TAP-> voff switch <-TAP-> vb ns B
#   bridge: ns A va <-veth-> br0 (ns M) <-veth-> vb ns B
#
# Per scenario and round, in a fresh set-up: N ICMP echoes (bench/rr.c,
# ping's 56 bytes, INTERVAL microseconds apart) untraced, for the round
# trip as it is, with the switch's CPU time per round trip (its
# schedstat) and rr's (getrusage(); both include being woken from idle),
# then N more under `perf record -a` on tracepoints (about a microsecond
# per event traced, 16 a round trip through the bridge, 22 through voff):
#
#   syscalls: rr's sendto() and recvfrom(), the switch's ppoll() return;
#   net: net_dev_queue (a frame queued on a device: for a TAP, handed to
#        the switch), netif_rx / netif_receive_skb (a frame entering a
#        namespace's stack);
#   sched: sched_waking, sched_switch; power: cpu_idle (a vCPU leaving
#        its halt); io_uring: io_uring_complete (a TAP read completing);
#   the switch's every system call (raw_syscalls, filtered to its pid).
#
# Each round trip is cut at the points both paths share: rr's sendto(),
# the echo request queued on A's interface, the request entering ns B's
# stack, the reply queued on B's interface, the reply entering ns A's
# stack, rr's recvfrom() returning it.  voff's legs are cut further: the
# switch woken (on which CPU, idle or not), on its CPU, back from ppoll(),
# the frame's read completed; rr woken and running.  Medians and p90 of
# each stage in microseconds, for each scenario, over every round.
#
#   VOFF=build/rel/voff [BASE=...] [N=300] [INTERVAL=2000] [ROUNDS=1] \
#	[ARGS="--busy-poll 50"] [ONLY=regex] [KEEP=dir] bench/rtt-stages.sh
#
# BASE: a second voff binary as a scenario of its own (before/after in the
# same run); ARGS: more `voff switch` arguments for both binaries; ONLY:
# run only the scenarios whose name matches ("voff", "voff BASE",
# "bridge"); KEEP: a directory to keep each round's `perf script` text in.
# Needs root, perf (Debian's linux-perf; tracepoints readable: tracefs
# mounted), python3 and cc, and skips (77) without them.  The machine is
# shared: run it alone, and give the load it ran under.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
VOFF=${VOFF:-$root/build/release/voff}
export VOFF
count=${N:-300}
interval=${INTERVAL:-2000}
rounds=${ROUNDS:-1}
base=${BASE:-}
args=${ARGS:-}
only=${ONLY:-.}
keep=${KEEP:-}
tag=rs
# shellcheck source=tests/integ/lib_ns.sh
. "$root/tests/integ/lib_ns.sh"
# shellcheck source=bench/lib_topo.sh
. "$root/bench/lib_topo.sh"
ns_require perf python3 cc
cc -std=c11 -D_GNU_SOURCE -O2 -o "$LIB_TMP/rr" "$root/bench/rr.c" || exit 1
if ! perf record -q -a -e sched:sched_switch -e net:net_dev_queue \
	-e power:cpu_idle -o "$LIB_TMP/probe.data" true >/dev/null 2>&1; then
	echo "skip: perf cannot record tracepoints (root, tracefs," \
		"perf_event_paranoid?)"
	exit 77
fi
raw=$LIB_TMP/stages.tsv
: >"$raw"

# The events of every scenario; the switch's own are added per run.
events=(syscalls:sys_enter_sendto syscalls:sys_exit_sendto
	syscalls:sys_enter_recvfrom syscalls:sys_exit_recvfrom
	syscalls:sys_exit_ppoll net:net_dev_queue net:netif_rx
	net:netif_receive_skb sched:sched_waking sched:sched_switch
	power:cpu_idle)
# A build without liburing reads with read(): no io_uring events then.
perf list io_uring:io_uring_complete 2>/dev/null | grep -q io_uring_complete &&
	events+=(io_uring:io_uring_complete)

# sw_cpu_ns: the switch's CPU time so far in ns (0 without a switch)
sw_cpu_ns() {
	if [ -n "$swpid" ]; then
		awk '{ print $1 }' "/proc/$swpid/schedstat"
	else
		echo 0
	fi
}

# run NAME KIND ROUND: fresh namespaces, the untraced and the traced pings
run() {
	local name=$1 kind=$2 round=$3 a b m e rec out c0 c1
	a=$(ns_add "a$RANDOM") b=$(ns_add "b$RANDOM") m=$(ns_add "m$RANDOM")
	# shellcheck disable=SC2086 # ARGS is a word list
	case $kind in
	voff) setup_voff "$VOFF" "$a" "$b" $args ;;
	base) setup_voff "$base" "$a" "$b" $args ;;
	bridge) setup_bridge "$a" "$b" "$m" ;;
	esac
	nsping "$a" 10.86.0.2 >/dev/null ||
		echo "rtt-stages: $name: no answer to the first ping" >&2
	c0=$(sw_cpu_ns)
	out=$(ip netns exec "$a" "$LIB_TMP/rr" icmp 10.86.0.2 -n "$count" \
		-i "$interval")
	c1=$(sw_cpu_ns)
	# The switch's CPU time per round trip (warm-up echoes included).
	out="$out swcpu=$(((c1 - c0) / (count + 10) / 100))"
	echo "rtt-stages: $name round $round untraced: $out" >&2
	printf '%s\tuntraced\t%s\n' "$name" "$out" >>"$raw"
	rec=()
	for e in "${events[@]}"; do rec+=(-e "$e"); done
	if [ -n "$swpid" ]; then
		rec+=(-e raw_syscalls:sys_enter --filter "common_pid == $swpid"
		      -e syscalls:sys_exit_read --filter "common_pid == $swpid")
	fi
	perf record -q -a "${rec[@]}" -o "$LIB_TMP/perf.data" -- \
		ip netns exec "$a" "$LIB_TMP/rr" icmp 10.86.0.2 -n "$count" \
		-i "$interval" >"$LIB_TMP/rr.out" 2>"$LIB_TMP/perf.err" ||
		echo "rtt-stages: $name: perf record failed:" \
			"$(tail -2 "$LIB_TMP/perf.err")" >&2
	echo "rtt-stages: $name round $round traced: $(cat "$LIB_TMP/rr.out")" >&2
	perf script -i "$LIB_TMP/perf.data" --ns \
		-F tid,cpu,time,event,trace >"$LIB_TMP/script.txt" 2>/dev/null
	[ -n "$keep" ] && mkdir -p "$keep" &&
		cp "$LIB_TMP/script.txt" "$keep/$kind-$round.txt"
	python3 - "$name" "${swpid:-0}" "$LIB_TMP/script.txt" >>"$raw" <<'PY'
import re, sys

name, swpid = sys.argv[1], int(sys.argv[2])
line_re = re.compile(
    r"^\s*(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+([\w:]+):\s?(.*)$")
ev = []
for line in open(sys.argv[3]):
    m = line_re.match(line)
    if m:
        tid, cpu, t, name_, rest = m.groups()
        ev.append((float(t) * 1e6, int(tid), int(cpu), name_, rest))
ev.sort(key=lambda e: e[0])


def field(rest, key):
    m = re.search(r"\b" + key + r"=(\S+)", rest)
    return m.group(1) if m else None


# rr: the task that called sendto() towards the echo's length (64 bytes)
rr = next((e[1] for e in ev if e[3] == "syscalls:sys_enter_sendto"
           and "len: 0x00000040" in e[4]), None)
if rr is None:
    sys.exit(0)
starts = [i for i, e in enumerate(ev)
          if e[1] == rr and e[3] == "syscalls:sys_enter_sendto"]
starts = starts[10:]  # rr's warm-up echoes
cur = {}  # CPU -> task running, from sched_switch


def is_net(e, evname, dev):
    if e[3] not in evname or field(e[4], "dev") != dev:
        return False
    n = field(e[4], "len")
    return n is not None and int(n) >= 80  # the echo, not ARP


def rx(dev):
    return lambda e: is_net(e, ("net:netif_receive_skb", "net:netif_rx"),
                            dev)


def queued(dev):
    return lambda e: is_net(e, ("net:net_dev_queue",), dev)


def waking(pid):
    return lambda e: (e[3] == "sched:sched_waking"
                      and field(e[4], "pid") == str(pid))


def on_cpu(pid):
    return lambda e: (e[3] == "sched:sched_switch"
                      and field(e[4], "next_pid") == str(pid))


def read_done(e):
    # a TAP's multishot read (a buffer taken), or a plain read()
    if e[1] != swpid:
        return False
    if e[3] == "io_uring:io_uring_complete":
        m = re.search(r"result (-?\d+), cflags 0x([0-9a-f]+)", e[4])
        return m and int(m.group(1)) > 0 and int(m.group(2), 16) & 1
    return e[3] == "syscalls:sys_exit_read" and not e[4].startswith("0x-")


def first(lo, hi, pred):
    for i in range(lo, hi):
        if pred(ev[i]):
            return i
    return None


out = []
for k, s in enumerate(starts):
    end = starts[k + 1] if k + 1 < len(starts) else len(ev)
    t0 = ev[s][0]
    # The common cuts, in order.
    cuts = [("q_a", queued("va")), ("rx_b", rx("vb")), ("q_b", queued("vb")),
            ("rx_a", rx("va")),
            ("done", lambda e: e[1] == rr
             and e[3] == "syscalls:sys_exit_recvfrom"
             and not e[4].startswith("0x-")
             and int(e[4].split()[0], 16) > 0)]
    idx, at, ok = {}, s, True
    for cname, pred in cuts:
        i = first(at, end, pred)
        if i is None:
            ok = False
            break
        idx[cname] = at = i
    if not ok:
        continue
    t = {c: ev[i][0] - t0 for c, i in idx.items()}
    row = {"1 sendto -> request queued on A's interface": t["q_a"],
           "2 request queued on A -> in ns B's stack": t["rx_b"] - t["q_a"],
           "3 ns B: request in -> reply queued": t["q_b"] - t["rx_b"],
           "4 reply queued on B -> in ns A's stack": t["rx_a"] - t["q_b"],
           "5 reply in ns A -> rr's recvfrom() returns":
               t["done"] - t["rx_a"],
           "total (traced)": t["done"]}
    counts = {}
    if swpid:
        for leg, lo, hi in (("2", idx["q_a"], idx["rx_b"]),
                            ("4", idx["q_b"], idx["rx_a"])):
            w = first(lo, hi, waking(swpid))
            q = ev[lo][0]
            r = first(w if w is not None else lo, hi, read_done)
            if w is not None:
                tgt = int(field(ev[w][4], "target_cpu"))
                o = first(w, hi, on_cpu(swpid))
                idle = first(w, o if o is not None else hi,
                             lambda e, c=tgt: e[3] == "power:cpu_idle"
                             and field(e[4], "cpu_id") == str(c)
                             and field(e[4], "state") == "4294967295")
                row[f"{leg}.1 queued -> switch woken"] = ev[w][0] - q
                if idle is not None:
                    row[f"{leg}.2 woken -> its vCPU out of idle"] = \
                        ev[idle][0] - ev[w][0]
                if o is not None:
                    row[f"{leg}.3 woken -> switch on CPU"] = \
                        ev[o][0] - ev[w][0]
                    p = first(o, hi, lambda e: e[1] == swpid and
                              e[3] == "syscalls:sys_exit_ppoll")
                    if p is not None:
                        row[f"{leg}.4 on CPU -> back from ppoll()"] = \
                            ev[p][0] - ev[o][0]
                counts[f"leg{leg}_switch_woken"] = 1
                counts[f"leg{leg}_onto_idle_cpu"] = int(idle is not None)
                counts[f"leg{leg}_onto_rr_cpu"] = int(tgt == ev[s][2])
            else:
                counts[f"leg{leg}_switch_woken"] = 0
            if r is not None:
                row[f"{leg}.5 queued -> switch's read done"] = ev[r][0] - q
                c = first(r, hi, lambda e: e[1] == swpid and
                          e[3] == "raw_syscalls:sys_enter")
                if c is not None:
                    row[f"{leg}.6 read done -> next system call"] = \
                        ev[c][0] - ev[r][0]
                    row[f"{leg}.7 that call -> frame in the other ns"] = \
                        ev[hi][0] - ev[c][0]
        counts["switch_syscalls"] = sum(
            1 for i in range(s, idx["done"] + 1)
            if ev[i][1] == swpid and ev[i][3] == "raw_syscalls:sys_enter")
        counts["switch_ppoll_returns"] = sum(
            1 for i in range(s, idx["done"] + 1)
            if ev[i][1] == swpid and ev[i][3] == "syscalls:sys_exit_ppoll")
    w = first(idx["rx_a"], idx["done"], waking(rr))
    if w is not None:
        o = first(w, idx["done"], on_cpu(rr))
        row["5.1 reply in ns A -> rr woken"] = ev[w][0] - t["rx_a"] - t0
        if o is not None:
            row["5.2 rr woken -> rr on CPU"] = ev[o][0] - ev[w][0]
        counts["rr_woken"] = 1
    else:
        counts["rr_woken"] = 0
    counts["round_trips"] = 1
    for key, v in row.items():
        out.append(f"{name}\tstage\t{key}\t{v:.2f}")
    for key, v in counts.items():
        out.append(f"{name}\tcount\t{key}\t{v}")
print("\n".join(out))
PY
	[ -n "$swpid" ] && sw_stop
	for n in "$a" "$b" "$m"; do ip netns del "$n"; done
}

scenarios=("voff|voff")
[ -n "$base" ] && scenarios+=("voff BASE|base")
scenarios+=("bridge|bridge")
echo "rtt-stages: $(uptime)" >&2
for round in $(seq "$rounds"); do
	for s in "${scenarios[@]}"; do
		IFS='|' read -r sname kind <<<"$s"
		[[ $sname =~ $only ]] || continue
		run "$sname" "$kind" "$round"
	done
done
echo "rtt-stages: $(uptime)" >&2

python3 - "$raw" <<'PY'
import re, statistics, sys

stages, counts, rtt, order = {}, {}, {}, []
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    if f[0] not in order:
        order.append(f[0])
    if f[1] == "untraced":
        v = dict(re.findall(r"(\w+)=([\d.]+)", f[2]))
        if "p50" in v:
            rtt.setdefault(f[0], []).append(v)
    elif f[1] == "stage":
        stages.setdefault(f[0], {}).setdefault(f[2], []).append(float(f[3]))
    else:
        counts.setdefault(f[0], {}).setdefault(f[2], []).append(int(f[3]))


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))]


keys = sorted({k for n in order for k in stages.get(n, {})},
              key=lambda k: (k.startswith("total"), k))


def med(n, k):
    return statistics.median(float(r.get(k, "nan")) for r in rtt[n])


print("Untraced (rr icmp), medians over the rounds, us:")
print()
print("| scenario | ping avg | p50 | p90 | p99 | rr CPU per ping "
      "| switch CPU per ping |")
print("|---|---:|---:|---:|---:|---:|---:|")
for n in order:
    if n in rtt:
        sw = f"{med(n, 'swcpu') / 10:.1f}" if med(n, "swcpu") else "-"
        print(f"| {n} | {med(n, 'avg'):.1f} | {med(n, 'p50'):.1f} "
              f"| {med(n, 'p90'):.1f} | {med(n, 'p99'):.1f} "
              f"| {med(n, 'cpu'):.1f} | {sw} |")
print()
print("| stage, us (traced) | " + " | ".join(
    f"{n} p50 | {n} p90" for n in order) + " |")
print("|---|" + "---:|---:|" * len(order))
for k in keys:
    cells = []
    for n in order:
        v = stages.get(n, {}).get(k)
        cells += [f"{statistics.median(v):.1f}", f"{pct(v, 0.9):.1f}"] \
            if v else ["-", "-"]
    print(f"| {k} | " + " | ".join(cells) + " |")
print()
for n in order:
    c = counts.get(n, {})
    if not c:
        continue
    print(f"{n}: {len(c['round_trips'])} traced round trips; per round "
          "trip: " + ", ".join(f"{k} {sum(v) / len(v):.2f}"
                               for k, v in sorted(c.items())
                               if k != "round_trips"))
PY
exit 0
