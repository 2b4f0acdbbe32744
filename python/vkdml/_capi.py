"""ctypes declarations of libvkdml's C interface (capi/vkdml.h), and the
checks every value passes before it crosses into C.

Every struct and prototype here mirrors vkdml.h. The operator types and
desc structs between the GENERATED markers are written from
internal/schema by go run ./internal/schema/gen, as vkdml.h's are; keep
the rest in step with vkdml.h by hand. The library is loaded with
ctypes.CDLL, which releases the GIL for the length of every call, so
other Python threads run while the GPU works.

ctypes converts a Python int into a C integer modulo 2^bits, silently: a
size of 2^32+3 would reach libvkdml as 3. So no integer is stored in a
ctypes field or array directly: u32/u64/u32_array check its range first and
raise E_INVALIDARG naming the argument.
"""

import ctypes
import operator
import os

import numpy as np

from ._errors import (DXGI_ERROR_UNSUPPORTED, E_FAIL, E_INVALIDARG, E_OUTOFMEMORY, HRESULT_NAMES,  # noqa: F401
                      S_OK, ArgumentTypeError, forked, invalid)

HRESULT = ctypes.c_int32

ABI_VERSION = 1

# BEGIN GENERATED: operator types (go run ./internal/schema/gen from internal/schema; do not edit)
OPERATOR_ARGMAX = 1
OPERATOR_ARGMIN = 2
OPERATOR_REDUCE = 3
OPERATOR_MAX_POOLING = 4
OPERATOR_MAX_POOLING1 = 5
OPERATOR_MAX_POOLING2 = 6
OPERATOR_MAX_UNPOOLING = 7
OPERATOR_TOP_K = 8
OPERATOR_TOP_K1 = 9
# END GENERATED: operator types

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


# BEGIN GENERATED: descs (go run ./internal/schema/gen from internal/schema; do not edit)
class ArgMaxDesc(ctypes.Structure):
    _fields_ = [
        ("input", _tdp),
        ("output", _tdp),
        ("axis_count", ctypes.c_uint32),
        ("axes", _u32p),
        ("axis_direction", ctypes.c_uint32),
    ]


ArgMinDesc = ArgMaxDesc


class ReduceDesc(ctypes.Structure):
    _fields_ = [
        ("function", ctypes.c_uint32),
        ("input", _tdp),
        ("output", _tdp),
        ("axis_count", ctypes.c_uint32),
        ("axes", _u32p),
    ]


class MaxPoolingDesc(ctypes.Structure):
    _fields_ = [
        ("input", _tdp),
        ("output", _tdp),
        ("dimension_count", ctypes.c_uint32),
        ("strides", _u32p),
        ("window_size", _u32p),
        ("start_padding", _u32p),
        ("end_padding", _u32p),
    ]


class MaxPooling1Desc(ctypes.Structure):
    _fields_ = [
        ("input", _tdp),
        ("output", _tdp),
        ("output_indices", _tdp),
        ("dimension_count", ctypes.c_uint32),
        ("strides", _u32p),
        ("window_size", _u32p),
        ("start_padding", _u32p),
        ("end_padding", _u32p),
    ]


class MaxPooling2Desc(ctypes.Structure):
    _fields_ = MaxPooling1Desc._fields_ + [
        ("dilations", _u32p),
    ]


class MaxUnpoolingDesc(ctypes.Structure):
    _fields_ = [
        ("input", _tdp),
        ("indices", _tdp),
        ("output", _tdp),
    ]


class TopKDesc(ctypes.Structure):
    _fields_ = [
        ("input", _tdp),
        ("output_value", _tdp),
        ("output_index", _tdp),
        ("axis", ctypes.c_uint32),
        ("k", ctypes.c_uint32),
    ]


class TopK1Desc(ctypes.Structure):
    _fields_ = TopKDesc._fields_ + [
        ("axis_direction", ctypes.c_uint32),
    ]


# DESC_STRUCTS maps each desc struct of vkdml.h to its class here.
DESC_STRUCTS = {
    "vkdml_argmax_desc": ArgMaxDesc,
    "vkdml_reduce_desc": ReduceDesc,
    "vkdml_max_pooling_desc": MaxPoolingDesc,
    "vkdml_max_pooling1_desc": MaxPooling1Desc,
    "vkdml_max_pooling2_desc": MaxPooling2Desc,
    "vkdml_max_unpooling_desc": MaxUnpoolingDesc,
    "vkdml_top_k_desc": TopKDesc,
    "vkdml_top_k1_desc": TopK1Desc,
}
# END GENERATED: descs


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
    "vkdml_version": (ctypes.c_char_p, []),
    "vkdml_last_error": (ctypes.c_char_p, []),
    "vkdml_device_create": (HRESULT, [ctypes.POINTER(DeviceOptions), ctypes.POINTER(ctypes.c_uint64)]),
    "vkdml_device_destroy": (HRESULT, [ctypes.c_uint64]),
    "vkdml_device_name": (HRESULT, [ctypes.c_uint64, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t)]),
    "vkdml_device_feature_levels": (HRESULT, [ctypes.c_uint64, _u32p, ctypes.c_uint32, _u32p]),
    "vkdml_operator_create": (HRESULT, [ctypes.c_uint64, ctypes.POINTER(OperatorDesc), ctypes.POINTER(ctypes.c_uint64)]),
    "vkdml_operator_run": (HRESULT, [ctypes.c_uint64, ctypes.POINTER(Buffer), ctypes.c_uint32, ctypes.POINTER(Buffer), ctypes.c_uint32]),
    "vkdml_operator_destroy": (HRESULT, [ctypes.c_uint64]),
    "vkdml_devices_json": (HRESULT, [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t)]),
    "vkdml_parity_compare": (HRESULT, [ctypes.c_uint64, ctypes.c_char_p, ctypes.POINTER(Buffer), ctypes.c_uint32,
                                       ctypes.POINTER(Buffer), ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t,
                                       ctypes.POINTER(ctypes.c_size_t)]),
    "vkdml_run": (HRESULT, [ctypes.c_uint64, ctypes.POINTER(OperatorDesc), ctypes.POINTER(Buffer), ctypes.c_uint32, ctypes.POINTER(Buffer), ctypes.c_uint32]),
}


def library_path():
    """The libvkdml to load: $VKDML_LIBRARY, else the one in this package."""
    env = os.environ.get("VKDML_LIBRARY")
    if env:
        return env
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "libvkdml.so")


class _Forked:
    """Set in a child of fork(): libvkdml's Go runtime and driver threads
    did not come along, and a call into it would wait for them forever."""
    child = False


def _after_fork_in_child():
    _Forked.child = True


# The C library catches the fork too (pthread_atfork) and refuses every
# call; this guard answers first, without entering C, in Python's words.
os.register_at_fork(after_in_child=_after_fork_in_child)


def in_forked_child():
    """Whether this process is a fork() child of one that loaded libvkdml."""
    return _Forked.child


class Library:
    """libvkdml's functions, each refusing to run in a forked child."""

    def __init__(self, lib):
        self._lib = lib

    def __getattr__(self, name):
        fn = getattr(self._lib, name)

        def guarded(*args):
            if _Forked.child:
                raise forked(name)
            return fn(*args)
        guarded.__name__ = name
        setattr(self, name, guarded)
        return guarded


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
    return Library(lib)


def integer(call, field, value):
    """value as a Python int: ints, numpy integers and anything with
    __index__ are taken; bools, floats and strings are refused."""
    if isinstance(value, (bool, np.bool_)):
        raise invalid(call, field, "%r is a bool, not an integer" % (value,), ArgumentTypeError)
    try:
        return operator.index(value)
    except TypeError:
        raise invalid(call, field, "%r (%s) is not an integer" % (value, type(value).__name__),
                      ArgumentTypeError) from None


def _ranged(call, field, value, bits):
    v = integer(call, field, value)
    if not 0 <= v < 1 << bits:
        raise invalid(call, field, "%d is not in [0, 2^%d-1]: the C field is a %d-bit unsigned integer"
                      % (v, bits, bits))
    return v


def u32(call, field, value):
    """value checked to fit a uint32 field."""
    return _ranged(call, field, value, 32)


def u64(call, field, value):
    """value checked to fit a uint64 field."""
    return _ranged(call, field, value, 64)


def u32_list(call, field, values):
    """values (a sequence) as a list of ints that each fit a uint32;
    entries are named field[i]."""
    if isinstance(values, (str, bytes)):
        raise invalid(call, field, "%r is not a sequence of integers" % (values,), ArgumentTypeError)
    try:
        items = list(values)
    except TypeError:
        raise invalid(call, field, "%r is not an integer or a sequence of integers" % (values,),
                      ArgumentTypeError) from None
    return [u32(call, "%s[%d]" % (field, i), v) for i, v in enumerate(items)]


def u32_array(call, field, values):
    """A ctypes uint32 array holding values, each range-checked (kept
    alive by the caller)."""
    checked = u32_list(call, field, values)
    return (ctypes.c_uint32 * max(len(checked), 1))(*checked)
