"""vkdml.compare and `vkdml parity --case` on cases built from scratch as
the README's parity section shows: a desc in DirectML's names, np.save'd
inputs and DirectML's outputs, a case.json naming them. Both must give
the same verdict for every case; a doctored expected output must be
caught with its coordinates, its input block or window and a hint."""

import json
import os
import shutil
import subprocess

import numpy as np
import pytest

import vkdml

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def tensor(dtype, sizes):
    n = int(np.prod(sizes)) * np.dtype(dtype).itemsize
    return {"DataType": "DML_TENSOR_DATA_TYPE_" + np.dtype(dtype).name.upper(), "Sizes": list(sizes),
            "TotalTensorSizeInBytes": (n + 3) // 4 * 4}


X = np.array([[1, 5, 5, 0], [np.nan, 2, 3, 1], [0, -0.0, -1, -2]], np.float32)
ARGMAX = {"Type": "DML_OPERATOR_ARGMAX", "InputTensor": tensor(np.float32, [3, 4]),
          "OutputTensor": tensor(np.uint32, [3, 1]), "Axes": [1], "AxisDirection": "DML_AXIS_DIRECTION_INCREASING"}
ARGMAX_BAD_AXIS = dict(ARGMAX, Axes=[5])
POOL_IN = np.array([[[[0.0, -0.0, 1, 2]]]], np.float32)
POOL = {"Type": "MAX_POOLING", "InputTensor": tensor(np.float32, [1, 1, 1, 4]),
        "OutputTensor": tensor(np.float32, [1, 1, 1, 3]), "Strides": [1, 2], "WindowSize": [1, 2],
        "StartPadding": [0, 1], "EndPadding": [0, 1]}

# REDUCE SUM of FLOAT32 [1e8, 1, -1e8, 1]: vkdml's exact sum is 2; a
# left-to-right FLOAT32 scan's 1 is within docs/semantics.md rule 44's
# bound, 100 is not.
SUM_IN = np.array([[1e8, 1, -1e8, 1]], np.float32)
SUM = {"Type": "DML_OPERATOR_REDUCE", "Function": "DML_REDUCE_FUNCTION_SUM", "InputTensor": tensor(np.float32, [1, 4]),
       "OutputTensor": tensor(np.float32, [1, 1]), "Axes": [1]}

# name: (desc, inputs, expected outputs or None, hresult or None, verdict)
CASES = {
    "reduce_sum_within_bound": (SUM, [SUM_IN], [np.array([[1]], np.float32)], None, "within bound"),
    "reduce_sum_outside_bound": (SUM, [SUM_IN], [np.array([[100]], np.float32)], None, "outside bound"),
    "equal": (ARGMAX, [X], [np.array([[1], [0], [0]], np.uint32)], None, "equal"),
    "doctored": (ARGMAX, [X], [np.array([[2], [0], [0]], np.uint32)], None, "differ unexplained"),
    # rule 11a: DirectML's value may be the other zero where +0 and -0 tie.
    "pool_signed_zero": (POOL, [POOL_IN], [np.array([[[[-0.0, 1, 2]]]], np.float32)], None, "differ explained"),
    "pool_doctored": (POOL, [POOL_IN], [np.array([[[[0.0, 7, 2]]]], np.float32)], None, "differ unexplained"),
    "rejected_by_both": (ARGMAX_BAD_AXIS, [X], None, "E_INVALIDARG", "rejected by both"),
    "rejected_by_vkdml": (ARGMAX_BAD_AXIS, [X], [np.array([[1], [0], [0]], np.uint32)], None, "rejected by vkdml"),
    "rejected_by_expected": (ARGMAX, [X], None, "E_INVALIDARG", "rejected by expected"),
    "not_compared": (ARGMAX, [X], None, None, "not compared"),
}


def write_case(folder, name, desc, inputs, expected, hresult):
    """The README's way: np.save each array, then case.json naming them."""
    case = {"desc": desc, "inputs": []}
    for i, x in enumerate(inputs):
        np.save(os.path.join(folder, "%s.in%d.npy" % (name, i)), x)
        case["inputs"].append("%s.in%d.npy" % (name, i))
    if expected is not None:
        case["expected"] = []
        for i, y in enumerate(expected):
            np.save(os.path.join(folder, "%s.out%d.npy" % (name, i)), y)
            case["expected"].append("%s.out%d.npy" % (name, i))
    if hresult is not None:
        case["hresult"] = hresult
    path = os.path.join(folder, name + ".json")
    with open(path, "w") as f:
        json.dump(case, f, indent=1)
    return path


@pytest.fixture(scope="module")
def cli(tmp_path_factory):
    """The vkdml command: $VKDML_CLI, or built from this checkout."""
    if os.environ.get("VKDML_CLI"):
        return os.environ["VKDML_CLI"]
    go = shutil.which("go")
    if go is None or not os.path.exists(os.path.join(REPO, "cmd", "vkdml")):
        pytest.skip("no go and no checkout here to build the vkdml command (set VKDML_CLI)")
    exe = str(tmp_path_factory.mktemp("cli") / "vkdml")
    subprocess.run([go, "build", "-o", exe, "./cmd/vkdml"], cwd=REPO, check=True, timeout=600)
    return exe


@pytest.mark.parametrize("name", sorted(CASES))
def test_compare_verdict(name):
    desc, inputs, expected, hresult, verdict = CASES[name]
    r = vkdml.compare(desc, inputs, expected, hresult=hresult)
    assert r.verdict == verdict, str(r)
    assert r.passed == (verdict in ("equal", "within bound", "differ explained", "rejected by both"))


def test_cli_and_compare_agree(cli, tmp_path):
    for name, (desc, inputs, expected, hresult, verdict) in sorted(CASES.items()):
        path = write_case(str(tmp_path), name, desc, inputs, expected, hresult)
        p = subprocess.run([cli, "parity", "--case", path, "--json"], capture_output=True, text=True, timeout=120)
        record = json.loads(p.stdout)
        r = vkdml.compare(desc, inputs, expected, hresult=hresult)
        assert (record["verdict"], r.verdict) == (verdict, verdict), (name, p.stderr)
        assert p.returncode == (0 if r.passed or verdict == "not compared" else 1), (name, p.stderr)
        assert [d["coordinates"] for d in record["differences"]] == \
            [list(d.coordinates) for d in r.differences], name
        assert record.get("rule", "") == r.rule, name


def test_doctored_output_names_block_and_hint():
    desc, inputs, expected, _, _ = CASES["doctored"]
    r = vkdml.compare(desc, inputs, expected)
    (d,) = r.differences
    assert d.coordinates == (0, 0) and (d.expected, d.vkdml) == ("2", "1")
    assert d.source.kind == "block" and (d.source.start, d.source.end) == ((0, 0), (1, 4))
    assert [h.kind for h in d.hints] == ["tie"], d.hints


def test_doctored_pool_names_window():
    desc, inputs, expected, _, _ = CASES["pool_doctored"]
    (d,) = vkdml.compare(desc, inputs, expected).differences
    assert d.coordinates == (0, 0, 0, 1) and (d.expected, d.vkdml) == ("7", "1")
    # Output 1 reads input columns 1*2-1 = 1 and 2: the window [1, 3).
    assert d.source.kind == "window" and d.source.start == (0, 0, 0, 1) and d.source.end == (1, 1, 1, 3)


def test_all_padding_window_hint():
    desc = dict(POOL, StartPadding=[0, 3], EndPadding=[0, 0], OutputTensor=tensor(np.float32, [1, 1, 1, 2]),
                Strides=[1, 1], WindowSize=[1, 2])
    out = vkdml.compare(desc, [POOL_IN]).vkdml
    assert out["hresult"] == "S_OK", out
    # Output 0's window is columns -3 and -2: all padding.
    r = vkdml.compare(desc, [POOL_IN], [np.array([[[[5.0, 5.0]]]], np.float32)])
    kinds = {h.kind for d in r.differences if d.coordinates == (0, 0, 0, 0) for h in d.hints}
    assert "all-padding window" in kinds, str(r)


def test_unpool_wrapped_index_hint():
    desc = {"Type": "MAX_UNPOOLING", "InputTensor": tensor(np.float32, [1, 1, 1, 2]),
            "IndicesTensor": tensor(np.uint64, [1, 1, 1, 2]), "OutputTensor": tensor(np.float32, [1, 1, 1, 4])}
    x = np.array([[[[3, 4]]]], np.float32)
    idx = np.array([[[[0, 2**32 + 1]]]], np.uint64)
    # DirectML 1.15.4 wraps 2^32+1 to element 1 (semantics.md rule 19).
    r = vkdml.compare(desc, [x, idx], [np.array([[[[3, 4, 0, 0]]]], np.float32)])
    (d,) = r.differences
    assert d.coordinates == (0, 0, 0, 1) and [h.kind for h in d.hints] == ["out-of-range index"], str(r)


def test_elements_and_whole_buffer_expected_agree():
    # FLOAT16 [3]: 6 bytes of elements in an 8-byte buffer.
    desc = {"Type": "ARGMAX", "InputTensor": tensor(np.float16, [3]), "OutputTensor": tensor(np.uint32, [1]),
            "Axes": [0]}
    x = np.array([1, 3, 2], np.float16)
    assert vkdml.compare(desc, [x], [np.array([1], np.uint32)]).outputs[0]["compared"] == "buffer"
    r = vkdml.compare(desc, [x], [np.array([1], np.uint32)])
    assert r.verdict == "equal"


def test_refusals_name_the_argument():
    desc, inputs, expected, _, _ = CASES["equal"]
    with pytest.raises(vkdml.InvalidArgumentError, match=r"inputs\[0\] is float64.*astype\(numpy.float32\)"):
        vkdml.compare(desc, [inputs[0].astype(np.float64)], expected)
    with pytest.raises(vkdml.InvalidArgumentError, match=r"expected\[0\] holds 8 bytes"):
        vkdml.compare(desc, inputs, [np.zeros(2, np.uint32)])
    with pytest.raises(vkdml.InvalidArgumentError, match=r"hresult E_INVALIDARG goes without expected"):
        vkdml.compare(desc, inputs, expected, hresult="E_INVALIDARG")
    with pytest.raises(vkdml.InvalidArgumentError, match=r"Axs.*Axes"):
        bad = dict(desc)
        bad["Axs"] = bad.pop("Axes")
        vkdml.compare(bad, inputs, expected)
    with pytest.raises(vkdml.ArgumentTypeError, match=r"set"):
        vkdml.compare(dict(desc, Axes={1}), inputs, expected)
