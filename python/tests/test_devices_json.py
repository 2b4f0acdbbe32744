"""vkdml.devices() returns what `vkdml devices --json` prints for each
device: the same keys, the same values, compared field by field (nested
ones included) against the command's own output."""

import json
import os
import shutil
import subprocess

import pytest

import vkdml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def cli(tmp_path_factory):
    """The vkdml command: $VKDML_BIN, else built from the source tree."""
    path = os.environ.get("VKDML_BIN")
    if path:
        return path
    go = shutil.which("go")
    if go is None or not os.path.isdir(os.path.join(ROOT, "cmd", "vkdml")):
        pytest.skip("needs $VKDML_BIN or the Go toolchain and the source tree to build the vkdml command")
    path = str(tmp_path_factory.mktemp("cli") / "vkdml")
    subprocess.run([go, "build", "-o", path, "./cmd/vkdml"], cwd=ROOT, check=True, capture_output=True, timeout=600)
    return path


def differences(path, got, want):
    """Every field where got differs from want, by its path."""
    if isinstance(want, dict) and isinstance(got, dict):
        out = ["%s.%s: missing" % (path, k) for k in sorted(set(want) - set(got))]
        out += ["%s.%s: not in the command's output" % (path, k) for k in sorted(set(got) - set(want))]
        for k in sorted(set(want) & set(got)):
            out += differences("%s.%s" % (path, k), got[k], want[k])
        return out
    if isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        return [d for i, (g, w) in enumerate(zip(got, want)) for d in differences("%s[%d]" % (path, i), g, w)]
    if type(got) is not type(want) or got != want:
        return ["%s: %r, the command prints %r" % (path, got, want)]
    return []


def test_devices_match_the_command(cli):
    r = subprocess.run([cli, "devices", "--json"], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        pytest.skip("vkdml devices --json: exit %d: %s" % (r.returncode, r.stderr))
    doc = json.loads(r.stdout)
    got = vkdml.devices()
    assert len(got) == len(doc["devices"]) > 0
    diffs = [d for i, (g, w) in enumerate(zip(got, doc["devices"])) for d in differences("devices()[%d]" % i, g, w)]
    assert not diffs, "\n".join(diffs)
    # The fields the issue found missing are there, with their values.
    for d in got:
        assert "subgroup_operation_names" in d
        if d["usable"]:
            assert d["feature_level"] and d["data_types"], d
    assert [d["default"] for d in got].index(True) == doc["default"]
