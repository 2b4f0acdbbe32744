"""Builds the vkdml Python package: its build step compiles libvkdml with
`go build -buildmode=c-shared` from the Go module this directory sits in,
so installing needs Go and a C compiler but no Python headers.

    pip install --no-build-isolation ./python
"""

import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def module_root():
    """The directory holding vkdml's go.mod, above this one."""
    d = HERE
    while True:
        if os.path.exists(os.path.join(d, "go.mod")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            raise RuntimeError("vkdml: no go.mod above %s; build from a vkdml checkout" % HERE)
        d = parent


class BuildWithLibrary(build_py):
    """build_py that also builds libvkdml.so into the package."""

    def run(self):
        super().run()
        target = os.path.join(os.path.abspath(self.build_lib), "vkdml", "libvkdml.so")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        go = os.environ.get("GO", shutil.which("go") or "go")
        root = module_root()
        subprocess.check_call(
            [go, "build", "-buildmode=c-shared", "-ldflags=-extldflags=-Wl,--version-script="
             + os.path.join(root, "capi", "exports.map"), "-o", target, "./capi"],
            cwd=root, env=dict(os.environ, CGO_ENABLED="1"))
        header = os.path.splitext(target)[0] + ".h"  # cgo's header, not the interface
        if os.path.exists(header):
            os.remove(header)


try:
    from wheel.bdist_wheel import bdist_wheel

    class PlatformWheel(bdist_wheel):
        """The wheel carries a native library: tag it for this platform."""

        def finalize_options(self):
            super().finalize_options()
            self.root_is_pure = False

        def get_tag(self):
            _, _, plat = super().get_tag()
            return "py3", "none", plat

    wheel_cmd = {"bdist_wheel": PlatformWheel}
except ImportError:
    wheel_cmd = {}

setup(
    name="vkdml",
    version="0.1.0",
    description="DirectML's ARGMAX, ARGMIN and MAX_POOLING with exact DirectML semantics on Vulkan, from numpy",
    license="Apache-2.0",
    packages=["vkdml"],
    python_requires=">=3.8",
    install_requires=["numpy"],
    cmdclass={"build_py": BuildWithLibrary, **wheel_cmd},
    zip_safe=False,
)
