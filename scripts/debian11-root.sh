#!/usr/bin/env bash
# debian11-root.sh lib OUTDIR ARCH...: builds libvkdml for the wheels inside
# a Debian 11 (bullseye, glibc 2.31) root, so that the library needs no
# glibc symbol newer than 2.31 and its wheel installs on Ubuntu 20.04,
# Debian 11 and later (manylinux_2_31 or lower). A library linked on this
# machine takes the versions of this machine's glibc (Debian 12: 2.34, for
# pthread and dlopen), which older distributions lack.
#
# Each ARCH (x86_64, aarch64; aarch64 with bullseye's cross compiler and
# glibc 2.31 for arm64) lands in OUTDIR/ARCH/libvkdml.so, built from the
# working tree as setup.py builds it (-trimpath, stripped, capi/exports.map).
# The root is made once with debootstrap (minbase plus gcc, libc6-dev and the
# arm64 cross compiler; a few minutes) and cached as CACHE/bullseye-base.tar;
# this machine's Go is copied in, and the working tree, the Go module cache
# (read-only; no network is used) and OUTDIR are bind-mounted into it.
#
# debian11-root.sh wheel-check DIST: installs DIST's wheel for this
# machine into a venv in a fresh copy of that root with Debian 11's Python
# 3.9, numpy 1.19 and pytest (from apt), then imports it, checks its
# version against VERSION, converts pooling indices and runs the tests
# that need no Vulkan device (Debian 11's lavapipe is Vulkan 1.0, below
# vkdml's floor of 1.1): what a Debian 11 user gets from pip.
#
# Needs root (debootstrap, chroot, mounts) and debootstrap (make deps).
# Environment: VKDML_OLD_ROOT_CACHE (default /var/tmp/vkdml-old-root),
# DEBIAN_MIRROR (default http://deb.debian.org/debian), GO (default go).
set -euo pipefail
{
die() { echo "debian11-root: $*" >&2; exit 2; }
usage="usage: debian11-root.sh lib OUTDIR ARCH... (x86_64, aarch64) | wheel-check DIST"
[ $# -ge 2 ] || die "$usage"
mode=$1 out=$2
shift 2
case $mode in lib | wheel-check) ;; *) die "$usage" ;; esac
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${VKDML_OLD_ROOT_CACHE:-/var/tmp/vkdml-old-root}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
go=${GO:-go}
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot and bind mounts)"
command -v debootstrap >/dev/null || die "needs debootstrap, which this machine lacks; run 'make deps'"
for arch in "$@"; do
	case $arch in x86_64 | aarch64) ;; *) die "unknown ARCH $arch (x86_64 or aarch64)" ;; esac
done
mkdir -p "$out" "$cache"
out=$(cd "$out" && pwd)
root=$cache/root
[ "$mode" = lib ] || root=$cache/wheel-check
base=$cache/bullseye-base.tar
exec 9>"$cache/lock"
flock 9 # one build at a time uses the root

say() { printf '[debian11-root %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
mounted() { findmnt -rn -o TARGET | grep -E "^$root(/|$)" | sort -r || true; }
unmount_all() {
	local m
	for m in $(mounted); do umount "$m" 2>/dev/null || umount -l "$m"; done
}
trap unmount_all EXIT

if [ ! -s "$base" ]; then
	say "debootstrap bullseye from $mirror (once; cached in $base)"
	t0=$SECONDS
	tmp=$cache/base.tmp
	unmount_all
	rm -rf --one-file-system "$tmp"
	debootstrap --arch=amd64 --variant=minbase \
		--include=gcc,libc6-dev,gcc-aarch64-linux-gnu,libc6-dev-arm64-cross,ca-certificates \
		bullseye "$tmp" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
		{ tail -20 "$cache/debootstrap.log" >&2; die "debootstrap failed (log $cache/debootstrap.log)"; }
	tar -C "$tmp" -cf "$base.new" . && mv "$base.new" "$base"
	rm -rf --one-file-system "$tmp"
	say "debootstrap done in $((SECONDS - t0)) s"
fi
if [ ! -x "$root/bin/sh" ] || [ "$mode" = wheel-check ]; then # the check's root is always fresh
	unmount_all
	rm -rf --one-file-system "$root"
	mkdir -p "$root"
	tar -C "$root" -xf "$base"
fi
unmount_all # what a killed run may have left
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
in_root() { # in_root CMD: CMD in the root with an empty environment
	chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/go/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}

if [ "$mode" = wheel-check ]; then
	whl=$(ls "$out"/vkdml-*-manylinux_*_"$(uname -m)".whl)
	say "Debian 11's python3, numpy, pytest and Mesa (apt)"
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	in_root DEBIAN_FRONTEND=noninteractive sh -c 'apt-get update -qq && apt-get install -y -qq --no-install-recommends \
		python3 python3-numpy python3-pytest python3-venv libvulkan1 mesa-vulkan-drivers' >"$cache/wheel-check-apt.log" 2>&1 ||
		{ tail -20 "$cache/wheel-check-apt.log" >&2; die "apt-get in the root failed (log $cache/wheel-check-apt.log)"; }
	mkdir -p "$root/check"
	cp "$whl" "$repo/VERSION" "$repo/capi/vkdml.h" "$root/check/"
	cp -r "$repo/python/tests" "$root/check/tests"
	say "pip install $(basename "$whl") in Debian 11"
	in_root sh -c 'cd /check && python3 -m venv --system-site-packages venv && venv/bin/pip install -q --no-index vkdml-*.whl &&
		venv/bin/python -c "
import os, platform, numpy as np, vkdml
print(\"wheel-check:\", os.confstr(\"CS_GNU_LIBC_VERSION\"), \"Python\", platform.python_version(), \"numpy\", np.__version__, \"vkdml\", vkdml.__version__)
assert vkdml.__version__ == open(\"VERSION\").read().strip(), vkdml.__version__
flat = np.array([5, 7, 21, 23], np.uint32).reshape(1, 2, 1, 2)
assert vkdml.indices_to_torch(flat, (1, 2, 4, 4)).ravel().tolist() == [5, 7, 5, 7]
try:
    vkdml.argmax(np.zeros(3))
    raise SystemExit(\"float64 was not refused\")
except vkdml.InvalidArgumentError as e:
    assert \"astype(numpy.float32)\" in str(e), e
" && VKDML_HEADER=/check/vkdml.h VKDML_VERSION_FILE=/check/VERSION venv/bin/python -m pytest -q -p no:cacheprovider \
		tests/test_version.py tests/test_typing.py tests/test_abi_layout.py tests/test_surface.py'
	say "wheel-check: ok"
	exit 0
fi

goroot=$("$go" env GOROOT) || die "no Go ($go) to copy into the root"
modcache=$("$go" env GOMODCACHE)
# This machine's Go, refreshed when it changed.
if [ "$("$root/usr/local/go/bin/go" version 2>/dev/null)" != "$("$goroot/bin/go" version)" ]; then
	rm -rf --one-file-system "$root/usr/local/go"
	cp -a "$goroot" "$root/usr/local/go"
fi
mkdir -p "$root/src" "$root/gomod" "$root/out"
mount --bind "$repo" "$root/src"
mount -o remount,bind,ro "$root/src"
mount --bind "$modcache" "$root/gomod"
mount -o remount,bind,ro "$root/gomod"
mount --bind "$out" "$root/out"

glibc=$(in_root ldd --version | sed -n '1s/.* //p')
for arch in "$@"; do
	case $arch in
	x86_64) env="GOARCH=amd64 CC=gcc" ;;
	aarch64) env="GOARCH=arm64 CC=aarch64-linux-gnu-gcc" ;;
	esac
	say "libvkdml for $arch in Debian 11 (glibc $glibc)"
	mkdir -p "$out/$arch"
	# The same build as setup.py's build_library.
	in_root GOMODCACHE=/gomod GOFLAGS=-buildvcs=false GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=1 $env \
		/bin/sh -c "cd /src && go build -trimpath -buildmode=c-shared \
			-ldflags='-s -w -extldflags=-Wl,--version-script=/src/capi/exports.map' \
			-o /out/$arch/libvkdml.so ./capi && rm -f /out/$arch/libvkdml.h"
	ls -l "$out/$arch/libvkdml.so"
done
}
