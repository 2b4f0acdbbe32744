"""Shared fixtures: a seeded random generator per test (the seed is
printed in pytest's header; VKDML_SEED=N replays a run) and one device
for the session. With CI=true a missing Vulkan device fails the tests
instead of skipping them, as in the Go suite."""

import os
import random
import zlib

import numpy as np
import pytest

SEED = int(os.environ.get("VKDML_SEED") or random.SystemRandom().randrange(1 << 31))


def pytest_report_header(config):
    return "vkdml seed: %d (replay with VKDML_SEED=%d)" % (SEED, SEED)


@pytest.fixture
def rng(request):
    """A generator seeded from SEED and the test's name, so that each test
    draws the same values on replay whatever ran before it."""
    return np.random.default_rng([SEED, zlib.crc32(request.node.nodeid.encode())])


@pytest.fixture(scope="session")
def device():
    import vkdml
    try:
        # The validation layer is on, as in the Go tests: a Vulkan message
        # fails the call that caused it.
        dev = vkdml.Device(debug=True)
    except vkdml.Error as e:
        if os.environ.get("CI") == "true":
            pytest.fail("no Vulkan device (CI=true makes this a failure): %s" % e)
        pytest.skip("no Vulkan device: %s" % e)
    yield dev
    dev.close()


def pytest_terminal_summary(terminalreporter):
    # -q hides the header: say the seed at the end too.
    terminalreporter.write_line("vkdml seed: %d (replay with VKDML_SEED=%d)" % (SEED, SEED))
