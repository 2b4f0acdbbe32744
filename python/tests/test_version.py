"""vkdml.__version__ is libvkdml's vkdml_version(): the repository's VERSION
file's release number, with at most build metadata after a '+', and, when
the package is installed (a wheel), its distribution's version.
$VKDML_VERSION_FILE names VERSION when the tests run outside the checkout."""

import os
import re

import pytest

import vkdml
from vkdml import _api


def _release_file():
    path = os.environ.get("VKDML_VERSION_FILE") or os.path.join(
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "VERSION")
    if not os.path.exists(path):
        pytest.skip("no VERSION here (set VKDML_VERSION_FILE)")
    with open(path) as f:
        return f.read().strip()


def test_version_is_the_files_release():
    release = _release_file()
    assert re.fullmatch(r"\d+\.\d+\.\d+", release)
    assert vkdml.__version__ == _api._lib.vkdml_version().decode()
    assert re.fullmatch(re.escape(release) + r"(\+[0-9A-Za-z]+(\.[0-9A-Za-z]+)*)?", vkdml.__version__), \
        "vkdml.__version__ %r; VERSION holds %r" % (vkdml.__version__, release)


def test_installed_distribution_has_the_release():
    from importlib import metadata
    try:
        dist = metadata.distribution("vkdml")
    except metadata.PackageNotFoundError:
        pytest.skip("vkdml is not installed (run from the source tree)")
    if not os.path.samefile(os.path.dirname(str(dist.locate_file("vkdml/__init__.py"))),
                            os.path.dirname(vkdml.__file__)):
        pytest.skip("the installed vkdml is not the one imported")
    assert dist.version == _release_file() == vkdml.__version__.split("+")[0]
