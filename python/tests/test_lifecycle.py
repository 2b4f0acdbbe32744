"""Lifetimes: a Device or Operator dropped without close() is released
when collected (with a ResourceWarning), so dropping them in a loop holds
threads and memory flat; context managers and Device.close() release
everything they own."""

import gc
import os
import warnings

import numpy as np
import pytest

import vkdml


def _threads():
    return len(os.listdir("/proc/self/task"))


def _rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _collect():
    for _ in range(3):
        gc.collect()


def _dropped(make, count):
    """Makes and drops count objects; returns the ResourceWarnings their
    collection raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        for _ in range(count):
            make()
            _collect()
    return [w for w in caught if issubclass(w.category, ResourceWarning)]


def test_dropped_devices_release_their_threads():
    _dropped(lambda: vkdml.Device(), 2)  # the driver's one-time threads
    before = _threads()
    warned = _dropped(lambda: vkdml.Device(), 40)
    assert _threads() <= before + 2, "40 dropped devices left %d threads (was %d)" % (_threads(), before)
    assert len(warned) == 40 and "unclosed vkdml.Device" in str(warned[0].message)


@pytest.mark.parametrize("make", [
    # Each operator holds 4 MiB of device memory (lavapipe's is host
    # memory), so 200 that leaked would add 800 MiB.
    lambda dev: vkdml.prepare_argmax((1024, 1024), np.float32, 1, device=dev),
    lambda dev: vkdml.prepare_max_pool((1, 4, 512, 512), np.float32, 2, strides=2, return_indices=True, device=dev),
], ids=["argmax", "max_pool"])
def test_prepare_drop_cycles_hold_memory_and_threads_flat(make):
    with vkdml.Device() as dev:
        warmup = _dropped(lambda: make(dev), 20)
        threads, rss = _threads(), _rss_bytes()
        warned = _dropped(lambda: make(dev), 200)
        grew = _rss_bytes() - rss
        assert _threads() <= threads + 1
        assert grew < 96 << 20, "200 dropped operators grew the process by %d MiB" % (grew >> 20)
        assert len(warmup) == 20 and len(warned) == 200
        assert "unclosed vkdml.Operator" in str(warned[0].message)


def test_device_with_dropped_operators_closes():
    dev = vkdml.Device()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        for _ in range(3):
            vkdml.prepare_argmin((8,), np.int16, 0, device=dev)
        _collect()
    dev.close()
    assert dev.closed


def test_device_close_with_live_operators_releases_them():
    dev = vkdml.Device()
    ops = [vkdml.prepare_argmax((4, 4), np.float32, 0, device=dev) for _ in range(5)]
    before = _threads()
    dev.close()
    assert all(op.closed for op in ops)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResourceWarning)  # closed: no warning when dropped
        del ops
        _collect()
    assert _threads() <= before


def test_context_managers_release_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResourceWarning)
        with vkdml.Device() as dev:
            with vkdml.prepare_argmax((3,), np.float32, 0, device=dev) as op:
                assert op(np.array([1, 3, 2], np.float32))[0] == 1
            assert op.closed
            assert vkdml.argmax(np.array([5, 1], np.float32), 0, device=dev)[0] == 0
        assert dev.closed
        _collect()


def test_operator_keeps_its_device_alive():
    """An operator made on a device nobody else holds keeps it open."""
    op = vkdml.prepare_argmax((2,), np.float32, 0, device=vkdml.Device())
    _collect()
    assert op(np.array([0, 1], np.float32))[0] == 1
    dev = op._device
    op.close()
    dev.close()


def test_one_shot_calls_reuse_a_bounded_set_of_operators():
    """A one-shot call compiles its desc once per device, as Go's Compute
    does; the device keeps at most ONE_SHOT_CACHE_SIZE of them, and closing
    it releases them."""
    from vkdml import _api
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResourceWarning)
        with vkdml.Device() as dev:
            for _ in range(5):
                vkdml.max_pool(np.zeros((1, 1, 4, 4), np.float32), 2, device=dev)
                vkdml.argmax(np.zeros((3, 2), np.int8), 1, device=dev)
            assert len(dev._state.operators) == 2
            x = np.arange(6, dtype=np.float32).reshape(2, 3)
            assert vkdml.argmax(x.T, 0, device=dev).ravel().tolist() == [2, 2]  # strided: another desc
            assert len(dev._state.operators) == 3
            for n in range(1, 2 * _api.ONE_SHOT_CACHE_SIZE):
                assert vkdml.argmin(np.arange(n, dtype=np.int32), 0, device=dev)[0] == 0
            assert len(dev._state.operators) == _api.ONE_SHOT_CACHE_SIZE
        assert not dev._state.operators
