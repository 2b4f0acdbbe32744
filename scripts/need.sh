#!/bin/sh
# need.sh TARGET TOOL...: fails, naming make deps, when a tool a build
# target runs is missing. Build targets never install packages themselves;
# make deps installs every development package, once, and says which.
set -eu
target=$1
shift
missing=""
for tool in "$@"; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		missing="$missing $tool"
		continue
	fi
	case $tool in
	*-linux-gnu-gcc) # a cross compiler is useless without its C library
		echo '#include <stdlib.h>' | "$tool" -E -x c - >/dev/null 2>&1 ||
			missing="$missing the C library headers for $tool" ;;
	esac
done
if [ -n "$missing" ]; then
	echo "make $target: needs$missing, which this machine lacks; run 'make deps' (it installs the Debian packages the Makefile's DEV_PKGS lists) and retry" >&2
	exit 1
fi
