#!/bin/sh
# cross-android.sh: checks that vkdml builds for android/arm64.
#
# With the Android NDK (ANDROID_NDK_HOME, or NDK, naming its folder) it
# builds bin/vkdml-android-arm64 with the NDK's clang for API level 29.
# Without it (Debian has no NDK package) it compiles every package, Go and
# C, for GOOS=android GOARCH=arm64 with the arm64 cross compiler,
# -D__ANDROID__ and glibc's headers, and vets them; only the link, which
# needs bionic and its liblog, is left out. runtime/cgo's Android file
# includes <android/log.h>, the one NDK header a build needs, so a copy of
# the two declarations it uses is written into a temporary folder for that.
set -eu
cd "$(dirname "$0")/.."
GO=${GO:-go}
ndk=${ANDROID_NDK_HOME:-${NDK:-}}
export CGO_ENABLED=1 GOOS=android GOARCH=arm64
if [ -n "$ndk" ]; then
	CC=$(ls "$ndk"/toolchains/llvm/prebuilt/*/bin/aarch64-linux-android29-clang 2>/dev/null | head -n 1)
	[ -n "$CC" ] || { echo "cross-android: no aarch64-linux-android29-clang under $ndk" >&2; exit 1; }
	export CC
	$GO build -o bin/vkdml-android-arm64 ./cmd/vkdml
	echo "cross-android: built bin/vkdml-android-arm64 with $CC"
	exit 0
fi
sh scripts/need.sh cross-android aarch64-linux-gnu-gcc
stub=$(mktemp -d)
trap 'rm -rf "$stub"' EXIT
mkdir "$stub/android"
cat >"$stub/android/log.h" <<'EOF'
#include <stdarg.h>
enum { ANDROID_LOG_FATAL = 7 };
int __android_log_vprint(int prio, const char *tag, const char *fmt, va_list ap);
EOF
export CC=aarch64-linux-gnu-gcc CGO_CFLAGS="-O2 -g -D__ANDROID__ -I$stub"
pkgs=$($GO list -f '{{if and .GoFiles (ne .Name "main")}}{{.ImportPath}}{{end}}' ./...)
$GO build $pkgs
$GO vet ./...
echo "cross-android: every package compiles and vets for android/arm64 (no NDK: glibc headers, -D__ANDROID__, not linked)"
