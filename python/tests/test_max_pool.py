"""vkdml.max_pool against torch (per-plane indices converted to DirectML's
flat ones) and against the rule-9 reference for every dtype."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import vkdml
from reference import DTYPES, draw, layout, lowest, max_pool_reference


def torch_flat_indices(indices, shape):
    """torch's indices count within each (n, c) plane; DirectML's count over
    the whole input: add the plane's offset."""
    n, c = shape[:2]
    plane = int(np.prod(shape[2:]))
    offset = (np.arange(n)[:, None] * c + np.arange(c)[None, :]) * plane
    return indices + offset.reshape((n, c) + (1,) * (len(shape) - 2))


def random_params(rng, dims):
    window = [int(w) for w in rng.integers(1, 4, size=dims)]
    strides = [int(s) for s in rng.integers(1, 3, size=dims)]
    if rng.random() < 0.5:
        dilations = [int(d) for d in rng.integers(1, 3, size=dims)]
        padding = [0] * dims
    else:
        dilations = [1] * dims
        padding = [int(rng.integers(0, w // 2 + 1)) for w in window]  # torch: at most half the window
    return window, strides, dilations, padding


@pytest.mark.parametrize("rank", [4, 5])
def test_against_torch(rng, device, rank):
    """float32 with ties (small integers), symmetric padding, dilation and
    ceil mode; inputs C-ordered, Fortran-ordered, channels-last or strided.
    torch skips NaN/-inf handling differences: the values are finite."""
    pool = F.max_pool2d if rank == 4 else F.max_pool3d
    for _ in range(6 if rank == 4 else 4):
        dims = rank - 2
        window, strides, dilations, padding = random_params(rng, dims)
        spatial = [int(s) for s in rng.integers(max(window) * max(dilations), 7, size=dims, endpoint=True)]
        shape = tuple(int(s) for s in rng.integers(1, 3, size=2, endpoint=True)) + tuple(spatial)
        x = draw(rng, np.float32, shape, special=False)
        kind = ["c", "fortran", "strided", "channels_last"][int(rng.integers(4))]
        if kind == "channels_last":
            xs = np.ascontiguousarray(np.moveaxis(x, 1, -1))
            xs = np.moveaxis(xs, -1, 1)
        else:
            xs = layout(rng, x, kind)
        ceil = bool(rng.random() < 0.3)
        ty, ti = pool(torch.from_numpy(x), window, strides, padding, dilations, ceil_mode=ceil, return_indices=True)
        y, idx = vkdml.max_pool(xs, window, strides=strides, dilations=dilations, start_padding=padding,
                                end_padding=padding, output_size=ty.shape[2:], return_indices=True,
                                index_dtype="uint64", device=device)
        what = "window %s strides %s dilations %s padding %s ceil %s layout %s" % (window, strides, dilations, padding, ceil, kind)
        assert np.isfinite(ty.numpy()).all(), what  # every window holds an input element
        np.testing.assert_array_equal(y, ty.numpy(), err_msg=what)
        np.testing.assert_array_equal(idx, torch_flat_indices(ti.numpy(), shape), err_msg=what)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_dtype_against_rule_9(rng, device, dtype):
    """Every dtype, with NaN, +-inf, +-0, integer extremes and ties,
    asymmetric and padding-only windows, against the rule-9 reference."""
    for _ in range(3):
        rank = int(rng.integers(4, 6))
        dims = rank - 2
        window = [int(w) for w in rng.integers(1, 4, size=dims)]
        strides = [int(s) for s in rng.integers(1, 3, size=dims)]
        dilations = [int(d) for d in rng.integers(1, 3, size=dims)]
        start = [int(p) for p in rng.integers(0, 4, size=dims)]  # may exceed the window: all-padding windows
        end = [int(p) for p in rng.integers(0, 3, size=dims)]
        spatial = [int(s) for s in rng.integers(1, 5 if dims == 2 else 4, size=dims, endpoint=True)]
        shape = (int(rng.integers(1, 3)), int(rng.integers(1, 3))) + tuple(spatial)
        x = layout(rng, draw(rng, dtype, shape), ["c", "fortran", "strided"][int(rng.integers(3))])
        try:
            size = [(s + a + b - (1 + (w - 1) * d)) // st + 1
                    for s, a, b, w, d, st in zip(spatial, start, end, window, dilations, strides)]
        except ZeroDivisionError:
            continue
        if min(size) < 1:
            continue  # the window does not fit: covered by test_errors
        index_dtype = [np.uint32, np.uint64][int(rng.integers(2))]
        y, idx = vkdml.max_pool(x, window, strides=strides, dilations=dilations, start_padding=start,
                                end_padding=end, return_indices=True, index_dtype=index_dtype, device=device)
        wy, widx = max_pool_reference(x, window, strides, dilations, start, end, size)
        what = "shape %s window %s strides %s dilations %s pads %s/%s" % (shape, window, strides, dilations, start, end)
        assert idx.dtype == np.dtype(index_dtype)
        np.testing.assert_array_equal(idx, widx, err_msg=what)
        np.testing.assert_array_equal(y.view(np.uint8), wy.view(np.uint8), err_msg=what)  # bit-exact, -0 too


def test_padding_only_window_and_nan(device):
    """semantics.md rule 9 on known values: an all-padding window outputs
    -FLT_MAX with index 0; NaN and -inf are never selected."""
    x = np.array([np.nan, -np.inf, 2, np.nan], np.float32).reshape(1, 1, 1, 4)
    y, idx = vkdml.max_pool(x, (1, 2), strides=(1, 2), start_padding=(0, 2), end_padding=(0, 0),
                            return_indices=True, device=device)
    np.testing.assert_array_equal(y.ravel(), [lowest(np.float32), lowest(np.float32), 2])
    np.testing.assert_array_equal(idx.ravel(), [0, 0, 2])


def test_output_size_and_no_indices(device):
    """output_size past the floor size pools windows past the input as
    padding; without return_indices only values come back."""
    x = np.arange(16, dtype=np.float16).reshape(1, 1, 4, 4)
    y = vkdml.max_pool(x, 3, strides=2, output_size=(2, 2), device=device)
    assert isinstance(y, np.ndarray) and y.dtype == np.float16
    np.testing.assert_array_equal(y.ravel(), [10, 11, 14, 15])
