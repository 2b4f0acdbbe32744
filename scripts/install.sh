#!/bin/sh
# install.sh install|uninstall: puts the built command and libvkdml, with
# the header, the pkg-config file and the CMake package, under
# $DESTDIR$PREFIX (make install runs it after building bin/vkdml and
# bin/$SONAME), or removes them again.
#
#   bin/vkdml
#   lib/$SONAME, lib/libvkdml.so -> $SONAME
#   include/vkdml.h
#   lib/pkgconfig/vkdml.pc
#   lib/cmake/vkdml/vkdmlConfig.cmake, vkdmlConfigVersion.cmake
#
# The packages' version is the release number in the VERSION file, without
# the command's build metadata: CMake compares versions as numbers, so a
# `+g0123abc` suffix cannot go there.
set -eu
cd "$(dirname "$0")/.."
mode=${1:-install}
PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
SONAME=${SONAME:-libvkdml.so.1}
case $PREFIX in
/*) ;;
*) echo "install.sh: PREFIX must be an absolute path, got '$PREFIX'" >&2; exit 2 ;;
esac
# Any other character goes (vkdml.pc escapes it, below), except those no
# consumer could read back: a newline ends a line of vkdml.pc; pkg-config
# (pkgconf 1.8) prints '$', '(' and ')' without the backslash that keeps a
# shell from expanding or parsing them; CMake reads ';' as a list
# separator in the package's paths.
case $PREFIX in
*'
'* | *'$'* | *'('* | *')'* | *';'*)
	echo "install.sh: PREFIX '$PREFIX' holds a newline, '\$', '(', ')' or ';', which pkg-config or CMake cannot carry in a path" >&2
	exit 2
	;;
esac
root=$DESTDIR$PREFIX
files="bin/vkdml lib/$SONAME lib/libvkdml.so include/vkdml.h lib/pkgconfig/vkdml.pc
lib/cmake/vkdml/vkdmlConfig.cmake lib/cmake/vkdml/vkdmlConfigVersion.cmake"

if [ "$mode" = uninstall ]; then
	for f in $files; do
		rm -f "$root/$f"
	done
	rmdir "$root/lib/cmake/vkdml" 2>/dev/null || true
	echo "removed vkdml from $root"
	exit 0
fi
if [ "$mode" != install ]; then
	echo "install.sh: install or uninstall, not '$mode'" >&2
	exit 2
fi

for f in bin/vkdml "bin/$SONAME" capi/vkdml.h; do
	[ -f "$f" ] || { echo "install.sh: $f is missing; run 'make install', which builds it" >&2; exit 1; }
done

version=$(cat VERSION)

# Each file goes in through a temporary name and a rename, so that a
# program running from this prefix never sees a half-written library.
put() { # put MODE SRC DEST
	install -m "$1" "$2" "$3.tmp$$"
	mv -f "$3.tmp$$" "$3"
}
# vkdml.pc's prefix: pkg-config splits Cflags and Libs into words as a
# shell does and prints them escaped for one (make's recipes, eval), so
# every character but the plainest takes a backslash; then the backslashes,
# '|' and '&' are escaped again for sed's replacement.
pc_prefix=$(printf '%s\n' "$PREFIX" | sed -e 's/[^A-Za-z0-9_./+,:@%=-]/\\&/g' -e 's/[\\|&]/\\&/g')
fill() { # fill TEMPLATE: the template with this installation's values
	sed -e "s|@PREFIX@|$pc_prefix|g" -e "s|@VERSION@|$version|g" \
		-e "s|@VERSION_MAJOR@|${version%%.*}|g" -e "s|@SONAME@|$SONAME|g" "$1"
}

install -d "$root/bin" "$root/lib/pkgconfig" "$root/lib/cmake/vkdml" "$root/include"
put 0755 bin/vkdml "$root/bin/vkdml"
put 0644 "bin/$SONAME" "$root/lib/$SONAME"
ln -sfn "$SONAME" "$root/lib/libvkdml.so"
put 0644 capi/vkdml.h "$root/include/vkdml.h"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
fill capi/pkgconfig/vkdml.pc.in >"$tmp" && put 0644 "$tmp" "$root/lib/pkgconfig/vkdml.pc"
fill capi/cmake/vkdmlConfig.cmake.in >"$tmp" && put 0644 "$tmp" "$root/lib/cmake/vkdml/vkdmlConfig.cmake"
fill capi/cmake/vkdmlConfigVersion.cmake.in >"$tmp" && put 0644 "$tmp" "$root/lib/cmake/vkdml/vkdmlConfigVersion.cmake"

# A library installed into the running system is found by ld.so through
# its cache, which only ldconfig refreshes; a staged DESTDIR install is
# someone else's to register.
if [ -z "$DESTDIR" ] && [ "$(id -u)" = 0 ] && command -v ldconfig >/dev/null 2>&1; then
	ldconfig
fi
echo "installed vkdml $version ($SONAME) under $root"
