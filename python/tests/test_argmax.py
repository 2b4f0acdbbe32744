"""vkdml.argmax / vkdml.argmin against numpy, torch and the DirectML rules."""

import numpy as np
import pytest
import torch

import vkdml
from reference import DTYPES, INDEX_DTYPES, arg_reference, draw, layout

LAYOUTS = ["c", "fortran", "strided", "broadcast", "reversed"]


def random_case(rng, dtype):
    rank = int(rng.integers(1, 6))
    shape = tuple(int(s) for s in rng.integers(1, 6, size=rank))
    count = int(rng.integers(1, rank + 1))
    axes = [int(a) for a in rng.choice(rank, size=count, replace=False)]
    axes = [a - rank if rng.random() < 0.5 else a for a in axes]  # negative axes
    if len(axes) == 1 and rng.random() < 0.3:
        axes = axes[0]  # a plain int
    x = layout(rng, draw(rng, dtype, shape), LAYOUTS[int(rng.integers(len(LAYOUTS)))])
    return x, axes


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("fn", ["argmax", "argmin"])
def test_random_against_rules(rng, device, dtype, fn):
    """Random shapes, axes (negative and int), directions, index types and
    layouts, with ties, NaN, +-0, +-inf and integer extremes."""
    for _ in range(8):
        x, axes = random_case(rng, dtype)
        direction = ["increasing", "decreasing"][int(rng.integers(2))]
        index_dtype = INDEX_DTYPES[int(rng.integers(len(INDEX_DTYPES)))]
        got = getattr(vkdml, fn)(x, axes, direction=direction, index_dtype=index_dtype, device=device)
        want = arg_reference(x, axes if isinstance(axes, list) else [axes], fn == "argmin", direction)
        assert got.dtype == np.dtype(index_dtype)
        assert got.shape == want.shape, (x.shape, axes)
        np.testing.assert_array_equal(got, want, err_msg="%s(%r, %r, %s) of %r" % (fn, x.shape, axes, direction, x))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("fn", ["argmax", "argmin"])
def test_matches_numpy_and_torch_without_nan(rng, device, dtype, fn):
    """Without NaN, one axis and INCREASING, DirectML agrees with numpy and
    torch (first of tied extremes); DECREASING is numpy on the reversed
    axis. torch has no unsigned 16/32/64-bit tensors: those types are
    checked against numpy only."""
    for _ in range(4):
        rank = int(rng.integers(1, 5))
        shape = tuple(int(s) for s in rng.integers(1, 7, size=rank))
        x = layout(rng, draw(rng, dtype, shape, special=False), ["c", "fortran", "strided"][int(rng.integers(3))])
        axis = int(rng.integers(-rank, rank))
        got = getattr(vkdml, fn)(x, axis, device=device, index_dtype="int64")
        want = np.expand_dims(getattr(np, fn)(x, axis=axis), axis)
        np.testing.assert_array_equal(got, want)
        if np.dtype(dtype) not in (np.dtype(np.uint16), np.dtype(np.uint32), np.dtype(np.uint64)):
            t = torch.from_numpy(np.ascontiguousarray(x))
            np.testing.assert_array_equal(got, getattr(torch, fn)(t, dim=axis, keepdim=True).numpy())
        got = getattr(vkdml, fn)(x, axis, direction="decreasing", device=device)
        n = x.shape[axis]
        rev = n - 1 - getattr(np, fn)(np.flip(x, axis), axis=axis)
        np.testing.assert_array_equal(got, np.expand_dims(rev, axis))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_nan_rule_differs_from_numpy_and_torch(device, dtype):
    """semantics.md rule 5: a NaN is never returned unless it comes first;
    numpy and torch return the first NaN instead."""
    x = np.array([1, np.nan, 3], dtype)
    assert vkdml.argmax(x, 0, device=device)[0] == 2
    assert np.argmax(x) == 1
    assert int(torch.argmax(torch.from_numpy(x))) == 1
    assert vkdml.argmin(x, 0, device=device)[0] == 0
    y = np.array([np.nan, 1, 2], dtype)
    assert vkdml.argmax(y, 0, device=device)[0] == 0
    assert vkdml.argmin(y, 0, device=device)[0] == 0
    z = np.array([-0.0, 0.0, -0.0], dtype)  # -0 ties with +0
    assert vkdml.argmax(z, 0, device=device)[0] == 0
    assert vkdml.argmax(z, 0, direction="decreasing", device=device)[0] == 2


def test_multi_axis_blocks_count_row_major(device):
    """Reducing axes 0 and 2 together: the index is position in the block
    taken in row-major order over (axis 0, axis 2)."""
    x = np.zeros((2, 3, 4), np.int32)
    x[1, :, 2] = 9
    got = vkdml.argmax(x, (-1, 0), device=device)
    assert got.shape == (1, 3, 1)
    np.testing.assert_array_equal(got.ravel(), [1 * 4 + 2] * 3)


def test_strided_views_are_not_copied():
    """A view with non-negative strides that are multiples of the item size
    reaches libvkdml as DirectML strides over the same memory; a reversed
    view is copied."""
    from vkdml._api import _Input
    base = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    for view in (base[:, ::2], base[..., 1::2], np.asfortranarray(base), base.transpose(2, 0, 1),
                 np.broadcast_to(base[:1], base.shape)):
        t = _Input("test", "x", view)
        assert t.array is view
        assert t.buffer.data == view.ctypes.data
    t = _Input("test", "x", base[::-1])
    assert not np.shares_memory(t.array, base)
    np.testing.assert_array_equal(t.array, base[::-1])


def test_prepared_sizes_cover_strided_tail(device):
    """A strided view whose last element ends the host buffer: only the
    addressed bytes are read (the 4-byte rounding is not required)."""
    base = np.arange(7, dtype=np.int8)
    view = base[::3]  # elements 0, 3, 6: the last byte of the buffer
    assert vkdml.argmax(view, 0, device=device)[0] == 2


def test_other_inputs(device):
    """Lists become arrays (Python ints are int64); big-endian arrays are
    converted to native order; a 0-D array has no axis to reduce."""
    assert vkdml.argmax([3, 9, 9, 1], 0, device=device)[0] == 1
    x = np.array([[2, -1, 7], [0, 5, 5]], ">f4")
    np.testing.assert_array_equal(vkdml.argmin(x, 1, device=device).ravel(), [1, 0])
    y = vkdml.max_pool(np.arange(16, dtype=">i2").reshape(1, 1, 4, 4), 2, strides=2, device=device)
    assert y.dtype == np.int16
    np.testing.assert_array_equal(y.ravel(), [5, 7, 13, 15])
    with pytest.raises(vkdml.Error) as e:
        vkdml.argmax(np.float32(1), 0, device=device)
    assert e.value.hresult == vkdml.E_INVALIDARG
