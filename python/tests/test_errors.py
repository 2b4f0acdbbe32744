"""Bad input raises vkdml.Error with DirectML's HRESULT and a message that
names the field and the rule, before anything runs."""

import numpy as np
import pytest

import vkdml

E_INVALIDARG = 0x80070057


@pytest.mark.parametrize("axes", [3, -4, (0, 7), [1, -9]])
def test_bad_axis_is_invalidarg(device, axes):
    x = np.zeros((2, 3, 4), np.float32)
    for fn in (vkdml.argmax, vkdml.argmin):
        with pytest.raises(vkdml.Error) as e:
            fn(x, axes, device=device)
        assert e.value.hresult == E_INVALIDARG == vkdml.E_INVALIDARG
        assert e.value.name == "E_INVALIDARG"
        assert "axes[" in str(e.value) and "out of range" in str(e.value)


@pytest.mark.parametrize("call, field", [
    (lambda d: vkdml.argmax(np.zeros(3, np.float32), 0, direction="up", device=d), "direction"),
    (lambda d: vkdml.argmax(np.zeros(3, bool), 0, device=d), "x.dtype"),
    (lambda d: vkdml.argmax(np.zeros(3, np.float64), 0, device=d), "x.dtype"),
    (lambda d: vkdml.argmax(np.zeros(3, np.float32), 0, index_dtype="float32", device=d), "OutputTensor"),
    (lambda d: vkdml.argmax(np.zeros(3, np.float32), 0, index_dtype="int16", device=d), "OutputTensor"),
    (lambda d: vkdml.argmax(np.zeros((0, 3), np.float32), 1, device=d), "InputTensor.Sizes"),
    (lambda d: vkdml.argmax(np.zeros([1] * 9, np.float32), 0, device=d), "dimension_count"),
    (lambda d: vkdml.max_pool(np.zeros((3, 4), np.float32), 2, device=d), "x"),
    (lambda d: vkdml.max_pool(np.zeros((1, 1, 4, 4), np.float32), (2, 2, 2), device=d), "window"),
    (lambda d: vkdml.max_pool(np.zeros((1, 1, 4, 4), np.float32), 5, device=d), "window[0]"),
    (lambda d: vkdml.max_pool(np.zeros((1, 1, 4, 4), np.float32), 2, strides=0, device=d), "Strides[0]"),
    (lambda d: vkdml.max_pool(np.zeros((1, 1, 4, 4), np.float32), 2, return_indices=True,
                              index_dtype="int32", device=d), "OutputIndicesTensor"),
])
def test_bad_input_names_the_field(device, call, field):
    with pytest.raises(vkdml.Error) as e:
        call(device)
    assert e.value.hresult == E_INVALIDARG, str(e.value)
    assert field in str(e.value), str(e.value)


def test_error_comes_from_creation_not_execution(device):
    """Library-side validation fails in CreateOperator: nothing was run."""
    with pytest.raises(vkdml.Error) as e:
        vkdml.argmax(np.zeros(3, np.float32), 0, index_dtype="int16", device=device)
    assert str(e.value).startswith("CreateOperator(ARGMAX)")


def test_closed_device_raises():
    dev = vkdml.Device()
    dev.close()
    dev.close()  # idempotent
    with pytest.raises(vkdml.Error) as e:
        vkdml.argmax(np.zeros(3, np.float32), 0, device=dev)
    assert e.value.hresult == E_INVALIDARG


def test_unknown_device_selector():
    with pytest.raises(vkdml.Error) as e:
        vkdml.Device(name="no such device 1234")
    assert e.value.hresult == vkdml.DXGI_ERROR_UNSUPPORTED
    assert "no such device 1234" in str(e.value)


def test_feature_level_above_vkdml():
    with pytest.raises(vkdml.Error) as e:
        vkdml.Device(min_feature_level=0x7000)
    assert e.value.hresult in (vkdml.DXGI_ERROR_UNSUPPORTED, E_INVALIDARG)
    assert "MinimumFeatureLevel" in str(e.value)
