"""vkdml.Device: name, feature level, context manager, debug layer."""

import numpy as np

import vkdml


def test_context_manager_and_name():
    with vkdml.Device() as dev:
        assert isinstance(dev.name, str) and dev.name
        assert dev.feature_level >= 0x5000
        assert vkdml.argmax(np.array([3, 1, 3], np.int16), 0, direction="decreasing", device=dev)[0] == 2
    assert "closed" in repr(dev)


def test_select_by_name_and_debug(device):
    """A device picked by a substring of its name, with the validation
    layer on: the same answers, and no validation message (which would be
    an error)."""
    part = device.name.split()[0]
    with vkdml.Device(name=part, debug=True) as dev:
        assert dev.name == device.name
        y, idx = vkdml.max_pool(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4), 2, strides=2,
                                return_indices=True, device=dev)
        np.testing.assert_array_equal(idx.ravel(), [5, 7, 13, 15])


def test_default_device_is_shared():
    assert vkdml.default_device() is vkdml.default_device()
    assert vkdml.argmin(np.array([[2, 1], [0, 5]], np.uint8), -1)[1, 0] == 0
