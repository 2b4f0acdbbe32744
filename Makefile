# vkdml: DirectML operators on Vulkan.
#
#   make run     the main job (vkdml demo) on the default device; lavapipe
#                when there is no GPU
#   make test    SPIR-V freshness + spirv-val, go vet, the arm64 and Android
#                cross-builds, and every test with the Vulkan validation
#                layer on
#   make bench   Go benchmarks
#   make test-device   every test on the device $VKDML_DEVICE selects
#   make test-arm64    the linux/arm64 build under qemu-user on Debian's
#                      arm64 lavapipe: vkdml demo and the device tests (-short)
#   make fuzz-long     every fuzz target for FUZZLONG (default 5m) each
#   make install       the command, libvkdml, its header, pkg-config and CMake
#                      files under DESTDIR/PREFIX (default /usr/local)
#   make dist          release files for linux/amd64 and linux/arm64, and
#                      the Windows zip, in dist/
#   make cross-windows vkdml.exe, vkdml.dll, vkdml.lib and vkdml.h for
#                      windows/amd64 in bin/windows-amd64
#   make test-windows  those, and every package's tests, under Wine
#   make parity-live   vkdml.exe parity --live --random 300 under Wine:
#                      DirectML.dll and vkdml case by case in one process
#
# make run and the test targets install the Debian packages they need first
# (make deps). Build targets (build, libvkdml, python, shaders, cross-arm64,
# cross-windows, install, dist) never install anything: building needs only
# Go and a C compiler, and one that needs a tool make deps installs says so.

GO          ?= go
BIN         := bin/vkdml
# The release number lives in the VERSION file (a clone may carry no tags);
# a build away from the clean tag vRELEASE carries its commit as build
# metadata, VERSION being then e.g. 1.0.0+g0123456789ab (scripts/build-meta.sh).
RELEASE     := $(shell cat VERSION)
BUILD_META  := $(shell sh scripts/build-meta.sh $(RELEASE))
VERSION     := $(RELEASE)$(if $(BUILD_META),+$(BUILD_META))
LDFLAGS     := -X github.com/vkdml/vkdml.build=$(BUILD_META)
GOTESTFLAGS ?=

# Runtime: the Vulkan loader and lavapipe (building needs only Go and a C
# compiler: gpu/vkapi.h declares the Vulkan API the binding uses).
# Development: the Vulkan headers (TestVkapiLayout checks vkapi.h against
# them), the shader compiler and validator, the validation layer, the arm64
# cross compiler and qemu-user (test-arm64 runs its output), pkg-config and
# CMake (install-test builds C programs against an installed libvkdml
# through both).
RUN_PKGS := libvulkan1 mesa-vulkan-drivers
DEV_PKGS := $(RUN_PKGS) libvulkan-dev glslc spirv-tools vulkan-validationlayers vulkan-tools \
            gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static gcc-mingw-w64-x86-64-win32 \
            libonnx-testdata pkg-config cmake \
            python3-numpy python3-pytest python3-torch python3-setuptools python3-wheel python3-build \
            python3-venv debootstrap

.PHONY: all deps deps-run shaders check-shaders check-schema build cross-arm64 cross-android cross-windows test-windows \
        vet test test-size8 test-sizes4-16 test-long fuzz parity parity-live run bench gpu-run-dry clean \
        test-device test-arm64 test-bins fuzz-long \
        libvkdml capi-test python python-test wheel wheel-test wheel-test-debian11 check-release-tag \
        install uninstall install-test dist dist-binaries dist-windows

all: build

# deps installs what is missing, says what, and does nothing when all is there.
deps:
	@PKGS="$(DEV_PKGS)" sh .ci/apt-install
deps-run:
	@PKGS="$(RUN_PKGS)" sh .ci/apt-install

# need is a build target's first step when it runs a tool that make deps
# installs: it fails naming the tool and make deps instead of installing.
need = @sh scripts/need.sh $@ $(1)

shaders:
	$(call need,glslc spirv-val)
	cd shaders && $(GO) generate .

check-shaders: deps
	cd shaders && $(GO) run gen.go -check

# check-schema fails when a file generated from internal/schema (vkdml.h's
# descs, capi's C to Go conversion, Python's ctypes structs, the parity
# runner's COM structs) is stale; go run ./internal/schema/gen rewrites them.
check-schema:
	$(GO) run ./internal/schema/gen -check

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/vkdml

cross-arm64:
	$(call need,aarch64-linux-gnu-gcc)
	CGO_ENABLED=1 GOOS=linux GOARCH=arm64 CC=aarch64-linux-gnu-gcc \
		$(GO) build -ldflags "$(LDFLAGS)" -o bin/vkdml-linux-arm64 ./cmd/vkdml
	CGO_ENABLED=1 GOOS=linux GOARCH=arm64 CC=aarch64-linux-gnu-gcc \
		$(call LIBVKDML_BUILD,bin/libvkdml-linux-arm64.so)

# cross-windows builds for windows/amd64 with Debian's mingw-w64
# (win32 threads: the binaries need only Windows' own DLLs) into
# bin/windows-amd64: vkdml.exe; vkdml.dll, which exports vkdml.h's
# functions (VKDML_API); vkdml.lib, its import library for MSVC's linker,
# from capi/vkdml.def (mingw links vkdml.dll itself as well); vkdml.h.
# The Vulkan loader, vulkan-1.dll, comes with the GPU driver.
WIN_CC      ?= x86_64-w64-mingw32-gcc-win32
WIN_DLLTOOL ?= x86_64-w64-mingw32-dlltool
WIN_OUT     ?= bin/windows-amd64
WIN_GOFLAGS ?=
WIN_LDFLAGS ?=
WIN_ENV      = CGO_ENABLED=1 GOOS=windows GOARCH=amd64 CC=$(WIN_CC)
cross-windows:
	$(call need,$(WIN_CC) $(WIN_DLLTOOL))
	mkdir -p $(WIN_OUT)
	$(WIN_ENV) $(GO) build $(WIN_GOFLAGS) -ldflags "$(WIN_LDFLAGS) $(LDFLAGS)" -o $(WIN_OUT)/vkdml.exe ./cmd/vkdml
	$(WIN_ENV) $(GO) build -buildmode=c-shared $(WIN_GOFLAGS) -ldflags "$(WIN_LDFLAGS) $(LDFLAGS)" -o $(WIN_OUT)/vkdml.dll ./capi
	$(WIN_DLLTOOL) -d capi/vkdml.def -D vkdml.dll -l $(WIN_OUT)/vkdml.lib
	cp capi/vkdml.h $(WIN_OUT)/vkdml.h

# test-windows runs every package's tests, the C example and the C
# interface's tests, built for windows/amd64, under Wine with winevulkan on
# lavapipe (scripts/test-windows.sh; it installs Wine, Xvfb and mingw, and
# shares make parity's Wine prefix).
test-windows: deps
	GO=$(GO) MAKE="$(MAKE)" bash scripts/test-windows.sh

# cross-android checks the android/arm64 build: with the NDK
# (ANDROID_NDK_HOME) it builds bin/vkdml-android-arm64; without it every
# package compiles and vets for GOOS=android with the arm64 cross compiler
# and -D__ANDROID__, unlinked (scripts/cross-android.sh says why).
cross-android:
	GO=$(GO) sh scripts/cross-android.sh

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || \
		{ echo "gofmt would change:"; gofmt -l $$(git ls-files '*.go'); exit 1; }

# What make test runs, and why each part is restricted:
#   - go test ./...: every package, ops at lavapipe's default subgroup size
#     8 (LP_NATIVE_VECTOR_WIDTH=256) with the full random case counts,
#     except for the longest GPU sweeps: ARGMAX's five (ops' shortSampled:
#     rising rows and columns, vec widths, column split and col8y) run the
#     sample -short runs, which covers every kernel, kind and layout, and
#     TestReduceFloatRows one value pattern per function and type (14
#     cases, not 42); their whole grids run in make test-long
#     (testutil.Long, VKDML_LONG=1);
#   - ops again at subgroup sizes 4 and 16 (widths 128 and 512; the
#     variable changes nothing on other drivers), with -short's smaller
#     random case counts (every kernel and plan still runs at all three
#     sizes) and without WIDTH_SKIP:
#     - TestTopKRandom, half of the TOP_K, MAX_POOLING*, MAX_UNPOOLING
#       and IDENTITY tests' time there, and TestMaxPoolGridOverLimits
#       (11-15 s a width), whose grids past the device's dispatch limits
#       run a kernel the other pooling tests run there too. Those
#       operators' kernels use no subgroup operation and their plans do
#       not depend on the subgroup size (ops' TestSubgroupFreePlans fails
#       when one starts to), but for TOP_K's maxima kernel, one full
#       subgroup a workgroup; their other tests (TOP_K's lists, filter,
#       radix, maxima and merge tests, the pooling and unpooling tests)
#       check their workgroups at each SIMD width;
#     - TestReduceFloatExamples: 13 FLOAT32 blocks of 2 to 64 values,
#       whose time at sizes 4 and 16 is all pipeline compiles (110 of
#       111 s at 512: each block's size makes new specialization
#       constants) of 3 kernel variants that TestReduceFloatRows and the
#       lane-window tests run at every size on thousands of values, for
#       SUM, L1, L2 and LOG_SUM_EXP (AVERAGE and LOG_SUM fold as SUM,
#       SUM_SQUARE as L2, but for the last step);
#   - the race detector on the tests that share a device between
#     goroutines; the C interface, install, Python and wheel tests.
# ops' test binary runs its tests one after another on one core, so these
# go in two lanes at once (scripts/together.sh), one per core: every
# package at subgroup size 8, then the race detector's run; ops at 4 and
# 16, then the C, install, Python and wheel tests.
# ops' tests take several minutes on two cores, over go test's default
# limit of 10 when the machine is shared: TESTTIMEOUT raises it.
TESTTIMEOUT ?= 40m
WIDTH_SKIP ?= ^(TestTopKRandom|TestMaxPoolGridOverLimits|TestReduceFloatExamples)$$
test: deps check-shaders check-schema vet
	$(MAKE) cross-arm64 cross-android
	bash scripts/together.sh \
		'size 8' '$(MAKE) --no-print-directory test-size8' \
		'sizes 4,16' '$(MAKE) --no-print-directory test-sizes4-16 && $(MAKE) --no-print-directory capi-test install-test python-test wheel-test'

# test-size8 and test-sizes4-16: make test's two lanes (above).
test-size8:
	$(GO) test -count=1 -timeout $(TESTTIMEOUT) $(GOTESTFLAGS) ./...
	$(GO) test -race -count=1 -run 'Shared|Concurren' ./tests/ ./dml/
test-sizes4-16:
	LP_NATIVE_VECTOR_WIDTH=128 $(GO) test -short -count=1 -timeout $(TESTTIMEOUT) -skip '$(WIDTH_SKIP)' $(GOTESTFLAGS) ./ops/
	LP_NATIVE_VECTOR_WIDTH=512 $(GO) test -short -count=1 -timeout $(TESTTIMEOUT) -skip '$(WIDTH_SKIP)' $(GOTESTFLAGS) ./ops/

# test-long runs ops at subgroup size 8 with the whole grids of the sweeps
# make test samples (testutil.Long): after a change to the ARGMAX/REDUCE
# kernels they sweep, and before a release; about 10 more minutes than
# ops' part of make test on a loaded 2-core machine.
test-long: deps
	VKDML_LONG=1 $(GO) test -count=1 -timeout $(TESTTIMEOUT) $(GOTESTFLAGS) ./ops/

# fuzz runs every Fuzz* target of the tree for FUZZTIME each, one worker.
# FUZZTIME is a count of executions, not a duration: with a duration, Go
# 1.26's fuzz coordinator can fail a target with "context deadline exceeded"
# at the deadline though nothing failed (golang/go#75804, fixed in Go 1.27).
# The committed corpora (PKG/testdata/fuzz/TARGET) also run in plain go test.
FUZZTIME ?= 100000x
fuzz: deps
	@set -e; for f in $$(find . -name '*_test.go' -not -path './.git/*' | sort); do \
		for name in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$f); do \
			echo "fuzz $$name in ./$$(dirname $${f#./}) for $(FUZZTIME)"; \
			$(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) -parallel 1 ./$$(dirname $${f#./}); \
		done; \
	done

# fuzz-long runs every fuzz target for FUZZLONG each (a duration), for a
# release or after a planner change; crashers land in PKG/testdata/fuzz/
# (commit them). scripts/fuzz-long.sh handles Go 1.26's spurious deadline
# error. FUZZPKGS limits it to some packages.
FUZZLONG ?= 5m
fuzz-long: deps
	FUZZLONG=$(FUZZLONG) GO=$(GO) sh scripts/fuzz-long.sh

# test-device runs the whole suite, validation layer on, on the device that
# $VKDML_DEVICE selects (an index or a name substring; default the best
# device, a GPU before lavapipe) instead of the lavapipe .ci/run forces. It
# lists the devices first and stops if the selector matches none. CI=true:
# a missing device, binary or ONNX data fails rather than skips.
test-device: deps build
	./$(BIN) devices
	VKDML_BIN=$(CURDIR)/$(BIN) CI=true $(GO) test -count=1 $(GOTESTFLAGS) ./...

# test-arm64 cross-builds vkdml and the test binaries of the packages that
# use a device for linux/arm64 and runs vkdml devices, vkdml demo and those
# tests (-short, CI=true, the validation layer on) under qemu-aarch64-static
# on Debian's arm64 lavapipe (subgroup size 4, no shaderFloat16), unpacked
# into a sysroot in ~/.cache/vkdml/arm64 (dpkg gets no arm64 architecture).
# It prints each step's time; about 6 minutes on 2 cores. ARM64_PKGS picks
# packages; scripts/test-arm64.sh says which tests qemu cannot run.
test-arm64: deps
	GO=$(GO) sh scripts/test-arm64.sh

# test-bins builds the suite as binaries for a machine without Go (the GPU
# machine): bin/tests/ (vkdml, PKG.test, ONNX's data sets). There, from the
# repository root: sh scripts/test-bins.sh run (see README, Testing).
# TESTPKGS limits it to some packages (default: every package with tests).
TESTPKGS ?=
test-bins: deps
	GO=$(GO) sh scripts/test-bins.sh build bin/tests $(TESTPKGS)

# parity runs tests/parity through the real DirectML.dll under Wine (it
# installs Wine, Xvfb and mingw, and fetches DirectML with npm), refreshes
# tests/parity/golden and compares vkdml with it (.ci/parity).
parity: deps-run
	bash .ci/parity

# parity-live runs `vkdml.exe parity --live --random 300` under Wine on the
# parity rig (scripts/parity-live.sh): DirectML.dll and vkdml in one
# process on the Mesa 25 lavapipe, case by case; it fails on any difference
# docs/semantics.md does not explain. PARITY_LIVE_RANDOM, PARITY_LIVE_SEED
# and PARITY_LIVE_CORPUS=DIR change the cases.
parity-live: deps-run
	GO=$(GO) bash scripts/parity-live.sh

# libvkdml, the C shared library (header capi/vkdml.h; capi/exports.map
# keeps every other symbol local), for C programs and the Python package.
# Its SONAME carries the ABI version (vkdml.h's VKDML_ABI_VERSION), so a
# program linked with -lvkdml needs libvkdml.so.1 and keeps working with
# any later build of ABI 1. LIBVKDML_BUILD takes the output, then extra go
# build flags and extra -ldflags.
PYTHON ?= /usr/bin/python3
SONAME := libvkdml.so.1
LIBVKDML_BUILD = CGO_ENABLED=1 $(GO) build -buildmode=c-shared $(2) \
	-ldflags "$(3) $(LDFLAGS) -extldflags '-Wl,-soname,$(SONAME) -Wl,--version-script=$(CURDIR)/capi/exports.map'" \
	-o $(1) ./capi && rm -f $(basename $(1)).h

libvkdml:
	$(call LIBVKDML_BUILD,bin/$(SONAME))
	ln -sf $(SONAME) bin/libvkdml.so

# capi-test builds and runs the C example and the C interface's tests
# (misuse, per-thread messages, threads) against bin/libvkdml.so.1.
capi-test: deps libvkdml
	$(CC) -std=c11 -Wall -Wextra -Werror -Icapi -o bin/vkdml-c-example examples/c/argmax_maxpool.c \
		-Lbin -lvkdml -Wl,-rpath,'$$ORIGIN'
	./bin/vkdml-c-example
	$(CC) -std=c11 -Wall -Wextra -Werror -Icapi -o bin/vkdml-abi-test capi/tests/abi_test.c \
		-Lbin -lvkdml -lpthread -Wl,-rpath,'$$ORIGIN'
	./bin/vkdml-abi-test

# python builds libvkdml.so into python/vkdml, so that PYTHONPATH=python
# finds a working package; python-test runs its pytest suite.
python:
	$(call LIBVKDML_BUILD,python/vkdml/libvkdml.so)

# Dev mode and faulthandler on; a ResourceWarning (an unclosed Device or
# Operator) or an exception in a finalizer fails the run.
python-test: deps python
	PYTHONDEVMODE=1 PYTHONPATH=python $(PYTHON) -X faulthandler -m pytest -q \
		-W error::ResourceWarning -W error::pytest.PytestUnraisableExceptionWarning python/tests

# wheel builds the Python wheels, py3-none-manylinux_2_N_ARCH, for x86_64
# and aarch64 into dist/, versioned RELEASE. Their libraries are built in a
# Debian 11 root (glibc 2.31; scripts/debian11-root.sh, as root, with
# debootstrap: a few minutes the first time, then cached in
# /var/tmp/vkdml-old-root), so that the wheels install on Ubuntu 20.04,
# Debian 11 and later. wheel-test checks their tags against the libraries
# they carry and against that floor, and runs the pytest suite against this
# machine's wheel installed in a fresh venv, with no go on PATH (all but
# the parity corpus through vkdml.run, which python-test runs on the same
# source: scripts/wheel-test.sh).
WHEEL_ARCHS ?= x86_64 aarch64
# The newest glibc a wheel may need: 2.31, Debian 11's and Ubuntu 20.04's.
WHEEL_GLIBC_FLOOR := 31
wheel: check-release-tag
	$(call need,debootstrap)
	sh scripts/wheel.sh dist $(WHEEL_ARCHS)

wheel-test: deps wheel
	WHEEL_GLIBC_FLOOR=$(WHEEL_GLIBC_FLOOR) sh scripts/wheel-test.sh dist

# wheel-test-debian11 installs this machine's wheel with pip in a fresh
# Debian 11 root (Python 3.9, numpy 1.19 from apt: it needs the network)
# and runs what needs no Vulkan device there (Debian 11's lavapipe is
# Vulkan 1.0, below vkdml's 1.1); about a minute once the root is cached.
wheel-test-debian11: wheel
	bash scripts/debian11-root.sh wheel-check dist

# check-release-tag fails when HEAD carries a release tag vX.Y.Z that is not
# the VERSION file's release: the tag would name one version, the files
# another.
check-release-tag:
	@for t in $$(git tag --points-at HEAD 2>/dev/null | grep '^v[0-9]'); do \
		[ "$$t" = "v$(RELEASE)" ] || { echo "HEAD is tagged $$t but VERSION holds $(RELEASE)" >&2; exit 1; }; \
	done

# install puts the command, libvkdml ($(SONAME) and the libvkdml.so link),
# vkdml.h, vkdml.pc and the CMake package vkdml (target vkdml::vkdml) under
# DESTDIR/PREFIX; uninstall removes them. install-test installs into a
# temporary root and builds and runs C programs against it from outside the
# tree, through pkg-config and through CMake.
PREFIX  ?= /usr/local
DESTDIR ?=
install: build libvkdml
	DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" SONAME=$(SONAME) sh scripts/install.sh install
uninstall:
	DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" SONAME=$(SONAME) sh scripts/install.sh uninstall
install-test: deps
	MAKE="$(MAKE)" sh scripts/install-test.sh

# dist writes the release files into dist/: each of DIST_PARTS adds its
# own (another kind of artifact is one more name there), then SHA256SUMS
# covers every file in dist/. dist-binaries: the command and libvkdml for
# linux/amd64 and linux/arm64, -trimpath and stripped, named by VERSION.
DIST_PARTS := dist-binaries dist-windows wheel
DIST_GOFLAGS := -trimpath
DIST_LDFLAGS := -s -w
dist: check-release-tag $(DIST_PARTS)
	cd dist && rm -f SHA256SUMS && files=$$(ls | LC_ALL=C sort) && sha256sum $$files > SHA256SUMS
	@cat dist/SHA256SUMS
dist-binaries:
	$(call need,aarch64-linux-gnu-gcc aarch64-linux-gnu-strip)
	mkdir -p dist
	rm -f dist/vkdml-*-linux-amd64 dist/vkdml-*-linux-arm64 dist/libvkdml-*-linux-amd64.so dist/libvkdml-*-linux-arm64.so
	CGO_ENABLED=1 GOOS=linux GOARCH=amd64 $(GO) build $(DIST_GOFLAGS) -ldflags "$(DIST_LDFLAGS) $(LDFLAGS)" \
		-o dist/vkdml-$(VERSION)-linux-amd64 ./cmd/vkdml
	GOOS=linux GOARCH=amd64 $(call LIBVKDML_BUILD,dist/libvkdml-$(VERSION)-linux-amd64.so,$(DIST_GOFLAGS),$(DIST_LDFLAGS))
	strip --strip-unneeded dist/libvkdml-$(VERSION)-linux-amd64.so
	CGO_ENABLED=1 GOOS=linux GOARCH=arm64 CC=aarch64-linux-gnu-gcc $(GO) build $(DIST_GOFLAGS) -ldflags "$(DIST_LDFLAGS) $(LDFLAGS)" \
		-o dist/vkdml-$(VERSION)-linux-arm64 ./cmd/vkdml
	GOOS=linux GOARCH=arm64 CC=aarch64-linux-gnu-gcc \
		$(call LIBVKDML_BUILD,dist/libvkdml-$(VERSION)-linux-arm64.so,$(DIST_GOFLAGS),$(DIST_LDFLAGS))
	aarch64-linux-gnu-strip --strip-unneeded dist/libvkdml-$(VERSION)-linux-arm64.so

# dist-windows: vkdml-VERSION-windows-amd64.zip, make cross-windows's files
# (-trimpath, stripped) with capi/vkdml.def.
dist-windows:
	rm -rf dist/windows-amd64 && mkdir -p dist
	rm -f dist/vkdml-*-windows-amd64.zip
	$(MAKE) cross-windows WIN_OUT=dist/windows-amd64 WIN_GOFLAGS="$(DIST_GOFLAGS)" WIN_LDFLAGS="$(DIST_LDFLAGS)"
	cp capi/vkdml.def dist/windows-amd64/
	cd dist/windows-amd64 && $(PYTHON) -m zipfile -c ../vkdml-$(VERSION)-windows-amd64.zip vkdml.exe vkdml.dll vkdml.lib vkdml.def vkdml.h
	rm -rf dist/windows-amd64

run: deps-run build
	./$(BIN) demo

bench: deps-run
	$(GO) test -run '^$$' -bench . -benchtime 20x ./...

# A dry run of the one-command GPU session (scripts/gpu_compare.py
# --gpu-run, docs/gpu-run.md) on the default Vulkan device (lavapipe in
# CI), torch on the CPU, the --quick shapes, within their 100 s budget: it
# exits non-zero past the budget or when a row of its test table names no
# test of the prebuilt ops test binary.
GPU_RUN_DRY := .cache/gpu-run-dry
gpu-run-dry: deps build
	mkdir -p $(GPU_RUN_DRY)
	$(GO) test -c -o $(GPU_RUN_DRY)/ops.test ./ops
	$(PYTHON) scripts/gpu_compare.py --gpu-run --quick --torch-device cpu --vkdml ./$(BIN) \
		--test-bins $(GPU_RUN_DRY) --out $(GPU_RUN_DRY)/out

clean:
	rm -rf bin dist
