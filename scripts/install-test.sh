#!/bin/sh
# install-test.sh: make install into a temporary DESTDIR root, under a
# PREFIX with spaces, a quote and a '#' in it, then, from a
# folder outside the repository, build and run the README's C program
# three times: with the flags `pkg-config --cflags --libs vkdml` gives, as
# a shell reads them (eval) and as a Makefile's $(shell pkg-config ...)
# does, and through CMake's find_package(vkdml). Checks the library's
# SONAME and that the programs ask for it, runs the installed command,
# checks that a PREFIX pkg-config cannot carry is refused, and uninstalls.
# Needs pkg-config, cmake and readelf (make deps) and a Vulkan device
# (lavapipe).
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
prefix="/opt/vkdml install test's #1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
lib=$root$prefix/lib
fail() { echo "install-test: $*" >&2; exit 1; }

for tool in pkg-config cmake readelf "${CC:-cc}"; do
	command -v "$tool" >/dev/null 2>&1 || fail "needs $tool: run 'make deps'"
done

echo "install-test: make install DESTDIR=$root PREFIX=$prefix"
${MAKE:-make} -s -C "$repo" install DESTDIR="$root" PREFIX="$prefix" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log" >&2; fail "make install failed"; }
for f in bin/vkdml lib/libvkdml.so.1 lib/libvkdml.so include/vkdml.h lib/pkgconfig/vkdml.pc \
	lib/cmake/vkdml/vkdmlConfig.cmake lib/cmake/vkdml/vkdmlConfigVersion.cmake; do
	[ -e "$root$prefix/$f" ] || fail "make install did not install $f"
done
[ "$(readlink "$lib/libvkdml.so")" = libvkdml.so.1 ] || fail "lib/libvkdml.so does not link to libvkdml.so.1"

soname=$(readelf -d "$lib/libvkdml.so.1" | grep '(SONAME)' || true)
echo "install-test: readelf -d lib/libvkdml.so.1:$soname"
case $soname in
*"[libvkdml.so.1]"*) ;;
*) fail "lib/libvkdml.so.1 has no SONAME libvkdml.so.1" ;;
esac

# The README's program, as a reader would copy it.
work=$tmp/work
mkdir -p "$work"
sed -n '/^\/\* argmax\.c:/,/^```$/p' "$repo/README.md" | sed '$d' >"$work/argmax.c"
grep -q 'int main' "$work/argmax.c" || fail "no argmax.c program found in README.md"
want='argmax = [2, 2]'

# The program must find libvkdml.so.1 through its SONAME: the pkg-config
# build has no rpath, so LD_LIBRARY_PATH points at the staged lib folder
# (where a real install would rely on ld.so's cache); CMake adds the rpath.
needs_soname() { # needs_soname PROGRAM
	readelf -d "$1" | grep '(NEEDED)' | grep -q '\[libvkdml\.so\.1\]' ||
		fail "$1 does not name libvkdml.so.1 as NEEDED: $(readelf -d "$1" | grep NEEDED)"
}
check_output() { # check_output WHAT OUTPUT
	[ "$2" = "$want" ] || fail "$1 printed '$2', want '$want'"
	echo "install-test: $1: $2"
}

cd "$work"
export PKG_CONFIG_PATH="$lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$root" PKG_CONFIG_LIBDIR="$lib/pkgconfig"
flags=$(pkg-config --cflags --libs vkdml)
echo "install-test: pkg-config --cflags --libs vkdml: $flags ($(pkg-config --modversion vkdml))"
# pkg-config's output is shell words, escaped: eval reads it as make's
# recipes do (plain word splitting would cut the prefix at its space).
eval "${CC:-cc} -std=c11 -Wall -Wextra -Werror argmax.c $flags -o argmax-pkgconfig"
needs_soname argmax-pkgconfig
check_output "pkg-config build" "$(LD_LIBRARY_PATH="$lib" ./argmax-pkgconfig)"
cat >Makefile <<'MAKE'
CFLAGS += -std=c11 -Wall -Wextra -Werror $(shell pkg-config --cflags vkdml)
LDLIBS += $(shell pkg-config --libs vkdml)
argmax-make: argmax.c
	$(CC) $(CFLAGS) argmax.c $(LDLIBS) -o $@
MAKE
${MAKE:-make} -s argmax-make CC="${CC:-cc}" >"$tmp/make.log" 2>&1 || { cat "$tmp/make.log" >&2; fail "the Makefile build failed"; }
needs_soname argmax-make
check_output "Makefile build" "$(LD_LIBRARY_PATH="$lib" ./argmax-make)"
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR

cat >CMakeLists.txt <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(vkdml_install_test C)
# No installation is newer than release 999: the version file refuses it.
find_package(vkdml 999 QUIET)
if(vkdml_FOUND)
  message(FATAL_ERROR "find_package(vkdml 999) accepted version ${vkdml_VERSION}")
endif()
# The release's major (the C ABI's version) is accepted, and the version
# found is the VERSION file's release.
find_package(vkdml ${release_major} REQUIRED)
if(NOT vkdml_VERSION STREQUAL release)
  message(FATAL_ERROR "find_package(vkdml) found version ${vkdml_VERSION}; VERSION holds ${release}")
endif()
message(STATUS "vkdml ${vkdml_VERSION} from ${vkdml_DIR}")
add_executable(argmax argmax.c)
set_property(TARGET argmax PROPERTY C_STANDARD 11)
target_link_libraries(argmax PRIVATE vkdml::vkdml)
CMAKE
release=$(cat "$repo/VERSION")
cmake -S . -B build -DCMAKE_PREFIX_PATH="$root$prefix" -Drelease="$release" -Drelease_major="${release%%.*}" \
	>"$tmp/cmake.log" 2>&1 ||
	{ cat "$tmp/cmake.log" >&2; fail "cmake configure failed"; }
grep 'vkdml .* from' "$tmp/cmake.log" | sed 's/^-- /install-test: cmake: find_package: /'
cmake --build build >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log" >&2; fail "cmake --build failed"; }
needs_soname build/argmax
check_output "CMake build" "$(./build/argmax)"
# Every surface reports the VERSION file's release: vkdml.pc, the CMake
# package (above), the command and libvkdml's vkdml_version() (with at
# most build metadata after a '+').
pc_version=$(PKG_CONFIG_LIBDIR="$lib/pkgconfig" pkg-config --modversion vkdml)
[ "$pc_version" = "$release" ] || fail "vkdml.pc says version $pc_version; VERSION holds $release"
printf '#include <stdio.h>\n#include <vkdml.h>\nint main(void) { puts(vkdml_version()); return 0; }\n' >version.c
${CC:-cc} -std=c11 -Wall -Werror -I"$root$prefix/include" version.c -L"$lib" -lvkdml -o version
for v in "$(LD_LIBRARY_PATH="$lib" ./version)" "$("$root$prefix/bin/vkdml" version | sed 's/^vkdml //')"; do
	case $v in "$release" | "$release"+*) ;; *) fail "vkdml_version() or vkdml version says $v; VERSION holds $release" ;; esac
done
echo "install-test: vkdml.pc, find_package(vkdml ${release%%.*}), vkdml_version() and vkdml version agree on $release"

installed=$("$root$prefix/bin/vkdml" version)
echo "install-test: bin/vkdml version: $installed"
case $installed in vkdml\ *) ;; *) fail "bin/vkdml version printed '$installed'" ;; esac

# A PREFIX no consumer could read back is refused, naming it, before
# anything is written.
for bad in '/opt/vkdml$HOME' '/opt/vk;dml' '/opt/vkdml (1)'; do
	if out=$(DESTDIR="$tmp/refused" PREFIX="$bad" sh "$repo/scripts/install.sh" install 2>&1); then
		fail "install.sh took PREFIX '$bad'"
	fi
	case $out in *"PREFIX '$bad'"*) ;; *) fail "install.sh's refusal of PREFIX '$bad' does not name it: $out" ;; esac
	[ ! -e "$tmp/refused" ] || fail "install.sh wrote under DESTDIR before refusing PREFIX '$bad'"
done
echo "install-test: PREFIX with \$, ; or () refused"

${MAKE:-make} -s -C "$repo" uninstall DESTDIR="$root" PREFIX="$prefix" >"$tmp/uninstall.log" 2>&1 ||
	{ cat "$tmp/uninstall.log" >&2; fail "make uninstall failed"; }
left=$(find "$root$prefix" -type f -o -type l)
[ -z "$left" ] || fail "make uninstall left $left"
echo "install-test: ok"
