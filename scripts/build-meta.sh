#!/bin/sh
# build-meta.sh RELEASE: the build metadata of a build from this checkout,
# which the Makefile appends to RELEASE (the VERSION file's) after a '+':
# nothing at the clean tag vRELEASE or outside a git checkout, else the
# commit, g0123456789ab, with .dirty when tracked files have changes.
set -eu
cd "$(dirname "$0")/.."
release=$1
git rev-parse --verify -q HEAD >/dev/null 2>&1 || exit 0
clean=1
git diff --quiet HEAD -- 2>/dev/null || clean=0
if [ "$clean" = 1 ] && git describe --tags --exact-match --match "v$release" >/dev/null 2>&1; then
	exit 0
fi
meta=g$(git rev-parse --short=12 HEAD)
[ "$clean" = 1 ] || meta=$meta.dirty
echo "$meta"
