"""Builds the vkdml Python package (metadata in pyproject.toml). Its build
step compiles libvkdml with `go build -buildmode=c-shared`, stripped and
with -trimpath, from the Go module this directory sits in (a checkout) or
from the trimmed, vendored copy an sdist carries (gosrc/). So building
needs Go 1.24 or later and a C compiler; a built wheel needs neither.

    make wheel                                # dist/vkdml-*-manylinux_2_N_ARCH.whl (glibc 2.31 root)
    python3 -m build --no-isolation python    # sdist, then a wheel from it

The wheel is tagged manylinux_2_N_ARCH, N being the newest GLIBC symbol
version the library needs (read from the library itself; 17 at least, when
the tag is also manylinux2014_ARCH), ARCH the library's machine. VKDML_GOARCH=arm64 CC=aarch64-linux-gnu-gcc cross-builds
for aarch64.
"""

import os
import re
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
GO_MINIMUM = (1, 24)
LIBRARY = "libvkdml.so"


def module_root():
    """The Go module to build: the sdist's gosrc/, else the checkout's root
    (the directory above holding vkdml's go.mod)."""
    vendored = os.path.join(HERE, "gosrc")
    if os.path.exists(os.path.join(vendored, "go.mod")):
        return vendored
    d = HERE
    while True:
        if os.path.exists(os.path.join(d, "go.mod")) and os.path.isdir(os.path.join(d, "capi")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            raise SystemExit("vkdml: no Go sources: build from a vkdml checkout or from vkdml's sdist")
        d = parent


def _copy_license():
    """The root LICENSE, beside this file, for license-files (a checkout
    keeps one copy, in the root)."""
    root_license = os.path.join(os.path.dirname(HERE), "LICENSE")
    mine = os.path.join(HERE, "LICENSE")
    if os.path.exists(root_license) and not os.path.exists(mine):
        shutil.copyfile(root_license, mine)


def find_go():
    """The go command, checked to be GO_MINIMUM or later, and a C compiler
    for cgo; SystemExit naming both otherwise."""
    need = ("vkdml: building libvkdml from source needs Go %d.%d or later and a C compiler for cgo "
            "(gcc or clang; $CC); a prebuilt wheel needs neither" % GO_MINIMUM)
    go = os.environ.get("GO") or shutil.which("go")
    if not go:
        raise SystemExit(need + ": no go command on PATH (or $GO)")
    try:
        version = subprocess.run([go, "env", "GOVERSION"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as e:
        raise SystemExit(need + ": %s does not run: %s" % (go, e))
    m = re.match(r"go(\d+)\.(\d+)", version)
    if not m or (int(m.group(1)), int(m.group(2))) < GO_MINIMUM:
        raise SystemExit(need + ": %s is %s" % (go, version or "of unknown version"))
    cc = os.environ.get("CC", "cc").split()[0]
    if not shutil.which(cc) and not shutil.which("gcc"):
        raise SystemExit(need + ": no C compiler (%s) on PATH" % cc)
    return go


def build_library(target):
    """Builds libvkdml into target, stripped and with -trimpath; or copies
    $VKDML_PREBUILT_LIBRARY there (make wheel's, built in an older Debian
    root by scripts/debian11-root.sh the same way)."""
    prebuilt = os.environ.get("VKDML_PREBUILT_LIBRARY")
    if prebuilt:
        shutil.copyfile(prebuilt, target)
        return
    go, root = find_go(), module_root()
    env = dict(os.environ, CGO_ENABLED="1")
    if os.environ.get("VKDML_GOARCH"):
        env["GOARCH"] = os.environ["VKDML_GOARCH"]
    exports = os.path.join(root, "capi", "exports.map")
    subprocess.check_call(
        [go, "build", "-trimpath", "-buildmode=c-shared",
         "-ldflags=-s -w -extldflags=-Wl,--version-script=" + exports, "-o", target, "./capi"],
        cwd=root, env=env)
    header = os.path.splitext(target)[0] + ".h"  # cgo's header, not the interface
    if os.path.exists(header):
        os.remove(header)


_MACHINES = {"Advanced Micro Devices X86-64": "x86_64", "AArch64": "aarch64"}


# The oldest glibc a tag names: 2.17, manylinux2014, the oldest pip knows
# for every ARCH (and CentOS 7's).
_OLDEST_GLIBC_MINOR = 17


def manylinux_tag(library):
    """manylinux_2_N_ARCH for an ELF library: N from the newest GLIBC_2.N
    version it needs (17 at least), ARCH from its machine (readelf reads
    any ELF). At 2.17 the tag also carries its legacy name manylinux2014,
    the only one pip before 20.3 (Ubuntu 20.04's 20.0) understands."""
    header = subprocess.run(["readelf", "-h", library], capture_output=True, text=True, check=True).stdout
    machine = re.search(r"Machine:\s*(.+)", header).group(1).strip()
    if machine not in _MACHINES:
        raise SystemExit("vkdml: %s is for %s; wheels are made for %s" % (library, machine, ", ".join(_MACHINES.values())))
    versions = subprocess.run(["readelf", "-V", library], capture_output=True, text=True, check=True).stdout
    minors = [int(v) for v in re.findall(r"GLIBC_2\.(\d+)", versions)]
    minor, arch = max(minors + [_OLDEST_GLIBC_MINOR]), _MACHINES[machine]
    tag = "manylinux_2_%d_%s" % (minor, arch)
    return tag + ".manylinux2014_" + arch if minor == _OLDEST_GLIBC_MINOR else tag


class BuildWithLibrary(build_py):
    """build_py that also builds libvkdml.so into the package."""

    def run(self):
        super().run()
        target = os.path.join(os.path.abspath(self.build_lib), "vkdml", LIBRARY)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        build_library(target)


class SdistWithGoSources(sdist):
    """An sdist that carries what building needs: the Go packages libvkdml
    is made of (as `go list -deps ./capi` names them), a go.mod requiring
    only their one outside module, and that module vendored, so that a
    build from it needs Go and a C compiler but no network."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        if os.path.exists(os.path.join(HERE, "gosrc", "go.mod")):
            shutil.copytree(os.path.join(HERE, "gosrc"), os.path.join(base_dir, "gosrc"))
            return
        go, root = find_go(), module_root()
        gosrc = os.path.join(base_dir, "gosrc")
        dirs = subprocess.run([go, "list", "-deps", "-f", "{{if .Module}}{{if .Module.Main}}{{.Dir}}{{end}}{{end}}",
                               "./capi"], cwd=root, capture_output=True, text=True, check=True).stdout.split()
        for d in dirs:
            rel = os.path.relpath(d, root)
            os.makedirs(os.path.join(gosrc, rel), exist_ok=True)
            for name in os.listdir(d):
                src = os.path.join(d, name)
                # The module root's package is the version (version.go and
                # the VERSION file it embeds); the root's other files stay.
                if rel == "." and not (name == "VERSION" or name.endswith(".go")):
                    continue
                if os.path.isfile(src) and not name.endswith("_test.go"):
                    shutil.copy2(src, os.path.join(gosrc, rel, name))
        # The embedded SPIR-V lives in shaders/spv, which go list names as
        # embed files rather than a package directory.
        spv = os.path.join(root, "shaders", "spv")
        if os.path.isdir(spv):
            shutil.copytree(spv, os.path.join(gosrc, "shaders", "spv"), dirs_exist_ok=True)
        requires = subprocess.run([go, "list", "-deps", "-f", "{{if .Module}}{{if not .Module.Main}}{{.Module.Path}} "
                                   "{{.Module.Version}}{{end}}{{end}}", "./capi"], cwd=root, capture_output=True,
                                  text=True, check=True).stdout.split("\n")
        requires = sorted(set(r for r in requires if r.strip()))
        goversion = re.search(r"^go (\S+)", open(os.path.join(root, "go.mod")).read(), re.M).group(1)
        with open(os.path.join(gosrc, "go.mod"), "w") as f:
            f.write("module github.com/vkdml/vkdml\n\ngo %s\n\nrequire (\n%s)\n"
                    % (goversion, "".join("\t%s\n" % r for r in requires)))
        shutil.copy2(os.path.join(root, "go.sum"), os.path.join(gosrc, "go.sum"))
        subprocess.check_call([go, "mod", "vendor"], cwd=gosrc)


class NativeDistribution(Distribution):
    """Says the package is platform-specific (it carries libvkdml), so that
    its files install into platlib: the wheel's root, not .data/purelib."""

    def has_ext_modules(self):
        return True


_copy_license()

try:
    from wheel.bdist_wheel import bdist_wheel

    class ManylinuxWheel(bdist_wheel):
        """The wheel carries a native library and no Python extension:
        py3-none-manylinux_2_N_ARCH, from the library built."""

        def finalize_options(self):
            super().finalize_options()
            self.root_is_pure = False

        def get_tag(self):
            library = os.path.join(os.path.abspath(self.bdist_dir), "vkdml", LIBRARY)
            if not os.path.exists(library):  # asked before the build: the build's own
                library = os.path.join(os.path.abspath(self.distribution.get_command_obj("build_py").build_lib
                                                       or "build/lib"), "vkdml", LIBRARY)
            return "py3", "none", manylinux_tag(library)

    wheel_cmd = {"bdist_wheel": ManylinuxWheel}
except ImportError:
    wheel_cmd = {}

def version():
    """The release number in the repository's VERSION file (the sdist
    carries it in gosrc/), the version of every vkdml surface."""
    path = os.path.join(module_root(), "VERSION")
    try:
        text = open(path).read().strip()
    except OSError as e:
        raise SystemExit("vkdml: cannot read the version: %s" % e)
    if not re.fullmatch(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)", text):
        raise SystemExit("vkdml: %s holds %r, not a release number MAJOR.MINOR.PATCH" % (path, text))
    return text


setup(version=version(), distclass=NativeDistribution,
      cmdclass={"build_py": BuildWithLibrary, "sdist": SdistWithGoSources, **wheel_cmd})
