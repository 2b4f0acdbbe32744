"""Arguments as users pass them: every integer that crosses into C is
range-checked (ctypes would wrap it modulo 2^32 and give a plausible wrong
answer), and every failure of a vkdml call is a vkdml.Error naming the
argument, of the built-in kind that fits, never a bare TypeError,
OverflowError, MemoryError or numpy error from deep inside."""

import pickle

import numpy as np
import pytest

import vkdml

X4 = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)

# Values that a C uint32 would silently wrap into something plausible.
WRAPPING = [-1, 2**32, 2**32 + 1, np.int64(-1), np.int64(2**32 + 1), np.uint64(2**63)]


@pytest.mark.parametrize("bad", WRAPPING, ids=repr)
@pytest.mark.parametrize("field", ["strides", "window", "dilations", "start_padding", "end_padding",
                                   "output_size"])
@pytest.mark.parametrize("form", ["scalar", "sequence"])
def test_pool_parameters_out_of_uint32(device, field, bad, form):
    kwargs = {"window": 2}
    kwargs[field] = bad if form == "scalar" else [1, bad]
    window = kwargs.pop("window")
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        vkdml.max_pool(X4, window, device=device, **kwargs)
    assert e.value.hresult == vkdml.E_INVALIDARG and isinstance(e.value, ValueError)
    assert field in str(e.value) and "2^32-1" in str(e.value), str(e.value)
    with pytest.raises(vkdml.InvalidArgumentError):
        vkdml.prepare_max_pool(X4.shape, X4.dtype, window, device=device, **kwargs)


@pytest.mark.parametrize("level", [2**32 + 0x1000, -1, 2**64 + 0x5000])
def test_feature_level_out_of_uint32(level):
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        vkdml.Device(min_feature_level=level)
    assert "min_feature_level" in str(e.value)


@pytest.mark.parametrize("shape, field", [
    ((2**32 + 3,), "x.shape[0]"),
    ((2, 2**32), "x.shape[1]"),
    ((2**33, 1, 1), "x.shape[0]"),
])
def test_views_with_sizes_beyond_uint32_are_refused(device, shape, field):
    """A broadcast view costs no memory whatever its shape; a size of
    2^32+3 must not reach C as 3."""
    x = np.broadcast_to(np.float32(1), shape)
    for call in (vkdml.argmax, vkdml.argmin):
        with pytest.raises(vkdml.InvalidArgumentError) as e:
            call(x, 0, device=device)
        assert field in str(e.value) and "2^32-1" in str(e.value), str(e.value)


@pytest.mark.parametrize("shape", [(2**17, 2**16), (2**16, 2**16 + 1), (3, 2**31)])
def test_views_of_more_than_2_32_elements_are_refused(device, shape):
    """Sizes that fit but whose product passes DirectML's 2^32-1 element
    limit: refused with the rule, not reduced modulo anything."""
    x = np.broadcast_to(np.float32(1), shape)
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        vkdml.argmax(x, (0, 1), device=device)
    assert "2^32-1" in str(e.value) and "InputTensor" in str(e.value), str(e.value)


def test_element_strides_beyond_uint32_are_copied():
    """A view whose element stride passes 2^32-1 is copied to C order
    rather than described with a wrapped stride (the copy is checked on a
    stride-only probe: no memory is touched)."""
    from vkdml._api import _element_strides
    base = np.zeros(1, np.uint8)
    huge = np.lib.stride_tricks.as_strided(base, shape=(2, 2), strides=(2**32 + 8, 1))
    assert _element_strides(huge) is None
    ok = np.lib.stride_tricks.as_strided(base, shape=(2, 2), strides=(2**32 - 1, 1))
    assert _element_strides(ok) == [2**32 - 1, 1]


@pytest.mark.parametrize("shape", [(2**32,), (1, -1), (2**32 + 5, 1)])
def test_prepared_shapes_out_of_uint32(device, shape):
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        vkdml.prepare_argmax(shape, np.float32, 0, device=device)
    assert "shape[" in str(e.value)


@pytest.mark.parametrize("axes", [2**32, [0, 2**32 + 1], -(2**32)])
def test_axes_beyond_uint32(device, axes):
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        vkdml.argmax(np.zeros((2, 3), np.float32), axes, device=device)
    assert "axes[" in str(e.value)


def test_padding_of_2_32_minus_1_names_the_padding(device):
    with pytest.raises(vkdml.InvalidArgumentError) as e:
        vkdml.max_pool(X4, 2, start_padding=2**32 - 1, device=device)
    assert "start_padding" in str(e.value) and "2^32-1" in str(e.value)


def test_output_of_tens_of_gigabytes_is_out_of_memory(device):
    """Refused before any host memory is allocated: 34 GB of INT64 values
    and as many UINT64 indices, in 65535 planes of 256x256."""
    x = np.zeros((65535, 1, 1, 1), np.int64)
    with pytest.raises(vkdml.OutOfMemoryError) as e:
        vkdml.max_pool(x, 1, output_size=(256, 256), return_indices=True, index_dtype="uint64", device=device)
    assert isinstance(e.value, MemoryError) and e.value.hresult == vkdml.E_OUTOFMEMORY
    assert "outputs[0].TotalTensorSizeInBytes" in str(e.value), str(e.value)


@pytest.mark.parametrize("call, field, kind", [
    (lambda d: vkdml.argmax(X4, 0, device=2.5), "device", TypeError),
    (lambda d: vkdml.argmax(X4, 0, device=True), "device", TypeError),
    (lambda d: vkdml.argmax(X4, 0, device=[0]), "device", TypeError),
    (lambda d: vkdml.argmax(X4, 0, device=-1), "device", ValueError),
    (lambda d: vkdml.argmax(X4, 0, device="a\0b"), "device", ValueError),
    (lambda d: vkdml.argmax("abc", 0, device=d), "x.dtype", TypeError),
    (lambda d: vkdml.argmax([[1], [1, 2]], 0, device=d), "x", TypeError),
    (lambda d: vkdml.argmax(X4, "0", device=d), "axes[0]", TypeError),
    (lambda d: vkdml.argmax(X4, 1.0, device=d), "axes[0]", TypeError),
    (lambda d: vkdml.argmax(X4, [None], device=d), "axes[0]", TypeError),
    (lambda d: vkdml.argmax(X4, 0, direction=1, device=d), "direction", ValueError),
    (lambda d: vkdml.argmax(X4, 0, index_dtype=object(), device=d), "index_dtype", TypeError),
    (lambda d: vkdml.max_pool(X4, 2.5, device=d), "window", TypeError),
    (lambda d: vkdml.max_pool(X4, "2", device=d), "window", TypeError),
    (lambda d: vkdml.max_pool(X4, [2, None], device=d), "window[1]", TypeError),
    (lambda d: vkdml.max_pool(X4, 2, strides=True, device=d), "strides", TypeError),
    (lambda d: vkdml.max_pool(X4, 2, output_size=(2.0, 2), device=d), "output_size[0]", TypeError),
    (lambda d: vkdml.max_pool(X4, None, device=d), "window", ValueError),
    (lambda d: vkdml.prepare_argmax((2, 2), "not a dtype", 0, device=d), "dtype", TypeError),
    (lambda d: vkdml.prepare_argmax((2, 2.5), np.float32, 0, device=d), "shape[1]", TypeError),
    (lambda d: vkdml.prepare_argmax(5, np.float32, 0, device=d), "shape", TypeError),
    (lambda d: vkdml.Device(name=1.5), "name", TypeError),
    (lambda d: vkdml.Device(min_feature_level="6_4"), "min_feature_level", TypeError),
])
def test_bad_arguments_raise_vkdml_errors_naming_them(device, call, field, kind):
    with pytest.raises(vkdml.Error) as e:
        call(device)
    assert isinstance(e.value, vkdml.InvalidArgumentError) and isinstance(e.value, kind), repr(e.value)
    assert e.value.hresult == vkdml.E_INVALIDARG
    assert field in str(e.value), str(e.value)


def test_device_as_index_name_or_device(device):
    x = np.array([[1, 7, 3]], np.float32)
    name = device.name.split()[0]
    for sel in (0, "0", np.int32(0), name, device):
        assert vkdml.argmax(x, 1, device=sel)[0, 0] == 1, sel
        op = vkdml.prepare_argmin(x.shape, x.dtype, 1, device=sel)
        assert op(x)[0, 0] == 0
        op.close()
    with pytest.raises(vkdml.UnsupportedError) as e:
        vkdml.argmax(x, 1, device="no such device 77")
    assert "device" in str(e.value) and "no such device 77" in str(e.value)
    assert e.value.hresult == vkdml.DXGI_ERROR_UNSUPPORTED


def test_errors_pickle_with_their_hresult():
    for e in (vkdml.Error(vkdml.E_FAIL, "m"), vkdml.InvalidArgumentError(vkdml.E_INVALIDARG, "argmax: x: bad"),
              vkdml.OutOfMemoryError(vkdml.E_OUTOFMEMORY, "too big")):
        e2 = pickle.loads(pickle.dumps(e))
        assert type(e2) is type(e) and e2.hresult == e.hresult and str(e2) == str(e)


def test_error_classes_by_hresult(device):
    with pytest.raises(vkdml.UnsupportedError):
        vkdml.Device(name="no such device 78")
    with pytest.raises(vkdml.InvalidArgumentError):
        vkdml.argmax(np.zeros(3, np.float64), 0, device=device)
