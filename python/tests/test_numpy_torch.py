"""The NumPy and PyTorch habits vkdml meets without changing DirectML's
semantics: axes=None and keepdims, PyTorch's pooling indices through
explicit converters, 1-D pooling on 3-D arrays, a prepare_* for every
operator, DLPack host arrays, Literal-typed arguments, and float64 and
bfloat16 refused with DirectML's types and the cast to use."""

import typing

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import vkdml
from reference import DTYPES, draw


def distinct(rng, shape, dtype=np.float32):
    """Values without ties, so that every rule for ties agrees."""
    return rng.permutation(int(np.prod(shape))).reshape(shape).astype(dtype)


# ---- axes=None and keepdims ----

def test_axes_none_is_every_axis_as_numpy(device, rng):
    x = distinct(rng, (3, 4, 5))
    for fn, ref in ((vkdml.argmax, np.argmax), (vkdml.argmin, np.argmin)):
        kept = fn(x, device=device)
        assert kept.shape == (1, 1, 1) and kept.ravel()[0] == ref(x)
        flat = fn(x, None, keepdims=False, device=device)
        assert flat.shape == () and int(flat) == ref(x)
    assert int(vkdml.reduce(x, None, "argmin", keepdims=False, device=device)) == np.argmin(x)


@pytest.mark.parametrize("dtype", DTYPES)
def test_keepdims_false_drops_the_reduced_axes(device, rng, dtype):
    x = draw(rng, dtype, (2, 3, 4))
    for axes in (0, 1, -1, (0, 2), [2, 0, 1]):
        kept = vkdml.argmax(x, axes, device=device)
        dropped = vkdml.argmax(x, axes, keepdims=False, device=device)
        ax = tuple(sorted(a % 3 for a in np.atleast_1d(axes)))
        np.testing.assert_array_equal(dropped, kept.squeeze(axis=ax))
    xs = distinct(rng, (2, 3, 4), dtype=np.float32)
    for axis in range(3):
        np.testing.assert_array_equal(vkdml.argmin(xs, axis, keepdims=False, device=device), np.argmin(xs, axis))


def test_keepdims_false_writes_into_out(device, rng):
    x = distinct(rng, (3, 4))
    out = np.full(4, 99, np.int64)
    got = vkdml.argmax(x, 0, keepdims=False, index_dtype="int64", out=out, device=device)
    assert got is out
    np.testing.assert_array_equal(out, np.argmax(x, 0))
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        vkdml.argmax(x, 0, keepdims=False, out=np.zeros((1, 4), np.uint32), device=device)
    assert "out.shape" in str(e.value) and "keepdims=False" in str(e.value)
    with pytest.raises(vkdml.ArgumentTypeError) as e:
        vkdml.argmax(x, 0, keepdims="no", device=device)
    assert "keepdims" in str(e.value)


def test_prepared_reductions_take_axes_none_and_keepdims(device, rng):
    x = distinct(rng, (4, 6))
    with vkdml.prepare_argmax(x.shape, x.dtype, keepdims=False, device=device) as op:
        assert int(op(x)) == np.argmax(x)
    with vkdml.prepare_argmin(x.shape, x.dtype, 1, keepdims=False, device=device) as op:
        np.testing.assert_array_equal(op(x), np.argmin(x, 1))
    with vkdml.prepare_reduce(x.shape, x.dtype, None, "argmax", keepdims=False, device=device) as op:
        assert int(op(x)) == np.argmax(x)


# ---- PyTorch's pooling indices ----

def _torch_pool(x, window, stride):
    fn = {3: F.max_pool1d, 4: F.max_pool2d, 5: F.max_pool3d}[x.ndim]
    y, idx = fn(torch.from_numpy(x), window, stride, return_indices=True)
    return y.numpy(), idx.numpy()


@pytest.mark.parametrize("shape", [(2, 3, 9), (2, 3, 6, 7), (1, 2, 4, 5, 6)])
def test_index_converters_match_torch(device, rng, shape):
    x = distinct(rng, shape)
    y, flat = vkdml.max_pool(x, 2, strides=2, return_indices=True, device=device)
    ty, tidx = _torch_pool(x, 2, 2)
    np.testing.assert_array_equal(y, ty)
    per_plane = vkdml.indices_to_torch(flat, shape)
    assert per_plane.dtype == np.int64
    np.testing.assert_array_equal(per_plane, tidx)
    for index_dtype in ("uint32", "uint64"):
        back = vkdml.indices_from_torch(tidx, shape, index_dtype=index_dtype)
        assert back.dtype == np.dtype(index_dtype)
        np.testing.assert_array_equal(back, flat)
    # A torch tensor goes in as it is.
    np.testing.assert_array_equal(vkdml.indices_from_torch(torch.from_numpy(tidx), shape), flat)


def test_max_unpool_takes_torch_indices_by_name(device, rng):
    shape = (2, 3, 6, 4)
    x = distinct(rng, shape)
    ty, tidx = _torch_pool(x, 2, 2)
    want = F.max_unpool2d(torch.from_numpy(ty), torch.from_numpy(tidx), 2, 2, output_size=shape[2:]).numpy()
    got = vkdml.max_unpool(ty, tidx, shape, indices_layout="torch", device=device)
    np.testing.assert_array_equal(got, want)
    # DirectML's default: the same indices read as flat ones are refused
    # by dtype (int64), as DirectML refuses them.
    with pytest.raises(vkdml.InvalidArgumentError):
        vkdml.max_unpool(ty, tidx, shape, device=device)
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        vkdml.max_unpool(ty, tidx, shape, indices_layout="pytorch", device=device)
    assert "indices_layout" in str(e.value)


def test_index_converters_refuse_what_has_no_other_form(device):
    shape = (1, 2, 2, 2)  # planes of 4 elements
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        vkdml.indices_from_torch(np.array([[[[0]], [[4]]]], np.int64), shape)
    assert "indices[0, 1, 0, 0]" in str(e.value) and "[0, 4)" in str(e.value)
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        vkdml.indices_from_torch(np.array([[[[-1]], [[0]]]], np.int64), shape)
    assert "indices[0, 0, 0, 0]" in str(e.value)
    # An all-padding window's DirectML index 0 (rule 9), in channel 1.
    x = np.ones(shape, np.float32)
    _, flat = vkdml.max_pool(x, 1, start_padding=(1, 1), output_size=(1, 1), return_indices=True, device=device)
    assert flat.ravel().tolist() == [0, 0]
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        vkdml.indices_to_torch(flat, shape)
    assert "indices[0, 1, 0, 0]" in str(e.value) and "rule 9" in str(e.value)
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        vkdml.indices_to_torch(np.zeros((1, 3, 1, 1), np.uint32), shape)
    assert "indices.shape" in str(e.value)
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        vkdml.indices_from_torch(np.zeros((1, 2, 1, 1), np.int64), shape, index_dtype="int32")
    assert "index_dtype" in str(e.value)
    with pytest.raises(vkdml.ArgumentTypeError):
        vkdml.indices_to_torch(np.zeros((1, 2, 1, 1), np.float32), shape)


# ---- 1-D pooling ----

def test_1d_pooling_on_3d_arrays_matches_torch(device, rng):
    x = distinct(rng, (2, 3, 11))
    for window, stride, padding in ((3, 2, 1), ([2], [1], [0]), (4, 3, 2)):
        y, idx = vkdml.max_pool(x, window, strides=stride, padding=padding, return_indices=True, device=device)
        ty, tidx = F.max_pool1d(torch.from_numpy(x), window, stride, padding, return_indices=True)
        assert y.shape == tuple(ty.shape)
        np.testing.assert_array_equal(y, ty.numpy())
        np.testing.assert_array_equal(vkdml.indices_to_torch(idx, x.shape), tidx.numpy())
    ceil = vkdml.max_pool(x, 3, strides=2, ceil_mode=True, device=device)
    np.testing.assert_array_equal(ceil, F.max_pool1d(torch.from_numpy(x), 3, 2, ceil_mode=True).numpy())


def test_1d_pooling_writes_into_out_and_prepares(device, rng):
    x = distinct(rng, (1, 2, 8))
    y, idx = np.zeros((1, 2, 4), np.float32), np.zeros((1, 2, 4), np.uint32)
    got = vkdml.max_pool(x, 2, strides=2, return_indices=True, out=(y, idx), device=device)
    assert got[0] is y and got[1] is idx
    want_y, want_idx = vkdml.max_pool(x[:, :, None, :], (1, 2), strides=(1, 2), return_indices=True, device=device)
    np.testing.assert_array_equal(y, want_y[:, :, 0])
    np.testing.assert_array_equal(idx, want_idx[:, :, 0])
    with vkdml.prepare_max_pool(x.shape, x.dtype, 2, strides=2, return_indices=True, device=device) as op:
        py, pidx = op(x)
        np.testing.assert_array_equal(py, y)
        np.testing.assert_array_equal(pidx, idx)
        with pytest.raises(vkdml.InvalidArgumentError):
            op(x[:, :, None, :])  # prepared for 3-D arrays
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        vkdml.max_pool(x, (2, 2), device=device)
    assert "window" in str(e.value) and "1 spatial" in str(e.value)


# ---- prepare_max_unpool ----

def test_prepare_max_unpool_is_max_unpool(device, rng):
    shape, out_shape = (2, 2, 3, 3), (2, 2, 6, 6)
    x = draw(rng, np.float32, shape)
    idx = rng.integers(0, int(np.prod(out_shape)) + 5, size=shape).astype(np.uint32)
    want = vkdml.max_unpool(x, idx, out_shape, device=device)
    with vkdml.prepare_max_unpool(shape, np.float32, out_shape, device=device) as op:
        np.testing.assert_array_equal(op(x, idx), want)
        np.testing.assert_array_equal(op(x, indices=idx), want)
        with pytest.raises(vkdml.InvalidArgumentError) as e:
            op(x)
        assert "indices" in str(e.value)
        with pytest.raises(vkdml.InvalidArgumentError) as e:
            op(x, idx.astype(np.uint64))
        assert "indices" in str(e.value) and "prepared" in str(e.value)
    with vkdml.prepare_argmax((3,), np.float32, 0, device=device) as op:
        with pytest.raises(vkdml.InvalidArgumentError) as e:
            op(np.zeros(3, np.float32), np.zeros(3, np.uint32))
        assert "indices" in str(e.value)


def test_every_operator_function_has_a_prepare():
    for name in ("argmax", "argmin", "reduce", "max_pool", "max_unpool"):
        assert callable(getattr(vkdml, "prepare_" + name)), name
        assert "prepare_" + name in vkdml.__all__


# ---- DLPack ----

class HostDLPack:
    """A producer that speaks only DLPack (no __array__), on the host or,
    with device_type != 1, pretending to be on a GPU."""

    def __init__(self, array, device_type=1):
        self._array, self._device_type = array, device_type

    def __dlpack__(self, stream=None):
        return self._array.__dlpack__()

    def __dlpack_device__(self):
        return (self._device_type, 0)


def test_dlpack_host_arrays_go_in_and_results_come_out(device, rng):
    x = distinct(rng, (3, 5))
    want = vkdml.argmax(x, 1, device=device)
    np.testing.assert_array_equal(vkdml.argmax(HostDLPack(x), 1, device=device), want)
    np.testing.assert_array_equal(vkdml.argmax(torch.from_numpy(x), 1, device=device), want)
    with pytest.raises(vkdml.ArgumentTypeError) as e:
        vkdml.argmax(HostDLPack(x, device_type=2), 1, device=device)
    assert "host" in str(e.value) and ".cpu()" in str(e.value)
    # A result is a numpy array, which DLPack consumers take without a copy.
    r = vkdml.argmax(x, 1, index_dtype="int64", device=device)
    t = torch.from_dlpack(r)
    assert t.data_ptr() == r.ctypes.data
    np.testing.assert_array_equal(t.numpy(), r)
    assert np.from_dlpack(r).ctypes.data == r.ctypes.data


# ---- float64, bfloat16 ----

def test_float64_and_bfloat16_name_directml_types_and_the_cast(device):
    for call in (lambda: vkdml.argmax(np.zeros(3), 0, device=device),
                 lambda: vkdml.max_pool(np.zeros((1, 1, 4, 4)), 2, device=device)):
        with pytest.raises(vkdml.InvalidArgumentError) as e:
            call()
        msg = str(e.value)
        assert "x.dtype: float64" in msg and "x.astype(numpy.float32)" in msg, msg
        assert "float32, float16" in msg and "by vkdml" not in msg, msg
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        vkdml.prepare_argmax((3,), "float64", 0, device=device)
    assert "dtype: float64" in str(e.value) and "numpy.float32" in str(e.value)
    with pytest.raises(vkdml.InvalidArgumentError) as e:  # no float cast for an index type
        vkdml.argmax(np.zeros(3, np.float32), 0, index_dtype="float64", device=device)
    assert "index_dtype: float64" in str(e.value) and "cast" not in str(e.value)
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        vkdml.argmax(torch.zeros(3, dtype=torch.bfloat16), 0, device=device)
    msg = str(e.value)
    assert "bfloat16" in msg and "x.float()" in msg and "float32, float16" in msg, msg
    np.testing.assert_array_equal(vkdml.argmax(np.array([1.0, 3.0, 2.0]).astype(np.float32), 0, device=device), [1])


# ---- Literal-typed arguments ----

def test_choices_are_literal_types():
    Literal = typing.Literal
    hints = typing.get_type_hints(vkdml.argmax)
    assert hints["direction"] == Literal["increasing", "decreasing"]
    assert typing.get_type_hints(vkdml.argmin)["direction"] == Literal["increasing", "decreasing"]
    assert typing.get_type_hints(vkdml.max_pool)["version"] == Literal[0, 1, 2]
    assert typing.get_type_hints(vkdml.max_unpool)["indices_layout"] == Literal["directml", "torch"]
    function = typing.get_type_hints(vkdml.reduce)["function"]
    assert typing.get_origin(function) is Literal and {"argmax", "argmin"} <= set(typing.get_args(function))
