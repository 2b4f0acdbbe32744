#!/bin/sh
# wheel-test.sh DIST: proves the wheels in DIST stand alone. Each wheel's
# tag must match the library it carries (manylinux_2_N from the newest
# GLIBC_2.N symbol version readelf finds, the ARCH from its ELF machine),
# and N must not pass $WHEEL_GLIBC_FLOOR when it is set (31: Debian 11 and
# Ubuntu 20.04 install the wheel);
# then this machine's wheel is installed with pip --no-index into a fresh
# venv, and the pytest suite runs from outside the source tree with no go
# command on PATH, importing vkdml from the venv: every test but
# test_corpus_case_runs_as_directml_did, the parity corpus (some 600
# cases) through vkdml.run, which make python-test runs on the same Python
# and Go source; here the other tests run every operator, surface and
# error path on the wheel's own library.
set -eu
dist=$(cd "$1" && pwd)
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for whl in "$dist"/vkdml-*.whl; do
	name=$(basename "$whl")
	mkdir -p "$tmp/unpacked"
	# Python's zipfile, not unzip: a fresh Debian machine has no unzip.
	/usr/bin/python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract("vkdml/libvkdml.so", sys.argv[2])' "$whl" "$tmp/unpacked"
	lib="$tmp/unpacked/vkdml/libvkdml.so"
	n=$(readelf -V "$lib" | grep -o 'GLIBC_2\.[0-9]*' | sed 's/GLIBC_2\.//' | sort -n | tail -1)
	need=$n
	case $(readelf -h "$lib" | sed -n 's/^ *Machine: *//p') in
	*X86-64*) arch=x86_64 ;;
	AArch64) arch=aarch64 ;;
	*) echo "wheel-test: $name carries a library for an unknown machine" >&2; exit 1 ;;
	esac
	# 2.17 is the oldest tag, which carries its legacy name too (setup.py).
	if [ "$n" -le 17 ]; then
		n=17 want="py3-none-manylinux_2_17_${arch}.manylinux2014_${arch}.whl"
	else
		want="py3-none-manylinux_2_${n}_${arch}.whl"
	fi
	case $name in
	*"-$want") echo "wheel-test: $name: tag matches its library (newest symbol version GLIBC_2.$need, $arch)" ;;
	*) echo "wheel-test: $name: its library needs $want" >&2; exit 1 ;;
	esac
	if [ -n "${WHEEL_GLIBC_FLOOR:-}" ] && [ "$n" -gt "$WHEEL_GLIBC_FLOOR" ]; then
		newer=$(objdump -T "$lib" | sed -n 's/.*GLIBC_2\.\([0-9]*\)[) ]*\([^ ]*\)$/\1 \2/p' |
			awk -v f="$WHEEL_GLIBC_FLOOR" '$1 > f {print $2 "@GLIBC_2." $1}' | sort -u | tr '\n' ' ')
		echo "wheel-test: $name: libvkdml.so needs GLIBC_2.$n, past the floor 2.$WHEEL_GLIBC_FLOOR: ${newer}(make wheel builds it in a Debian 11 root)" >&2
		exit 1
	fi
	if readelf -S "$lib" | grep -q '\.debug_\|\.symtab'; then
		echo "wheel-test: $name: libvkdml.so is not stripped" >&2; exit 1
	fi
	if strings "$lib" | grep -q "$repo"; then
		echo "wheel-test: $name: libvkdml.so carries build paths ($repo)" >&2; exit 1
	fi
	/usr/bin/python3 -m zipfile -l "$whl" | grep -q 'dist-info/LICENSE' || { echo "wheel-test: $name has no LICENSE" >&2; exit 1; }
	rm -rf "$tmp/unpacked"
done

# Building from source with too old a Go names what building needs.
mkdir -p "$tmp/oldgo"
printf '#!/bin/sh\necho go1.19.8\n' >"$tmp/oldgo/go"
chmod +x "$tmp/oldgo/go"
if PATH="$tmp/oldgo:$PATH" GO= /usr/bin/python3 -m build --no-isolation --wheel --outdir "$tmp/none" \
	"$repo/python" >"$tmp/oldgo.log" 2>&1; then
	echo "wheel-test: a build with go1.19 succeeded" >&2; exit 1
fi
rm -rf "$repo/python/build"
grep -q 'needs Go 1.24 or later and a C compiler' "$tmp/oldgo.log" && grep -q 'go1.19.8' "$tmp/oldgo.log" || {
	echo "wheel-test: a build with go1.19 did not say what it needs:" >&2; tail -5 "$tmp/oldgo.log" >&2; exit 1; }
echo "wheel-test: building with go1.19 fails naming Go 1.24 and a C compiler"

whl=$(ls "$dist"/vkdml-*-manylinux_*_"$(uname -m)".whl)
# --system-site-packages: numpy and pytest come from Debian (no PyPI here).
/usr/bin/python3 -m venv --system-site-packages "$tmp/venv"
"$tmp/venv/bin/pip" install -q --no-index "$whl"
cp -r "$repo/python/tests" "$tmp/tests"
# PATH without any folder holding a go command.
path=$(printf '%s' "$PATH" | tr ':' '\n' | while read -r d; do [ -x "$d/go" ] || printf '%s:' "$d"; done)
cd "$tmp"
env -u GO -u VKDML_LIBRARY -u PYTHONPATH VKDML_HEADER="$repo/capi/vkdml.h" VKDML_VERSION_FILE="$repo/VERSION" PATH="${path%:}" sh -c '
	if command -v go >/dev/null; then echo "wheel-test: go is still on PATH" >&2; exit 1; fi
	where=$(venv/bin/python -c "import vkdml, os; print(os.path.dirname(vkdml.__file__))")
	case $where in "$PWD"/venv/*) echo "wheel-test: vkdml imported from $where" ;;
	*) echo "wheel-test: vkdml imported from $where, not the venv" >&2; exit 1 ;; esac
	PYTHONDEVMODE=1 venv/bin/python -X faulthandler -m pytest -q -p no:cacheprovider \
		-W error::ResourceWarning -W error::pytest.PytestUnraisableExceptionWarning \
		-k "not test_corpus_case_runs_as_directml_did" tests'
