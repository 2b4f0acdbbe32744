"""vkdml: DirectML's ARGMAX, ARGMIN and MAX_POOLING with DirectML's exact
semantics on any Vulkan device, from numpy.

    import numpy as np, vkdml
    vkdml.argmax(np.array([[1, np.nan, 3]], np.float32), 1)   # [[2]]

The package is ctypes over libvkdml (capi/vkdml.h), built into the package
by `make python`. Every failure raises vkdml.Error, whose .hresult is
DirectML's HRESULT for the same mistake.
"""

from ._api import (Device, Error, Operator, argmax, argmin, default_device, max_pool, prepare_argmax,
                   prepare_argmin, prepare_max_pool)
from ._capi import DXGI_ERROR_UNSUPPORTED, E_FAIL, E_INVALIDARG, E_OUTOFMEMORY

__all__ = ["Device", "Error", "Operator", "argmax", "argmin", "max_pool", "default_device",
           "prepare_argmax", "prepare_argmin", "prepare_max_pool",
           "E_INVALIDARG", "E_FAIL", "E_OUTOFMEMORY", "DXGI_ERROR_UNSUPPORTED"]
__version__ = "0.1.0"
