#!/usr/bin/env bash
# old-root-lib.sh OUTDIR ARCH...: builds libvkdml for the wheels inside a
# Debian 11 (bullseye, glibc 2.31) root, so that the library needs no
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
# Needs root (debootstrap, chroot, mounts) and debootstrap (make deps).
# Environment: VKDML_OLD_ROOT_CACHE (default /var/tmp/vkdml-old-root),
# DEBIAN_MIRROR (default http://deb.debian.org/debian), GO (default go).
set -euo pipefail
{
die() { echo "old-root-lib: $*" >&2; exit 2; }
[ $# -ge 2 ] || die "usage: old-root-lib.sh OUTDIR ARCH... (x86_64, aarch64)"
out=$1
shift
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${VKDML_OLD_ROOT_CACHE:-/var/tmp/vkdml-old-root}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
go=${GO:-go}
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot and bind mounts)"
command -v debootstrap >/dev/null || die "needs debootstrap, which this machine lacks; run 'make deps'"
goroot=$("$go" env GOROOT) || die "no Go ($go) to copy into the root"
modcache=$("$go" env GOMODCACHE)
for arch in "$@"; do
	case $arch in x86_64 | aarch64) ;; *) die "unknown ARCH $arch (x86_64 or aarch64)" ;; esac
done
mkdir -p "$out" "$cache"
out=$(cd "$out" && pwd)
root=$cache/root
base=$cache/bullseye-base.tar
exec 9>"$cache/lock"
flock 9 # one build at a time uses the root

say() { printf '[old-root %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
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
if [ ! -x "$root/bin/sh" ]; then
	unmount_all
	rm -rf --one-file-system "$root"
	mkdir -p "$root"
	tar -C "$root" -xf "$base"
fi
# This machine's Go, refreshed when it changed.
if [ "$("$root/usr/local/go/bin/go" version 2>/dev/null)" != "$("$goroot/bin/go" version)" ]; then
	rm -rf --one-file-system "$root/usr/local/go"
	cp -a "$goroot" "$root/usr/local/go"
fi
unmount_all # what a killed run may have left
mkdir -p "$root/src" "$root/gomod" "$root/out"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind "$repo" "$root/src"
mount -o remount,bind,ro "$root/src"
mount --bind "$modcache" "$root/gomod"
mount -o remount,bind,ro "$root/gomod"
mount --bind "$out" "$root/out"

glibc=$(chroot "$root" /usr/bin/ldd --version | sed -n '1s/.* //p')
for arch in "$@"; do
	case $arch in
	x86_64) env="GOARCH=amd64 CC=gcc" ;;
	aarch64) env="GOARCH=arm64 CC=aarch64-linux-gnu-gcc" ;;
	esac
	say "libvkdml for $arch in Debian 11 (glibc $glibc)"
	mkdir -p "$out/$arch"
	# The same build as setup.py's build_library.
	chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/go/bin:/usr/bin:/bin \
		GOMODCACHE=/gomod GOFLAGS=-buildvcs=false GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=1 $env \
		/bin/sh -c "cd /src && go build -trimpath -buildmode=c-shared \
			-ldflags='-s -w -extldflags=-Wl,--version-script=/src/capi/exports.map' \
			-o /out/$arch/libvkdml.so ./capi && rm -f /out/$arch/libvkdml.h"
	ls -l "$out/$arch/libvkdml.so"
done
}
