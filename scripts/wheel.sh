#!/bin/sh
# wheel.sh OUTDIR ARCH...: builds vkdml's Python wheels into OUTDIR, one per
# ARCH (x86_64 and aarch64), each tagged py3-none-manylinux_2_N_ARCH from
# the library it carries (setup.py reads N and ARCH from the ELF file). The
# libraries are built first in a Debian 11 root (scripts/debian11-root.sh lib:
# glibc 2.31, so N <= 31; needs root and debootstrap), then each wheel
# takes its library through $VKDML_PREBUILT_LIBRARY. Needs Go, and
# Debian's python3-build; `make deps` installs the last.
set -eu
out=$1
shift
cd "$(dirname "$0")/.."
mkdir -p "$out"
out=$(cd "$out" && pwd)
libs=$(mktemp -d)
trap 'rm -rf "$libs"' EXIT
bash scripts/debian11-root.sh lib "$libs" "$@"
for arch in "$@"; do
	rm -rf python/build
	VKDML_PREBUILT_LIBRARY="$libs/$arch/libvkdml.so" \
		${PYTHON:-/usr/bin/python3} -m build --no-isolation --wheel --outdir "$out" python >/dev/null
done
rm -rf python/build
ls "$out"/*.whl
