"""vkdml.max_unpool against a numpy reference of semantics.md rules 17-22
(flat indices over the whole output, zeros elsewhere, out-of-range indices
skipped, the last duplicate in C order wins), for every dtype, and as the
inverse of max_pool's indices."""

import numpy as np
import pytest

import vkdml
from reference import DTYPES, draw, layout


def max_unpool_reference(x, indices, output_shape):
    """The rules literally: zeros, then each element of x in C order
    written to the flat position its index names, when there is one."""
    y = np.zeros(int(np.prod(output_shape)), x.dtype)
    for v, i in zip(x.reshape(-1), indices.reshape(-1)):
        if int(i) < y.size:
            y[int(i)] = v
    return y.reshape(output_shape)


@pytest.mark.parametrize("index_dtype", [np.uint32, np.uint64])
@pytest.mark.parametrize("dtype", DTYPES)
def test_against_reference(device, rng, dtype, index_dtype):
    """Crowded indices (many duplicates), some past the end (and above 2^32
    for uint64), batch and channels above 1, inputs in several layouts."""
    for _ in range(3):
        shape = tuple(int(s) for s in rng.integers(1, 4, size=4, endpoint=True))
        out_shape = tuple(int(s) for s in rng.integers(1, 6, size=4, endpoint=True))
        total = int(np.prod(out_shape))
        x = draw(rng, dtype, shape)
        idx = rng.integers(0, min(total, 3), size=shape).astype(index_dtype)
        far = rng.random(shape)
        idx[far < 0.5] = rng.integers(0, total, size=int((far < 0.5).sum()))
        idx[far < 0.1] = total + 1
        if index_dtype == np.uint64:
            idx[(far >= 0.1) & (far < 0.15)] = (1 << 32) + 1
        kind = ["c", "fortran", "strided"][int(rng.integers(3))]
        y = vkdml.max_unpool(layout(rng, x, kind), layout(rng, idx, kind), out_shape, device=device)
        want = max_unpool_reference(x, idx, out_shape)
        assert y.dtype == x.dtype and y.shape == out_shape
        np.testing.assert_array_equal(y.view(np.uint8), want.view(np.uint8), err_msg="layout %s" % kind)


def test_rules(device):
    x = np.array([[[[1, 2], [3, 4]]]], np.float32)
    # Flat over N: two batch elements with index 0 both write element 0; the second wins.
    y = vkdml.max_unpool(np.array([7, 8], np.float32).reshape(2, 1, 1, 1), np.zeros((2, 1, 1, 1), np.uint32),
                         (2, 1, 1, 2), device=device)
    np.testing.assert_array_equal(y.reshape(-1), [8, 0, 0, 0])
    # Out of range (4e9 included) writes nothing; the output is not checked against x (2x2 -> 1x1).
    y = vkdml.max_unpool(x, np.array([[[[0, 4000000000], [0, 3]]]], np.uint32), (1, 1, 1, 1), device=device)
    np.testing.assert_array_equal(y, [[[[3]]]])
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        vkdml.max_unpool(x, np.zeros((1, 1, 2, 2), np.int32), (1, 1, 4, 4), device=device)
    assert "IndicesTensor.DataType" in str(e.value)
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        vkdml.max_unpool(x, np.zeros((1, 1, 2, 1), np.uint32), (1, 1, 4, 4), device=device)
    assert "IndicesTensor.Sizes" in str(e.value)
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        vkdml.max_unpool(x, np.zeros((1, 1, 2, 2), np.uint32), (4, 4), device=device)
    assert "output_shape" in str(e.value)


def test_out_keeps_bytes_between_elements(device):
    """out= with strides: the bytes no element occupies keep their contents
    (rule 6)."""
    x = np.array([[[[1, 2], [3, 4]]]], np.float32)
    base = np.full((1, 1, 4, 8), 9, np.float32)
    out = base[:, :, :, ::2]
    y = vkdml.max_unpool(x, np.array([[[[5, 7], [13, 15]]]], np.uint32), (1, 1, 4, 4), device=device, out=out)
    assert y is out
    np.testing.assert_array_equal(out.reshape(4, 4), [[0, 0, 0, 0], [0, 1, 0, 2], [0, 0, 0, 0], [0, 3, 0, 4]])
    assert (base[:, :, :, 1::2] == 9).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8, np.uint64])
def test_round_trip_with_max_pool(device, rng, dtype):
    """max_pool's values and flat indices, unpooled into the pooled input's
    shape, put every selected maximum back where it was."""
    x = draw(rng, dtype, (2, 3, 6, 5), special=False)
    y, idx = vkdml.max_pool(x, 2, strides=2, return_indices=True, index_dtype="uint64", device=device)
    u = vkdml.max_unpool(y, idx, x.shape, device=device)
    sel = np.zeros(x.size, bool)
    sel[idx.reshape(-1).astype(np.int64)] = True
    want = np.where(sel.reshape(x.shape), x, np.zeros_like(x))
    np.testing.assert_array_equal(u.view(np.uint8), want.view(np.uint8))
