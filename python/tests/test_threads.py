"""Threads: calls from several threads run at once, and the GIL is released
while libvkdml works."""

import ctypes
import sys
import threading

import numpy as np

import vkdml
from reference import arg_reference, draw


def test_library_releases_the_gil():
    """ctypes.CDLL (unlike PyDLL) releases the GIL around every call."""
    from vkdml import _api
    lib = _api._lib._lib  # under the fork guard
    assert isinstance(lib, ctypes.CDLL) and not isinstance(lib, ctypes.PyDLL)


def test_other_threads_run_during_a_call(device):
    """While one thread is inside vkdml, another makes progress. The switch
    interval is raised so far that, were the GIL held through the call, the
    spinning thread could not run between the caller's two reads of its
    counter; a call releases the GIL, so it does. A few tries absorb a
    machine so loaded that the spinner never got scheduled in time."""
    x = np.random.default_rng(0).random((64, 64, 64)).astype(np.float32)
    counter = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            counter[0] += 1

    old = sys.getswitchinterval()
    sys.setswitchinterval(1.0)
    spinner = threading.Thread(target=spin)
    try:
        spinner.start()
        progressed = []
        for _ in range(3):
            before = counter[0]
            vkdml.argmax(x, (0, 1), device=device)
            progressed.append(counter[0] - before)
            if progressed[-1] > 0:
                break
    finally:
        stop.set()
        sys.setswitchinterval(old)
        spinner.join()
    assert progressed[-1] > 0, progressed


def test_two_threads_at_once(device, rng):
    """Two threads (one shared device, and one with its own) start together
    behind a barrier and run many argmax and max_pool calls; every result is
    right."""
    cases = []
    for _ in range(2):
        xs = [draw(rng, np.float32, (3, 4, 5)) for _ in range(10)]
        cases.append(xs)
    barrier = threading.Barrier(3)
    errors = []

    def worker(xs, dev):
        try:
            barrier.wait()
            for i, x in enumerate(xs):
                axes = [i % 3, (i + 1) % 3]
                got = vkdml.argmax(x, axes, device=dev)
                np.testing.assert_array_equal(got, arg_reference(x, axes, False, "increasing"))
                y = vkdml.max_pool(x.reshape(1, 3, 4, 5), 2, device=dev)
                assert y.shape == (1, 3, 3, 4)
        except BaseException as e:  # reported by the main thread
            errors.append(e)

    own = vkdml.Device()
    try:
        threads = [threading.Thread(target=worker, args=(cases[0], device)),
                   threading.Thread(target=worker, args=(cases[1], device)),
                   threading.Thread(target=worker, args=(cases[0], own))]
        barrier = threading.Barrier(len(threads))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        own.close()
    assert not errors, errors
