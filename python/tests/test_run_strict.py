"""vkdml.run's descs are strict: every key is one the operator holds,
each field is given once, arrays are ordered; and it reads what the parity
corpus holds (DirectML's names, DML_ enum names, a corpus line as it is),
MAX_UNPOOLING included. Go's twin of these tests is
internal/parity/casejson_test.go."""

import copy
import json
import os

import numpy as np
import pytest

import vkdml
from vkdml import _raw, _schema
from reference import arg_reference, draw

# The repository's files these tests read: the parity corpus and the
# fixtures Go's reader reads too. From the checkout, or, where the tests run
# from a copy (scripts/wheel-test.sh), from the folder above
# $VKDML_HEADER's capi/.
REPO = os.path.dirname(os.path.dirname(os.path.abspath(
    os.environ.get("VKDML_HEADER") or os.path.join(os.path.dirname(__file__), "..", "..", "capi", "vkdml.h"))))
CORPUS = os.path.join(REPO, "tests", "parity")


def _json(*path):
    """A JSON file of the repository, or None where there is none (the
    tests over it are then reported as skipped, with an empty parameter
    set)."""
    try:
        with open(os.path.join(REPO, *path)) as f:
            return json.load(f)
    except FileNotFoundError:
        return None


def _tensor(dtype, sizes, **more):
    return dict({"DataType": dtype, "Sizes": list(sizes)}, **more)


# One desc of each family, with every field its operator holds (and every
# field of DML_BUFFER_TENSOR_DESC in its input).
FAMILY = {
    "ARGMAX": {"type": "ARGMAX", "InputTensor": _tensor("FLOAT32", (2, 3), Flags=0, DimensionCount=2, Strides=[3, 1],
                                                        TotalTensorSizeInBytes=24, GuaranteedBaseOffsetAlignment=0),
               "OutputTensor": _tensor("UINT32", (2, 1)), "AxisCount": 1, "Axes": [1], "AxisDirection": "DECREASING"},
    "REDUCE": {"type": "REDUCE", "Function": "ARGMIN", "InputTensor": _tensor("INT8", (4,)),
               "OutputTensor": _tensor("INT64", (1,)), "AxisCount": 1, "Axes": [0]},
    "MAX_POOLING2": {"type": "MAX_POOLING2", "InputTensor": _tensor("FLOAT16", (1, 1, 4, 4)),
                     "OutputTensor": _tensor("FLOAT16", (1, 1, 2, 2)),
                     "OutputIndicesTensor": _tensor("UINT32", (1, 1, 2, 2)), "DimensionCount": 2,
                     "Strides": [2, 2], "WindowSize": [2, 2], "StartPadding": [0, 0], "EndPadding": [0, 0],
                     "Dilations": [1, 1]},
    "MAX_UNPOOLING": {"type": "MAX_UNPOOLING", "InputTensor": _tensor("FLOAT32", (1, 1, 1, 2)),
                      "IndicesTensor": _tensor("UINT32", (1, 1, 1, 2)),
                      "OutputTensor": _tensor("FLOAT32", (1, 1, 2, 2))},
}


def _misspell(key):
    """Wrong spellings of key: its last letter dropped, an "s" added, all
    upper case, two letters swapped."""
    out = [key[:-1], key + "s", key.upper()]
    if len(key) > 3:
        out.append(key[0] + key[2] + key[1] + key[3:])
    return out


def _spellings(table, key):
    return next(f.spellings for f in table if key in f.spellings)


def _misspellings():
    """(operator, desc, the misspelled key's path, the field's spellings),
    for every key of FAMILY's descs and of their tensors."""
    for op, desc in FAMILY.items():
        table = _schema.DESCS[op].fields
        for key, value in desc.items():
            if key == "type":
                continue
            for bad in _misspell(key):
                d = copy.deepcopy(desc)
                d[bad] = d.pop(key)
                yield op, d, "desc." + bad, _spellings(table, key)
            if isinstance(value, dict):
                for tkey in value:
                    for bad in _misspell(tkey):
                        d = copy.deepcopy(desc)
                        d[key][bad] = d[key].pop(tkey)
                        yield op, d, "desc.%s.%s" % (key, bad), _spellings(_schema.TENSOR_FIELDS, tkey)


def test_family_descs_read():
    for desc in FAMILY.values():
        _raw._operator_desc(desc)


@pytest.mark.parametrize("op, desc, path, spellings", list(_misspellings()),
                         ids=lambda v: v if isinstance(v, str) and v.startswith("desc.") else None)
def test_misspelled_key_is_refused(op, desc, path, spellings):
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        _raw._operator_desc(desc)
    msg = str(e.value)
    assert path + ": unknown key" in msg, msg
    assert any("did you mean %r?" % s in msg for s in spellings), msg


def test_misspelling_is_refused_before_running(device):
    """The issue's probe: AxisDirecton ran INCREASING and returned [1, 0]."""
    x = np.array([[5, 1, 5], [2, 2, 0]], np.float32)
    desc = {"type": "ARGMAX", "InputTensor": _tensor("FLOAT32", (2, 3)), "OutputTensor": _tensor("UINT32", (2, 1)),
            "Axes": [1], "AxisDirecton": "DECREASING"}
    y = np.full((2, 1), 7, np.uint32)
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        vkdml.run(desc, [x], [y], device=device)
    assert "desc.AxisDirecton: unknown key for ARGMAX's desc" in str(e.value)
    assert "did you mean 'AxisDirection'?" in str(e.value)
    assert (y == 7).all()  # nothing ran
    desc["AxisDirection"] = desc.pop("AxisDirecton")
    vkdml.run(desc, [x], [y], device=device)
    np.testing.assert_array_equal(y.ravel(), [2, 1])


@pytest.mark.parametrize("change, path, message", [
    ({"Input": _tensor("FLOAT32", (2, 3))}, "desc.Input",
     "InputTensor is given twice, as 'InputTensor' and as 'Input'"),
    ({"input": _tensor("FLOAT32", (2, 3))}, "desc.input", "InputTensor is given twice"),
    ({"axes": [0]}, "desc.axes", "Axes is given twice, as 'Axes' and as 'axes'"),
    ({"axisDirection": "INCREASING"}, "desc.axisDirection", "AxisDirection is given twice"),
    ({"Type": "ARGMIN"}, "desc.Type", "the operator type is given twice, as 'type' and as 'Type'"),
    ({"operator": "ARGMAX"}, "desc.operator", "the operator type is given twice"),
])
def test_two_spellings_are_refused(change, path, message):
    desc = dict(FAMILY["ARGMAX"], **change)
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        _raw._operator_desc(desc)
    assert "%s: %s" % (path, message) in str(e.value), str(e.value)


def test_two_spellings_in_a_tensor_are_refused():
    desc = copy.deepcopy(FAMILY["ARGMAX"])
    desc["InputTensor"]["strides"] = [1, 2]
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        _raw._operator_desc(desc)
    assert "desc.InputTensor.strides: Strides is given twice, as 'Strides' and as 'strides'" in str(e.value)


@pytest.mark.parametrize("unordered", [
    {2, 3}, frozenset({2, 3}), {2: 0, 3: 0}, {2: 0, 3: 0}.keys(), {0: 2, 1: 3}.values(), {2: 3}.items(),
], ids=["set", "frozenset", "dict", "keys", "values", "items"])
@pytest.mark.parametrize("where", ["Sizes", "Strides", "Axes"])
def test_unordered_container_is_refused(unordered, where):
    desc = copy.deepcopy(FAMILY["ARGMAX"])
    if where == "Axes":
        desc["Axes"], path = unordered, "desc.Axes"
    else:
        desc["InputTensor"][where], path = unordered, "desc.InputTensor." + where
    with pytest.raises(vkdml.ArgumentTypeError) as e:
        _raw._operator_desc(desc)
    assert "%s: is a %s, which has no order; give a list" % (path, type(unordered).__name__) in str(e.value), \
        str(e.value)


@pytest.mark.parametrize("sizes", ["23", b"\x02\x03", np.zeros((1, 2), np.uint32), 2])
def test_other_non_arrays_are_refused(sizes):
    desc = copy.deepcopy(FAMILY["ARGMAX"])
    desc["InputTensor"]["Sizes"] = sizes
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        _raw._operator_desc(desc)
    assert "desc.InputTensor.Sizes" in str(e.value), str(e.value)


@pytest.mark.parametrize("sizes", [[2, 3], (2, 3), range(2, 4), np.array([2, 3], np.uint32), iter([2, 3]),
                                   (s for s in [2, 3])])
def test_ordered_arrays_are_read(sizes):
    desc = copy.deepcopy(FAMILY["ARGMAX"])
    desc["InputTensor"]["Sizes"] = sizes
    _, c, _ = _raw._operator_desc(desc)
    assert list(c.input.contents.sizes[:2]) == [2, 3]


@pytest.mark.parametrize("change, path, message", [
    ({"axess": None}, "desc.axess", "unknown key for ARGMAX's desc"),  # a misspelling refused even when None
    ({"WindowSize": [2]}, "desc.WindowSize", "unknown key for ARGMAX's desc"),
    ({"OutputTensor": _tensor("UINT32", (2, 1), Axes=None)}, "desc.OutputTensor.Axes", "unknown key for OutputTensor"),
    ({"Function": "ARGMAX"}, "desc.Function", "unknown key for ARGMAX's desc"),
    ({"type": "ARGMAX", 7: 1}, "desc", "has the key 7, which is not a string"),
    ({"OutputTensor": None}, "desc.OutputTensor", "is required (as OutputTensor or Output or output)"),
    ({"AxisCount": 2, "Axes": None}, "desc.Axes", "is required: AxisCount says 2 entries"),
    ({"AxisDirection": "DML_AXIS_DIRECTION_SIDEWAYS"}, "desc.AxisDirection", "is not one of INCREASING, DECREASING"),
])
def test_other_refusals(change, path, message):
    desc = {**FAMILY["ARGMAX"], **change}
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        _raw._operator_desc(desc)
    assert "%s: " % path in str(e.value) and message in str(e.value), str(e.value)


def test_pooling_arrays_agree():
    desc = dict(FAMILY["MAX_POOLING2"], DimensionCount=None, Dilations=[1, 1, 1])
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        _raw._operator_desc(desc)
    assert "desc.Dilations: has 3 entries; Strides says 2" in str(e.value), str(e.value)
    desc = dict(FAMILY["MAX_POOLING2"], WindowSize=None)
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        _raw._operator_desc(desc)
    assert "desc.WindowSize: is required: DimensionCount says 2 entries" in str(e.value), str(e.value)


def test_directml_names_and_prefixed_enums(device, rng):
    """DirectML's spelling (DML_OPERATOR_, DML_TENSOR_DATA_TYPE_,
    DML_AXIS_DIRECTION_ names) and the corpus's spelling run alike."""
    x = draw(rng, np.int16, (3, 4))
    dml = {"Type": "DML_OPERATOR_ARGMIN",
           "InputTensor": {"DataType": "DML_TENSOR_DATA_TYPE_INT16", "Sizes": [3, 4]},
           "OutputTensor": {"DataType": "DML_TENSOR_DATA_TYPE_UINT64", "Sizes": [3, 1]},
           "AxisCount": 1, "Axes": [1], "AxisDirection": "DML_AXIS_DIRECTION_DECREASING"}
    corpus = {"operator": "ARGMIN", "input": {"dataType": "INT16", "sizes": [3, 4]},
              "output": {"dataType": "UINT64", "sizes": [3, 1]}, "axes": [1], "axisDirection": "DECREASING"}
    got = []
    for desc in (dml, corpus):
        y = np.zeros((3, 1), np.uint64)
        vkdml.run(desc, [x], [y], device=device)
        got.append(y)
    np.testing.assert_array_equal(got[0], got[1])
    np.testing.assert_array_equal(got[0], arg_reference(x, [1], True, "decreasing"))


def test_lower_case_strides_are_read(device, rng):
    """The corpus's strides: read, where they were once ignored (the
    input read as packed)."""
    base = draw(rng, np.float32, (4, 6))
    desc = {"type": "ARGMAX", "InputTensor": {"DataType": "FLOAT32", "Sizes": [6, 4], "strides": [1, 6]},
            "OutputTensor": {"DataType": "UINT32", "Sizes": [1, 4]}, "Axes": [0]}
    out = np.zeros((1, 4), np.uint32)
    vkdml.run(desc, [base.tobytes()], [out], device=device)
    np.testing.assert_array_equal(out, arg_reference(base.T, [0], False, "increasing"))


def test_max_unpooling(device, rng):
    x = draw(rng, np.float32, (1, 2, 2, 2))
    idx = rng.permutation(2 * 4 * 4)[:8].astype(np.uint32).reshape(1, 2, 2, 2)
    want = vkdml.max_unpool(x, idx, (1, 2, 4, 4), device=device)
    y = np.full((1, 2, 4, 4), 9, np.float32)
    desc = {"type": "MAX_UNPOOLING", "InputTensor": _tensor("FLOAT32", x.shape),
            "IndicesTensor": _tensor("UINT32", idx.shape), "OutputTensor": _tensor("FLOAT32", y.shape)}
    vkdml.run(desc, [x, idx], [y], device=device)
    np.testing.assert_array_equal(y, want)


# ---- the parity corpus, replayed through vkdml.run ----

def _corpus():
    return (_json("tests", "parity", "corpus.json") or {"cases": []})["cases"]


def test_every_corpus_case_reads():
    """Each line of tests/parity/corpus.json, as it is, is a desc vkdml.run
    reads, with the operator and tensors the case names."""
    cases = _corpus()
    if not cases:
        pytest.skip("no tests/parity/corpus.json under %s" % REPO)
    assert len(cases) > 400
    for case in cases:
        op, c, _ = _raw._operator_desc(case)
        assert op.type == case["operator"], case["name"]
        assert c.input.contents.total_tensor_size_in_bytes == case["input"]["totalTensorSizeInBytes"], case["name"]
        assert list(c.input.contents.sizes[:c.input.contents.dimension_count]) == case["input"]["sizes"], case["name"]


def _buffer(tensor):
    dt = np.dtype(tensor["dataType"].lower())
    return dt, tensor["totalTensorSizeInBytes"] // dt.itemsize


# Every case, compared byte for byte with DirectML's golden or refused
# where DirectML refused it, as the Go path (`vkdml parity`) compares them:
# known-differences.json's cases are skipped, and a difference is let
# through only where internal/parity/compare.go explains it by rule.
CASES = [c["name"] for c in _corpus()]


def _explained(case, outs, goldens, inputs, device):
    """compare.go's rule 11a (max pooling values differing only by the
    zero's sign, indices equal) and rule 7a (the global window, no indices,
    an output extent other than 1); topk_compare.go's rule 36 (values and
    indices differing only where both values are NaN) and rule 38 (TOP_K
    or TOP_K1, either direction, every sequence along the axis that
    differs holding a NaN in the input); reduce_compare.go's
    rule 44 (REDUCE's float functions within the bound of DirectML's
    summation order, which vkdml.compare judges as vkdml parity does)."""
    if case["operator"] == "REDUCE" and case["reduceFunction"] not in ("ARGMAX", "ARGMIN", "MAX", "MIN") and \
            case["input"]["dataType"] in ("FLOAT32", "FLOAT16"):
        r = vkdml.compare(case, inputs, goldens, device=device)
        return "rule 44" if r.verdict == "within bound" and r.passed else None
    if case["operator"].startswith("TOP_K"):
        dt = np.dtype(case["input"]["dataType"].lower())
        if dt.kind != "f":
            return None
        # The logical elements only: a FLOAT16 output of odd size has a
        # padding element in its buffer.
        sizes, out_sizes = case["input"]["sizes"], case["output"]["sizes"]
        n = int(np.prod(out_sizes))
        a, b = np.frombuffer(bytes(outs[0]), dt)[:n], goldens[0].view(dt).reshape(-1)[:n]
        ia, ib = np.frombuffer(bytes(outs[1]), goldens[1].dtype)[:n], goldens[1].reshape(-1)[:n]
        differ = (a.view(np.uint8).reshape(n, -1) != b.view(np.uint8).reshape(n, -1)).any(1) | (ia != ib)
        if not differ.any():
            return None
        if (np.isnan(a) & np.isnan(b))[differ].all():
            return "rule 36"
        strides = case["input"].get("strides") or [int(np.prod(sizes[i + 1:])) for i in range(len(sizes))]
        x = np.lib.stride_tricks.as_strided(inputs[0].view(dt), shape=sizes, strides=[s * dt.itemsize for s in strides])
        row_nan = np.broadcast_to(np.isnan(x.astype(np.float32)).any(axis=case["axis"], keepdims=True), out_sizes)
        if row_nan[differ.reshape(out_sizes)].all():
            return "rule 38"
        return None
    if not case["operator"].startswith("MAX_POOLING"):
        return None
    spatial = case["input"]["sizes"][2:]
    if (case.get("outputIndices") is None and case["windowSize"] == spatial
            and not any(case["startPadding"] + case["endPadding"])
            and all(d == 1 for d in case.get("dilations") or [1])
            and any(e != 1 for e in case["output"]["sizes"][2:])):
        return "rule 7a"
    dt = np.dtype(case["output"]["dataType"].lower())
    if dt.kind == "f" and all(bytes(o) == g.tobytes() for o, g in zip(outs[1:], goldens[1:])):
        a, b = np.frombuffer(bytes(outs[0]), dt), goldens[0].view(dt)
        if ((a.view(np.uint8) == b.view(np.uint8)).reshape(len(a), -1).all(1) | ((a == 0) & (b == 0))).all():
            return "rule 11a"
    return None


@pytest.fixture(scope="module")
def goldens():
    with open(os.path.join(CORPUS, "golden", "results.json")) as f:
        results = {r["name"]: r for r in json.load(f)["cases"]}
    with open(os.path.join(CORPUS, "known-differences.json")) as f:
        known = {d["case"] for d in json.load(f)["differences"]}
    return {c["name"]: c for c in _corpus()}, results, known


@pytest.mark.parametrize("name", CASES)
def test_corpus_case_runs_as_directml_did(device, goldens, name):
    cases, results, known = goldens
    case = cases[name]
    if name in known:
        pytest.skip("a known difference (known-differences.json)")
    inputs = [np.load(os.path.join(CORPUS, "inputs", name + ".npy"))]
    if case.get("indices") is not None:
        inputs.append(np.load(os.path.join(CORPUS, "inputs", name + ".indices.npy")))
    outputs = []
    for f in _schema.DESCS[case["operator"]].fields:
        tensor = next((case[s] for s in f.spellings if s in case), None) if f.kind == "output" else None
        if f.kind == "output":
            outputs.append(None if tensor is None else bytearray(b"\xCD" * tensor["totalTensorSizeInBytes"]))
    result = results[name]
    if result["hresult"] != "S_OK":
        with pytest.raises(vkdml.Error):
            vkdml.run(case, inputs, outputs, device=device)
        return
    vkdml.run(case, inputs, outputs, device=device)
    written = [o for o in outputs if o is not None]
    want = [np.load(os.path.join(CORPUS, "golden", g)) for g in result["outputs"]]
    assert len(written) == len(want)
    if [bytes(o) for o in written] != [w.tobytes() for w in want]:
        assert _explained(case, written, want, inputs, device), "%s: the outputs differ from DirectML's" % name


# ---- the fixtures Go's reader reads too (internal/schema/read_test.go) ----

SHARED = _json("internal", "schema", "testdata", "descs.json") or {"accepted": [], "refused": []}


def _what(case):
    return case["what"] if isinstance(case, dict) else None


@pytest.mark.parametrize("case", SHARED["accepted"], ids=_what)
def test_shared_fixture_accepted(case):
    _raw._operator_desc(case["desc"])


@pytest.mark.parametrize("case", SHARED["refused"], ids=_what)
def test_shared_fixture_refused(case):
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        _raw._operator_desc(case["desc"])
    msg = str(e.value)
    assert msg.startswith("run: %s: " % case["path"]), msg
    kind = {"unknown key": ": unknown key for ", "given twice": " is given twice, as ", "bad value": ""}[case["error"]]
    assert kind in msg, msg
    if "suggest" in case:
        assert "did you mean %r?" % case["suggest"] in msg, msg
