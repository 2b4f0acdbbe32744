#!/bin/sh
# test-arm64.sh: runs the linux/arm64 build under qemu-user on Debian's
# arm64 lavapipe (make test-arm64): `vkdml devices`, `vkdml demo`, and the
# test binaries of ARM64_PKGS (default: ops dml gpu tests
# internal/conformance) with -short, CI=true and the validation layer on,
# then prints the time of each step and of the whole stage.
#
# The arm64 lavapipe differs from the amd64 one in ways that test more of
# vkdml: subgroup size 4, 128-bit vectors, and no shaderFloat16.
#
# Nothing outside ARM64_CACHE (default ~/.cache/vkdml/arm64) changes: the
# arm64 packages come from a private apt state (the machine's sources, with
# arm64 as the only architecture, an empty dpkg status), are downloaded with
# their dependencies and unpacked with dpkg-deb -x into ARM64_CACHE/root, a
# sysroot that qemu's QEMU_LD_PREFIX points at; no architecture is added to
# dpkg. Runs after the first reuse the sysroot; delete it to refresh it.
# (qemu -L /usr/aarch64-linux-gnu, the cross compiler's C library, is no
# substitute: the cgo binary then spins forever.)
#
# Under qemu a test binary cannot start itself again (no binfmt handler
# runs an arm64 child), and the fault-injecting loader's tests build their
# library with the host's C compiler, so those tests are skipped here; they
# run on amd64. Under qemu every pipeline lavapipe compiles costs about two
# seconds (LLVM itself runs emulated), so the operator package's sweeps
# take minutes each: ops runs an allow-list instead (run_for), one or two
# tests per operator family that cover its default kernels on every data
# type, with subgroup size 4 and no shaderFloat16, plus the tests that need
# no device. A new ops test runs on arm64 only when it is added there; the
# ops suite runs on amd64 at subgroup sizes 4, 8 and 16 (make test; at 4
# and 16 under -short and without the Makefile's WIDTH_SKIP).
# CLI tests run the arm64 vkdml through a wrapper that starts it under qemu
# (VKDML_BIN).
#
# Environment: GO, ARM64_CACHE, ARM64_DIR (binaries and logs; default
# bin/arm64), ARM64_PKGS, ARM64_BUDGET (seconds the stage should fit in;
# default 720: past it a warning is printed).
set -eu
cd "$(dirname "$0")/.."
root_dir=$(pwd)
GO=${GO:-go}
cache=${ARM64_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vkdml/arm64}
dir=${ARM64_DIR:-bin/arm64}
case "$dir" in /*) ;; *) dir=$root_dir/$dir ;; esac
pkgs=${ARM64_PKGS:-ops dml gpu tests internal/conformance}
budget=${ARM64_BUDGET:-720}
sysroot=$cache/root
# The Debian packages the sysroot is made of (with their dependencies).
sys_pkgs="libvulkan1 mesa-vulkan-drivers vulkan-validationlayers"

# run_for PKG: the -test.run pattern of a package's tests under qemu: all
# of them, except for ops (see above): ARGMAX/ARGMIN's vectorised rows and
# no-axes case, max pooling's vectorised kernel and rule 9, unpooling's
# round trip, identity, REDUCE's no-axes case on every function and type,
# TOP_K's measured cases on every strategy, and the device-free tests
# (rules, references, registry, tuning, plan facts and golden plans).
run_for() {
	case $1 in
	ops) echo '^(TestArgVec|TestArgNoAxes|TestMaxPoolVec|TestMaxPoolRule9|TestMaxPoolVecRule9|TestMaxUnpoolRoundTrip|TestIdentityVec4|TestReduceValueNoAxes|TestTopKMeasured|Test[A-Za-z]*(Rules|Reference[A-Za-z]*|Facts|H100)|TestExactSumExamples|TestRegistry[A-Za-z]*|TestTuning[A-Za-z]*|TestGoldenPlans|TestCut[A-Za-z]*|TestSegmentLengths|TestPartials|TestCombineShape|TestCeilDiv)$' ;;
	*) echo '.' ;;
	esac
}

# skip_for PKG: the -test.skip pattern of a package's tests that cannot run
# under qemu-user (see above), and of tests' API and CLI misuse tables
# (bad inputs and random or lifetime misuse sequences), which check the
# Go code's refusals before any device work: the same code on every
# architecture, run on amd64 and under Wine. tests' device work (leaks,
# lifecycles, concurrency, the CLI's outputs, ONNX conformance) runs here.
skip_for() {
	case $1 in
	dml) echo '^TestTimeoutEveryWait$' ;;
	gpu) echo '^(TestTimeoutKeepsWorkAlive|TestLoaderErrors)$' ;;
	tests) echo '^(TestBadInputAPI|TestBadInputCLI|TestMisuseRandomSequences|TestMisuseLifetime)$' ;;
	*) echo '^$' ;;
	esac
}

sh scripts/need.sh test-arm64 qemu-aarch64-static aarch64-linux-gnu-gcc dpkg-deb apt-get

start=$(date +%s)
step_start=$start
times=""
# step NAME: records the time since the previous step under NAME.
step() {
	now=$(date +%s)
	times="$times$(printf '%-28s %4ds' "$1" $((now - step_start)))
"
	step_start=$now
}

# The sysroot: lavapipe, the loader and the validation layer for arm64.
if [ ! -e "$sysroot/.complete" ]; then
	echo "test-arm64: fetching arm64 $sys_pkgs into $sysroot"
	apt=$cache/apt
	rm -rf "$apt" "$sysroot" "$sysroot.new"
	mkdir -p "$apt/state/lists/partial" "$apt/cache/archives/partial" "$apt/conf.d" "$sysroot.new"
	: >"$apt/state/status"
	cat >"$apt/apt.conf" <<EOF
APT::Architecture "arm64";
APT::Architectures { "arm64"; };
APT::Install-Recommends "false";
APT::Sandbox::User "root";
Dir::State "$apt/state";
Dir::State::status "$apt/state/status";
Dir::Cache "$apt/cache";
Dir::Etc::Parts "$apt/conf.d";
Dir::Etc::Preferences "/dev/null";
Dir::Etc::PreferencesParts "$apt/conf.d";
EOF
	APT_CONFIG=$apt/apt.conf apt-get -qq update
	APT_CONFIG=$apt/apt.conf apt-get -qq -y --download-only install $sys_pkgs >/dev/null
	for deb in "$apt"/cache/archives/*.deb; do
		dpkg-deb -x "$deb" "$sysroot.new"
	done
	ls "$apt"/cache/archives/*.deb | sed 's|.*/||' >"$sysroot.new/.complete"
	rm -rf "$apt"
	mv "$sysroot.new" "$sysroot"
fi
icd_in=$sysroot/usr/share/vulkan/icd.d/lvp_icd.aarch64.json
[ -e "$icd_in" ] || { echo "test-arm64: $icd_in missing; delete $sysroot and retry" >&2; exit 1; }
step "arm64 sysroot"

# The binaries.
rm -rf "$dir"
mkdir -p "$dir/logs"
export CGO_ENABLED=1 GOOS=linux GOARCH=arm64 CC=aarch64-linux-gnu-gcc
$GO build -o "$dir/vkdml" ./cmd/vkdml
for p in $pkgs; do
	$GO test -c -o "$dir/$(echo "$p" | tr / _).test" "./$p"
done
unset GOOS GOARCH CC
step "cross-build"

# The driver's library by its absolute path in the sysroot, so that the
# loader finds it whatever qemu's path translation does.
sed "s|\"/usr/lib/|\"$sysroot/usr/lib/|" "$icd_in" >"$dir/lvp_icd.aarch64.json"
printf '#!/bin/sh\nexec qemu-aarch64-static "%s" "$@"\n' "$dir/vkdml" >"$dir/vkdml-qemu"
chmod +x "$dir/vkdml-qemu"
export QEMU_LD_PREFIX="$sysroot" VK_DRIVER_FILES="$dir/lvp_icd.aarch64.json" CI=true VKDML_BIN="$dir/vkdml-qemu"
unset VK_ICD_FILENAMES VK_ADD_DRIVER_FILES

qemu-aarch64-static "$dir/vkdml" devices
out=$(qemu-aarch64-static "$dir/vkdml" demo 2>&1) || { echo "$out"; echo "test-arm64: vkdml demo failed" >&2; exit 1; }
echo "$out" | tail -n 1
echo "$out" | grep -q '^all .* examples match$' || { echo "$out"; echo "test-arm64: vkdml demo did not match" >&2; exit 1; }
step "vkdml devices, demo"

# run_pkg PKG: runs PKG's test binary under qemu and prints its result
# line, with its time, and each failed test's lines; PKG.failed marks a
# failure.
run_pkg() {
	p=$1
	name=$(echo "$p" | tr / _)
	log=$dir/logs/$name.log
	rc=0
	t0=$(date +%s)
	# 20 minutes a binary: tests' ONNX conformance alone took 445 s of
	# the 10 minutes it had under qemu on a loaded machine (a rehearsal
	# beside benchmarks), and the stage's budget warns long before.
	(cd "$p" && qemu-aarch64-static "$dir/$name.test" -test.short -test.count=1 -test.v -test.timeout 20m \
		-test.run "$(run_for "$p")" -test.skip "$(skip_for "$p")") >"$log" 2>&1 || rc=$?
	pass=$(grep -c '^--- PASS' "$log" || true)
	fail=$(grep -c '^--- FAIL' "$log" || true)
	skip=$(grep -c '^--- SKIP' "$log" || true)
	printf '%-20s %-4s %4ds  pass %3d  fail %2d  skip %2d\n' "$p" "$([ $rc -eq 0 ] && echo ok || echo FAIL)" $(($(date +%s) - t0)) "$pass" "$fail" "$skip"
	if [ $rc -ne 0 ]; then
		: >"$dir/logs/$name.failed"
		# each failed test's lines, from its === RUN on; a panic to the end
		awk '/^=== RUN/ && !/\// { block = "" } { block = block $0 "\n" }
			/^--- FAIL/ { printf "%s", block; block = "" } /^panic:/ { p = 1 } p' "$log" | head -n 150
	fi
}
# The packages run in two lanes, one per core (qemu runs a test binary's
# tests one after another, and emulated LLVM compiles each pipeline on the
# calling thread): tests, the longest (ONNX conformance, the CLI's runs),
# in the background; the others one at a time beside it.
bg=tests
bg_pid=
for p in $pkgs; do
	if [ "$p" = "$bg" ]; then
		run_pkg "$p" &
		bg_pid=$!
	fi
done
for p in $pkgs; do
	[ "$p" = "$bg" ] || run_pkg "$p"
done
[ -z "$bg_pid" ] || wait "$bg_pid" || : >"$dir/logs/$bg.failed"
failed=0
for p in $pkgs; do
	[ ! -e "$dir/logs/$(echo "$p" | tr / _).failed" ] || failed=$((failed + 1))
done
step "tests, two lanes"

total=$(($(date +%s) - start))
echo
echo "test-arm64 times (qemu-aarch64, arm64 lavapipe; logs in $dir/logs):"
printf '%s' "$times"
printf '%-28s %4ds (budget %ds)\n' total "$total" "$budget"
[ "$total" -le "$budget" ] || echo "test-arm64: warning: took ${total}s, over its ${budget}s budget"
[ $failed -eq 0 ] || { echo "test-arm64: $failed package(s) failed"; exit 1; }
