#!/bin/bash
# SPDX-License-Identifier: MIT
#
# soak.sh - a soak of `voff switch`: mixed TCP/UDP IPv4/IPv6 traffic with
# port faults at random intervals, payload integrity checked end to end,
# the switch's RSS and descriptors sampled
#
# usage: scripts/soak.sh [--minutes N] [--asan] [--seed N] [--out DIR]
#                        [--faults "0 1 2 3"]
#
#   ns A  va 10.83.0.1 fd83::1 <-TAP->  voff  <-TAP-> vb 10.83.0.2 fd83::2  ns B
#   ns C  vc 10.83.0.3         <-TAP->  switch
#   ns E  e0 10.83.0.5 =veth= e1 <-packet->
#
# Traffic, all the time: iperf3 rounds of 5 s (TCP v4, TCP v6, UDP v4 at
# 300 Mbit/s, UDP v6) A -> B; beside them a stream checker: pseudo-random
# byte streams (a seeded PRNG, 1-16 MB each) A -> B over TCP, IPv4 and
# IPv6 in turn, whose SHA-256 the receiver sends back, and UDP datagrams
# (64-8000 bytes, fragments included) whose every byte is a function of
# their sequence number, checked on arrival.  ICMP from E and C keeps the
# fault ports busy.
# Faults, every 2-8 s at random: `ports del`+`ports add` of vc; vc's TAP
# deleted under the switch, then the failed port removed and added again;
# e1 down and up; GRO on va toggled (--faults picks among these four by
# number; each is logged with its time in DIR/faults.log).
# Checks at the end: zero corrupt bytes or datagrams, no iperf3 round
# failed, the switch alive throughout and exiting 0 (under ASan: no error
# report, no leak), descriptors as after the warm-up, VmRSS at most 16 MiB
# above the warm-up's.  Figures go to stdout and DIR (samples.csv,
# summary.txt).  Needs root, iperf3, python3; exits 77 otherwise.
#
# The binary: $VOFF, else build/dev/voff with --asan, else
# build/default/voff (scripts/test.sh's presets).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
minutes=10 asan=0 seed=$$ out='' faults="0 1 2 3"
while [ $# -gt 0 ]; do
	case $1 in
	--minutes) minutes=$2; shift 2 ;;
	--asan) asan=1; shift ;;
	--seed) seed=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--faults) faults=$2; shift 2 ;;
	*) echo "usage: $0 [--minutes N] [--asan] [--seed N] [--out DIR]" \
		"[--faults LIST]" >&2
	   exit 2 ;;
	esac
done
if [ -z "${VOFF:-}" ]; then
	VOFF=$root/build/default/voff
	[ "$asan" -eq 1 ] && VOFF=$root/build/dev/voff
fi
export VOFF
# A small quarantine: freed port memory must not look like growth.
export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=8:detect_leaks=1}
tag=sk
# shellcheck source=tests/integ/lib_ns.sh
. "$root/tests/integ/lib_ns.sh"
ns_require iperf3 python3
out=${out:-$LIB_TMP/out}
mkdir -p "$out"
RANDOM=$seed
secs=$(python3 -c "print(int(float('$minutes') * 60))")
warm=$((secs / 6 < 60 ? secs / 6 : 60))
[ "$warm" -lt 15 ] && warm=15

A=$(ns_add a) B=$(ns_add b) C=$(ns_add c) E=$(ns_add e)
ip -n "$E" link add e0 type veth peer name e1 || { echo "skip: no veth"; exit 77; }
ip -n "$E" link set e0 up
ip -n "$E" link set e1 up
ip -n "$E" addr add 10.83.0.5/24 dev e0
sw_start --port "tap:va@$A" --port "tap:vb@$B" --port "tap:vc@$C" \
	--port "packet:e1@$E"
addr_tap "$A" va 10.83.0.1/24 fd83::1/64
addr_tap "$B" vb 10.83.0.2/24 fd83::2/64
addr_tap "$C" vc 10.83.0.3/24

cat >"$LIB_TMP/peer.py" <<'PY'
# peer.py tcp-server|tcp-client|udp-server|udp-client ADDR PORT ...
import hashlib, random, socket, struct, sys, time
mode, addr, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
fam = socket.AF_INET6 if ":" in addr else socket.AF_INET

def recv_all(c, n):
    b = b""
    while len(b) < n:
        d = c.recv(n - len(b))
        if not d:
            raise EOFError
        b += d
    return b

def udp_payload(seq, n):
    seed = hashlib.sha256(struct.pack("!I", seq)).digest()
    return struct.pack("!II", seq, n) + (seed * (n // 32 + 1))[:n - 8]

if mode == "tcp-server":
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port)); s.listen(4)
    while True:
        c, _ = s.accept()
        try:
            n = struct.unpack("!Q", recv_all(c, 8))[0]
            h = hashlib.sha256(); got = 0
            while got < n:
                d = c.recv(min(1 << 20, n - got))
                if not d:
                    break
                h.update(d); got += len(d)
            c.sendall(h.digest() + struct.pack("!Q", got))
        except (EOFError, OSError):
            pass
        c.close()
elif mode == "tcp-client":
    # tcp-client ADDR PORT SEED END_TIME: streams until END_TIME; prints
    # "streams bytes corrupt failed"
    rnd = random.Random(int(sys.argv[4])); end = float(sys.argv[5])
    streams = nbytes = corrupt = failed = 0
    while time.time() < end:
        n = rnd.randint(1 << 20, 16 << 20)
        data = rnd.randbytes(n)
        try:
            c = socket.create_connection((addr, port), timeout=30)
            c.sendall(struct.pack("!Q", n) + data)
            r = recv_all(c, 40); c.close()
        except (EOFError, OSError) as e:
            print("%.1f stream %d: %r" % (time.time(), streams, e),
                  file=sys.stderr)
            failed += 1; time.sleep(0.2); continue
        streams += 1
        if r[:32] == hashlib.sha256(data).digest() and \
           struct.unpack("!Q", r[32:])[0] == n:
            nbytes += n
        else:
            corrupt += 1
    print(streams, nbytes, corrupt, failed)
elif mode == "udp-server":
    # prints "good corrupt bytes" on SIGTERM
    import signal
    s = socket.socket(fam, socket.SOCK_DGRAM); s.bind((addr, port))
    good = bad = nb = 0
    def done(*_):
        print(good, bad, nb); sys.stdout.flush(); sys.exit(0)
    signal.signal(signal.SIGTERM, done)
    while True:
        d = s.recv(65536)
        if len(d) >= 8:
            seq, n = struct.unpack("!II", d[:8])
            if n == len(d) and d == udp_payload(seq, n):
                good += 1; nb += n; continue
        bad += 1
else:
    # udp-client ADDR PORT SEED END_TIME: paced datagrams until END_TIME
    rnd = random.Random(int(sys.argv[4])); end = float(sys.argv[5])
    s = socket.socket(fam, socket.SOCK_DGRAM); seq = sent = 0
    while time.time() < end:
        for _ in range(50):
            n = rnd.choice((64, 512, 1400, 1472, 3000, 8000))
            try:
                s.sendto(udp_payload(seq, n), (addr, port)); sent += 1
            except OSError:
                pass
            seq += 1
        time.sleep(0.005)
    print(sent)
PY
py=$LIB_TMP/peer.py

t_start=$(date +%s)
t_end=$((t_start + secs))
echo "# soak: $minutes min, seed $seed, binary $VOFF, warm-up ${warm}s"

# Receivers in B, for the whole run.
for a in 10.83.0.2 fd83::2; do
	ip netns exec "$B" python3 "$py" tcp-server "$a" 5301 &
	lib_pids+=($!)
	ip netns exec "$B" python3 "$py" udp-server "$a" 5302 \
		>"$out/udp-$a.txt" &
	lib_pids+=($!)
done
usrv=("${lib_pids[@]: -1}" "${lib_pids[@]: -3:1}")
sleep 0.5
# Stream checkers, IPv4 and IPv6 at once.
ip netns exec "$A" python3 "$py" tcp-client 10.83.0.2 5301 "$seed" "$t_end" >"$out/tcp4.txt" 2>"$out/tcp4.err" &
tc4=$!
ip netns exec "$A" python3 "$py" tcp-client fd83::2 5301 $((seed + 1)) "$t_end" >"$out/tcp6.txt" 2>"$out/tcp6.err" &
tc6=$!
ip netns exec "$A" python3 "$py" udp-client 10.83.0.2 5302 $((seed + 2)) "$t_end" >"$out/udps4.txt" &
uc4=$!
ip netns exec "$A" python3 "$py" udp-client fd83::2 5302 $((seed + 3)) "$t_end" >"$out/udps6.txt" &
uc6=$!
# Killed at exit too (lib_cleanup), when the soak is stopped early.
lib_pids+=("$tc4" "$tc6" "$uc4" "$uc6")

# iperf3 rounds until the end.
(
	k=0
	while [ $(($(date +%s) + 6)) -lt "$t_end" ]; do
		case $((k % 4)) in
		0) m=tcp4 a=10.83.0.2 x=() ;;
		1) m=tcp6 a=fd83::2 x=() ;;
		2) m=udp4 a=10.83.0.2 x=(-u -b 300M) ;;
		3) m=udp6 a=fd83::2 x=(-u -b 300M) ;;
		esac
		if iperf_run "$A" "$B" "$a" 5 "$LIB_TMP/ip.json" "${x[@]}"; then
			echo "$m $(iperf_bps "$LIB_TMP/ip.json")"
		else
			echo "$m FAIL"
			cp "$LIB_TMP/ip.json" "$out/iperf-fail-$k.json"
		fi
		k=$((k + 1))
	done >"$out/iperf.txt"
) &
itr=$!
lib_pids+=("$itr")

# Pings keep the fault ports' receive and transmit busy.
(
	while [ "$(date +%s)" -lt "$t_end" ]; do
		nsping "$E" 10.83.0.1 1 >/dev/null 2>&1
		nsping "$C" 10.83.0.2 1 >/dev/null 2>&1
		sleep 0.2
	done
) &
lib_pids+=($!)

# Faults and samples.
echo "t,rss_kb,fds" >"$out/samples.csv"
nfault=(0 0 0 0)
rss_warm='' fds_warm='' rss_max=0 next_sample=0 next_fault=$((t_start + warm))
gro=off
while :; do
	now=$(date +%s)
	[ "$now" -ge "$t_end" ] && break
	sw_alive || { bad "switch died at $((now - t_start))s"; break; }
	if [ "$now" -ge "$next_sample" ]; then
		r=$(sw_rss_kb) f=$(sw_fds)
		echo "$((now - t_start)),$r,$f" >>"$out/samples.csv"
		[ "$r" -gt "$rss_max" ] && rss_max=$r
		if [ -z "$rss_warm" ] && [ $((now - t_start)) -ge "$warm" ]; then
			rss_warm=$r fds_warm=$f
		fi
		next_sample=$((now + 5))
	fi
	if [ -n "$rss_warm" ] && [ "$now" -ge "$next_fault" ]; then
		read -ra fl <<<"$faults"
		fault=${fl[RANDOM % ${#fl[@]}]}
		echo "$(date +%s.%N | cut -c1-12) $fault" >>"$out/faults.log"
		case $fault in
		0)	vctl ports del vc >/dev/null &&
			vctl ports add "tap:vc@$C" >/dev/null &&
			addr_tap "$C" vc 10.83.0.3/24 &&
			nfault[0]=$((nfault[0] + 1)) ;;
		1)	ip -n "$C" link del vc
			sleep 0.3
			vctl ports | grep -q "vc .*FAILED" ||
				bad "deleted TAP not marked failed"
			vctl ports del vc >/dev/null &&
			vctl ports add "tap:vc@$C" >/dev/null &&
			addr_tap "$C" vc 10.83.0.3/24 &&
			nfault[1]=$((nfault[1] + 1)) ;;
		2)	ip -n "$E" link set e1 down
			sleep 0.$((RANDOM % 9 + 1))
			ip -n "$E" link set e1 up
			nfault[2]=$((nfault[2] + 1)) ;;
		3)	gro=$([ "$gro" = on ] && echo off || echo on)
			vctl features va gro "$gro" >/dev/null &&
			nfault[3]=$((nfault[3] + 1)) ;;
		esac
		next_fault=$((now + 2 + RANDOM % 7))
	fi
	sleep 0.5
done

wait "$tc4" "$tc6" "$uc4" "$uc6" "$itr"
sleep 1
kill "${usrv[@]}" 2>/dev/null
wait "${usrv[@]}" 2>/dev/null
vctl features va gro off >/dev/null
# vc and e1 carry no flow at the end: a last check that they forward.
nsping "$E" 10.83.0.1 3 || bad "e1 does not forward at the end"
nsping "$C" 10.83.0.2 3 || bad "vc does not forward at the end"
vctl -j stats >"$out/stats.json"
r=$(sw_rss_kb) f=$(sw_fds)
echo "$(($(date +%s) - t_start)),$r,$f" >>"$out/samples.csv"
rss_end=$r fds_end=$f
[ "$r" -gt "$rss_max" ] && rss_max=$r

read -r s4 b4 c4 f4 <"$out/tcp4.txt"
read -r s6 b6 c6 f6 <"$out/tcp6.txt"
read -r ug4 ub4 un4 <"$out/udp-10.83.0.2.txt"
read -r ug6 ub6 un6 <"$out/udp-fd83::2.txt"
read -r us4 <"$out/udps4.txt"
read -r us6 <"$out/udps6.txt"
rounds=$(wc -l <"$out/iperf.txt")
ifail=$(grep -c FAIL "$out/iperf.txt")
summary=$(python3 - "$out/iperf.txt" <<'PY'
import collections, sys
r = collections.defaultdict(list)
for line in open(sys.argv[1]):
    m, v = line.split()
    if v != "FAIL":
        r[m].append(int(v) / 1e6)
print(" ".join("%s=%.0f" % (m, sorted(v)[len(v) // 2])
               for m, v in sorted(r.items())))
PY
)
sw_stop
rc=$?
{
	echo "minutes $minutes seed $seed binary $VOFF"
	echo "tcp streams v4 $s4 v6 $s6, bytes checked $((b4 + b6)), corrupt $((c4 + c6)), failed connections $((f4 + f6))"
	echo "udp datagrams sent $((us4 + us6)), checked $((ug4 + ug6)) ($((un4 + un6)) bytes), corrupt $((ub4 + ub6))"
	echo "iperf3 rounds $rounds, failed $ifail, median Mbit/s $summary"
	echo "faults: del+add ${nfault[0]}, tap deleted ${nfault[1]}, link flaps ${nfault[2]}, gro toggles ${nfault[3]}"
	echo "VmRSS KiB: after warm-up $rss_warm, end $rss_end, max $rss_max; fds warm-up $fds_warm end $fds_end"
	echo "switch exit status $rc"
} | tee "$out/summary.txt"

check() {	# check CONDITION-STATUS MESSAGE-IF-OK MESSAGE-IF-NOT
	if [ "$1" -eq 0 ]; then ok "$2"; else bad "$3"; fi
}
[ $((c4 + c6 + ub4 + ub6)) -eq 0 ]
check $? "zero corrupt bytes" "corruption"
[ $((b4 + b6)) -gt 0 ]
check $? "$((b4 + b6)) bytes checked" "no stream completed"
[ "$ifail" -eq 0 ] && [ "$rounds" -gt 0 ]
check $? "$rounds iperf3 rounds" "iperf3: $ifail of $rounds rounds failed"
[ $((nfault[0] + nfault[1] + nfault[2] + nfault[3])) -gt 0 ]
check $? "faults applied" "no fault applied"
[ "$fds_end" -eq "$fds_warm" ]
check $? "descriptors stable ($fds_end)" "descriptors $fds_warm -> $fds_end"
[ "$rss_end" -le $((rss_warm + 16384)) ]
check $? "RSS bounded (+$((rss_end - rss_warm)) KiB over the warm-up)" \
	"RSS grew $rss_warm -> $rss_end KiB"
[ "$rc" -eq 0 ]
check $? "switch exited 0" "switch exit status $rc"
if grep -qE "AddressSanitizer|LeakSanitizer|runtime error" "$LIB_TMP/switch.err"; then
	bad "sanitizer report:"
	head -40 "$LIB_TMP/switch.err"
	cp "$LIB_TMP/switch.err" "$out/"
else
	ok "no sanitizer report"
fi
[ "$fails" -eq 0 ]
