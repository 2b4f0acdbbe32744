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

from ._api import (Device, Operator, argmax, argmin, default_device, max_pool, max_unpool, prepare_argmax,
                   prepare_argmin, prepare_max_pool, reduce)
from ._parity import compare
from ._raw import devices, run
from ._errors import (DXGI_ERROR_DEVICE_REMOVED, DXGI_ERROR_UNSUPPORTED, E_FAIL, E_INVALIDARG, E_OUTOFMEMORY,
                      E_UNEXPECTED, ArgumentTypeError, DeviceRemovedError, Error, ForkError, InternalError,
                      InvalidArgumentError, OutOfMemoryError, UnsupportedError)

__all__ = ["Device", "Operator", "argmax", "argmin", "reduce", "max_pool", "max_unpool", "run", "compare", "devices", "default_device",
           "prepare_argmax", "prepare_argmin", "prepare_max_pool",
           "Error", "InvalidArgumentError", "ArgumentTypeError", "OutOfMemoryError", "UnsupportedError",
           "DeviceRemovedError", "ForkError", "InternalError",
           "E_INVALIDARG", "E_FAIL", "E_OUTOFMEMORY", "E_UNEXPECTED", "DXGI_ERROR_UNSUPPORTED", "DXGI_ERROR_DEVICE_REMOVED"]
try:  # the installed distribution's version (make wheel sets it from a release tag)
    from importlib.metadata import PackageNotFoundError, version as _version
    __version__ = _version("vkdml")
except (ImportError, PackageNotFoundError):  # run from the source tree
    __version__ = "0.1.0"
