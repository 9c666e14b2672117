#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# deb.sh - the Debian packages: dpkg-buildpackage builds the source package
# and libvoff0, libvoff-dev and voff from a clean copy of the source tree
# (its files that git tracks or would track: never the build directories),
# lintian finds no error in them, and once installed with dpkg -i the
# command runs, a program builds against libvoff-dev through pkg-config and
# through find_package(voff) and runs on libvoff0, and each package holds
# what it should.  The packages are purged afterwards, also on failure.
#
# Skips (77) without root, in a sanitizer build (the packages are a plain
# build; this one is the default preset's job), without dpkg-buildpackage,
# debhelper or lintian (scripts/bootstrap.sh installs them), and when a
# voff package is already installed: this test does not replace it.
set -euo pipefail
: "${VOFF:?}" "${VOFF_BUILD:?}"
root=$(cd "$(dirname "$0")/../.." && pwd)
pkgs=(voff libvoff-dev libvoff0)

skip() { echo "deb: skipped: $*"; exit 77; }
[[ $(id -u) -eq 0 ]] || skip "needs root (dpkg -i)"
if grep -q '^VOFF_SANITIZE:BOOL=ON' "$VOFF_BUILD/CMakeCache.txt"; then
	skip "sanitizer build"
fi
for tool in dpkg-buildpackage dh lintian; do
	command -v "$tool" >/dev/null || skip "no $tool"
done

tmp=$(mktemp -d)
installed=0
cleanup()
{
	if ((installed)); then
		dpkg -P "${pkgs[@]}" >"$tmp/purge.log" 2>&1 ||
			{ cat "$tmp/purge.log"; echo "deb: purge failed"; }
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# ---- a clean copy of the tree, built -----------------------------------
src=$tmp/voff
mkdir "$src"
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# Tracked and not-ignored files, as they are in the work tree
	# (those deleted there are left out).
	git -C "$root" ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do
			[[ -e "$root/$f" || -L "$root/$f" ]] && printf '%s\0' "$f"
		done | tar -C "$root" --null -T - -cf - | tar -C "$src" -xf -
else
	tar -C "$root" --exclude=./.git --exclude=./build \
		--exclude='./obj-*' -cf - . | tar -C "$src" -xf -
fi
if ! (cd "$src" &&
      DEB_BUILD_OPTIONS="nocheck noautodbgsym parallel=$(nproc)" \
      dpkg-buildpackage -us -uc) >"$tmp/build.log" 2>&1; then
	tail -n 60 "$tmp/build.log"
	echo "deb: dpkg-buildpackage failed"
	exit 1
fi
ver=$(cd "$src" && dpkg-parsechangelog -S Version)
arch=$(dpkg --print-architecture)
debs=()
for p in libvoff0 libvoff-dev voff; do
	debs+=("$tmp/${p}_${ver}_${arch}.deb")
	[[ -f "${debs[-1]}" ]] || { echo "deb: no ${debs[-1]##*/}"; exit 1; }
done

# ---- lintian: no error, on the source and the binary packages ----------
if ! lintian --fail-on error "$tmp/voff_${ver}_${arch}.changes" \
	>"$tmp/lintian.log" 2>&1; then
	cat "$tmp/lintian.log"
	echo "deb: lintian reports errors"
	exit 1
fi
grep -v 'running with root privileges' "$tmp/lintian.log" || true

# ---- installed, they work ----------------------------------------------
# Serialised: two runs of this test at once would purge each other's.
lockdir=/run/lock
[[ -d $lockdir ]] || lockdir=/tmp
exec 9>"$lockdir/voff-integ-deb.lock"
flock -w 300 9 || { echo "deb: another run holds the lock"; exit 1; }
for p in "${pkgs[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[[ -z "$status" || "$status" == *not-installed* ]] ||
		skip "$p is installed already ($status): left alone"
done
installed=1
if ! dpkg -i "${debs[@]}" >"$tmp/install.log" 2>&1; then
	cat "$tmp/install.log"
	echo "deb: dpkg -i failed"
	exit 1
fi

want=$("$VOFF" --version)
got=$(/usr/bin/voff --version)
[[ "$got" == "$want" ]] ||
	{ echo "deb: /usr/bin/voff --version: '$got', want '$want'"; exit 1; }

# Each package holds its part.
check_has()
{
	local p=$1 f

	shift
	dpkg -L "$p" >"$tmp/list"
	for f in "$@"; do
		grep -qx -- "$f" "$tmp/list" ||
			{ echo "deb: $p lacks $f"; cat "$tmp/list"; exit 1; }
	done
}
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
check_has voff /usr/bin/voff /usr/share/man/man1/voff.1.gz \
	/usr/share/bash-completion/completions/voff \
	/lib/systemd/system/voff@.service \
	/usr/share/doc/voff/examples/example.conf
check_has libvoff0 "/usr/lib/$ma/libvoff.so.0"
check_has libvoff-dev /usr/include/voff/voff.h "/usr/lib/$ma/libvoff.so" \
	"/usr/lib/$ma/libvoff.a" "/usr/lib/$ma/pkgconfig/voff.pc" \
	"/usr/lib/$ma/cmake/voff/voffConfig.cmake" \
	/usr/share/man/man3/libvoff.3.gz
soname=$(objdump -p "/usr/lib/$ma/libvoff.so.0" | awk '$1 == "SONAME" { print $2 }')
[[ "$soname" == libvoff.so.0 ]] || { echo "deb: SONAME '$soname'"; exit 1; }

# The installed completion answers with the installed command.
comp=$(bash -c 'source /usr/share/bash-completion/completions/voff
	COMP_LINE="voff fe"; COMP_POINT=${#COMP_LINE}; _voff
	echo "${COMPREPLY[*]}"')
[[ "$comp" == features ]] ||
	{ echo "deb: completion of 'voff fe' gave '$comp'"; exit 1; }

# A program built against libvoff-dev only, run on libvoff0.
cat >"$tmp/user.c" <<'C'
#include <stdio.h>
#include <voff/voff.h>
int main(void)
{
	printf("%s\n", voff_version());
	return 0;
}
C
unset PKG_CONFIG_PATH
# pkg-config prints several words on purpose: word splitting is wanted.
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror "$tmp/user.c" -o "$tmp/user" \
	$(pkg-config --cflags --libs voff)
[[ "$("$tmp/user")" == "${want#voff }" ]] ||
	{ echo "deb: pkg-config program printed '$("$tmp/user")'"; exit 1; }
lib=$(ldd "$tmp/user" | awk '$1 == "libvoff.so.0" { print $3 }')
[[ -n "$lib" && "$(readlink -f "$lib")" == \
   "$(readlink -f "/usr/lib/$ma/libvoff.so.0")" ]] ||
	{ ldd "$tmp/user"; echo "deb: not linked to libvoff0"; exit 1; }
mkdir "$tmp/cm"
cp "$tmp/user.c" "$tmp/cm/"
cat >"$tmp/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.25)
project(voffuser LANGUAGES C)
find_package(voff REQUIRED)
add_executable(user user.c)
target_link_libraries(user PRIVATE voff::voff)
CM
if ! cmake -S "$tmp/cm" -B "$tmp/cm/build" -G Ninja >"$tmp/cm.log" 2>&1 ||
   ! cmake --build "$tmp/cm/build" >>"$tmp/cm.log" 2>&1; then
	cat "$tmp/cm.log"
	echo "deb: find_package(voff) project failed"
	exit 1
fi
[[ "$("$tmp/cm/build/user")" == "${want#voff }" ]] ||
	{ echo "deb: find_package program failed"; exit 1; }

# ---- purged, nothing is left -------------------------------------------
installed=0
dpkg -P "${pkgs[@]}" >"$tmp/purge.log" 2>&1 ||
	{ cat "$tmp/purge.log"; echo "deb: dpkg -P failed"; exit 1; }
for f in /usr/bin/voff /usr/include/voff "/usr/lib/$ma/libvoff.so.0"; do
	[[ ! -e "$f" ]] || { echo "deb: $f left after purge"; exit 1; }
done
echo "deb: ok ($ver: ${debs[*]##*/})"
