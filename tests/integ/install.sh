#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# install.sh - `cmake --install` puts the shared and static library, the
# headers, voff.pc, the CMake package config, the command and the man pages
# under a prefix, and a program built only from that prefix (through
# pkg-config, and through find_package(voff)) links and runs, against the
# shared library and against the static one.  Every public header of the
# source tree is installed and compiles on its own.
set -euo pipefail
: "${VOFF_BUILD:?}"
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$VOFF_BUILD" --prefix "$prefix" >/dev/null

libdir=$(find "$prefix" -name voff.pc -printf '%h\n' | head -n1)
libdir=${libdir%/pkgconfig}
for f in "$libdir/libvoff.so" "$libdir/libvoff.a" "$prefix/bin/voff" \
	 "$prefix/include/voff/voff.h" "$prefix/include/voff/pkt.h" \
	 "$prefix/share/man/man1/voff.1" "$prefix/share/man/man3/libvoff.3" \
	 "$prefix/share/bash-completion/completions/voff" \
	 "$prefix/lib/systemd/system/voff@.service" \
	 "$prefix/share/doc/voff/examples/example.conf"; do
	[[ -e "$f" ]] || { echo "missing after install: $f"; exit 1; }
done
for h in "$root"/include/voff/*.h; do
	h=voff/${h##*/}
	[[ -e "$prefix/include/$h" ]] || { echo "not installed: $h"; exit 1; }
	echo "#include <$h>" |
		cc -std=c11 -Wall -Wextra -Werror -fsyntax-only \
			-I "$prefix/include" -x c - ||
		{ echo "does not compile alone: $h"; exit 1; }
done

cat > "$tmp/user.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <voff/voff.h>
int main(void)
{
	struct voff_pool *pool;
	struct voff_pkt *pkt;
	struct voff_parsed p;
	static const unsigned char frame[14] = { [12] = 0x88, [13] = 0xB5 };

	if (voff_pool_new(&pool, 4, 2048) || voff_pkt_alloc(pool, &pkt))
		return 1;
	if (voff_pkt_set_data(pkt, frame, sizeof(frame)) ||
	    voff_pkt_parse(pkt, VOFF_PARSE_ETH, &p) != 0 || p.n_layers != 1)
		return 2;
	printf("%s %s\n", voff_version(), voff_proto_name(p.layers[0].proto));
	voff_pkt_free(pkt);
	voff_pool_free(pool);
	return 0;
}
C
export PKG_CONFIG_PATH=$libdir/pkgconfig
# A sanitizer build installs a library that needs the sanitizer runtime.
san=()
if grep -q '^VOFF_SANITIZE:BOOL=ON' "$VOFF_BUILD/CMakeCache.txt"; then
	san=("-fsanitize=address,undefined")
fi
# pkg-config prints several words on purpose: word splitting is wanted.
# shellcheck disable=SC2046
cc "${san[@]}" -std=c11 -Wall -Wextra -Werror "$tmp/user.c" -o "$tmp/user_shared" \
	$(pkg-config --cflags --libs voff)
LD_LIBRARY_PATH=$libdir "$tmp/user_shared" | grep -qx "0.1.0 eth"
# shellcheck disable=SC2046
cc "${san[@]}" -std=c11 "$tmp/user.c" -o "$tmp/user_static" \
	$(pkg-config --cflags voff) "$libdir/libvoff.a" \
	$(pkg-config --libs libpcap libmnl)
"$tmp/user_static" | grep -qx "0.1.0 eth"
# find_package(voff) finds the same installation: a CMake project links
# voff::voff (shared) and voff::voff_static and both run.
mkdir "$tmp/cm"
cp "$tmp/user.c" "$tmp/cm/user.c"
cat > "$tmp/cm/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.25)
project(voffuser LANGUAGES C)
find_package(voff 0.1 REQUIRED)
add_executable(user_shared user.c)
target_link_libraries(user_shared PRIVATE voff::voff)
add_executable(user_static user.c)
target_link_libraries(user_static PRIVATE voff::voff_static)
CM
cm_flags=()
[[ ${#san[@]} -gt 0 ]] && cm_flags=("-DCMAKE_C_FLAGS=${san[0]}")
if ! cmake -S "$tmp/cm" -B "$tmp/cm/build" -G Ninja \
	-DCMAKE_PREFIX_PATH="$prefix" "${cm_flags[@]+"${cm_flags[@]}"}" \
	>"$tmp/cm.log" 2>&1 ||
   ! cmake --build "$tmp/cm/build" >>"$tmp/cm.log" 2>&1; then
	cat "$tmp/cm.log"
	echo "find_package(voff) project failed"
	exit 1
fi
LD_LIBRARY_PATH=$libdir "$tmp/cm/build/user_shared" | grep -qx "0.1.0 eth"
"$tmp/cm/build/user_static" | grep -qx "0.1.0 eth"
[[ -e "$libdir/cmake/voff/voffConfig.cmake" ]] ||
	{ echo "missing after install: voffConfig.cmake"; exit 1; }

# The public headers also compile as C++ (extern "C", no C-only syntax).
if command -v g++ >/dev/null; then
	echo '#include <voff/voff.h>' |
		g++ -std=c++17 -Wall -Wextra -Werror -fsyntax-only \
			-I "$prefix/include" -x c++ -
fi
# Only voff_ symbols leave the shared library (type A is the version node).
if nm -D --defined-only "$libdir/libvoff.so" | awk '$2 != "A" {print $3}' |
	grep -v '^voff_' | grep -q .; then
	echo "non-voff symbols exported:"
	nm -D --defined-only "$libdir/libvoff.so" | grep -v ' voff_' | grep -v ' A '
	exit 1
fi
echo "install: ok"
