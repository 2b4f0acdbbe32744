"""vkdml's numpy API: DirectML's ARGMAX, ARGMIN and MAX_POOLING2 with
DirectML's exact semantics, computed by libvkdml on a Vulkan device.

Lifetimes. A Device and an Operator own libvkdml handles (threads, device
memory, pipelines). close() them, or use them as context managers; one
that is dropped unclosed is released when it is garbage-collected, with a
ResourceWarning as for an unclosed file. Device.close() also releases
every Operator made on it; those then raise vkdml.Error when called.

Processes. libvkdml cannot be used in a child made by fork() (os.fork,
or multiprocessing's "fork" start method, Linux's default before Python
3.14) once it is loaded, which `import vkdml` does: the Go runtime's and
the Vulkan driver's threads do not survive fork. Every vkdml call in such a
child raises vkdml.ForkError at once; use the "spawn" or "forkserver"
start method, whose workers import vkdml afresh.
"""

from __future__ import annotations

import collections
import ctypes
import math
import os
import threading
import typing
import warnings
import weakref
from typing import Literal, Optional, Sequence, Tuple, Union

import numpy as np

try:
    import numpy.typing as npt
except ImportError:  # numpy before 1.20 (Debian 11's 1.19) has no numpy.typing
    class npt:  # noqa: N801 - stands in for the module
        ArrayLike = typing.Any
        DTypeLike = typing.Any

from . import _capi
from ._errors import (ArgumentTypeError, Error, api, error_for, invalid, out_of_memory)

_lib = _capi.load()

# numpy dtype -> DML_TENSOR_DATA_TYPE. float64 is DirectML's FLOAT64, which
# none of these DirectML operators takes: it is refused up front (as
# bfloat16, which DirectML lacks), with the cast to use.
_DATA_TYPES = {
    np.dtype(np.float32): 1, np.dtype(np.float16): 2,
    np.dtype(np.uint32): 3, np.dtype(np.uint16): 4, np.dtype(np.uint8): 5,
    np.dtype(np.int32): 6, np.dtype(np.int16): 7, np.dtype(np.int8): 8,
    np.dtype(np.float64): 9,
    np.dtype(np.uint64): 10, np.dtype(np.int64): 11,
}

_DIRECTIONS = {"increasing": 0, "decreasing": 1}
# DML_REDUCE_FUNCTION by DirectML's names in lower case: all twelve (MAX
# and MIN on every type, the integer functions on 32/64-bit integers, the
# float functions on float32/float16: the sums exactly, multiply in
# semantics.md rule 42's canonical tree).
_REDUCE_FUNCTIONS = {"argmax": 0, "argmin": 1, "average": 2, "l1": 3, "l2": 4, "log_sum": 5,
                     "log_sum_exp": 6, "max": 7, "min": 8, "multiply": 9, "sum": 10, "sum_square": 11}
_REDUCE_INDEX_FUNCTIONS = ("argmax", "argmin")

# The types the public functions take (PEP 484; py.typed marks the package).
# Axes=None is every axis, as NumPy's axis=None.
Axes = Union[int, Sequence[int]]
Direction = Literal["increasing", "decreasing"]
ReduceFunction = Literal["argmax", "argmin", "max", "min", "sum", "multiply", "l1", "sum_square", "average",
                         "l2", "log_sum", "log_sum_exp"]
PoolVersion = Literal[0, 1, 2]
# How max_unpool's indices count: "directml", flat over the whole output as
# max_pool returns them; "torch", PyTorch's int64 within each (n, c) plane.
IndicesLayout = Literal["directml", "torch"]
Spatial = Union[int, Sequence[int]]
DeviceLike = Union["Device", int, str, None]
Result = Union[np.ndarray, Tuple[np.ndarray, np.ndarray]]

# How many one-shot operators a device keeps compiled.
ONE_SHOT_CACHE_SIZE = 16

_FEATURE_LEVELS = [0x1000, 0x2000, 0x2100, 0x3000, 0x3100, 0x4000, 0x4100, 0x5000,
                   0x5100, 0x5200, 0x6000, 0x6100, 0x6200, 0x6300, 0x6400]


def _check(hr):
    """Raises the calling thread's last libvkdml error when hr failed."""
    if hr < 0:
        msg = _lib.vkdml_last_error().decode("utf-8", "replace")
        raise error_for(hr, msg)


def _host_memory():
    """The machine's physical memory in bytes, or 0 when unknown."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 0


def _allocate(call, field, shape, dtype):
    """A new array for an output, or E_OUTOFMEMORY naming field when the
    host cannot hold it."""
    nbytes = math.prod(shape) * dtype.itemsize
    ram = _host_memory()
    if ram and nbytes > ram:
        raise out_of_memory(call, field, "%d bytes (shape %s, %s) exceed the machine's %d bytes of memory"
                            % (nbytes, tuple(shape), dtype, ram))
    try:
        return np.empty(shape, dtype)
    except MemoryError as e:
        raise out_of_memory(call, field, "%d bytes (shape %s, %s) could not be allocated: %s"
                            % (nbytes, tuple(shape), dtype, e)) from e


# ---- Devices ----

class _DeviceState:
    """What a Device's finalizer and its operators share: never the Device
    itself, so that an unreachable Device can be collected."""

    def __init__(self, handle, owned_by_module):
        self.lock = threading.Lock()
        self.handle = handle
        self.operators = set()  # live operator handles made on the device
        self.owned_by_module = owned_by_module
        # One-shot calls' operators by their desc's key, least recently
        # used first; each handle is also in operators.
        self.one_shot = collections.OrderedDict()


def _release_device(state):
    """Destroys the device's operators, then the device; returns the
    device's HRESULT (0 when it was already released)."""
    with state.lock:
        handle, operators = state.handle, sorted(state.operators)
        state.handle = 0
        state.operators.clear()
        state.one_shot.clear()
    if not handle or _capi.in_forked_child():
        return 0
    for h in operators:
        _lib.vkdml_operator_destroy(h)
    return _lib.vkdml_device_destroy(handle)


def _collect_device(state, label):
    """A Device's finalizer: it was garbage-collected, or the interpreter is
    exiting, with the device still open."""
    if state.handle and not state.owned_by_module and not _capi.in_forked_child():
        warnings.warn("unclosed vkdml.Device %s: call close() or use it as a context manager" % label,
                      ResourceWarning, stacklevel=2)
    _release_device(state)


def _device_selector(call, field, name):
    """name (None, a device index or a name substring) as libvkdml's
    selector string."""
    if name is None:
        return None
    if isinstance(name, (bool, np.bool_)) or not isinstance(name, (str, int, np.integer)):
        raise invalid(call, field, "%r is not a Device, a device index or a substring of a device's name"
                      % (name,), ArgumentTypeError)
    if isinstance(name, str):
        if "\0" in name:
            raise invalid(call, field, "%r contains a NUL character" % (name,))
        return name.encode()
    return str(_capi.u32(call, field, name)).encode()


class Device:
    """A Vulkan device (DirectML's IDMLDevice).

    name picks the device by index (0 or "0") or a substring of its name
    ("llvmpipe"); None picks $VKDML_DEVICE, then a discrete, integrated,
    virtual or CPU device. debug turns on the Khronos validation layer,
    whose messages become errors. min_feature_level is DMLCreateDevice1's
    minimum level (e.g. 0x5000). A device is safe to use from several
    threads at once. Use it as a context manager, or call close(); see the
    module's notes on lifetimes and fork().
    """

    @api("Device")
    def __init__(self, name: Union[int, str, None] = None, debug: bool = False,
                 min_feature_level: int = 0) -> None:
        self._state = _DeviceState(0, False)
        self._finalizer = None
        opts = _capi.DeviceOptions()
        opts.flags = _capi.CREATE_DEVICE_FLAG_DEBUG if debug else 0
        opts.minimum_feature_level = _capi.u32("Device", "min_feature_level", min_feature_level)
        opts.device = _device_selector("Device", "name", name)
        handle = ctypes.c_uint64(0)
        _check(_lib.vkdml_device_create(ctypes.byref(opts), ctypes.byref(handle)))
        self._state.handle = handle.value
        self._finalizer = weakref.finalize(self, _collect_device, self._state, "(name=%r)" % (name,))

    @property
    def handle(self) -> int:
        """The libvkdml device handle; raises Error once closed."""
        h = self._state.handle
        if not h:
            raise invalid("Device", "device", "is closed")
        return h

    @property
    def closed(self) -> bool:
        """True once close() ran."""
        return not self._state.handle

    @property
    def name(self) -> str:
        """The Vulkan device's name, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"."""
        buf = ctypes.create_string_buffer(512)
        length = ctypes.c_size_t(0)
        _check(_lib.vkdml_device_name(self.handle, buf, len(buf), ctypes.byref(length)))
        return buf.value.decode("utf-8", "replace")

    @property
    def feature_level(self) -> int:
        """The highest DML_FEATURE_LEVEL the device supports, e.g. 0x6400."""
        levels = _capi.u32_array("Device.feature_level", "levels", _FEATURE_LEVELS)
        best = ctypes.c_uint32(0)
        _check(_lib.vkdml_device_feature_levels(self.handle, levels, len(_FEATURE_LEVELS), ctypes.byref(best)))
        return best.value

    def close(self) -> None:
        """Releases the device and every Operator made on it (they raise
        Error when called afterwards). Idempotent."""
        if self._finalizer is not None:
            self._finalizer.detach()
        _check(_release_device(self._state))

    def _create_operator(self, call, plan):
        """Validates, compiles and initializes plan's desc; the handle is
        registered so that close() releases it."""
        od = _capi.OperatorDesc(plan.op_type, ctypes.cast(ctypes.pointer(plan.desc), ctypes.c_void_p))
        handle = ctypes.c_uint64(0)
        _check(_lib.vkdml_operator_create(self.handle, ctypes.byref(od), ctypes.byref(handle)))
        with self._state.lock:
            alive = bool(self._state.handle)
            if alive:
                self._state.operators.add(handle.value)
        if not alive:  # closed by another thread meanwhile
            _lib.vkdml_operator_destroy(handle.value)
            raise invalid(call, "device", "was closed while the operator was created")
        return handle.value

    def _one_shot_operator(self, plan):
        """The operator for plan's desc from the device's bounded cache of
        one-shot operators (as Go's Compute keeps one), or a new one."""
        state = self._state
        with state.lock:
            handle = state.one_shot.get(plan.key)
            if handle is not None and handle in state.operators:
                state.one_shot.move_to_end(plan.key)
                return handle
        handle = self._create_operator(plan.call, plan)
        evicted = []
        with state.lock:
            state.one_shot[plan.key] = handle
            while len(state.one_shot) > ONE_SHOT_CACHE_SIZE:
                evicted.append(state.one_shot.popitem(last=False)[1])
        for h in evicted:
            _release_operator(state, h)
        return handle

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        if self.closed:
            return "vkdml.Device(closed)"
        try:
            return "vkdml.Device(%r)" % self.name
        except Error:
            return "vkdml.Device(handle %d)" % self._state.handle


def _release_operator(state, handle):
    """Destroys an operator unless its device already did; returns its
    HRESULT."""
    with state.lock:
        live = handle in state.operators
        state.operators.discard(handle)
    if not live or _capi.in_forked_child():
        return 0
    return _lib.vkdml_operator_destroy(handle)


def _collect_operator(state, handle):
    if handle in state.operators and not _capi.in_forked_child():
        warnings.warn("unclosed vkdml.Operator: call close() or use it as a context manager",
                      ResourceWarning, stacklevel=2)
    _release_operator(state, handle)


_default = None
_by_selector = {}
_devices_lock = threading.Lock()


def _module_device(key, make):
    """A device the module opens on first use and closes at exit."""
    with _devices_lock:
        dev = _by_selector.get(key)
        if dev is None or dev.closed:
            dev = make()
            dev._state.owned_by_module = True
            _by_selector[key] = dev
        return dev


def default_device() -> Device:
    """The device used when device=None, opened on first use."""
    return _module_device(None, Device)


def _resolve_device(call, device):
    """device= as users pass it: None (the default device), a Device, a
    device index or a substring of a device's name (opened once, then
    reused)."""
    if device is None:
        return default_device()
    if isinstance(device, Device):
        return device
    sel = _device_selector(call, "device", device)
    try:
        return _module_device(sel, lambda: Device(name=device))
    except Error as e:
        raise error_for(e.hresult, "%s: device: %s" % (call, e.message)) from None


# ---- Tensors ----

class _TensorDesc:
    """A DML_BUFFER_TENSOR_DESC for an array's shape, dtype and (element)
    strides, each size and stride range-checked; keeps its ctypes arrays
    alive."""

    def __init__(self, call, field, shape, dtype, strides=None):
        self.shape, self.dtype = tuple(shape), dtype
        self.key = (self.shape, dtype.str, None if strides is None else tuple(strides))
        self.sizes = _capi.u32_array(call, field + ".shape", shape)
        self.strides = None if strides is None else _capi.u32_array(call, field + ".strides", strides)
        desc = _capi.TensorDesc()
        desc.data_type = _DATA_TYPES[dtype]
        desc.dimension_count = len(shape)
        desc.sizes = self.sizes
        desc.strides = self.strides
        self.desc = desc


# The types DirectML's ARGMAX, ARGMIN, REDUCE, MAX_POOLING* and
# MAX_UNPOOLING are defined for (each operator and feature level takes some
# of them; the library names those).
_DIRECTML_TYPES = ", ".join(str(d) for d in _DATA_TYPES if d != np.float64)


def _data_type(call, field, dtype):
    if dtype == np.float64 or dtype.name == "bfloat16":
        cast = _float32_cast(field)
        raise invalid(call, field, "%s is not a type DirectML's %s takes (DirectML's types for it are among %s)%s"
                      % (dtype, call, _DIRECTML_TYPES, "; cast with " + cast if cast else ""), ArgumentTypeError)
    if dtype not in _DATA_TYPES:
        raise invalid(call, field, "%s is not a DirectML tensor data type (use one of %s)" % (dtype, _DIRECTML_TYPES),
                      ArgumentTypeError)
    return dtype


def _float32_cast(field):
    """The one-line cast to float32 of the input field names (x.dtype, or
    a prepare_* function's dtype); None for an output's or index's type,
    which float32 would not fit either."""
    if field == "dtype":
        return "numpy.float32"
    if field.endswith(".dtype") and not field.startswith(("out", "indices")):
        return "%s.astype(numpy.float32)" % field[:-len(".dtype")]
    return None


def _refuse_bfloat16(call, field, x):
    """Refuses a bfloat16 array or tensor before numpy or DLPack fails on
    it with a message of its own."""
    if "bfloat16" in str(getattr(x, "dtype", "")):
        raise invalid(call, field + ".dtype", "bfloat16 is not a DirectML tensor data type (DirectML's types are %s); "
                      "cast with %s.float() (torch) or %s.astype(numpy.float32)" % (_DIRECTML_TYPES, field, field),
                      ArgumentTypeError)


def _from_dlpack(call, field, x):
    """A host array exported through DLPack (a CPU torch tensor, a JAX or
    CuPy host array, ...) as a numpy array sharing its memory."""
    device = getattr(x, "__dlpack_device__", None)
    if device is not None:
        kind = device()[0]
        if int(kind) not in (1, 3):  # kDLCPU, kDLCUDAHost: host memory
            raise invalid(call, field, "is in DLPack device memory of type %d, not host memory: vkdml reads host "
                          "arrays; copy it to the host first (e.g. %s.cpu())" % (int(kind), field), ArgumentTypeError)
    if not hasattr(np, "from_dlpack"):
        if hasattr(x, "__array__"):
            return np.asarray(x)
        raise invalid(call, field, "supports only DLPack, which needs NumPy 1.22 or later (this is %s)"
                      % np.__version__, ArgumentTypeError)
    try:
        return np.from_dlpack(x)
    except (TypeError, ValueError, BufferError, RuntimeError) as e:
        raise invalid(call, field, "cannot be read through DLPack: %s" % e, ArgumentTypeError) from None


def _as_array(call, field, x):
    _refuse_bfloat16(call, field, x)
    if not isinstance(x, np.ndarray) and hasattr(x, "__dlpack__"):
        return _checked_array(call, field, _from_dlpack(call, field, x))
    try:
        a = np.asarray(x)
    except (ValueError, TypeError) as e:
        raise invalid(call, field, "is not convertible to a numpy array: %s" % e, ArgumentTypeError) from None
    return _checked_array(call, field, a)


def _checked_array(call, field, a):
    """a, in the machine's byte order, checked to have a DirectML data
    type and sizes."""
    if a.dtype not in _DATA_TYPES and a.dtype.byteorder not in "=|" and a.dtype.newbyteorder("=") in _DATA_TYPES:
        a = a.astype(a.dtype.newbyteorder("="))
    _data_type(call, field + ".dtype", a.dtype)
    # Every size must fit DirectML's 32-bit sizes before numpy copies
    # anything (a broadcast view of 2^32+ elements costs nothing until then).
    _capi.u32_list(call, field + ".shape", a.shape)
    return a


def _element_strides(array):
    """DirectML element strides for array's memory, or None when numpy's
    byte strides are not non-negative multiples of the item size below
    2^32 elements."""
    out = []
    for n, s in zip(array.shape, array.strides):
        if n == 1:
            out.append(0)
        elif s < 0 or s % array.itemsize or s // array.itemsize > 0xFFFFFFFF:
            return None
        else:
            out.append(s // array.itemsize)
    return out


def _span_bytes(array, strides):
    """The host bytes from array's first element to the end of its last."""
    last = sum((n - 1) * s for n, s in zip(array.shape, strides)) if array.size else -1
    return (last + 1) * array.itemsize


class _Input:
    """An input array as a tensor desc plus the host buffer libvkdml reads.
    Strided arrays keep their memory when DirectML's strides can say it;
    anything else is copied first."""

    def __init__(self, call, field, array):
        strides = _element_strides(array)
        if strides is None:
            array = np.ascontiguousarray(array)
            strides = _element_strides(array)
        self.array = array  # keeps the memory alive for the call
        packed = array.flags.c_contiguous
        self.tensor = _TensorDesc(call, field, array.shape, array.dtype, None if packed else strides)
        self.buffer = _capi.Buffer(array.ctypes.data, _span_bytes(array, strides))


def _buffers(arrays):
    """vkdml_buffers over arrays (None: an absent tensor), each spanning its
    elements, strided ones included."""
    bufs = []
    for a in arrays:
        if a is None:
            bufs.append(_capi.Buffer())
        else:
            strides = _element_strides(a) or [0] * a.ndim
            bufs.append(_capi.Buffer(a.ctypes.data, _span_bytes(a, strides)))
    return (_capi.Buffer * len(arrays))(*bufs)


def _out_tensor(call, field, out, shape, dtype=None):
    """The tensor desc of an out= array, which must have the result's shape
    (and dtype, when one is required), be writable and be laid out as
    DirectML strides can say (it is written in place)."""
    if not isinstance(out, np.ndarray):
        raise invalid(call, field, "is a %s, not a numpy array" % type(out).__name__, ArgumentTypeError)
    _data_type(call, field + ".dtype", out.dtype)
    if dtype is not None and out.dtype != dtype:
        raise invalid(call, field + ".dtype", "is %s; the result is %s" % (out.dtype, dtype))
    if out.shape != tuple(shape):
        raise invalid(call, field + ".shape", "is %s; the result's shape is %s" % (out.shape, tuple(shape)))
    if not out.flags.writeable:
        raise invalid(call, field, "is read-only")
    if out.dtype.byteorder not in "=|":
        raise invalid(call, field + ".dtype", "%s is not in the machine's byte order" % out.dtype)
    strides = _element_strides(out)
    if strides is None:
        raise invalid(call, field + ".strides", "%s (bytes) are not non-negative multiples of the item size below "
                      "2^32 elements, so DirectML strides cannot describe them" % (out.strides,))
    if any(s == 0 and n > 1 for n, s in zip(out.shape, strides)):
        raise invalid(call, field + ".strides", "broadcast (zero) strides would write one element many times")
    return _TensorDesc(call, field, out.shape, out.dtype, None if out.flags.c_contiguous else strides)


def _index_dtype(call, index_dtype):
    try:
        dt = np.dtype(index_dtype)
    except TypeError:
        raise invalid(call, "index_dtype", "%r is not a numpy dtype" % (index_dtype,), ArgumentTypeError) from None
    return _data_type(call, "index_dtype", dt)


def _normalize_axes(call, axes, ndim):
    if axes is None:  # NumPy's axis=None: every axis
        return list(range(ndim))
    if isinstance(axes, (str, bytes)) or not hasattr(axes, "__iter__"):
        axes = [axes]
    out = []
    for i, a in enumerate(axes):
        a = _capi.integer(call, "axes[%d]" % i, a)
        if not -ndim <= a < ndim:
            raise invalid(call, "axes[%d]" % i, "axis %d is out of range for a %d-D array (must be in [%d, %d])"
                          % (a, ndim, -ndim, ndim - 1))
        out.append(a % ndim)
    return out


def _keepdims(call, keepdims):
    if not isinstance(keepdims, (bool, np.bool_)):
        raise invalid(call, "keepdims", "%r is not a bool" % (keepdims,), ArgumentTypeError)
    return bool(keepdims)


def _reduced_out(call, out, axes, ndim, keepdims):
    """out= of a reduction over axes (normalized) as DirectML writes it, its
    reduced axes of size 1: with keepdims=False the caller's array lacks
    them, and a view of it gets them back."""
    if out is None or keepdims:
        return out
    if not isinstance(out, np.ndarray):
        raise invalid(call, "out", "is a %s, not a numpy array" % type(out).__name__, ArgumentTypeError)
    if out.ndim != ndim - len(set(axes)):
        raise invalid(call, "out.shape", "is %s; with keepdims=False the result drops the %d reduced axes of x's %d"
                      % (out.shape, len(set(axes)), ndim))
    return np.expand_dims(out, tuple(sorted(set(axes))))


def _returned(result, out):
    """What a call returns: its result, or the caller's own out= arrays
    (result may hold views of them)."""
    if out is None:
        return result
    return _results([out] if isinstance(out, np.ndarray) else list(out))


class _Plan:
    """An operator desc: the C desc (whose pointers the plan keeps alive),
    the input's tensor and the outputs' tensors (None for an absent
    optional output)."""

    def __init__(self, call, op_type, desc, keep, inp, outputs, params):
        self.call, self.op_type, self.desc, self.keep = call, op_type, desc, keep
        self.inp, self.outputs = inp, outputs
        self.given = None  # out= arrays, when the caller gave them
        # Size-1 axes dropped from each result (keepdims=False; 1-D pooling's
        # height), and the input shape callers pass when it differs from
        # the desc's (1-D pooling's 3-D arrays).
        self.squeeze = ()
        self.caller_shape = inp.shape
        self.more_inputs = []  # the prepared operator's inputs after the first
        # Everything the C desc holds, for the one-shot cache.
        self.key = (op_type, inp.key) + tuple(None if t is None else t.key for t in outputs) + tuple(params)

    def allocate(self, given=None):
        """The output arrays: those given (out=), else fresh ones (None
        where absent)."""
        if given is not None:
            return list(given)
        return [None if t is None else _allocate(self.call, "output %d" % i, t.shape, t.dtype)
                for i, t in enumerate(self.outputs)]


def _results(arrays, squeeze=()):
    arrays = [a if not squeeze else a.squeeze(axis=squeeze) for a in arrays if a is not None]
    return arrays[0] if len(arrays) == 1 else tuple(arrays)


def _run(device, plan, inp, out=None):
    """Runs plan's desc once on the input (an _Input, or a list of them in
    binding order) with the device's cached operator for it (validated,
    compiled and fitted to the device when first seen, before any output is
    allocated). The GIL is released while libvkdml works."""
    dev = _resolve_device(plan.call, device)
    handle = dev._one_shot_operator(plan)
    outs = plan.allocate(out)
    inps = inp if isinstance(inp, list) else [inp]
    ins, obufs = (_capi.Buffer * len(inps))(*[i.buffer for i in inps]), _buffers(outs)
    _check(_lib.vkdml_operator_run(handle, ins, len(inps), obufs, len(outs)))
    return _results(outs, plan.squeeze)


def _arg_plan(call, op_type, inp, axes, direction, index_dtype, out=None):
    """ARGMAX/ARGMIN (direction a string) or REDUCE (direction a function
    name) over inp."""
    ax = _normalize_axes(call, axes, len(inp.shape))
    choices = _REDUCE_FUNCTIONS if op_type == _capi.OPERATOR_REDUCE else _DIRECTIONS
    what = "function" if op_type == _capi.OPERATOR_REDUCE else "direction"
    if not isinstance(direction, str) or direction not in choices:
        raise invalid(call, what, "%r is not one of %s" % (direction, ", ".join('"%s"' % c for c in choices)))
    shape = tuple(1 if i in ax else n for i, n in enumerate(inp.shape))
    values = op_type == _capi.OPERATOR_REDUCE and direction not in _REDUCE_INDEX_FUNCTIONS
    if values and index_dtype is not None:
        raise invalid(call, "index_dtype", "applies to argmax and argmin; %s's result has x's dtype" % direction)
    if index_dtype is None:
        index_dtype = "uint32"
    if out is None:
        output = _TensorDesc(call, "output", shape, inp.dtype if values else _index_dtype(call, index_dtype))
    else:
        output = _out_tensor(call, "out", out, shape, inp.dtype if values else None)
    axes_arr = _capi.u32_array(call, "axes", ax)
    if op_type == _capi.OPERATOR_REDUCE:
        desc = _capi.ReduceDesc(choices[direction], ctypes.pointer(inp.desc), ctypes.pointer(output.desc), len(ax),
                                axes_arr)
    else:
        desc = _capi.ArgMaxDesc(ctypes.pointer(inp.desc), ctypes.pointer(output.desc), len(ax), axes_arr,
                                choices[direction])
    return _Plan(call, op_type, desc, [axes_arr], inp, [output], [tuple(ax), direction])


def _arg(call, op_type, x, axes, direction, index_dtype, device, out, keepdims=True):
    inp = _Input(call, "x", _as_array(call, "x", x))
    ax = _normalize_axes(call, axes, len(inp.tensor.shape))
    kept = _reduced_out(call, out, ax, len(inp.tensor.shape), _keepdims(call, keepdims))
    plan = _arg_plan(call, op_type, inp.tensor, ax, direction, index_dtype, kept)
    plan.squeeze = () if keepdims else tuple(sorted(set(ax)))
    return _returned(_run(device, plan, inp, None if kept is None else [kept]), out)


@api("argmax")
def argmax(x: npt.ArrayLike, axes: Optional[Axes] = None, *, direction: Direction = "increasing",
           index_dtype: npt.DTypeLike = "uint32", keepdims: bool = True, device: DeviceLike = None,
           out: Optional[np.ndarray] = None) -> np.ndarray:
    """DirectML's ARGMAX: the index of the largest element of each block of
    x over axes (an int or a sequence; negative axes count from the end;
    None, the default, is every axis, as NumPy's axis=None), counted from
    the block's start in row-major order over the reduced axes. The result
    keeps x's rank, reduced axes of size 1, as DirectML's does; keepdims=False
    drops them (then out= has them dropped too).

    direction "increasing" returns the first of tied maxima, "decreasing"
    the last. NaN follows DirectML (semantics.md rule 5): a NaN is returned
    only in a block's first position, so argmax([1, nan, 3]) is 2 where
    numpy says 1. index_dtype is uint32, int32, uint64 or int64. device is
    None (the default device), a Device, a device index or a substring of
    a device's name. out is an array of the result's shape to write into
    (its dtype is the index type, its strides DirectML's output strides;
    bytes between its elements keep their values); it is returned. Every
    failure raises vkdml.Error.
    """
    return _arg("argmax", _capi.OPERATOR_ARGMAX, x, axes, direction, index_dtype, device, out, keepdims)


@api("argmin")
def argmin(x: npt.ArrayLike, axes: Optional[Axes] = None, *, direction: Direction = "increasing",
           index_dtype: npt.DTypeLike = "uint32", keepdims: bool = True, device: DeviceLike = None,
           out: Optional[np.ndarray] = None) -> np.ndarray:
    """DirectML's ARGMIN: argmax's twin for the smallest element."""
    return _arg("argmin", _capi.OPERATOR_ARGMIN, x, axes, direction, index_dtype, device, out, keepdims)


@api("reduce")
def reduce(x: npt.ArrayLike, function: ReduceFunction, axes: Optional[Axes] = None, *,
           index_dtype: Optional[npt.DTypeLike] = None, keepdims: bool = True, device: DeviceLike = None,
           out: Optional[np.ndarray] = None) -> np.ndarray:
    """DirectML's REDUCE over axes of x with function, DirectML's name in
    lower case: "max" or "min" (every dtype; NaN is ignored wherever it
    sits, and of equal values the later wins, so max([-0., 0.]) is +0 and
    max([0., -0.]) is -0), "sum", "multiply", "l1" or "sum_square" (int32,
    uint32, int64, uint64; the integers wrap modulo 2^n), whose result has
    x's dtype; "sum", "average", "l1", "sum_square", "l2", "log_sum" or
    "log_sum_exp" on float32 and float16, summed exactly and rounded once
    (the same bits on every device; DirectML's formulas, so log_sum_exp
    subtracts no maximum and l2 can overflow); "multiply" on float32 and
    float16 in one canonical order, a pairwise tree over the block's
    row-major values padded to a power of two, in float32 (the same bits
    on every device); or "argmax" / "argmin", ARGMAX/ARGMIN's index with
    INCREASING ties, of index_dtype (default uint32). The result keeps x's
    rank, reduced axes of size 1; an empty axes list is the identity.
    reduce(x, axes, function), the order before the value functions, is
    accepted too (the type hints name the new order). Other arguments
    (axes=None, keepdims) as in argmax."""
    function, axes = _reduce_order(function, axes)
    return _arg("reduce", _capi.OPERATOR_REDUCE, x, axes, function, index_dtype, device, out, keepdims)


def _reduce_order(function, axes):
    """reduce's (function, axes), given in either order: a function name is
    the only string either takes."""
    if isinstance(axes, str) and not isinstance(function, str):
        return axes, function
    return function, axes


def _spatial(call, field, value, dims, default):
    if value is None:
        if default is None:
            raise invalid(call, field, "is required")
        return [default] * dims
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        return [_capi.u32(call, field, value)] * dims
    value = _capi.u32_list(call, field, value)
    if len(value) != dims:
        raise invalid(call, field, "has %d entries; a %d-D input has %d spatial axes" % (len(value), dims + 2, dims))
    return value


def _pool_output_size(call, shape, window, strides, dilations, start, end, ceil_mode):
    """The spatial output extents: DirectML's floor formula, or with
    ceil_mode the ceiling, dropping a last window that would start in the
    end padding (as ONNX and PyTorch do, and as `vkdml run maxpool
    --ceil-mode` does)."""
    out = []
    for i in range(len(window)):
        padded = shape[i + 2] + start[i] + end[i]
        k = 1 + (window[i] - 1) * dilations[i]
        if window[i] < 1 or strides[i] < 1 or dilations[i] < 1:
            out.append(1)  # the library names the zero field
            continue
        if k > padded:
            raise invalid(call, "window[%d]" % i, "the dilated window (%d) is larger than the padded input (%d)"
                          % (k, padded))
        steps, rest = divmod(padded - k, strides[i])
        n = steps + 1 + (1 if ceil_mode and rest else 0)
        if ceil_mode and n > 1 and (n - 1) * strides[i] >= shape[i + 2] + start[i]:
            n -= 1
        if n > 0xFFFFFFFF:
            raise invalid(call, "start_padding[%d]" % i,
                          "the output extent of spatial axis %d would be %d (from x.shape, window, strides, "
                          "dilations, start_padding and end_padding), above DirectML's 2^32-1" % (i, n))
        out.append(n)
    return out


# max_pool's version: the desc it builds, and what that desc has.
_POOL_VERSIONS = {0: _capi.OPERATOR_MAX_POOLING, 1: _capi.OPERATOR_MAX_POOLING1, 2: _capi.OPERATOR_MAX_POOLING2}


@api("max_pool")
def max_pool(x: npt.ArrayLike, window: Spatial, *, strides: Optional[Spatial] = None,
             dilations: Optional[Spatial] = None, padding: Optional[Spatial] = None,
             start_padding: Optional[Spatial] = None, end_padding: Optional[Spatial] = None,
             ceil_mode: bool = False, output_size: Optional[Spatial] = None,
             return_indices: bool = False, index_dtype: npt.DTypeLike = "uint32",
             version: PoolVersion = 2, device: DeviceLike = None,
             out: Union[np.ndarray, Sequence[np.ndarray], None] = None) -> Result:
    """DirectML's MAX_POOLING2 (version=2; 1 is MAX_POOLING1, without
    dilations; 0 is MAX_POOLING, without dilations or indices) on a 4-D
    (NCHW) or 5-D (NCDHW) array, or a 3-D (N, C, W) one for 1-D pooling,
    which runs as 2-D pooling over (N, C, 1, W) and returns 3-D arrays (its
    indices are the same flat indices).

    window, strides (default 1), dilations (default 1), padding (both
    sides), start_padding and end_padding (default 0) are an int or one
    value per spatial axis, each in [0, 2^32-1]. output_size is the spatial
    output extent; None is DirectML's floor formula, or with ceil_mode the
    ceiling (a last window that would start in the end padding is dropped,
    as ONNX's and PyTorch's ceil_mode). With return_indices, returns (y,
    indices): indices are flat over the whole input (n, c and the spatial
    axes), as DirectML writes them, in index_dtype uint32 or uint64. out is
    y, or (y, indices), to write into and return. Values follow
    semantics.md rule 9: NaN and -inf are never selected; an all-padding
    window gives the type's lowest finite value and index 0. device is as
    in argmax; every failure raises vkdml.Error.
    """
    call = "max_pool"
    xa = _as_array(call, "x", x)
    _check_pool_input(call, "x", xa.shape)
    window, strides, dilations, padding, start_padding, end_padding, output_size = _lift_1d(
        call, xa.ndim, (window, strides, dilations, padding, start_padding, end_padding, output_size))
    inp = _Input(call, "x", xa[:, :, np.newaxis] if xa.ndim == 3 else xa)
    plan = _pool_plan(call, inp.tensor, window, strides, dilations, padding, start_padding, end_padding, ceil_mode,
                      output_size, return_indices, index_dtype, version, _with_height(out) if xa.ndim == 3 else out)
    plan.squeeze = (2,) if xa.ndim == 3 else ()
    return _returned(_run(device, plan, inp, plan.given), out)


def _check_pool_input(call, field, shape):
    if len(shape) not in (3, 4, 5):
        raise invalid(call, field, "max_pool takes 3-D (N, C, W), 4-D (NCHW) or 5-D (NCDHW) arrays; got %d-D"
                      % len(shape))


# 1-D pooling runs as 2-D over (N, C, 1, W): each spatial argument gets a
# height entry first, these.
_HEIGHT_1D = (("window", 1), ("strides", 1), ("dilations", 1), ("padding", 0), ("start_padding", 0),
              ("end_padding", 0), ("output_size", 1))


def _lift_1d(call, ndim, values):
    """max_pool's spatial arguments (in _HEIGHT_1D's order) for an input of
    ndim dimensions: a 3-D input's with the height entry added."""
    if ndim != 3:
        return values
    return [None if v is None else [height] + _spatial(call, name, v, 1, None)
            for (name, height), v in zip(_HEIGHT_1D, values)]


def _with_height(out):
    """A 1-D pooling's out= arrays as views with the height axis."""
    if out is None:
        return None
    arrays = [out] if isinstance(out, np.ndarray) else list(out)
    return [np.expand_dims(a, 2) if isinstance(a, np.ndarray) and a.ndim == 3 else a for a in arrays]


def _pool_paddings(call, dims, padding, start_padding, end_padding):
    if padding is not None:
        if start_padding is not None or end_padding is not None:
            raise invalid(call, "padding", "sets both sides; give it or start_padding/end_padding, not both")
        both = _spatial(call, "padding", padding, dims, 0)
        return both, both
    return (_spatial(call, "start_padding", start_padding, dims, 0),
            _spatial(call, "end_padding", end_padding, dims, 0))


def _pool_version(call, version, return_indices, dil):
    if isinstance(version, (bool, np.bool_)) or version not in _POOL_VERSIONS:
        raise invalid(call, "version", "%r is not 0 (MAX_POOLING), 1 (MAX_POOLING1) or 2 (MAX_POOLING2)" % (version,))
    if version == 0 and return_indices:
        raise invalid(call, "return_indices", "MAX_POOLING (version 0) has no indices output; use version 1 or 2")
    if version < 2 and any(d != 1 for d in dil):
        raise invalid(call, "dilations", "%s: only MAX_POOLING2 (version 2) has dilations" % dil)
    return _POOL_VERSIONS[version]


def _pool_outputs(call, shape, dtype, out, return_indices, index_dtype):
    """The output tensors (values, indices or None) and the out= arrays."""
    if out is None:
        idx = _TensorDesc(call, "indices", shape, _index_dtype(call, index_dtype)) if return_indices else None
        return [_TensorDesc(call, "output", shape, dtype), idx], None
    arrays = [out] if isinstance(out, np.ndarray) else list(out)
    if len(arrays) != (2 if return_indices else 1):
        raise invalid(call, "out", "has %d arrays; max_pool returns %d" % (len(arrays), 2 if return_indices else 1))
    tensors = [_out_tensor(call, "out[0]", arrays[0], shape, dtype)]
    tensors.append(_out_tensor(call, "out[1]", arrays[1], shape) if return_indices else None)
    return tensors, arrays + ([] if return_indices else [None])


def _pool_plan(call, inp, window, strides, dilations, padding, start_padding, end_padding, ceil_mode, output_size,
               return_indices, index_dtype, version=2, out=None):
    dims = len(inp.shape) - 2
    win = _spatial(call, "window", window, dims, None)
    st = _spatial(call, "strides", strides, dims, 1)
    dil = _spatial(call, "dilations", dilations, dims, 1)
    sp, ep = _pool_paddings(call, dims, padding, start_padding, end_padding)
    op_type = _pool_version(call, version, return_indices, dil)
    if output_size is None:
        size = _pool_output_size(call, inp.shape, win, st, dil, sp, ep, bool(ceil_mode))
    elif ceil_mode:
        raise invalid(call, "ceil_mode", "chooses the output extent; give it or output_size, not both")
    else:
        size = _spatial(call, "output_size", output_size, dims, None)
    shape = tuple(inp.shape[:2]) + tuple(size)
    (output, idx), given = _pool_outputs(call, shape, inp.dtype, out, return_indices, index_dtype)
    arrays = [_capi.u32_array(call, name, a) for name, a in
              (("strides", st), ("window", win), ("start_padding", sp), ("end_padding", ep), ("dilations", dil))]
    pi, po = ctypes.pointer(inp.desc), ctypes.pointer(output.desc)
    pidx = ctypes.pointer(idx.desc) if idx else None
    if op_type == _capi.OPERATOR_MAX_POOLING:
        desc = _capi.MaxPoolingDesc(pi, po, dims, *arrays[:4])
    elif op_type == _capi.OPERATOR_MAX_POOLING1:
        desc = _capi.MaxPooling1Desc(pi, po, pidx, dims, *arrays[:4])
    else:
        desc = _capi.MaxPooling2Desc(pi, po, pidx, dims, *arrays)
    # MAX_POOLING has one output; MAX_POOLING1/2 two, the indices optional.
    outputs = [output] if op_type == _capi.OPERATOR_MAX_POOLING else [output, idx]
    plan = _Plan(call, op_type, desc, arrays, inp, outputs, [tuple(a) for a in (st, win, sp, ep, dil)])
    plan.given = None if given is None else given[:len(outputs)]
    return plan


@api("max_unpool")
def max_unpool(x: npt.ArrayLike, indices: npt.ArrayLike, output_shape: Sequence[int], *,
               indices_layout: IndicesLayout = "directml", device: DeviceLike = None,
               out: Optional[np.ndarray] = None) -> np.ndarray:
    """DirectML's MAX_UNPOOLING: a 4-D (NCHW) array of output_shape and x's
    dtype holding each element of x at the position its index names,
    counted over the whole output (n, c and the spatial axes) in C order,
    and 0 elsewhere. indices has x's shape and dtype uint32 or uint64 (as
    max_pool's return_indices gives them; other dtypes raise
    InvalidArgumentError, as DirectML refuses them). An index past the
    output's end writes nothing; of several elements of x with one index,
    the last in C order wins (semantics.md rules 17-22). DirectML checks
    no size of output_shape against x's.

    indices_layout="torch" takes PyTorch's indices instead (max_pool2d's
    return_indices: int64, counted within each (n, c) plane of the
    output), converted with indices_from_torch, which refuses an index
    outside its plane. out is the array to write into and return. device
    is as in argmax; every failure raises vkdml.Error.
    """
    call = "max_unpool"
    inp = _Input(call, "x", _as_array(call, "x", x))
    shape = _capi.u32_list(call, "output_shape", output_shape)
    if indices_layout == "torch":
        indices = _flat_from_torch(call, "indices", indices, shape, _unpool_index_dtype(shape))
    elif indices_layout != "directml":
        raise invalid(call, "indices_layout", "%r is not \"directml\" (flat over the output) or \"torch\" "
                      "(PyTorch's, within each (n, c) plane)" % (indices_layout,))
    idx = _Input(call, "indices", _as_array(call, "indices", indices))
    plan = _unpool_plan(call, inp.tensor, idx.tensor, shape, out)
    return _run(device, plan, [inp, idx], None if out is None else [out])


def _unpool_index_dtype(shape):
    """The index type that can count every element of an output of shape."""
    return np.dtype(np.uint32) if math.prod(shape) <= 1 << 32 else np.dtype(np.uint64)


def _unpool_plan(call, x, indices, shape, out=None):
    """MAX_UNPOOLING of x (a tensor) by indices into an output of shape."""
    if len(x.shape) != 4:
        raise invalid(call, "x", "max_unpool takes 4-D (NCHW) arrays; got %d-D" % len(x.shape))
    if len(shape) != 4:
        raise invalid(call, "output_shape", "has %d sizes; max_unpool's output is 4-D (NCHW)" % len(shape))
    if out is None:
        output = _TensorDesc(call, "output", shape, x.dtype)
    else:
        output = _out_tensor(call, "out", out, shape, x.dtype)
    desc = _capi.MaxUnpoolingDesc(ctypes.pointer(x.desc), ctypes.pointer(indices.desc), ctypes.pointer(output.desc))
    plan = _Plan(call, _capi.OPERATOR_MAX_UNPOOLING, desc, [], x, [output], [indices.key])
    plan.more_inputs = [indices]
    return plan


# ---- Pooling indices: DirectML's and PyTorch's ----

def _planes(call, field, indices_shape, shape):
    """For pooling indices of indices_shape over an array of shape (N, C,
    spatial...): the flat index where each element's (n, c) plane starts
    (broadcastable to indices_shape) and the plane's size."""
    if len(shape) < 3:
        raise invalid(call, "input_shape", "has %d sizes; pooling indices belong to an (N, C, spatial...) array"
                      % len(shape))
    if len(indices_shape) != len(shape) or tuple(indices_shape[:2]) != tuple(shape[:2]):
        raise invalid(call, field + ".shape", "is %s; the indices of an array of shape %s have its rank and its N "
                      "and C" % (tuple(indices_shape), tuple(shape)))
    plane = math.prod(shape[2:])
    starts = np.arange(shape[0] * shape[1], dtype=np.uint64) * np.uint64(plane)
    return starts.reshape(tuple(shape[:2]) + (1,) * (len(shape) - 2)), plane


def _integer_indices(call, field, indices):
    a = _as_array(call, field, indices)
    if a.dtype.kind not in "iu":
        raise invalid(call, field + ".dtype", "%s is not an integer type" % a.dtype, ArgumentTypeError)
    return a


def _refuse_first(call, field, bad, rule):
    """Raises for the first element where bad is set; rule(position) words
    what is wrong with it."""
    pos = tuple(int(i) for i in np.argwhere(bad)[0])
    raise invalid(call, "%s[%s]" % (field, ", ".join(map(str, pos))), rule(pos))


def _flat_from_torch(call, field, indices, shape, index_dtype):
    idx = _integer_indices(call, field, indices)
    starts, plane = _planes(call, field, idx.shape, shape)
    bad = idx >= plane if idx.dtype.kind == "u" else (idx < 0) | (idx >= plane)
    if bad.any():
        _refuse_first(call, field, bad, lambda p: "%d is not in [0, %d), the positions of one (n, c) plane of %s"
                      % (idx[p], plane, tuple(shape)))
    if index_dtype not in (np.uint32, np.uint64):
        raise invalid(call, "index_dtype", "%s is not uint32 or uint64, DirectML's pooling index types" % index_dtype)
    if index_dtype == np.uint32 and math.prod(shape) > 1 << 32:
        raise invalid(call, "index_dtype", "uint32 cannot count the %d elements of %s; use uint64"
                      % (math.prod(shape), tuple(shape)))
    return (idx.astype(np.uint64) + starts).astype(index_dtype)


@api("indices_from_torch")
def indices_from_torch(indices: npt.ArrayLike, input_shape: Sequence[int], *,
                       index_dtype: npt.DTypeLike = "uint32") -> np.ndarray:
    """PyTorch's max-pooling indices (max_pool1d/2d/3d's return_indices:
    int64, counted within each (n, c) plane of the pooled input of
    input_shape) as DirectML's: counted over the whole input (n, c and the
    spatial axes), as max_pool returns them and max_unpool takes them, in
    index_dtype uint32 or uint64. indices has input_shape's rank, N and C;
    an index outside [0, plane size) raises InvalidArgumentError naming it.
    Plain numpy: no device is used."""
    call = "indices_from_torch"
    shape = _capi.u32_list(call, "input_shape", input_shape)
    return _flat_from_torch(call, "indices", indices, shape, _index_dtype(call, index_dtype))


@api("indices_to_torch")
def indices_to_torch(indices: npt.ArrayLike, input_shape: Sequence[int]) -> np.ndarray:
    """DirectML's max-pooling indices (max_pool's return_indices: flat over
    the whole input of input_shape) as PyTorch's: int64, counted within
    each (n, c) plane, as torch.nn.functional.max_unpool2d takes them. An
    index outside its own (n, c) plane has no such form and raises
    InvalidArgumentError naming it: DirectML gives an all-padding window
    index 0 (semantics.md rule 9), which lies in plane (0, 0) only. Plain
    numpy: no device is used."""
    call = "indices_to_torch"
    shape = _capi.u32_list(call, "input_shape", input_shape)
    idx = _integer_indices(call, "indices", indices)
    starts, plane = _planes(call, "indices", idx.shape, shape)
    if idx.dtype.kind == "i" and (idx < 0).any():
        _refuse_first(call, "indices", idx < 0, lambda p: "%d is negative" % idx[p])
    flat = idx.astype(np.uint64)
    bad = (flat < starts) | (flat - np.minimum(flat, starts) >= plane)
    if bad.any():
        _refuse_first(call, "indices", bad, lambda p: "%d is not in the input's (n=%d, c=%d) plane, flat indices %d "
                      "to %d, so it has no per-plane form (an all-padding window's index is 0, semantics.md "
                      "rule 9)" % (flat[p], p[0], p[1], starts[p[0], p[1]].item(), starts[p[0], p[1]].item() + plane - 1))
    return (flat - starts).astype(np.int64)


@api("top_k")
def top_k(x: npt.ArrayLike, k: int, axis: int = -1, largest: bool = True, *, index_dtype: npt.DTypeLike = "uint32",
          device: DeviceLike = None, out: Optional[Tuple[np.ndarray, np.ndarray]] = None) -> Tuple[np.ndarray, np.ndarray]:
    """DirectML's TOP_K1, shaped like torch.topk: (values, indices), the k
    largest elements along axis (largest=True, sorted descending) or the k
    smallest (largest=False, sorted ascending), and their positions along
    axis. Both keep x's rank with k along axis. Equal values come in index
    order, the lower index first, in both directions (-0 and +0 are equal,
    each keeping its bits); NaN comes after every number either way, so it
    is selected only when k exceeds the count of numbers, the
    lowest-indexed NaNs first (semantics.md rules 31-37; torch leaves ties
    and NaN unspecified). k runs from 1 to the axis length. index_dtype is
    uint32 or uint64 (DirectML refuses signed indices). out is a pair of
    arrays (values of x's dtype, indices) to write into and return, as in
    argmax. device is as in argmax; every failure raises vkdml.Error.
    """
    call = "top_k"
    inp = _Input(call, "x", _as_array(call, "x", x))
    ndim = len(inp.tensor.shape)
    if isinstance(largest, (bool, np.bool_)):
        largest = bool(largest)
    else:
        raise invalid(call, "largest", "is a %s, not a bool" % type(largest).__name__, ArgumentTypeError)
    ax = _normalize_axes(call, axis, ndim)[0] if ndim > 0 else None
    if ax is None:
        raise invalid(call, "x", "is 0-D; top_k selects along an axis")
    kk = _capi.integer(call, "k", k)
    n = inp.tensor.shape[ax]
    if not 1 <= kk <= n:
        raise invalid(call, "k", "%d is not in [1, %d], the length of axis %d" % (kk, n, ax))
    shape = tuple(kk if i == ax else s for i, s in enumerate(inp.tensor.shape))
    if out is None:
        values = _TensorDesc(call, "values", shape, inp.tensor.dtype)
        indices = _TensorDesc(call, "indices", shape, _index_dtype(call, index_dtype))
    else:
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise invalid(call, "out", "is a %s; give a pair (values, indices)" % type(out).__name__, ArgumentTypeError)
        values = _out_tensor(call, "out[0]", out[0], shape, inp.tensor.dtype)
        indices = _out_tensor(call, "out[1]", out[1], shape)
    direction = "decreasing" if largest else "increasing"
    desc = _capi.TopK1Desc(ctypes.pointer(inp.tensor.desc), ctypes.pointer(values.desc), ctypes.pointer(indices.desc),
                           ax, kk, _DIRECTIONS[direction])
    plan = _Plan(call, _capi.OPERATOR_TOP_K1, desc, [], inp.tensor, [values, indices], [ax, kk, direction])
    return _run(device, plan, inp, None if out is None else list(out))


# ---- Prepared operators ----

class Operator:
    """A prepared operator: validated, compiled and initialized once for
    one input shape and dtype, then called on many arrays of that shape and
    dtype without recompiling (other layouts are copied to C order). Make
    one with a prepare_* function (one per operator function); close it,
    use it as a context manager, or close its device. Calls from several
    threads take turns."""

    def __init__(self, plan: _Plan, device: DeviceLike) -> None:
        """Use a prepare_* function."""
        self._plan = plan
        self._shape, self._dtype = plan.caller_shape, plan.inp.dtype
        self._device = _resolve_device(plan.call, device)
        self._state = self._device._state
        self._handle = self._device._create_operator(plan.call, plan)
        self._finalizer = weakref.finalize(self, _collect_operator, self._state, self._handle)

    @property
    def closed(self) -> bool:
        """True once close() ran or its device was closed."""
        return self._handle not in self._state.operators

    @api("Operator")
    def __call__(self, x: npt.ArrayLike, indices: Optional[npt.ArrayLike] = None) -> Result:
        """Runs the operator on x (and, for a prepared max_unpool, indices);
        returns what the one-shot function would."""
        call = "Operator(%s)" % self._plan.call
        if self.closed:
            raise invalid(call, "op", "is closed (by close() or by closing its device)")
        inputs = [_prepared_input(call, "x", x, self._shape, self._plan.inp)]
        if self._plan.more_inputs:
            if indices is None:
                raise invalid(call, "indices", "is required: the operator unpools x by them")
            inputs.append(_prepared_input(call, "indices", indices, self._plan.more_inputs[0].shape,
                                          self._plan.more_inputs[0]))
        elif indices is not None:
            raise invalid(call, "indices", "is for a prepared max_unpool; this operator takes x only")
        outs = self._plan.allocate()
        ins, obufs = _buffers(inputs), _buffers(outs)
        _check(_lib.vkdml_operator_run(self._handle, ins, len(inputs), obufs, len(outs)))
        return _results(outs, self._plan.squeeze)

    def close(self) -> None:
        """Releases the operator; idempotent."""
        self._finalizer.detach()
        _check(_release_operator(self._state, self._handle))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _prepared_input(call, field, x, shape, tensor):
    """An input of a prepared operator, checked to have the shape and dtype
    it was prepared for, packed and shaped as its desc says."""
    x = _as_array(call, field, x)
    if x.shape != tuple(shape) or x.dtype.newbyteorder("=") != tensor.dtype:
        raise invalid(call, field, "shape %s dtype %s; the operator was prepared for shape %s dtype %s"
                      % (x.shape, x.dtype, tuple(shape), tensor.dtype))
    return np.ascontiguousarray(x, tensor.dtype).reshape(tensor.shape)


def _template(call, shape, dtype):
    """The packed tensor a prepared operator's inputs have."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise invalid(call, "dtype", "%r is not a numpy dtype" % (dtype,), ArgumentTypeError) from None
    shape = _capi.u32_list(call, "shape", shape)
    return _TensorDesc(call, "x", shape, _data_type(call, "dtype", dt))


def _prepare_arg(call, op_type, shape, dtype, axes, direction, index_dtype, device, keepdims=True):
    inp = _template(call, shape, dtype)
    ax = _normalize_axes(call, axes, len(inp.shape))
    plan = _arg_plan(call, op_type, inp, ax, direction, index_dtype)
    plan.squeeze = () if _keepdims(call, keepdims) else tuple(sorted(set(ax)))
    return Operator(plan, device)


@api("prepare_argmax")
def prepare_argmax(shape: Sequence[int], dtype: npt.DTypeLike, axes: Optional[Axes] = None, *,
                   direction: Direction = "increasing", index_dtype: npt.DTypeLike = "uint32",
                   keepdims: bool = True, device: DeviceLike = None) -> Operator:
    """argmax prepared for arrays of shape and dtype: an Operator."""
    return _prepare_arg("prepare_argmax", _capi.OPERATOR_ARGMAX, shape, dtype, axes, direction, index_dtype, device,
                        keepdims)


@api("prepare_argmin")
def prepare_argmin(shape: Sequence[int], dtype: npt.DTypeLike, axes: Optional[Axes] = None, *,
                   direction: Direction = "increasing", index_dtype: npt.DTypeLike = "uint32",
                   keepdims: bool = True, device: DeviceLike = None) -> Operator:
    """argmin prepared for arrays of shape and dtype: an Operator."""
    return _prepare_arg("prepare_argmin", _capi.OPERATOR_ARGMIN, shape, dtype, axes, direction, index_dtype, device,
                        keepdims)


@api("prepare_reduce")
def prepare_reduce(shape: Sequence[int], dtype: npt.DTypeLike, function: ReduceFunction,
                   axes: Optional[Axes] = None, *, index_dtype: Optional[npt.DTypeLike] = None,
                   keepdims: bool = True, device: DeviceLike = None) -> Operator:
    """reduce prepared for arrays of shape and dtype: an Operator. Its
    function and axes come in either order, as reduce's."""
    function, axes = _reduce_order(function, axes)
    return _prepare_arg("prepare_reduce", _capi.OPERATOR_REDUCE, shape, dtype, axes, function, index_dtype, device,
                        keepdims)


@api("prepare_max_pool")
def prepare_max_pool(shape: Sequence[int], dtype: npt.DTypeLike, window: Spatial, *,
                     strides: Optional[Spatial] = None, dilations: Optional[Spatial] = None,
                     padding: Optional[Spatial] = None, start_padding: Optional[Spatial] = None,
                     end_padding: Optional[Spatial] = None, ceil_mode: bool = False,
                     output_size: Optional[Spatial] = None, return_indices: bool = False,
                     index_dtype: npt.DTypeLike = "uint32", version: PoolVersion = 2,
                     device: DeviceLike = None) -> Operator:
    """max_pool prepared for arrays of shape and dtype (3-D for 1-D
    pooling, 4-D or 5-D): an Operator."""
    call = "prepare_max_pool"
    inp = _template(call, shape, dtype)
    caller_shape = inp.shape
    _check_pool_input(call, "shape", caller_shape)
    window, strides, dilations, padding, start_padding, end_padding, output_size = _lift_1d(
        call, len(caller_shape), (window, strides, dilations, padding, start_padding, end_padding, output_size))
    if len(caller_shape) == 3:
        inp = _template(call, caller_shape[:2] + (1,) + caller_shape[2:], dtype)
    plan = _pool_plan(call, inp, window, strides, dilations, padding, start_padding, end_padding, ceil_mode,
                      output_size, return_indices, index_dtype, version)
    if len(caller_shape) == 3:
        plan.squeeze, plan.caller_shape = (2,), caller_shape
    return Operator(plan, device)


@api("prepare_max_unpool")
def prepare_max_unpool(shape: Sequence[int], dtype: npt.DTypeLike, output_shape: Sequence[int], *,
                       index_dtype: npt.DTypeLike = "uint32", device: DeviceLike = None) -> Operator:
    """max_unpool prepared for x of shape and dtype and indices of shape and
    index_dtype (DirectML's flat indices; indices_from_torch converts
    PyTorch's): an Operator, called as op(x, indices)."""
    call = "prepare_max_unpool"
    x = _template(call, shape, dtype)
    indices = _TensorDesc(call, "indices", x.shape, _index_dtype(call, index_dtype))
    plan = _unpool_plan(call, x, indices, _capi.u32_list(call, "output_shape", output_shape))
    return Operator(plan, device)
