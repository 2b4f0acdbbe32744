"""vkdml.top_k against a numpy reference of semantics.md rules 31-37 (ties
to the lower index in both directions, NaN after every number, -0 and +0
tied with their bits kept), for every dtype, axis and layout, and against
torch.topk where the rules leave it no choice (distinct numbers)."""

import numpy as np
import pytest

import vkdml
from reference import DTYPES, draw, layout


def top_k_reference(x, k, axis, largest):
    """The rules literally: a stable sort of each sequence by value
    (descending for largest), every NaN after every number in index
    order; the first k."""
    moved = np.moveaxis(x, axis, -1)
    vals = np.empty(moved.shape[:-1] + (k,), x.dtype)
    idx = np.empty(moved.shape[:-1] + (k,), np.int64)
    for pos in np.ndindex(*moved.shape[:-1]):
        row = moved[pos]
        nan = np.isnan(row) if row.dtype.kind == "f" else np.zeros(row.shape, bool)
        numbers = np.flatnonzero(~nan)
        key = row[numbers]
        if largest:
            order = _stable_desc(key)
        else:
            order = np.argsort(key, kind="stable")
        chosen = np.concatenate([numbers[order], np.flatnonzero(nan)])[:k]
        vals[pos], idx[pos] = row[chosen], chosen
    return np.moveaxis(vals, -1, axis), np.moveaxis(idx, -1, axis)


def _stable_desc(key):
    """Positions of key sorted descending, equal keys (-0 and +0 among
    them) in index order: Python's sort is stable, and its comparisons
    are exact for every dtype."""
    return np.array(sorted(range(key.size), key=lambda i: key[i].item(), reverse=True), np.int64)


def bits(a):
    return a.view("u%d" % a.dtype.itemsize)


@pytest.mark.parametrize("dtype", DTYPES)
def test_against_reference(device, rng, dtype):
    for _ in range(4):
        ndim = int(rng.integers(1, 4, endpoint=True))
        shape = tuple(int(s) for s in rng.integers(1, 6, size=ndim, endpoint=True))
        axis = int(rng.integers(-ndim, ndim))
        n = shape[axis]
        x = draw(rng, dtype, shape)
        if x.dtype.kind != "f":
            x = (x % 3).astype(dtype)  # ties
        k = int(rng.integers(1, n, endpoint=True))
        largest = bool(rng.integers(2))
        kind = ["c", "fortran", "strided"][int(rng.integers(3))]
        v, i = vkdml.top_k(layout(rng, x, kind), k, axis, largest, device=device)
        rv, ri = top_k_reference(x, k, axis, largest)
        assert v.dtype == x.dtype and i.dtype == np.uint32
        np.testing.assert_array_equal(bits(v), bits(rv), err_msg="%s k=%d axis=%d largest=%s" % (shape, k, axis, largest))
        np.testing.assert_array_equal(i.astype(np.int64), ri)


def test_rules(device):
    nan = np.nan
    v, i = vkdml.top_k(np.array([3, 1, 3, 2, 3], np.float32), 2, device=device)
    assert list(i) == [0, 2]
    v, i = vkdml.top_k(np.array([1, nan, 3, 2], np.float32), 2, largest=False, device=device)
    assert list(v) == [1, 2] and list(i) == [0, 3]
    v, i = vkdml.top_k(np.array([nan, 2, nan, 1], np.float32), 3, device=device)
    assert list(i) == [1, 3, 0]
    v, i = vkdml.top_k(np.array([0.0, -0.0, -1], np.float32), 3, largest=False, index_dtype="uint64", device=device)
    assert list(i) == [2, 0, 1] and i.dtype == np.uint64 and list(bits(v)) == [0xbf800000, 0, 0x80000000]


def test_matches_torch_on_distinct_numbers(device, rng):
    torch = pytest.importorskip("torch")
    x = rng.permutation(4096 * 3).astype(np.float32).reshape(3, 4096)
    for k in (1, 50, 1024, 2048, 4096):
        for largest in (True, False):
            v, i = vkdml.top_k(x, k, largest=largest, device=device)
            tv, ti = torch.topk(torch.from_numpy(x), k, dim=-1, largest=largest)
            np.testing.assert_array_equal(v, tv.numpy())
            np.testing.assert_array_equal(i.astype(np.int64), ti.numpy())


def test_refusals(device):
    x = np.zeros((2, 5), np.float32)
    with pytest.raises(vkdml.InvalidArgumentError, match="k"):
        vkdml.top_k(x, 6, device=device)
    with pytest.raises(vkdml.InvalidArgumentError, match="k"):
        vkdml.top_k(x, 0, device=device)
    with pytest.raises(vkdml.InvalidArgumentError, match="OutputIndexTensor.DataType"):
        vkdml.top_k(x, 2, index_dtype="int32", device=device)
    with pytest.raises(vkdml.InvalidArgumentError, match="axes"):
        vkdml.top_k(x, 2, axis=2, device=device)
    with pytest.raises(vkdml.ArgumentTypeError, match="largest"):
        vkdml.top_k(x, 2, largest="yes", device=device)


def test_out(device):
    x = np.array([[3, 1, 3, 2]], np.float32)
    values = np.full((4, 6), 7, np.float32)[::2, ::3]  # strided: (2, 2), the result written in place
    indices = np.zeros((1, 2), np.uint64)
    v, i = vkdml.top_k(x[:1], 2, out=(values[:1], indices), device=device)
    assert v.base is values.base and i is indices
    assert list(values[0]) == [3, 3] and list(indices[0]) == [0, 2] and list(values[1]) == [7, 7]
    with pytest.raises(vkdml.ArgumentTypeError, match="out"):
        vkdml.top_k(x, 2, out=values, device=device)
