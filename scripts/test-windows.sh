#!/usr/bin/env bash
# make test-windows: vkdml built for windows/amd64 and tested under Wine,
# with winevulkan on the system's lavapipe (Mesa 22.3), the same device the
# Linux tests use.
#
#   1. make cross-windows: vkdml.exe, vkdml.dll, vkdml.lib, vkdml.h;
#   2. every package's test binary (go test -c, GOOS=windows), the C
#      example and the C interface's tests (capi/tests/abi_test.c), linked
#      against vkdml.lib as an MSVC user would, into CACHE/windows;
#   3. the parity rig's Wine prefix with the bcryptprimitives.dll stub that
#      Go binaries need under Wine 8 (.ci/wine-rig.sh; the prefix is shared
#      with make parity), and Xvfb, without which winevulkan finds no
#      Vulkan at all;
#   4. runs each, CI=true, in its package folder, with the host's Khronos
#      validation layer on below winevulkan (VK_INSTANCE_LAYERS; winevulkan
#      lists no layers, so VKDML_WINE_HOST_VALIDATION=1 tells debug mode
#      that the layer is there). Validation messages reach vkdml's debug
#      messenger as on Linux; one printed by a device without a messenger
#      fails the run too.
#
# Environment: WINTEST_CACHE (default .cache/parity, the parity rig's),
# WINTEST_FLAGS (default -test.short: the long random sweeps run on Linux),
# WINTEST_PKGS (packages to test, default every package with tests),
# WINTEST_TIMEOUT (seconds per test binary, default 900), WINTEST_SKIP (a
# -test.skip pattern; default the tests that run Linux development tools,
# python3 and spirv-opt, which a Windows program cannot start),
# WINTEST_OPS_SKIP (a pattern ops skips besides; default its random and
# sampled sweeps, see below; empty runs them).
#
# What this stage proves is the platform: Go's runtime and cgo on Windows,
# vulkan-1.dll through winevulkan, file and path handling, the C interface
# built as an MSVC user links it. winevulkan hands the SPIR-V modules,
# specialization constants and dispatches unchanged to the same host
# lavapipe (Mesa 22.3, subgroup size 8) that make test runs every ops test
# on, so ops' sweeps would only repeat those results: ops runs every test
# but its sweeps over random or sampled cases (the ARGMAX grids that make
# test samples, REDUCE's and TOP_K's random rows and TOP_K's adversarial
# row sweeps of the maxima and split kernels, REDUCE's float examples
# and rows: under a loaded rehearsal, ops reached its 900 s with them). Each operator family, and each Vulkan path (texel
# buffer views, binding windows, ticket and persistent buffers, 16-bit
# storage, float controls), still runs under Wine through its example,
# measured, windowed and fallback tests.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
GO=${GO:-go}
MAKE=${MAKE:-make}
WIN_CC=${WIN_CC:-x86_64-w64-mingw32-gcc-win32}
flags=${WINTEST_FLAGS:--test.short}
per_binary=${WINTEST_TIMEOUT:-900}
# cmd/vkdml: scripts/gpu_compare.py's cases and sweep (python3);
# internal/opcount: the instruction counts (spirv-opt; cmd/vkdml's plan
# tests expect ops_per_byte null on Windows when it cannot be found).
skip=${WINTEST_SKIP-^(TestH100Goals|TestH100TopKGrid|TestSweepDryRun|TestCount.*)$}
ops_skip=${WINTEST_OPS_SKIP-^(TestArg(RowRisingBest|ColRisingBest|ColSplit)GPU|TestArgVecWidths|TestArgCol8Y|TestArgVecAdversarial|TestReduceValueRows|TestReduceFloat(Rows|Examples|Multiply)|TestTopK(Random|FilterAdversarial|MaximaThreshold|MaximaAdversarial|SplitRankBuckets|SplitAdversarial))$}
start=$(date +%s)
say() { printf 'test-windows: %s\n' "$*"; }
# shellcheck source=.ci/wine-rig.sh
. .ci/wine-rig.sh

rig_init "${WINTEST_CACHE:-.cache/parity}"
rig_packages
out=$RIG_CACHE/windows
rm -rf "$out"
mkdir -p "$out"

# wine_overlay writes a go build -overlay file for the test binaries. Go's
# os.RemoveAll deletes with FileDispositionInformationEx, which Wine 8 does
# not implement: it answers STATUS_NOT_IMPLEMENTED, where a Windows that
# lacks the class answers STATUS_INVALID_INFO_CLASS and Go falls back to
# the old way. Every t.TempDir cleanup would fail with "Invalid function".
# The overlay makes this Go's internal/syscall/windows take the fallback on
# that status too; it is made from the installed GOROOT, for the test
# binaries only (vkdml.exe and vkdml.dll are built without it).
wine_overlay() {
	local src dst=$out/overlay/at_windows.go
	src=$("$GO" env GOROOT)/src/internal/syscall/windows/at_windows.go
	mkdir -p "$out/overlay"
	if [ ! -e "$src" ] || [ "$(grep -c '^	case STATUS_INVALID_INFO_CLASS, ' "$src")" != 1 ]; then
		say "cannot adapt $src to Wine (no single 'case STATUS_INVALID_INFO_CLASS,'): tests that remove temporary folders will fail with 'Invalid function'"
		return 1
	fi
	sed 's/^	case STATUS_INVALID_INFO_CLASS, /	case STATUS_INVALID_INFO_CLASS, NTStatus(0xC0000002), \/\* STATUS_NOT_IMPLEMENTED: Wine 8 \*\/ /' "$src" >"$dst"
	printf '{"Replace": {"%s": "%s"}}\n' "$src" "$dst" >"$out/overlay.json"
}

# 1-2. The binaries.
t0=$(date +%s)
"$MAKE" --no-print-directory cross-windows WIN_OUT="$out" WIN_CC="$WIN_CC"
overlay=()
if wine_overlay; then
	overlay=(-overlay "$out/overlay.json")
fi
export CGO_ENABLED=1 GOOS=windows GOARCH=amd64 CC=$WIN_CC
pkgs=${WINTEST_PKGS:-./...}
: >"$out/packages"
# The first build alone compiles what they share (the standard library
# with the overlay, vkdml's packages); then two at a time, each mostly its
# link through mingw's linker, on one core. Keep foreground external
# commands out of this loop: bash 5.2 never reports to `wait -n` a job
# that ended while one ran, and the last wait then fails (127) as if a
# build had (builtins and command substitutions are safe).
building=0 limit=1
# shellcheck disable=SC2086
for p in $("$GO" list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' $pkgs); do
	rel=${p#github.com/vkdml/vkdml}
	rel=${rel#/}
	[ -n "$rel" ] || continue
	if [ "$building" -ge "$limit" ]; then
		wait -n || { say "a test binary failed to build"; exit 1; }
		building=$((building - 1)) limit=2
	fi
	"$GO" test -c "${overlay[@]}" -o "$out/$(echo "$rel" | tr / _).test.exe" "./$rel" &
	building=$((building + 1))
	echo "$rel" >>"$out/packages"
done
while [ "$building" -gt 0 ]; do
	wait -n || { say "a test binary failed to build"; exit 1; }
	building=$((building - 1))
done
unset CGO_ENABLED GOOS GOARCH CC
# -static: abi_test's threads are mingw's winpthreads, linked in.
"$WIN_CC" -std=c11 -Wall -Wextra -Werror -Icapi -o "$out/vkdml-c-example.exe" examples/c/argmax_maxpool.c -L"$out" -l:vkdml.lib
"$WIN_CC" -std=c11 -Wall -Wextra -Werror -Icapi -o "$out/vkdml-abi-test.exe" capi/tests/abi_test.c -L"$out" -l:vkdml.lib -static -lpthread
say "built $(wc -l <"$out/packages") test binaries, vkdml.exe, vkdml.dll and the C programs in $(($(date +%s) - t0)) s"

# 3. The prefix and the display. The mode picks what Wine's d3d12 runs on,
# which vkdml does not use: "patched" keeps the system Mesa, whose lavapipe
# winevulkan then drives.
rig_prefix patched
trap rig_stop EXIT
rig_display_start
icd=""
for f in /usr/share/vulkan/icd.d/lvp_icd.x86_64.json /usr/share/vulkan/icd.d/lvp_icd.json; do
	[ -e "$f" ] && icd=$f && break
done
[ -n "$icd" ] || { say "no lavapipe ICD under /usr/share/vulkan/icd.d (Debian: mesa-vulkan-drivers)"; exit 1; }
# VK_* reach the host's loader (Wine hides them from Windows programs);
# VKDML_* reach the programs.
run_env=("${RIG_ENV[@]}" VK_DRIVER_FILES="$icd" VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation
	VK_LAYER_ENABLES=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT
	VKDML_WINE_HOST_VALIDATION=1 CI=true VKDML_BIN="$out/vkdml.exe"
	VKDML_ONNX_DATA="${VKDML_ONNX_SRC:-/usr/share/libonnx-testdata/data/node}")

# 4. The runs. Each log is checked for validation messages that no
# messenger caught (they are printed instead). Each run's result line goes
# to NAME.result (and NAME.failed when it failed) as well, for the ops run,
# which goes in the background (below).
failed=()
results=()
run_one() {
	local name=$1 dir=$2 log=$out/$1.log rc=0 t
	shift 2
	t=$(date +%s)
	(cd "$dir" && env "${run_env[@]}" timeout -k 10 "$per_binary" wine64 "$@") >"$log" 2>&1 || rc=$?
	t=$(($(date +%s) - t))
	# The layer's own logger, which speaks where no messenger listens,
	# writes "VUID-...(ERROR / SPEC): msgNum: ..."; messages a messenger
	# caught are the tests' business.
	if [ "$rc" -eq 0 ] && grep -Eq '\((ERROR|WARNING) / [A-Z]+\): msgNum:' "$log"; then
		rc=99
	fi
	local pass fail skip
	pass=$(grep -c '^--- PASS' "$log" || true)
	fail=$(grep -c '^--- FAIL' "$log" || true)
	skip=$(grep -c '^--- SKIP' "$log" || true)
	results+=("$(printf '%-22s %-4s %4d s  pass %3d  fail %2d  skip %2d' "$name" "$([ "$rc" -eq 0 ] && echo ok || echo FAIL)" "$t" "$pass" "$fail" "$skip")")
	printf '%s\n' "${results[-1]}" | tee "$out/$name.result"
	if [ "$rc" -ne 0 ]; then
		failed+=("$name")
		: >"$out/$name.failed"
		case $rc in
		99) say "$name: validation messages no messenger caught:"; grep -E -m5 '\((ERROR|WARNING) / [A-Z]+\): msgNum:' "$log" ;;
		124 | 137) say "$name: still running after $per_binary s" ;;
		esac
		grep -E '^(--- FAIL|\s+\S+_test\.go:[0-9]+:|panic|FAIL)' "$log" | head -30 || true
	fi
}
say "running under Wine on display $DISPLAY with $icd"
env "${run_env[@]}" wine64 "$out/vkdml.exe" devices 2>&1 | head -3
run_package() {
	local rel=$1 name pkg_skip=$skip
	name=$(echo "$rel" | tr / _)
	if [ "$rel" = ops ] && [ -n "$ops_skip" ]; then
		pkg_skip=${skip:+$skip|}$ops_skip
	fi
	run_one "$name" "$ROOT/$rel" "$out/$name.test.exe" -test.count=1 -test.v ${pkg_skip:+-test.skip "$pkg_skip"} $flags
}
# ops' binary takes most of the stage on one core (its tests run one after
# another, and lavapipe compiles each pipeline on the calling thread): it
# runs in the background, beside the others, which run one at a time.
ops_pid=
if grep -qx ops "$out/packages"; then
	run_package ops &
	ops_pid=$!
fi
while read -r rel; do
	[ "$rel" = ops ] || run_package "$rel"
done <"$out/packages"
run_one c-example "$out" "$out/vkdml-c-example.exe"
run_one abi-test "$out" "$out/vkdml-abi-test.exe"
if [ -n "$ops_pid" ]; then
	wait "$ops_pid" || true
	results+=("$(cat "$out/ops.result" 2>/dev/null || printf '%-22s FAIL  (no result: the run was killed?)' ops)")
	if [ -e "$out/ops.failed" ] || [ ! -e "$out/ops.result" ]; then
		failed+=(ops)
	fi
fi

# The two messages that are Wine's own: no display, and debug mode without
# the host's layer. Each must fail and say what to do.
message_check() {
	local name=$1 want=$2 log=$out/$1.log rc=0
	shift 2
	(cd "$out" && env "$@" timeout -k 10 120 wine64 "$out/vkdml.exe" demo --debug) >"$log" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ] && grep -q "$want" "$log"; then
		results+=("$(printf '%-22s %-4s' "$name" ok)")
	else
		results+=("$(printf '%-22s %-4s exit %d, want a failure saying "%s"' "$name" FAIL "$rc" "$want")")
		failed+=("$name")
		cat "$log"
	fi
	printf '%s\n' "${results[-1]}"
}
message_check no-display-message "needs an X display" "${RIG_ENV[@]}" VK_DRIVER_FILES="$icd" DISPLAY=
message_check no-layer-message "VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation" "${RIG_ENV[@]}" VK_DRIVER_FILES="$icd"

printf '\n'
printf '   %s\n' "${results[@]}"
say "done in $(($(date +%s) - start)) s (logs in $out)"
if [ ${#failed[@]} -gt 0 ]; then
	say "FAILED: ${failed[*]}"
	exit 1
fi
