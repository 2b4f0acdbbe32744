"""Prepared operators: created once, run many times."""

import numpy as np
import pytest

import vkdml
from reference import arg_reference, draw, max_pool_reference


def test_prepared_argmax_runs_many_times(rng, device):
    with vkdml.prepare_argmax((3, 4, 5), np.float16, (0, -1), direction="decreasing",
                              index_dtype="int64", device=device) as op:
        for _ in range(5):
            x = draw(rng, np.float16, (3, 4, 5))
            for arr in (x, np.asfortranarray(x), x.astype(">f2")):  # copied to the prepared layout
                got = op(arr)
                assert got.dtype == np.int64 and got.shape == (1, 4, 1)
                np.testing.assert_array_equal(got, arg_reference(x, [0, 2], False, "decreasing"))


def test_prepared_max_pool_with_indices(rng, device):
    with vkdml.prepare_max_pool((2, 3, 5, 5), np.int16, 2, strides=2, start_padding=1,
                                return_indices=True, index_dtype="uint64", device=device) as op:
        for _ in range(3):
            x = draw(rng, np.int16, (2, 3, 5, 5))
            y, idx = op(x)
            wy, widx = max_pool_reference(x, [2, 2], [2, 2], [1, 1], [1, 1], [0, 0], [3, 3])
            np.testing.assert_array_equal(y, wy)
            np.testing.assert_array_equal(idx, widx)


def test_prepared_misuse(device):
    op = vkdml.prepare_argmin((4,), np.uint8, 0, device=device)
    with pytest.raises(vkdml.Error) as e:
        op(np.zeros(5, np.uint8))
    assert e.value.hresult == vkdml.E_INVALIDARG and "prepared for shape" in str(e.value)
    with pytest.raises(vkdml.Error) as e:
        op(np.zeros(4, np.int8))
    assert e.value.hresult == vkdml.E_INVALIDARG
    assert op(np.array([3, 1, 1, 2], np.uint8))[0] == 1
    op.close()
    op.close()
    with pytest.raises(vkdml.Error):
        op(np.zeros(4, np.uint8))
    with pytest.raises(vkdml.Error) as e:
        vkdml.prepare_argmax((4,), np.uint8, 1, device=device)
    assert e.value.hresult == vkdml.E_INVALIDARG


def test_device_close_releases_its_operators():
    """Closing a device releases the operators made on it: they then raise
    vkdml.Error, and closing them is a no-op."""
    dev = vkdml.Device()
    op = vkdml.prepare_argmax((2, 2), np.float32, 1, device=dev)
    op2 = vkdml.prepare_max_pool((1, 1, 2, 2), np.float32, 2, device=dev)
    assert op(np.array([[1, 2], [4, 3]], np.float32)).ravel().tolist() == [1, 0]
    dev.close()
    assert op.closed and op2.closed and dev.closed
    for call in (lambda: op(np.zeros((2, 2), np.float32)), lambda: op2(np.zeros((1, 1, 2, 2), np.float32))):
        with pytest.raises(vkdml.Error) as e:
            call()
        assert e.value.hresult == vkdml.E_INVALIDARG and "closed" in str(e.value)
    op.close()
    op2.close()
    dev.close()
