#!/usr/bin/env bash
# make parity-live: `vkdml.exe parity --live` under Wine. One Windows
# process runs each case through the real DirectML.dll 1.15.4 (Wine's d3d12,
# vkd3d) and through vkdml (winevulkan), both on the Mesa 25 lavapipe of the
# parity rig (.ci/wine-rig.sh: its cache, prefix, bcryptprimitives.dll stub
# and Xvfb), and fails on any difference that docs/semantics.md does not
# explain. Under Wine the DXGI adapter's and winevulkan's LUIDs differ, so
# vkdml pairs the devices by naming (its header says so).
#
#   1. the rig's packages, DirectML.dll and the Mesa 25 lavapipe (make
#      parity's steps 1-3; without backports it fails: on the system Mesa
#      22.3 d3d12 has no 16-bit types and winevulkan's device would not be
#      the one DirectML runs on);
#   2. vkdml.exe (cgo, mingw) next to DirectML.dll in the cache;
#   3. the prefix and Xvfb, then `vkdml.exe parity --live` with the random
#      cases (PARITY_LIVE_RANDOM, default 300; seed PARITY_LIVE_SEED, default
#      from the clock, printed) or, with PARITY_LIVE_CORPUS=DIR, a corpus
#      (--skip-no-answer: the cases its goldens record as no answer are not
#      given to DirectML).
#      Differences are saved in CACHE/live-diffs, a corpus that
#      `vkdml parity --corpus CACHE/live-diffs` replays.
#
# Environment: PARITY_CACHE (default .cache/parity), PARITY_LIVE_RANDOM,
# PARITY_LIVE_SEED, PARITY_LIVE_CORPUS, PARITY_CASE_TIMEOUT (seconds per
# DirectML case, default 60), WIN_CC (default x86_64-w64-mingw32-gcc-win32).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
GO=${GO:-go}
WIN_CC=${WIN_CC:-x86_64-w64-mingw32-gcc-win32}
start=$(date +%s)
say() { printf 'parity-live: %s\n' "$*"; }
# shellcheck source=.ci/wine-rig.sh
. .ci/wine-rig.sh

rig_init "${PARITY_CACHE:-.cache/parity}"
CACHE=$RIG_CACHE

# 1. Packages, DirectML.dll, Mesa 25.
rig_packages
rig_directml
if ! rig_mesa; then
	say "the Mesa 25 lavapipe from bookworm-backports is not available (see above); parity --live needs it"
	exit 1
fi

# 2. vkdml.exe beside DirectML.dll.
t0=$(date +%s)
CGO_ENABLED=1 GOOS=windows GOARCH=amd64 CC=$WIN_CC "$GO" build -o "$CACHE/vkdml.exe" ./cmd/vkdml
say "built vkdml.exe in $(($(date +%s) - t0)) s"

# 3. The prefix, the display and the run. Relative paths: Wine maps the
# working folder to a DOS drive.
rig_prefix mesa25
trap rig_stop EXIT
rig_display_start
rel_cache=$(realpath --relative-to="$ROOT" "$CACHE")
rm -rf "$CACHE/live-diffs"
args=(parity --live --dml "$rel_cache/DirectML.dll" --out "$rel_cache/live-diffs" --case-timeout "${PARITY_CASE_TIMEOUT:-60}s")
if [ -n "${PARITY_LIVE_CORPUS:-}" ]; then
	# The cases whose goldens record no answer hang Wine's d3d12 on
	# lavapipe (a MAX_POOLING2 with a zero dilation): they are compared as
	# no answer, explained by known-differences.json, without running.
	args+=(--corpus "$PARITY_LIVE_CORPUS" --skip-no-answer)
else
	args+=(--random "${PARITY_LIVE_RANDOM:-300}")
	[ -z "${PARITY_LIVE_SEED:-}" ] || args+=(--seed "$PARITY_LIVE_SEED")
fi
say "vkdml.exe ${args[*]} (DirectML on $RIG_DESC; display $DISPLAY)"
status=0
timeout -k 10 1800 env "${RIG_ENV[@]}" wine64 "$rel_cache/vkdml.exe" "${args[@]}" 2>"$CACHE/live-wine.log" || status=$?
if [ "$status" != 0 ]; then
	tail -20 "$CACHE/live-wine.log"
fi
say "done in $(($(date +%s) - start)) s (status $status)"
exit $status
