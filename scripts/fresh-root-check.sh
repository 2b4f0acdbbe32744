#!/usr/bin/env bash
# fresh-root-check.sh proves the README's two commands on a truly fresh
# Debian 12 machine that has only Go and a C compiler: it builds a clean
# bookworm root with debootstrap, copies in this machine's Go, installs gcc,
# make, git and ca-certificates with apt (as a new user would), clones the
# repository's committed HEAD (with ../shared beside it, when there is one),
# and runs `make run` and then `make test` inside a chroot, with an empty
# environment.
#
# Usage (as root; it mounts /proc, /sys and /dev inside the root):
#
#   bash scripts/fresh-root-check.sh            # fresh root, make run, make test
#   bash scripts/fresh-root-check.sh --keep     # ... and keep the root afterwards
#   bash scripts/fresh-root-check.sh --reuse    # reuse a kept root (no longer fresh:
#                                               # the Debian packages are already there)
#   bash scripts/fresh-root-check.sh --only run # only `make run` (or --only test)
#
# Other options: --rev REV (commit to clone; default HEAD), --repo DIR,
# --shared DIR (default REPO/../shared), --cache DIR (default
# $VKDML_FRESH_CACHE or /var/tmp/vkdml-fresh-root), --mirror URL,
# --refresh (rebuild the cached debootstrap tarball), --nice N (default 10),
# --goroot DIR (the Go to copy in; default `go env GOROOT`; e.g. the minimum
# version: GOTOOLCHAIN=go1.24.0 go env GOROOT),
# --no-host-ca (do not copy this machine's /usr/local/share/ca-certificates
# into the root; they are copied by default so that a network that
# intercepts TLS lets `go` download modules).
#
# The pristine debootstrap root is cached as CACHE/bookworm-base.tar, so a
# second run skips debootstrap; every run without --reuse starts from a fresh
# copy of it. Logs go to CACHE/logs/; the summary is printed and written to
# CACHE/last-result.txt. The exit status is 0 only when every step passed.
#
# `make test` runs with CI=true, so a test that needs a Vulkan device fails
# rather than skips; nothing else from this machine's environment goes in.
set -euo pipefail
# The whole script is one block, read before it runs, so that editing the
# file during a run (a git pull) cannot change what the run executes.
{

repo=$(cd "$(dirname "$0")/.." && pwd)
shared=""
rev=HEAD
cache=${VKDML_FRESH_CACHE:-/var/tmp/vkdml-fresh-root}
mirror=http://deb.debian.org/debian
keep=0 reuse=0 refresh=0 niceness=10 host_ca=1 goroot=""
steps="run test"

die() { echo "fresh-root: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--keep) keep=1 ;;
	--reuse) reuse=1 keep=1 ;;
	--refresh) refresh=1 ;;
	--no-host-ca) host_ca=0 ;;
	--only) shift; [ "${1:-}" = run ] || [ "${1:-}" = test ] || die "--only takes run or test"; steps=$1 ;;
	--rev) shift; rev=${1:?--rev needs a commit} ;;
	--repo) shift; repo=$(cd "${1:?--repo needs a directory}" && pwd) ;;
	--shared) shift; shared=${1:?--shared needs a directory} ;;
	--cache) shift; cache=${1:?--cache needs a directory} ;;
	--mirror) shift; mirror=${1:?--mirror needs a URL} ;;
	--nice) shift; niceness=${1:?--nice needs a number} ;;
	--goroot) shift; goroot=${1:?--goroot needs a directory} ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument $1 (try --help)" ;;
	esac
	shift
done
shared=${shared:-$repo/../shared}
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot and mounts)"
goroot=${goroot:-$(go env GOROOT 2>/dev/null)} || die "no Go on this machine to copy into the root"
[ -x "$goroot/bin/go" ] || die "no Go at $goroot (give --goroot DIR)"
commit=$(git -C "$repo" rev-parse --verify "$rev^{commit}") || die "no commit $rev in $repo"

root=$cache/root
base=$cache/bookworm-base.tar
logs=$cache/logs
mkdir -p "$cache" "$logs"
exec 9>"$cache/lock"
flock -n 9 || die "another fresh-root check is running (lock $cache/lock)"

say() { printf '[fresh-root %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }

# mounted lists the mount points under the work root, deepest first.
mounted() { findmnt -rn -o TARGET | grep -E "^$root(/|$)" | sort -r || true; }
unmount_all() {
	local m
	for m in $(mounted); do umount "$m" 2>/dev/null || umount -l "$m"; done
}
# remove_root deletes the work root, never while anything is mounted in it.
remove_root() {
	unmount_all
	[ -z "$(mounted)" ] || die "still mounted under $root; not deleting it"
	rm -rf --one-file-system "$root"
}
child=""
trap 'unmount_all' EXIT
# On a signal, stop the running step (its own process group) and unmount.
trap '[ -z "$child" ] || kill -TERM -- "-$child" 2>/dev/null; exit 130' INT TERM

in_root() { # runs a shell command in the root with an empty, fresh environment
	chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
		PATH=/usr/local/go/bin:/root/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		"$@" /bin/bash -c "$cmd"
}

# 1. The pristine Debian 12 root, cached as a tarball.
if ! command -v debootstrap >/dev/null; then
	say "installing debootstrap"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi
if [ "$refresh" = 1 ] || [ ! -s "$base" ]; then
	say "debootstrap bookworm from $mirror (once; cached in $base)"
	t0=$SECONDS
	tmp=$cache/base.tmp
	rm -rf --one-file-system "$tmp"
	nice -n "$niceness" debootstrap --arch=amd64 bookworm "$tmp" "$mirror" >"$logs/debootstrap.log" 2>&1 ||
		{ tail -20 "$logs/debootstrap.log"; die "debootstrap failed (log $logs/debootstrap.log)"; }
	tar -C "$tmp" -cf "$base.new" . && mv "$base.new" "$base"
	rm -rf --one-file-system "$tmp"
	say "debootstrap done in $((SECONDS - t0)) s"
fi

# 2. A fresh work root: the base, apt sources as a default install has them,
#    Go copied in, the C compiler and tools from apt.
if [ "$reuse" = 1 ] && [ -x "$root/usr/local/go/bin/go" ]; then
	say "reusing $root (not fresh: packages from earlier runs stay installed)"
	rm -rf "$root/root/src" "$root/root/.cache/vkdml"
else
	[ "$reuse" = 1 ] && say "nothing to reuse at $root; building a fresh root"
	say "fresh root at $root from $base"
	remove_root
	mkdir -p "$root"
	tar -C "$root" -xf "$base"
	cat >"$root/etc/apt/sources.list" <<-EOF
		deb $mirror bookworm main
		deb $mirror bookworm-updates main
		deb http://security.debian.org/debian-security bookworm-security main
	EOF
fi
rm -rf --one-file-system "$root/usr/local/go"
cp -a "$goroot" "$root/usr/local/go"
cp /etc/resolv.conf "$root/etc/resolv.conf"
unmount_all # what a killed run may have left
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"

t0=$SECONDS
say "apt-get install gcc make git ca-certificates (the machine's Go and C compiler)"
cmd='export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq gcc make git ca-certificates >/dev/null'
in_root >"$logs/toolchain.log" 2>&1 || { tail -20 "$logs/toolchain.log"; die "installing the toolchain failed"; }
# A network that intercepts TLS needs its CA in any machine on it, fresh or
# not: the root trusts the same local CAs as this machine (none on most).
if [ "$host_ca" = 1 ] && ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
	cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
	cmd='update-ca-certificates >/dev/null 2>&1'
	in_root
	say "added this machine's local CAs: $(cd /usr/local/share/ca-certificates && echo *.crt)"
fi
toolchain_s=$((SECONDS - t0))

# 3. The repository's committed tree, with ../shared beside it.
mkdir -p "$root/root/src"
git clone -q --no-checkout "$repo" "$root/root/src/vkdml"
git -C "$root/root/src/vkdml" checkout -q --detach "$commit"
[ ! -d "$shared" ] || cp -a "$shared/." "$root/root/src/shared"
cmd='go version; gcc --version | head -1; . /etc/os-release; echo "$PRETTY_NAME"'
in_root | sed 's/^/  /'
say "repo at $(git -C "$repo" log -1 --format='%h %s' "$commit")"

# 4. The README's two commands.
result=0
summary="fresh-root check of $(git -C "$repo" log -1 --format=%h "$commit") on $(date -u '+%Y-%m-%d %H:%M UTC')
  toolchain install (apt: gcc make git ca-certificates): ${toolchain_s} s"
for step in $steps; do
	say "make $step"
	t0=$SECONDS
	cmd="cd /root/src/vkdml && nice -n $niceness make $step"
	# In its own session and waited for with wait, so that a signal to
	# this script is handled at once rather than after the step.
	root="$root" cmd="$cmd" setsid -w bash -c "$(declare -f in_root); in_root CI=true" >"$logs/make-$step.log" 2>&1 &
	child=$!
	if wait "$child"; then
		child=""
		status=PASS
	else
		child=""
		status=FAIL result=1
		tail -40 "$logs/make-$step.log"
	fi
	line="  make $step: $status in $((SECONDS - t0)) s, load average $(cut -d' ' -f1-3 /proc/loadavg) (log $logs/make-$step.log)"
	if [ "$status" = FAIL ]; then
		failed=$(grep -E '^(--- FAIL|FAIL|panic:|make: \*\*\*)' "$logs/make-$step.log" | sort -u | head -20 || true)
		[ -z "$failed" ] || line="$line
$(printf '%s\n' "$failed" | sed 's/^/    /')"
	fi
	say "${line#  }"
	summary="$summary
$line"
	[ "$status" = PASS ] || break # make test after a failed make run says nothing new
done

cmd='dpkg-query -W -f="\${Package} \${Version}, " mesa-vulkan-drivers libvulkan1 vulkan-validationlayers glslc 2>/dev/null; true'
summary="$summary
  root's packages: $(in_root 2>/dev/null | sed 's/, $//')"
unmount_all
if [ "$keep" = 0 ]; then remove_root; else say "kept $root (--reuse uses it)"; fi
printf '%s\n' "$summary" | tee "$cache/last-result.txt"
exit $result
}
