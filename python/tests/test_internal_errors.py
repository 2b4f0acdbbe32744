"""What a Python caller gets for a bug in vkdml and for a tuning knob out
of its range. A Go panic (injected into a planner by the test build of
libvkdml, go build -tags vkdmltesthooks) is vkdml.InternalError, E_UNEXPECTED,
with a one-line message; every knob of $VKDML_TUNING at 0, negative or its
maximum + 1 is vkdml.InvalidArgumentError naming the knob and its range.
Both run in a fresh interpreter: libvkdml reads its environment when it
loads."""

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(PACKAGE)


def run_child(body, env, timeout=120):
    """Runs body in a fresh interpreter with env added; returns its stdout
    and stderr."""
    env = dict(os.environ, PYTHONPATH=PACKAGE + os.pathsep + os.environ.get("PYTHONPATH", ""), **env)
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(body)], env=env, capture_output=True, text=True,
                       timeout=timeout)
    assert r.returncode == 0, "exit %d\nstdout:\n%s\nstderr:\n%s" % (r.returncode, r.stdout, r.stderr)
    return r.stdout, r.stderr


@pytest.fixture(scope="module")
def hooked_library(tmp_path_factory):
    """libvkdml built with the vkdmltesthooks tag, whose planners panic on
    $VKDML_TEST_PLANNER_PANIC's operator type."""
    go = shutil.which("go")
    if go is None or not os.path.isdir(os.path.join(ROOT, "capi")):
        pytest.skip("needs the Go toolchain and the source tree to build libvkdml's test build")
    out = str(tmp_path_factory.mktemp("hooked") / "libvkdml.so")
    subprocess.run([go, "build", "-tags", "vkdmltesthooks", "-buildmode=c-shared", "-o", out, "./capi"], cwd=ROOT,
                   env=dict(os.environ, CGO_ENABLED="1"), check=True, capture_output=True, timeout=600)
    return out


PANIC_CHILD = '''
    import json, numpy as np, vkdml
    out = {}
    for name, call in [("argmax", lambda: vkdml.argmax(np.zeros((2, 8), np.float32), 1)),
                       ("run", lambda: vkdml.run({"type": "ARGMAX", "InputTensor": {"DataType": "FLOAT32", "Sizes": [2, 8]},
                                                  "OutputTensor": {"DataType": "UINT32", "Sizes": [2, 1]}, "Axes": [1]},
                                                 [np.zeros((2, 8), np.float32)], [np.zeros((2, 1), np.uint32)])),
                       ("max_pool", lambda: vkdml.max_pool(np.zeros((1, 1, 4, 4), np.float32), (2, 2)))]:
        try:
            call()
            out[name] = None
        except vkdml.Error as e:
            out[name] = {"class": type(e).__name__, "hresult": e.hresult, "message": str(e),
                         "runtime": isinstance(e, RuntimeError)}
    print(json.dumps(out))
'''


@pytest.mark.parametrize("traceback", [False, True])
def test_planner_panic_is_one_line(hooked_library, traceback):
    env = {"VKDML_LIBRARY": hooked_library, "VKDML_TEST_PLANNER_PANIC": "ARGMAX"}
    if traceback:
        env["VKDML_TRACEBACK"] = "1"
    stdout, stderr = run_child(PANIC_CHILD, env)
    got = json.loads(stdout)
    for name in ("argmax", "run"):
        e = got[name]
        assert e is not None, "%s: no error with the planner panicking" % name
        assert e["class"] == "InternalError" and e["hresult"] == 0x8000FFFF and e["runtime"], e
        assert "\n" not in e["message"] and "goroutine" not in e["message"], e["message"]
        assert "internal error" in e["message"] and "injected by VKDML_TEST_PLANNER_PANIC with a second line" in e["message"], e
        assert e["message"].endswith("[E_UNEXPECTED]"), e
    # Only ARGMAX's planner panics: the device and other operators work.
    assert got["max_pool"] is None, got["max_pool"]
    # The stack goes to stderr with VKDML_TRACEBACK=1 only.
    assert ("goroutine" in stderr) == traceback, stderr


def test_production_library_has_no_panic_hook(tmp_path):
    """$VKDML_TEST_PLANNER_PANIC means nothing to the library that ships."""
    stdout, _ = run_child(PANIC_CHILD, {"VKDML_TEST_PLANNER_PANIC": "ARGMAX"})
    assert json.loads(stdout) == {"argmax": None, "run": None, "max_pool": None}


TUNING_CHILD = '''
    import json, os, sys, vkdml
    path = os.environ["VKDML_TUNING"]
    def create(body):
        with open(path, "w") as f:
            f.write(body)
        try:
            vkdml.Device().close()
            return None
        except vkdml.Error as e:
            return {"class": type(e).__name__, "hresult": e.hresult, "message": str(e)}
    out = {}
    for body in json.loads(os.environ["TUNING_BODIES"]):
        out[body] = create(body)
    print(json.dumps(out))
'''


def tuning_errors(tmp_path, bodies):
    """Each tuning file body's error (None: the device opened)."""
    env = {"VKDML_TUNING": str(tmp_path / "tuning.json"), "TUNING_BODIES": json.dumps(bodies)}
    stdout, _ = run_child(TUNING_CHILD, env)
    return json.loads(stdout)


def test_tuning_ranges(tmp_path):
    """Every knob, found from libvkdml's own errors (an unknown knob's
    lists them, a negative value's states the range), at -1, its maximum +
    1 and 0 where its range starts above 0: E_INVALIDARG naming the knob,
    the value and the range, on one line."""
    first = tuning_errors(tmp_path, ['{"noSuchKnob": 1}'])['{"noSuchKnob": 1}']
    m = re.search(r"\(knobs: ([A-Za-z0-9, ]+)\)", first["message"])
    assert first["class"] == "InvalidArgumentError" and m, first
    knobs = m.group(1).split(", ")
    assert "poolVecWG" in knobs and "poolVecGroups" in knobs and len(knobs) >= 20, knobs
    probes = {k: '{"%s": -1}' % k for k in knobs}
    got = tuning_errors(tmp_path, list(probes.values()))
    bodies, wants = [], {}
    for k in knobs:
        e = got[probes[k]]
        assert e is not None and e["class"] == "InvalidArgumentError", (k, e)
        if "want true or false" in e["message"]:
            continue
        r = re.search(r'want (an integer in \[(\d+), (\d+)\]|one of ([\d, ]+))', e["message"])
        assert r, e["message"]
        if r.group(2) is not None:
            lo, hi = int(r.group(2)), int(r.group(3))
        else:
            values = [int(v) for v in r.group(4).split(", ")]
            lo, hi = values[0], values[-1]
        bad = [-1, hi + 1] + ([0] if lo > 0 else [])
        for v in bad:
            body = '{"%s": %d}' % (k, v)
            bodies.append(body)
            wants[body] = '%s="%d": want %s' % (k, v, r.group(1))
    assert '{"poolVecWG": 0}' in wants and '{"poolVecGroups": 0}' in wants, sorted(wants)
    got = tuning_errors(tmp_path, bodies)
    for body in bodies:
        e = got[body]
        assert e is not None, "%s: the device opened" % body
        assert e["class"] == "InvalidArgumentError" and e["hresult"] == 0x80070057, (body, e)
        assert wants[body] in e["message"] and "VKDML_TUNING" in e["message"] and "\n" not in e["message"], (body, e)
