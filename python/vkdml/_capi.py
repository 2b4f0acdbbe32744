"""ctypes declarations of libvkdml's C interface (capi/vkdml.h).

Every struct and prototype here mirrors vkdml.h; keep the two in step. The
library is loaded with ctypes.CDLL, which releases the GIL for the length
of every call, so other Python threads run while the GPU works.
"""

import ctypes
import os

HRESULT = ctypes.c_int32

S_OK = 0x00000000
E_FAIL = 0x80004005
E_INVALIDARG = 0x80070057
E_OUTOFMEMORY = 0x8007000E
DXGI_ERROR_UNSUPPORTED = 0x887A0004

HRESULT_NAMES = {
    S_OK: "S_OK",
    E_FAIL: "E_FAIL",
    E_INVALIDARG: "E_INVALIDARG",
    E_OUTOFMEMORY: "E_OUTOFMEMORY",
    DXGI_ERROR_UNSUPPORTED: "DXGI_ERROR_UNSUPPORTED",
}

ABI_VERSION = 1

OPERATOR_ARGMAX = 1
OPERATOR_ARGMIN = 2
OPERATOR_REDUCE = 3
OPERATOR_MAX_POOLING = 4
OPERATOR_MAX_POOLING1 = 5
OPERATOR_MAX_POOLING2 = 6

CREATE_DEVICE_FLAG_DEBUG = 1

_u32p = ctypes.POINTER(ctypes.c_uint32)


class TensorDesc(ctypes.Structure):
    _fields_ = [
        ("data_type", ctypes.c_uint32),
        ("flags", ctypes.c_uint32),
        ("dimension_count", ctypes.c_uint32),
        ("sizes", _u32p),
        ("strides", _u32p),
        ("total_tensor_size_in_bytes", ctypes.c_uint64),
        ("guaranteed_base_offset_alignment", ctypes.c_uint32),
    ]


_tdp = ctypes.POINTER(TensorDesc)


class ArgMaxDesc(ctypes.Structure):
    _fields_ = [
        ("input", _tdp),
        ("output", _tdp),
        ("axis_count", ctypes.c_uint32),
        ("axes", _u32p),
        ("axis_direction", ctypes.c_uint32),
    ]


class ReduceDesc(ctypes.Structure):
    _fields_ = [
        ("function", ctypes.c_uint32),
        ("input", _tdp),
        ("output", _tdp),
        ("axis_count", ctypes.c_uint32),
        ("axes", _u32p),
    ]


class MaxPooling2Desc(ctypes.Structure):
    _fields_ = [
        ("input", _tdp),
        ("output", _tdp),
        ("output_indices", _tdp),
        ("dimension_count", ctypes.c_uint32),
        ("strides", _u32p),
        ("window_size", _u32p),
        ("start_padding", _u32p),
        ("end_padding", _u32p),
        ("dilations", _u32p),
    ]


class OperatorDesc(ctypes.Structure):
    _fields_ = [("type", ctypes.c_uint32), ("desc", ctypes.c_void_p)]


class Buffer(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("size_in_bytes", ctypes.c_size_t)]


class DeviceOptions(ctypes.Structure):
    _fields_ = [
        ("flags", ctypes.c_uint32),
        ("minimum_feature_level", ctypes.c_uint32),
        ("device", ctypes.c_char_p),
    ]


_PROTOTYPES = {
    "vkdml_abi_version": (ctypes.c_uint32, []),
    "vkdml_last_error": (ctypes.c_char_p, []),
    "vkdml_device_create": (HRESULT, [ctypes.POINTER(DeviceOptions), ctypes.POINTER(ctypes.c_uint64)]),
    "vkdml_device_destroy": (HRESULT, [ctypes.c_uint64]),
    "vkdml_device_name": (HRESULT, [ctypes.c_uint64, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t)]),
    "vkdml_device_feature_levels": (HRESULT, [ctypes.c_uint64, _u32p, ctypes.c_uint32, _u32p]),
    "vkdml_operator_create": (HRESULT, [ctypes.c_uint64, ctypes.POINTER(OperatorDesc), ctypes.POINTER(ctypes.c_uint64)]),
    "vkdml_operator_run": (HRESULT, [ctypes.c_uint64, ctypes.POINTER(Buffer), ctypes.c_uint32, ctypes.POINTER(Buffer), ctypes.c_uint32]),
    "vkdml_operator_destroy": (HRESULT, [ctypes.c_uint64]),
    "vkdml_run": (HRESULT, [ctypes.c_uint64, ctypes.POINTER(OperatorDesc), ctypes.POINTER(Buffer), ctypes.c_uint32, ctypes.POINTER(Buffer), ctypes.c_uint32]),
}


def library_path():
    """The libvkdml to load: $VKDML_LIBRARY, else the one in this package."""
    env = os.environ.get("VKDML_LIBRARY")
    if env:
        return env
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "libvkdml.so")


def load():
    """Loads libvkdml and declares its prototypes."""
    path = library_path()
    if not os.path.exists(path):
        raise ImportError(
            "vkdml: %s is missing; build it with `make python` in the vkdml "
            "checkout (or set VKDML_LIBRARY)" % path)
    lib = ctypes.CDLL(path)
    for name, (restype, argtypes) in _PROTOTYPES.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    if lib.vkdml_abi_version() != ABI_VERSION:
        raise ImportError("vkdml: %s has ABI version %d; this package needs %d"
                          % (path, lib.vkdml_abi_version(), ABI_VERSION))
    return lib


def u32_array(values):
    """A ctypes uint32 array holding values (kept alive by the caller)."""
    values = list(values)
    return (ctypes.c_uint32 * max(len(values), 1))(*values)
