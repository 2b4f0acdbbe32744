"""The parity engineer's surface: REDUCE, MAX_POOLING and MAX_POOLING1
beside ARGMAX/ARGMIN/MAX_POOLING2, out= with explicit output strides,
padding and ceil_mode, vkdml.run on DirectML descs as plain data, and
vkdml.devices."""

import numpy as np
import pytest

import vkdml
from reference import DTYPES, arg_reference, draw, max_pool_reference

FUNCTIONS = ["argmax", "argmin"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("function", FUNCTIONS)
def test_reduce_is_argmax_with_increasing_ties(device, rng, dtype, function):
    x = draw(rng, dtype, (3, 4, 5))
    for axes in ([1], [0, 2], [2, 0, 1]):
        got = vkdml.reduce(x, axes, function, index_dtype="int64", device=device)
        want = arg_reference(x, axes, function == "argmin", "increasing")
        np.testing.assert_array_equal(got, want)


def test_reduce_refuses_other_functions(device):
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        vkdml.reduce(np.zeros(3, np.float32), "mean", axes=0, device=device)
    assert "function" in str(e.value)
    with pytest.raises(vkdml.InvalidArgumentError):  # DirectML has no SUM of INT8
        vkdml.reduce(np.zeros(3, np.int8), "sum", axes=0, device=device)
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        vkdml.reduce(np.zeros(3, np.int32), "max", axes=0, index_dtype="int64", device=device)
    assert "index_dtype" in str(e.value)


def _values_reference(x, axes, function):
    """REDUCE's value functions by the rules: MAX/MIN ignore NaN (a block of
    NaN only gives -inf for MAX, +inf for MIN) and the later of equal values
    wins; the integer functions wrap modulo 2^n."""
    axes = tuple(sorted(set(axes)))
    if function in ("max", "min"):
        moved = np.moveaxis(x, axes, range(x.ndim - len(axes), x.ndim))
        flat = moved.reshape(moved.shape[:x.ndim - len(axes)] + (-1,))
        out = np.empty(flat.shape[:-1], x.dtype)
        for idx in np.ndindex(*out.shape):
            best = None
            for v in flat[idx]:
                if best is None or (best != best) or (v == v and (v >= best if function == "max" else v <= best)):
                    best = v
            if best != best:
                best = -np.inf if function == "max" else np.inf
            out[idx] = best
        return out.reshape(tuple(1 if i in axes else n for i, n in enumerate(x.shape)))
    with np.errstate(over="ignore"):
        terms = {"sum": x, "multiply": x, "l1": np.abs(x), "sum_square": x * x}[function]
        if function == "multiply":
            return np.prod(terms, axis=axes, dtype=x.dtype, keepdims=True)
        return np.sum(terms, axis=axes, dtype=x.dtype, keepdims=True)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("function", ["max", "min", "sum", "multiply", "l1", "sum_square"])
def test_reduce_values(device, rng, dtype, function):
    if function not in ("max", "min") and np.dtype(dtype) not in (np.int32, np.uint32, np.int64, np.uint64):
        return
    x = draw(rng, dtype, (3, 4, 5))
    if function in ("sum", "multiply", "l1", "sum_square") and rng.random() < 0.5:
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, size=x.shape, dtype=dtype, endpoint=True)
    for axes in ([1], [0, 2], [2, 0, 1], []):
        got = vkdml.reduce(x, function, axes=axes, device=device)
        want = _values_reference(x, axes, function)
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(got.view(np.uint8), np.ascontiguousarray(want).view(np.uint8))


def test_reduce_float_sum_is_exact(device):
    """Float SUM is the exact sum rounded once (a FLOAT32 scan gives 1)."""
    x = np.array([[1e8, 1, -1e8, 1], [3, 4, 0, 0]], np.float32)
    np.testing.assert_array_equal(vkdml.reduce(x, "sum", axes=1, device=device).ravel(), [2, 7])
    np.testing.assert_array_equal(vkdml.reduce(x[1:], "l2", axes=1, device=device).ravel(), [5])
    assert vkdml.reduce(np.ones(5000, np.float16), "sum", axes=0, device=device)[0] == 5000


def _tree_product(v):
    """semantics.md rule 42: the pairwise tree over aligned powers of two,
    each product a float32 multiplication."""
    if len(v) == 1:
        return v[0]
    half = 1 << (len(v) - 1).bit_length() - 1
    return np.float32(_tree_product(v[:half]) * _tree_product(v[half:]))


def test_reduce_float_multiply_tree(device, rng):
    """Float MULTIPLY follows rule 42's canonical tree, whose partial
    products decide overflow (1e30*1e30 is inf, times 1e-30*1e-30 = 0 NaN)."""
    x = np.array([[1e30, 1e30, 1e-30, 1e-30], [1e30, 1e-30, 1e30, 1e-30], [2, 3, 4, -0.5]], np.float32)
    got = vkdml.reduce(x, "multiply", axes=1, device=device).ravel()
    assert np.isnan(got[0]) and got[1] == 1 and got[2] == -12
    with np.errstate(over="ignore", under="ignore"):
        y = (1 + (rng.random((3, 1000)) - 0.5) / 8).astype(np.float32)
        want = [_tree_product(list(row)) for row in y]
        np.testing.assert_array_equal(vkdml.reduce(y, "multiply", axes=1, device=device).ravel(), want)
        h = np.array([256, 256, 1 / 256, 1 / 256], np.float16)  # computed in float32: no float16 overflow
        assert vkdml.reduce(h, "multiply", axes=0, device=device)[0] == 1


def test_reduce_value_rules(device):
    nan, z = np.float32(np.nan), np.float32(0)
    x = np.array([[nan, 1, 3], [1, nan, 3], [-z, z, 7]], np.float32)
    np.testing.assert_array_equal(vkdml.reduce(x, "max", axes=1, device=device).ravel(), [3, 3, 7])
    zeros = np.array([[-z, z], [z, -z]], np.float32)
    assert list(np.signbit(vkdml.reduce(zeros, "max", axes=1, device=device).ravel())) == [False, True]
    assert vkdml.reduce(np.array([2147483647, 1], np.int32), "sum", axes=0, device=device)[0] == -2147483648
    assert vkdml.reduce(np.array([65536, 65536, 3], np.int32), "multiply", axes=0, device=device)[0] == 0
    # the order before the value functions still works
    assert vkdml.reduce(np.array([1, 5, 2], np.uint8), 0, "max", device=device)[0] == 5


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8, np.uint64])
def test_pooling_versions_agree(device, rng, dtype):
    """MAX_POOLING, MAX_POOLING1 and MAX_POOLING2 without dilations are one
    operator: the same values, and MAX_POOLING1's indices are
    MAX_POOLING2's."""
    x = draw(rng, dtype, (2, 3, 7, 6))
    kw = dict(strides=(2, 1), start_padding=(1, 0), end_padding=(1, 2), device=device)
    y0 = vkdml.max_pool(x, (3, 2), version=0, **kw)
    y1, i1 = vkdml.max_pool(x, (3, 2), version=1, return_indices=True, **kw)
    y2, i2 = vkdml.max_pool(x, (3, 2), version=2, return_indices=True, **kw)
    np.testing.assert_array_equal(y0.view(np.uint8), y2.view(np.uint8))
    np.testing.assert_array_equal(y1.view(np.uint8), y2.view(np.uint8))
    np.testing.assert_array_equal(i1, i2)
    ref_y, ref_i = max_pool_reference(x, (3, 2), (2, 1), (1, 1), (1, 0), (1, 2), y2.shape[2:])
    np.testing.assert_array_equal(y2.view(np.uint8), ref_y.view(np.uint8))
    np.testing.assert_array_equal(i2, ref_i)


@pytest.mark.parametrize("kwargs, field", [
    (dict(version=0, return_indices=True), "return_indices"),
    (dict(version=1, dilations=2), "dilations"),
    (dict(version=3), "version"),
    (dict(version=True), "version"),
    (dict(padding=1, start_padding=1), "padding"),
    (dict(ceil_mode=True, output_size=2), "ceil_mode"),
])
def test_pooling_version_and_padding_misuse(device, kwargs, field):
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        vkdml.max_pool(np.zeros((1, 1, 4, 4), np.float32), 2, device=device, **kwargs)
    assert field in str(e.value), str(e.value)


def test_padding_sets_both_sides(device, rng):
    x = draw(rng, np.float32, (1, 2, 5, 5))
    a = vkdml.max_pool(x, 3, padding=(1, 2), return_indices=True, device=device)
    b = vkdml.max_pool(x, 3, start_padding=(1, 2), end_padding=(1, 2), return_indices=True, device=device)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u.view(np.uint8), v.view(np.uint8))


@pytest.mark.parametrize("size, window, stride, pad", [(5, 2, 2, 0), (6, 3, 2, 1), (7, 3, 3, 1), (4, 2, 3, 0),
                                                        (9, 4, 4, 2)])
def test_ceil_mode_matches_torch(device, rng, size, window, stride, pad):
    torch = pytest.importorskip("torch")
    x = draw(rng, np.float32, (2, 2, size, size + 1), special=False)
    y, idx = vkdml.max_pool(x, window, strides=stride, padding=pad, ceil_mode=True, return_indices=True,
                            device=device)
    ty, ti = torch.nn.functional.max_pool2d(torch.from_numpy(x), window, stride, pad, ceil_mode=True,
                                            return_indices=True)
    assert y.shape == tuple(ty.shape)
    np.testing.assert_array_equal(y, ty.numpy())
    # torch's indices are flat within a plane; DirectML's over the whole input.
    planes = np.arange(4).reshape(2, 2, 1, 1) * x.shape[2] * x.shape[3]
    np.testing.assert_array_equal(idx, ti.numpy() + planes)


def test_out_with_strides_keeps_the_bytes_between(device, rng):
    x = draw(rng, np.float32, (4, 6))
    big = np.full((4, 3), 0xDEADBEEF, np.uint32)
    out = big[:, 1:2]  # a strided column
    got = vkdml.argmax(x, 1, out=out, device=device)
    assert got is out
    np.testing.assert_array_equal(out, arg_reference(x, [1], False, "increasing"))
    assert (big[:, 0] == 0xDEADBEEF).all() and (big[:, 2] == 0xDEADBEEF).all()
    # Run again into the same view: the cached operator writes the same way.
    vkdml.argmin(x, 1, out=out, device=device)
    np.testing.assert_array_equal(out, arg_reference(x, [1], True, "increasing"))
    assert (big[:, 0] == 0xDEADBEEF).all() and (big[:, 2] == 0xDEADBEEF).all()


def test_max_pool_out(device, rng):
    x = draw(rng, np.int16, (1, 2, 4, 4))
    ybig = np.full((1, 2, 2, 4), -7, np.int16)
    idx = np.empty((1, 2, 2, 2), np.uint64)
    y, i = vkdml.max_pool(x, 2, strides=2, return_indices=True, index_dtype="uint64", out=(ybig[..., ::2], idx),
                          device=device)
    assert i is idx
    ref_y, ref_i = max_pool_reference(x, (2, 2), (2, 2), (1, 1), (0, 0), (0, 0), (2, 2))
    np.testing.assert_array_equal(ybig[..., ::2], ref_y)
    assert (ybig[..., 1::2] == -7).all()
    np.testing.assert_array_equal(idx, ref_i)
    y0 = np.empty((1, 2, 2, 2), np.int16)
    assert vkdml.max_pool(x, 2, strides=2, out=y0, device=device) is y0


@pytest.mark.parametrize("out, field", [
    (np.empty((2, 2), np.uint32), "out.shape"),
    (np.empty((2, 1), np.float32), "OutputTensor"),
    (np.broadcast_to(np.empty((1, 1), np.uint32), (2, 1)), "out"),
    (np.empty((2, 2), np.uint32)[::-1, :1], "out.strides"),
    ([[0], [0]], "out"),
])
def test_out_misuse(device, out, field):
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        vkdml.argmax(np.zeros((2, 3), np.float32), 1, out=out, device=device)
    assert field in str(e.value), str(e.value)


# ---- vkdml.run ----

def _tensor(dtype_name, sizes, strides=None, total=0):
    t = {"DataType": dtype_name, "Sizes": list(sizes), "TotalTensorSizeInBytes": total}
    if strides is not None:
        t["Strides"] = list(strides)
    return t


def test_run_argmax_desc_as_data(device, rng):
    x = draw(rng, np.float32, (3, 5))
    y = bytearray(b"\xAB" * 16)  # three UINT32 indices and 4 spare bytes
    desc = {"type": "ARGMAX", "InputTensor": _tensor("FLOAT32", (3, 5)),
            "OutputTensor": _tensor("UINT32", (3, 1), total=16), "AxisCount": 1, "Axes": [1],
            "AxisDirection": "DECREASING"}
    vkdml.run(desc, [x], [y], device=device)
    got = np.frombuffer(bytes(y[:12]), np.uint32).reshape(3, 1)
    np.testing.assert_array_equal(got, arg_reference(x, [1], False, "decreasing"))
    assert y[12:] == b"\xAB" * 4  # rule 6: the spare bytes keep their contents


def test_run_go_json_names_and_numbers(device, rng):
    """The Go desc's JSON (the parity corpus's and the golden cases'
    format): Input/Output, numeric enums, no counts; a strided input given
    as raw bytes."""
    base = draw(rng, np.int8, (4, 6))
    desc = {"type": "REDUCE", "Function": 1, "Input": {"DataType": 8, "Sizes": [6, 4], "Strides": [1, 6]},
            "Output": {"DataType": 11, "Sizes": [1, 4]}, "Axes": [0]}
    out = np.zeros((1, 4), np.int64)
    vkdml.run(desc, [base.tobytes()], [out], device=device)
    np.testing.assert_array_equal(out, arg_reference(base.T, [0], True, "increasing"))


def test_run_every_pooling_desc(device, rng):
    x = draw(rng, np.float16, (1, 2, 5, 5))
    spatial = {"Strides": [2, 2], "WindowSize": [3, 3], "StartPadding": [1, 1], "EndPadding": [1, 1]}
    want_y, want_i = vkdml.max_pool(x, 3, strides=2, padding=1, return_indices=True, device=device)
    for kind in ("MAX_POOLING", "MAX_POOLING1", "MAX_POOLING2"):
        y = np.zeros_like(want_y)
        desc = {"type": kind, "InputTensor": _tensor("FLOAT16", x.shape),
                "OutputTensor": _tensor("FLOAT16", y.shape), **spatial}
        outs = [y]
        if kind != "MAX_POOLING":
            idx = np.zeros(y.shape, np.uint32)
            desc["OutputIndicesTensor"] = _tensor("UINT32", y.shape)
            outs.append(idx)
        if kind == "MAX_POOLING2":
            desc["Dilations"] = [1, 1]
        vkdml.run(desc, [x], outs, device=device)
        np.testing.assert_array_equal(y.view(np.uint16), want_y.view(np.uint16))
        if kind != "MAX_POOLING":
            np.testing.assert_array_equal(idx, want_i)
    # MAX_POOLING1 without its optional indices: None in their place.
    desc = {"type": "MAX_POOLING1", "InputTensor": _tensor("FLOAT16", x.shape),
            "OutputTensor": _tensor("FLOAT16", want_y.shape), **spatial}
    y = np.zeros_like(want_y)
    vkdml.run(desc, [x], [y, None], device=device)
    np.testing.assert_array_equal(y.view(np.uint16), want_y.view(np.uint16))


ARGMAX = {"type": "ARGMAX", "InputTensor": _tensor("FLOAT32", (2, 3)), "OutputTensor": _tensor("UINT32", (2, 1)),
          "Axes": [1]}


@pytest.mark.parametrize("change, inputs, outputs, field", [
    ({"type": "CONVOLUTION"}, None, None, "desc.type"),
    ({"InputTensor": None}, None, None, "desc.InputTensor"),
    ({"AxisCount": 2}, None, None, "desc.Axes"),
    ({"Axes": [2]}, None, None, "Axes[0]"),
    ({"AxisDirection": "SIDEWAYS"}, None, None, "desc.AxisDirection"),
    ({"OutputTensor": _tensor("BOOL", (2, 1))}, None, None, "desc.OutputTensor.DataType"),
    ({"OutputTensor": _tensor("UINT32", (2, 2**32))}, None, None, "desc.OutputTensor.Sizes[1]"),
    ({"InputTensor": _tensor("FLOAT32", (2, 3), strides=(3,))}, None, None, "desc.InputTensor.Strides"),
    ({}, [bytes(23)], None, "inputs[0].size_in_bytes"),
    ({}, None, [bytes(8)], "outputs[0]"),
    ({}, None, [np.zeros((2, 4), np.uint32)[:, ::2]], "outputs[0]"),
    ({}, [object()], None, "inputs[0]"),
    ({}, None, [], "output_count"),
])
def test_run_misuse_names_the_field(device, change, inputs, outputs, field):
    desc = dict(ARGMAX, **change)
    desc = {k: v for k, v in desc.items() if v is not None}
    ins = [np.zeros((2, 3), np.float32)] if inputs is None else inputs
    outs = [np.zeros((2, 1), np.uint32)] if outputs is None else outputs
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        vkdml.run(desc, ins, outs, device=device)
    assert field in str(e.value), str(e.value)


def test_devices(device):
    devs = vkdml.devices()
    assert devs and sum(d["default"] for d in devs) == 1
    for i, d in enumerate(devs):
        assert d["index"] == i and d["name"] and "usable" in d and "limits" in d
        assert "subgroup_size" in d["limits"] and "vendor_id" in d
    default = next(d for d in devs if d["default"])
    x = np.array([[3, 9, 1]], np.float32)
    assert vkdml.argmax(x, 1, device=default["index"])[0, 0] == 1
