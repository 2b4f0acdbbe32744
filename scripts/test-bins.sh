#!/bin/sh
# test-bins.sh: the whole test suite as prebuilt binaries, for a machine
# with a GPU but no Go (see README, "Testing on another device").
#
#   scripts/test-bins.sh build [DIR [PKG...]]
#                                      here: builds DIR/vkdml, one test
#                                      binary per package with tests, or per
#                                      PKG given (DIR/PKG.test, PKG with _
#                                      for /; stripped, ~5-15 MB each), and
#                                      copies the ONNX node tests of the
#                                      operators vkdml maps (and the one
#                                      GlobalMaxPool set the conformance
#                                      tests name) into DIR/onnx (3.5 MB)
#   scripts/test-bins.sh run [DIR]     there, from the repository root:
#                                      runs each binary in its package folder
#                                      with CI=true, VKDML_BIN=DIR/vkdml and
#                                      VKDML_ONNX_DATA=DIR/onnx, on the
#                                      device $VKDML_DEVICE selects, and
#                                      prints pass/fail/skip counts per package
#
# DIR defaults to bin/tests. The tests turn the validation layer on
# themselves; it must be installed on the device machine.
set -u
cd "$(dirname "$0")/.."
mode=${1:-}
dir=${2:-bin/tests}
[ $# -gt 2 ] && shift 2 || set --
GO=${GO:-go}
ONNX=${VKDML_ONNX_SRC:-/usr/share/libonnx-testdata/data/node}
case "$mode" in
build)
	set -e
	mkdir -p "$dir/onnx"
	$GO build -trimpath -ldflags "-s -w" -o "$dir/vkdml" ./cmd/vkdml
	rm -f "$dir/packages.new"
	[ $# -gt 0 ] || set -- ./...
	for p in $($GO list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' "$@"); do
		rel=${p#github.com/vkdml/vkdml}
		rel=${rel#/}
		[ -n "$rel" ] || continue
		name=$(echo "$rel" | tr / _)
		$GO test -c -trimpath -ldflags "-s -w" -o "$dir/$name.test" "./$rel"
		echo "$rel" >>"$dir/packages.new"
	done
	mv "$dir/packages.new" "$dir/packages"
	# tests/conformance_test.go checks that these cover every data set
	# `vkdml conformance` runs.
	cp -r "$ONNX"/test_argmax_* "$ONNX"/test_argmin_* "$ONNX"/test_maxpool_* "$ONNX"/test_maxunpool_* "$ONNX"/test_reduce_* "$ONNX"/test_top_k* "$ONNX"/test_globalmaxpool "$dir/onnx/"
	du -sh "$dir"
	;;
run)
	root=$(pwd)
	case "$dir" in /*) abs=$dir ;; *) abs=$root/$dir ;; esac
	export CI=true VKDML_BIN="$abs/vkdml" VKDML_ONNX_DATA="$abs/onnx"
	"$VKDML_BIN" devices || exit 1
	failed=0
	while read -r rel; do
		name=$(echo "$rel" | tr / _)
		log="$abs/$name.log"
		(cd "$rel" && "$abs/$name.test" -test.count=1 -test.v -test.timeout 60m) >"$log" 2>&1
		rc=$?
		pass=$(grep -c '^--- PASS' "$log")
		fail=$(grep -c '^--- FAIL' "$log")
		skip=$(grep -c '^--- SKIP' "$log")
		printf '%-24s %s  pass %d  fail %d  skip %d  (%s)\n' "$rel" "$([ $rc -eq 0 ] && echo ok || echo FAIL)" "$pass" "$fail" "$skip" "$log"
		[ $rc -eq 0 ] || failed=$((failed + 1))
	done <"$abs/packages"
	[ $failed -eq 0 ] || { echo "$failed package(s) failed"; exit 1; }
	;;
*)
	sed -n '2,20p' "$0"
	exit 2
	;;
esac
