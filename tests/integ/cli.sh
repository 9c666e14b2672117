#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# cli.sh - what every subcommand of voff owes its user, no root needed:
# exit statuses (0 done, 1 runtime failure, 2 usage error), one message
# line per error naming the subcommand, the option or the file and frame,
# and the cause, outputs that never destroy their input nor stay half
# written, and write errors on standard output that are never silent.
#
#   voff <cmd> [bad options | bad files] --> exit status + stderr lines
#
# Needs python3 to write the captures (skips with 77 otherwise).
set -uo pipefail
: "${VOFF:?path of the voff binary}" "${VOFF_DATA:?tests/data directory}"
command -v python3 >/dev/null || { echo "skip: python3 missing"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
sample=$VOFF_DATA/sample.pcap

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

ok() {
	echo "ok: $*"
}

# run CMD...: run, keeping the status in $rc and the output in files.
run() {
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# exact WANT_RC 'WANT_STDERR' CMD...: the status and the whole of stderr.
exact() {
	local want=$1 msg=$2
	shift 2
	run "$@"
	if [[ $rc -eq $want && $(cat "$tmp/err") == "$msg" ]]; then
		ok "$*: exit $rc"
	else
		fail "$*: exit $rc, expected $want; stderr:"
		sed 's/^/    /' "$tmp/err"
		echo "  expected: $msg"
	fi
}

# first WANT_RC 'WANT_LINE' CMD...: the status and stderr's first line
# (usage text may follow it).
first() {
	local want=$1 msg=$2
	shift 2
	run "$@"
	if [[ $rc -eq $want && $(head -n1 "$tmp/err") == "$msg" ]]; then
		ok "$*: exit $rc"
	else
		fail "$*: exit $rc, expected $want; stderr:"
		sed 's/^/    /' "$tmp/err"
		echo "  expected first line: $msg"
	fi
}

cd "$tmp" || exit 1
cp "$sample" in.pcap
mkdir adir w
# 40 copies of the sample's 64 KiB frame: over 2.6 MB of output.
python3 - "$sample" big.pcap <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
pos, frames = 24, []
while pos < len(d):
    cap = struct.unpack_from("=IIII", d, pos)[2]
    frames.append(d[pos:pos + 16 + cap])
    pos += 16 + cap
open(sys.argv[2], "wb").write(d[:24] + frames[-1] * 40)
PY

# ---- usage errors: exit 2, the option, the value and its range -------------
exact 2 "voff gso: --mss: 65535 out of range (1..65534)" \
	"$VOFF" gso --mss 65535 in.pcap o.pcap
exact 2 "voff gso: --mss: '1k' is not a number" \
	"$VOFF" gso --mss 1k in.pcap o.pcap
exact 2 "voff gso: --max-size: 63 out of range (64..2147483647)" \
	"$VOFF" gso --max-size 63 in.pcap o.pcap
exact 2 "voff gso: --max-segs: -1 out of range (1..65535)" \
	"$VOFF" gso --max-size 2000 --max-segs -1 in.pcap o.pcap
exact 2 "voff gso: --csum: 'half' is neither full nor partial" \
	"$VOFF" gso --csum half in.pcap o.pcap
exact 2 "voff gso: --max-segs needs --max-size" \
	"$VOFF" gso --max-segs 4 in.pcap o.pcap
exact 2 "voff gso: --frag-id needs --ufo" \
	"$VOFF" gso --frag-id 4 in.pcap o.pcap
exact 2 "voff gro: --max-size: 65536 out of range (1..65535)" \
	"$VOFF" gro --max-size 65536 in.pcap o.pcap
exact 2 "voff gro: --max-flows: 0 out of range (1..65536)" \
	"$VOFF" gro --max-flows 0 in.pcap o.pcap
exact 2 "voff gro: --flush-timeout: '5us' is not a number" \
	"$VOFF" gro --flush-timeout 5us in.pcap o.pcap
exact 2 "voff features: --tun: 0x10000 out of range (0..65535)" \
	"$VOFF" features -t 0x10000
exact 2 "voff features: --tun: unknown flag 'tso5'" \
	"$VOFF" features -t csum,tso5
exact 2 "voff features: --tun: TUNSETOFFLOAD refuses 0x2 (EINVAL)" \
	"$VOFF" features -t tso4
[[ -e o.pcap ]] && fail "a usage error created the output"
# Unknown options name the subcommand as typed.
first 2 "voff inspect: invalid option -- 'x'" "$VOFF" inspect -x in.pcap
first 2 "voff gso: unrecognized option '--bogus'" "$VOFF" gso --bogus a b
first 2 "voff gro: unrecognized option '--bogus'" "$VOFF" gro --bogus a b
first 2 "voff features: unrecognized option '--bogus'" \
	"$VOFF" features --bogus
first 2 "voff gso: option '--mss' requires an argument" "$VOFF" gso --mss
first 2 "voff gso: expected IN.pcap and OUT.pcap" "$VOFF" gso in.pcap
first 2 "voff gro: expected IN.pcap and OUT.pcap" "$VOFF" gro in.pcap
first 2 "voff: unknown command 'inspekt'" "$VOFF" inspekt in.pcap
# voff help CMD is voff CMD --help.
run "$VOFF" help gso
if [[ $rc -eq 0 ]] && grep -q "^usage: voff gso" "$tmp/out"; then
	ok "voff help gso"
else
	fail "voff help gso: exit $rc"
fi

# ---- outputs never destroy the input, never stay half written ---------------
# only_files WHAT NAME...: the directory holds exactly these files.
only_files() {
	local what=$1 got
	shift
	got=$(find "$tmp/w" -mindepth 1 -printf '%f\n' | sort | tr '\n' ' ')
	if [[ $got == "$* " ]]; then ok "$what: files $*"; else fail "$what: files '$got', expected '$* '"; fi
}
head -c 300 "$sample" >w/trunc.pcap	# cut inside frame 2
for cmd in gso gro; do
	cp "$sample" w/same.pcap
	ln -s same.pcap w/link.pcap
	ln w/same.pcap w/hard.pcap
	exact 1 "voff $cmd: w/same.pcap: is the input w/same.pcap (refusing to overwrite it)" \
		"$VOFF" $cmd w/same.pcap w/same.pcap
	exact 1 "voff $cmd: w/link.pcap: is the input w/same.pcap (refusing to overwrite it)" \
		"$VOFF" $cmd w/same.pcap w/link.pcap
	exact 1 "voff $cmd: w/hard.pcap: is the input w/same.pcap (refusing to overwrite it)" \
		"$VOFF" $cmd w/same.pcap w/hard.pcap
	# shellcheck disable=SC2094 # reading and writing one file is the case
	exact 1 "voff $cmd: w/same.pcap: is the input (standard input) (refusing to overwrite it)" \
		"$VOFF" $cmd - w/same.pcap <w/same.pcap
	if cmp -s "$sample" w/same.pcap; then
		ok "$cmd: the input is intact"
	else
		fail "$cmd: the input was changed"
	fi
	only_files "$cmd: refused" hard.pcap link.pcap same.pcap trunc.pcap
	rm w/link.pcap w/hard.pcap

	# A damaged input: no output, an old output intact, no temporary.
	run "$VOFF" $cmd w/trunc.pcap w/o.pcap
	[[ $rc -eq 1 ]] || fail "$cmd: damaged input: exit $rc"
	only_files "$cmd: damaged input" same.pcap trunc.pcap
	echo old >w/o.pcap
	run "$VOFF" $cmd w/trunc.pcap w/o.pcap
	[[ $rc -eq 1 && $(cat w/o.pcap) == old ]] ||
		fail "$cmd: damaged input: old output changed (exit $rc)"
	only_files "$cmd: damaged input, old output" o.pcap same.pcap trunc.pcap
	# Success replaces the old output, with its mode; a new file gets
	# the umask's; a symbolic link stays a link to the new file.
	chmod 600 w/o.pcap
	run "$VOFF" $cmd w/same.pcap w/o.pcap
	[[ $rc -eq 0 && $(stat -c %a w/o.pcap) == 600 ]] ||
		fail "$cmd: replaced output: exit $rc, mode $(stat -c %a w/o.pcap)"
	(umask 027 && "$VOFF" $cmd w/same.pcap w/new.pcap 2>/dev/null)
	[[ $(stat -c %a w/new.pcap) == 640 ]] ||
		fail "$cmd: new output mode $(stat -c %a w/new.pcap), umask 027"
	ln -s new.pcap w/l.pcap
	run "$VOFF" $cmd w/same.pcap w/l.pcap
	if [[ $rc -ne 0 || ! -L w/l.pcap ]] || ! cmp -s w/o.pcap w/new.pcap
	then
		fail "$cmd: output through a symbolic link"
	fi
	# Standard output and character devices are written directly.
	run "$VOFF" $cmd w/same.pcap -
	if cmp -s "$tmp/out" w/o.pcap; then
		ok "$cmd: - writes standard output"
	else
		fail "$cmd: - for standard output (exit $rc)"
	fi
	run "$VOFF" $cmd - - <w/same.pcap
	if [[ $rc -eq 0 ]] && cmp -s "$tmp/out" w/o.pcap; then
		ok "$cmd: - - reads standard input, writes standard output"
	else
		fail "$cmd: - - (exit $rc)"
	fi
	run "$VOFF" $cmd w/same.pcap /dev/null
	[[ $rc -eq 0 ]] || fail "$cmd: /dev/null output: exit $rc"
	only_files "$cmd: outputs" l.pcap new.pcap o.pcap same.pcap trunc.pcap
	rm w/o.pcap w/new.pcap w/l.pcap
done

# ---- errors: one line, naming the subcommand, the file, the frame, the cause -
echo hello >notpcap.txt
head -c 300 "$sample" >trunc.pcap	# cut inside frame 2
for cmd in gso gro inspect; do
	out=(o.pcap)
	[[ $cmd == inspect ]] && out=()
	exact 1 "voff $cmd: /nonexistent: No such file or directory" \
		"$VOFF" $cmd /nonexistent "${out[@]}"
	exact 1 "voff $cmd: notpcap.txt: not a capture file (unknown file format)" \
		"$VOFF" $cmd notpcap.txt "${out[@]}"
	exact 1 "voff $cmd: adir: Is a directory" "$VOFF" $cmd adir "${out[@]}"
	first 1 "voff $cmd: trunc.pcap: frame 2: the file ends inside this frame (truncated capture)" \
		"$VOFF" $cmd trunc.pcap "${out[@]}"
	[[ $cmd == inspect ]] && continue
	[[ $(wc -l <"$tmp/err") -eq 1 ]] || fail "$cmd: trunc.pcap: more than one line"
	if [[ -w /dev/full ]]; then
		exact 1 "voff $cmd: /dev/full: No space left on device" \
			"$VOFF" $cmd in.pcap /dev/full
	fi
	# A write that fails part way: the output frame and the cause.
	(trap '' XFSZ && ulimit -f 16 && "$VOFF" $cmd big.pcap o.pcap) \
		2>"$tmp/err"
	rc=$?
	if [[ $rc -eq 1 && $(cat "$tmp/err") =~ ^"voff $cmd: o.pcap: frame "[0-9]+": File too large"$ ]]; then
		ok "$cmd: write error part way"
	else
		fail "$cmd: write error part way: exit $rc, $(cat "$tmp/err")"
	fi
	[[ -e o.pcap ]] && fail "$cmd: output left after a write error"
done
exact 1 "voff inspect: standard input: not a capture file (unknown file format)" \
	"$VOFF" inspect - <notpcap.txt

# ---- features: nothing fails in silence --------------------------------------
exact 2 "voff features: -l gso_max_size: expected NAME=VALUE" \
	"$VOFF" features -l gso_max_size
exact 2 "voff features: -l gso_max_size: 'abc' is not a number" \
	"$VOFF" features -l gso_max_size=abc
exact 2 "voff features: -l gso_max_size: -1 out of range (193..524280)" \
	"$VOFF" features -l gso_max_size=-1
# The range is the device's: a TAP's tso_max_size is 64 KiB.
exact 2 "voff features: -l gso_max_size: 70000 out of range (193..65536)" \
	"$VOFF" features -b tap -l gso_max_size=70000
exact 2 "voff features: -l mtu: 67 out of range (68..65535)" \
	"$VOFF" features -l mtu=67
exact 2 "voff features: -l gso_max_segs: 0x10000 out of range (0..65535)" \
	"$VOFF" features -l gso_max_segs=0x10000
exact 2 "voff features: -l frob=1: unknown limit 'frob'" \
	"$VOFF" features -l frob=1
: >empty.txt
exact 1 "voff features: adir: neither a profile nor a readable file (Is a directory)" \
	"$VOFF" features -b adir
exact 1 "voff features: nofile: neither a profile nor a readable file (No such file or directory)" \
	"$VOFF" features -b nofile
exact 1 "voff features: in.pcap: not \`ethtool -k\` output (binary data)" \
	"$VOFF" features -b in.pcap
exact 1 "voff features: /dev/null: not \`ethtool -k\` output (no known feature in it)" \
	"$VOFF" features -b /dev/null
exact 1 "voff features: empty.txt: not \`ethtool -k\` output (no known feature in it)" \
	"$VOFF" features --bridge empty.txt
printf 'Features for x:\nsg: maybe\n' >bad.txt
exact 1 "voff features: bad.txt: not \`ethtool -k\` output (a line is not NAME: on|off)" \
	"$VOFF" features -b bad.txt
exact 1 "voff features: nofile: neither a profile nor a readable file (No such file or directory)" \
	"$VOFF" features --intersect nofile
[[ -s $tmp/out ]] && fail "a failed --intersect printed a device"

# ---- features -L output reads back with -b, limits included --------------------
for args in "-b veth" "-b tap -l gso_max_size=30000 -l gro_max_size=9000" \
	"--bridge veth --bridge tap -l mtu=9000 tso on" \
	"-b veth -l tso_max_size=524280 -l gso_max_size=200000 sg off"; do
	# shellcheck disable=SC2086 # the words of $args are wanted
	"$VOFF" features -L $args >step1.txt 2>/dev/null
	"$VOFF" features -L -b step1.txt >step2.txt 2>"$tmp/err"
	rc=$?
	if [[ $rc -eq 0 ]] && cmp -s step1.txt step2.txt; then
		ok "features -L $args: reads back"
	else
		fail "features -L $args: exit $rc, $(cat "$tmp/err")"
		diff step1.txt step2.txt | head -5
	fi
	"$VOFF" features -L -b - <step1.txt >step2.txt 2>/dev/null
	cmp -s step1.txt step2.txt || fail "features -L $args: -b - differs"
done
sed 's/^limits: mtu 1500/limits: mtu 67/' step1.txt >badlim.txt
exact 1 "voff features: badlim.txt: limits line: mtu 67 out of range" \
	"$VOFF" features -b badlim.txt
sed 's/^limits: mtu 1500/limits: mtu/' step1.txt >badlim.txt
exact 1 "voff features: badlim.txt: limits line: bad 'mtu gso_max_size'" \
	"$VOFF" features -b badlim.txt

# ---- standard output that cannot be written fails, in every subcommand -------
if [[ -w /dev/full ]]; then
	for args in "features" "features -j" "inspect in.pcap" \
		"inspect -j in.pcap" "gso --help" "--version"; do
		# shellcheck disable=SC2086 # the words of $args are wanted
		"$VOFF" $args >/dev/full 2>"$tmp/err"
		rc=$?
		# A write that failed before the final flush leaves no errno.
		want="voff ${args%% *}: standard output: (No space left on device|write error)"
		[[ $args == --version ]] && want="voff: standard output: No space left on device"
		if [[ $rc -eq 1 && $(cat "$tmp/err") =~ ^$want$ ]]; then
			ok "voff $args >/dev/full: exit 1"
		else
			fail "voff $args >/dev/full: exit $rc, $(cat "$tmp/err")"
		fi
	done
fi

if [[ $fails -ne 0 ]]; then
	echo "$fails failure(s)"
	exit 1
fi
echo "all cli checks passed"
