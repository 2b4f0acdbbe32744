#!/bin/sh
# benchstat-check.sh: runs `vkdml bench --format benchstat` twice and has
# the real benchstat (golang.org/x/perf/cmd/benchstat, fetched through the
# Go module proxy, so not part of make test) compare the two, failing when
# benchstat cannot read a line or pairs no benchmark. The unit tests hold
# the format to the Go benchmark format's specification without network.
# Needs a Vulkan device (lavapipe will do). BENCHSTAT overrides the
# version: BENCHSTAT=golang.org/x/perf/cmd/benchstat@v0.0.0-...
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$repo"
go build -o "$tmp/vkdml" ./cmd/vkdml
for run in old new; do
	"$tmp/vkdml" bench --op argmax --shape 256,1024 --shape 1024,256 --axes 1 \
		--repeat 10 --warmup 2 --format benchstat >"$tmp/$run.txt"
done
cd "$tmp"
go run "${BENCHSTAT:-golang.org/x/perf/cmd/benchstat@latest}" old.txt new.txt >benchstat.txt 2>&1 ||
	{ cat benchstat.txt >&2; echo "benchstat-check: benchstat failed" >&2; exit 1; }
cat benchstat.txt
if grep -qi 'error\|parsing' benchstat.txt || ! grep -q 'sec/op' benchstat.txt ||
	! grep -q 'shape=256x1024' benchstat.txt; then
	echo "benchstat-check: benchstat did not compare the two runs" >&2
	exit 1
fi
echo "benchstat-check: ok"
