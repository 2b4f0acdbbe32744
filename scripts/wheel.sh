#!/bin/sh
# wheel.sh OUTDIR ARCH...: builds vkdml's Python wheels into OUTDIR, one per
# ARCH (x86_64 and aarch64, cross-built with aarch64-linux-gnu-gcc), each
# tagged py3-none-manylinux_2_N_ARCH from the library it carries (setup.py
# reads N and ARCH from the ELF file). Needs Go, a C compiler and Debian's
# python3-build; `make deps` installs the last.
set -eu
out=$1
shift
cd "$(dirname "$0")/.."
mkdir -p "$out"
out=$(cd "$out" && pwd)
for arch in "$@"; do
	rm -rf python/build
	case $arch in
	x86_64) ;;
	aarch64) export VKDML_GOARCH=arm64 CC="${CC_AARCH64:-aarch64-linux-gnu-gcc}" ;;
	*) echo "wheel.sh: unknown ARCH $arch (x86_64 or aarch64)" >&2; exit 2 ;;
	esac
	${PYTHON:-/usr/bin/python3} -m build --no-isolation --wheel --outdir "$out" python >/dev/null
	unset VKDML_GOARCH CC
done
rm -rf python/build
ls "$out"/*.whl
