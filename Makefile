# vkdml: DirectML operators on Vulkan.
#
#   make run     the main job (vkdml demo) on the default device; lavapipe
#                when there is no GPU
#   make test    SPIR-V freshness + spirv-val, go vet, the arm64 cross-build,
#                and every test with the Vulkan validation layer on
#   make bench   Go benchmarks
#   make test-device   every test on the device $VKDML_DEVICE selects
#   make fuzz-long     every fuzz target for FUZZLONG (default 5m) each
#
# Each target installs the Debian packages it needs first (make deps).

GO          ?= go
BIN         := bin/vkdml
VERSION     := $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS     := -X main.version=$(VERSION)
GOTESTFLAGS ?=

# Runtime: the Vulkan loader and lavapipe (building needs only Go and a C
# compiler: gpu/vkapi.h declares the Vulkan API the binding uses).
# Development: the Vulkan headers (TestVkapiLayout checks vkapi.h against
# them), the shader compiler and validator, the validation layer, the arm64
# cross compiler.
RUN_PKGS := libvulkan1 mesa-vulkan-drivers
DEV_PKGS := $(RUN_PKGS) libvulkan-dev glslc spirv-tools vulkan-validationlayers vulkan-tools \
            gcc-aarch64-linux-gnu libc6-dev-arm64-cross libonnx-testdata \
            python3-numpy python3-pytest python3-torch python3-setuptools python3-wheel python3-build \
            python3-venv

.PHONY: all deps deps-run shaders check-shaders build cross-arm64 vet test fuzz parity run bench clean \
        test-device test-bins fuzz-long \
        libvkdml capi-test python python-test wheel wheel-test

all: build

# deps installs what is missing, says what, and does nothing when all is there.
deps:
	@PKGS="$(DEV_PKGS)" sh .ci/apt-install
deps-run:
	@PKGS="$(RUN_PKGS)" sh .ci/apt-install

shaders: deps
	cd shaders && $(GO) generate .

check-shaders: deps
	cd shaders && $(GO) run gen.go -check

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/vkdml

cross-arm64: deps
	CGO_ENABLED=1 GOOS=linux GOARCH=arm64 CC=aarch64-linux-gnu-gcc \
		$(GO) build -ldflags "$(LDFLAGS)" -o bin/vkdml-linux-arm64 ./cmd/vkdml
	CGO_ENABLED=1 GOOS=linux GOARCH=arm64 CC=aarch64-linux-gnu-gcc \
		$(call LIBVKDML_BUILD,bin/libvkdml-linux-arm64.so)

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || \
		{ echo "gofmt would change:"; gofmt -l $$(git ls-files '*.go'); exit 1; }

# The operator tests run again at lavapipe's subgroup sizes 4 and 16 (8 is
# the default); the variable changes nothing on other drivers.
test: deps check-shaders vet cross-arm64
	$(GO) test -count=1 $(GOTESTFLAGS) ./...
	LP_NATIVE_VECTOR_WIDTH=128 $(GO) test -count=1 $(GOTESTFLAGS) ./ops/
	LP_NATIVE_VECTOR_WIDTH=512 $(GO) test -count=1 $(GOTESTFLAGS) ./ops/
	$(GO) test -race -count=1 -run 'Shared|Concurren' ./tests/ ./dml/
	$(MAKE) capi-test python-test wheel-test

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

# libvkdml, the C shared library (header capi/vkdml.h; capi/exports.map
# keeps every other symbol local), for C programs and the Python package.
PYTHON ?= /usr/bin/python3
LIBVKDML_BUILD = CGO_ENABLED=1 $(GO) build -buildmode=c-shared \
	-ldflags "-extldflags=-Wl,--version-script=$(CURDIR)/capi/exports.map" -o $(1) ./capi && rm -f $(basename $(1)).h

libvkdml: deps-run
	$(call LIBVKDML_BUILD,bin/libvkdml.so)

# capi-test builds and runs the C example and the C interface's tests
# (misuse, per-thread messages, threads) against bin/libvkdml.so.
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
	@PKGS="$(RUN_PKGS) python3-numpy" sh .ci/apt-install
	$(call LIBVKDML_BUILD,python/vkdml/libvkdml.so)

# Dev mode and faulthandler on; a ResourceWarning (an unclosed Device or
# Operator) or an exception in a finalizer fails the run.
python-test: deps python
	PYTHONDEVMODE=1 PYTHONPATH=python $(PYTHON) -X faulthandler -m pytest -q \
		-W error::ResourceWarning -W error::pytest.PytestUnraisableExceptionWarning python/tests

# wheel builds the Python wheels, py3-none-manylinux_2_N_ARCH, for x86_64
# and (cross-built) aarch64 into dist/; wheel-test checks their tags
# against the libraries they carry and runs the pytest suite against this
# machine's wheel installed in a fresh venv, with no go on PATH.
WHEEL_ARCHS ?= x86_64 aarch64
wheel:
	sh scripts/wheel.sh dist $(WHEEL_ARCHS)

wheel-test: deps wheel
	sh scripts/wheel-test.sh dist

run: deps-run build
	./$(BIN) demo

bench: deps-run
	$(GO) test -run '^$$' -bench . -benchtime 20x ./...

clean:
	rm -rf bin
