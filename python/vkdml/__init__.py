"""vkdml: DirectML's ARGMAX, ARGMIN, REDUCE (ARGMAX/ARGMIN),
MAX_POOLING/1/2 and MAX_UNPOOLING with DirectML's exact semantics on any Vulkan device, from
numpy; vkdml.run replays DirectML descs given as plain data on raw
buffers.

    import numpy as np, vkdml
    vkdml.argmax(np.array([[1, np.nan, 3]], np.float32), 1)   # [[2]]

The package is ctypes over libvkdml (capi/vkdml.h), built into the package
by `make python`. Every failure of a vkdml call raises vkdml.Error, whose
.hresult is DirectML's HRESULT for the same mistake; its subclasses are
also the built-in exception of the same kind (InvalidArgumentError is a
ValueError, OutOfMemoryError a MemoryError, ...).

Close Devices and Operators (or use them as context managers); dropped
ones are released when collected, with a ResourceWarning. vkdml cannot be
used in a process forked after `import vkdml`: every call there raises
vkdml.ForkError. With multiprocessing, use the "spawn" or "forkserver"
start method.
"""

from . import _api
from ._api import (Device, Operator, argmax, argmin, default_device, indices_from_torch, indices_to_torch, max_pool,
                   max_unpool, prepare_argmax, prepare_argmin, prepare_max_pool, prepare_max_unpool, prepare_reduce,
                   reduce, top_k)
from ._parity import compare
from ._raw import devices, run
from ._errors import (DXGI_ERROR_DEVICE_REMOVED, DXGI_ERROR_UNSUPPORTED, E_FAIL, E_INVALIDARG, E_OUTOFMEMORY,
                      E_UNEXPECTED, ArgumentTypeError, DeviceRemovedError, Error, ForkError, InternalError,
                      InvalidArgumentError, OutOfMemoryError, UnsupportedError)

__all__ = ["Device", "Operator", "argmax", "argmin", "reduce", "max_pool", "max_unpool", "run", "compare", "devices", "default_device",
           "prepare_argmax", "prepare_argmin", "prepare_max_pool", "prepare_max_unpool", "prepare_reduce",
           "indices_from_torch", "indices_to_torch",
           "Error", "InvalidArgumentError", "ArgumentTypeError", "OutOfMemoryError", "UnsupportedError",
           "DeviceRemovedError", "ForkError", "InternalError",
           "E_INVALIDARG", "E_FAIL", "E_OUTOFMEMORY", "E_UNEXPECTED", "DXGI_ERROR_UNSUPPORTED", "DXGI_ERROR_DEVICE_REMOVED"]
# libvkdml's vkdml_version(): the repository's VERSION file's release
# number (PEP 440's and semantic versioning's MAJOR.MINOR.PATCH), with
# "+" and build metadata for a library built outside a release, as the
# vkdml command, vkdml.pc and the CMake package report it. A wheel's version
# is the same release number.
__version__ = _api._lib.vkdml_version().decode("ascii")
