"""vkdml's numpy API: DirectML's ARGMAX, ARGMIN and MAX_POOLING2 with
DirectML's exact semantics, computed by libvkdml on a Vulkan device."""

import ctypes
import threading

import numpy as np

from . import _capi

_lib = _capi.load()

# numpy dtype -> DML_TENSOR_DATA_TYPE. float64 is DirectML's FLOAT64, which
# no vkdml operator accepts: the library refuses it with DirectML's code.
_DATA_TYPES = {
    np.dtype(np.float32): 1, np.dtype(np.float16): 2,
    np.dtype(np.uint32): 3, np.dtype(np.uint16): 4, np.dtype(np.uint8): 5,
    np.dtype(np.int32): 6, np.dtype(np.int16): 7, np.dtype(np.int8): 8,
    np.dtype(np.float64): 9,
    np.dtype(np.uint64): 10, np.dtype(np.int64): 11,
}

_DIRECTIONS = {"increasing": 0, "decreasing": 1}


class Error(Exception):
    """A failure with DirectML's HRESULT (as an unsigned int, e.g.
    0x80070057 for E_INVALIDARG) and a message naming the field and the
    rule it broke."""

    def __init__(self, hresult, message):
        super().__init__(message)
        self.hresult = hresult & 0xFFFFFFFF
        self.message = message

    @property
    def name(self):
        """The HRESULT's symbolic name, e.g. "E_INVALIDARG"."""
        return _capi.HRESULT_NAMES.get(self.hresult, "0x%08X" % self.hresult)


def _invalid(call, field, rule):
    return Error(_capi.E_INVALIDARG, "%s: %s: %s [E_INVALIDARG]" % (call, field, rule))


def _check(hr):
    """Raises the calling thread's last libvkdml error when hr failed."""
    if hr < 0:
        msg = _lib.vkdml_last_error().decode("utf-8", "replace")
        raise Error(hr, msg)


class Device:
    """A Vulkan device (DirectML's IDMLDevice).

    name picks the device by index ("0") or a substring of its name
    ("llvmpipe"); None picks $VKDML_DEVICE, then a discrete, integrated,
    virtual or CPU device. debug turns on the Khronos validation layer,
    whose messages become errors. min_feature_level is DMLCreateDevice1's
    minimum level (e.g. 0x5000). A device is safe to use from several
    threads at once. Use it as a context manager, or call close().
    """

    def __init__(self, name=None, debug=False, min_feature_level=0):
        opts = _capi.DeviceOptions()
        opts.flags = _capi.CREATE_DEVICE_FLAG_DEBUG if debug else 0
        opts.minimum_feature_level = int(min_feature_level)
        opts.device = None if name is None else str(name).encode()
        handle = ctypes.c_uint64(0)
        _check(_lib.vkdml_device_create(ctypes.byref(opts), ctypes.byref(handle)))
        self._handle = handle.value

    @property
    def handle(self):
        """The libvkdml device handle; raises Error once closed."""
        if not self._handle:
            raise _invalid("Device", "device", "is closed")
        return self._handle

    @property
    def name(self):
        """The Vulkan device's name, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"."""
        buf = ctypes.create_string_buffer(512)
        length = ctypes.c_size_t(0)
        _check(_lib.vkdml_device_name(self.handle, buf, len(buf), ctypes.byref(length)))
        return buf.value.decode("utf-8", "replace")

    @property
    def feature_level(self):
        """The highest DML_FEATURE_LEVEL the device supports, e.g. 0x6400."""
        levels = _capi.u32_array([0x1000, 0x2000, 0x2100, 0x3000, 0x3100, 0x4000, 0x4100, 0x5000,
                                  0x5100, 0x5200, 0x6000, 0x6100, 0x6200, 0x6300, 0x6400])
        best = ctypes.c_uint32(0)
        _check(_lib.vkdml_device_feature_levels(self.handle, levels, len(levels), ctypes.byref(best)))
        return best.value

    def close(self):
        """Releases the device; later use raises Error. Idempotent."""
        if self._handle:
            _check(_lib.vkdml_device_destroy(self._handle))
            self._handle = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return "vkdml.Device(%r)" % (self.name if self._handle else "closed")


_default = None
_default_lock = threading.Lock()


def default_device():
    """The device used when device=None, opened on first use."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Device()
        return _default


class _Tensor:
    """A numpy array described as a DML_BUFFER_TENSOR_DESC plus a host
    buffer. Strided arrays keep their memory: numpy's byte strides become
    DirectML's element strides when they are non-negative multiples of the
    item size; anything else is copied first."""

    def __init__(self, call, field, array):
        if array.dtype not in _DATA_TYPES:
            if array.dtype.newbyteorder("=") in _DATA_TYPES and array.dtype.byteorder != "|":
                array = array.astype(array.dtype.newbyteorder("="))
            else:
                raise _invalid(call, field + ".dtype", "%s is not a DirectML tensor data type (use one of %s)"
                               % (array.dtype, ", ".join(sorted(str(d) for d in _DATA_TYPES if d != np.float64))))
        strides = self._element_strides(array)
        if strides is None:
            array = np.ascontiguousarray(array)
            strides = self._element_strides(array)
        self.array = array  # keeps the memory alive for the call
        self.sizes = _capi.u32_array(array.shape)
        packed = array.flags.c_contiguous
        self.strides = None if packed else _capi.u32_array(strides)
        desc = _capi.TensorDesc()
        desc.data_type = _DATA_TYPES[array.dtype]
        desc.dimension_count = array.ndim
        desc.sizes = self.sizes
        desc.strides = self.strides
        self.desc = desc
        last = sum((n - 1) * s for n, s in zip(array.shape, strides)) if array.size else -1
        self.buffer = _capi.Buffer(array.ctypes.data, (last + 1) * array.itemsize)

    @staticmethod
    def _element_strides(array):
        """DirectML strides for array's memory, or None when not expressible."""
        out = []
        for n, s in zip(array.shape, array.strides):
            if n == 1:
                out.append(0)
            elif s < 0 or s % array.itemsize or s // array.itemsize > 0xFFFFFFFF:
                return None
            else:
                out.append(s // array.itemsize)
        return out


def _buffers(tensors):
    return (_capi.Buffer * len(tensors))(*[t.buffer if t is not None else _capi.Buffer() for t in tensors])


def _operator_desc(plan):
    return _capi.OperatorDesc(plan.op_type, ctypes.cast(ctypes.pointer(plan.desc), ctypes.c_void_p))


def _run(device, plan):
    """Creates, runs and releases one operator; the GIL is released while
    libvkdml works."""
    dev = default_device() if device is None else device
    od = _operator_desc(plan)
    ins, outs = _buffers([plan.inp]), _buffers(plan.outputs)
    _check(_lib.vkdml_run(dev.handle, ctypes.byref(od), ins, len(ins), outs, len(outs)))


def _index_dtype(call, index_dtype):
    try:
        dt = np.dtype(index_dtype)
    except TypeError:
        raise _invalid(call, "index_dtype", "%r is not a numpy dtype" % (index_dtype,)) from None
    if dt not in _DATA_TYPES:
        raise _invalid(call, "index_dtype", "%s is not a DirectML tensor data type" % dt)
    return dt


def _normalize_axes(call, axes, ndim):
    if isinstance(axes, (int, np.integer)):
        axes = [axes]
    out = []
    for i, a in enumerate(axes):
        if not isinstance(a, (int, np.integer)):
            raise _invalid(call, "axes[%d]" % i, "%r is not an integer" % (a,))
        a = int(a)
        if not -ndim <= a < ndim:
            raise _invalid(call, "axes[%d]" % i, "axis %d is out of range for a %d-D array (must be in [%d, %d])"
                           % (a, ndim, -ndim, ndim - 1))
        out.append(a % ndim)
    return out


class _Plan:
    """An operator desc over numpy arrays: the C desc (whose pointers the
    plan keeps alive), the input and the freshly allocated outputs."""

    def __init__(self, op_type, desc, keep, inp, outputs):
        self.op_type, self.desc, self.keep = op_type, desc, keep
        self.inp, self.outputs = inp, outputs

    def results(self):
        arrays = [t.array for t in self.outputs if t is not None]
        return arrays[0] if len(arrays) == 1 else tuple(arrays)


def _arg_plan(call, op_type, x, axes, direction, index_dtype):
    x = np.asarray(x)
    ax = _normalize_axes(call, axes, x.ndim)
    if direction not in _DIRECTIONS:
        raise _invalid(call, "direction", "%r is not \"increasing\" or \"decreasing\"" % (direction,))
    idt = _index_dtype(call, index_dtype)
    inp = _Tensor(call, "x", x)
    shape = tuple(1 if i in ax else n for i, n in enumerate(x.shape))
    out = _Tensor(call, "output", np.empty(shape, idt))
    axes_arr = _capi.u32_array(ax)
    desc = _capi.ArgMaxDesc(ctypes.pointer(inp.desc), ctypes.pointer(out.desc), len(ax), axes_arr,
                            _DIRECTIONS[direction])
    return _Plan(op_type, desc, [axes_arr], inp, [out])


def _arg(call, op_type, x, axes, direction, index_dtype, device):
    plan = _arg_plan(call, op_type, x, axes, direction, index_dtype)
    _run(device, plan)
    return plan.results()


def argmax(x, axes, *, direction="increasing", index_dtype="uint32", device=None):
    """DirectML's ARGMAX: the index of the largest element of each block of
    x over axes (an int or a sequence; negative axes count from the end),
    counted from the block's start in row-major order over the reduced
    axes. The result keeps x's rank, reduced axes of size 1.

    direction "increasing" returns the first of tied maxima, "decreasing"
    the last. NaN follows DirectML (semantics.md rule 5): a NaN is returned
    only in a block's first position, so argmax([1, nan, 3]) is 2 where
    numpy says 1. index_dtype is uint32, int32, uint64 or int64.
    """
    return _arg("argmax", _capi.OPERATOR_ARGMAX, x, axes, direction, index_dtype, device)


def argmin(x, axes, *, direction="increasing", index_dtype="uint32", device=None):
    """DirectML's ARGMIN: argmax's twin for the smallest element."""
    return _arg("argmin", _capi.OPERATOR_ARGMIN, x, axes, direction, index_dtype, device)


def _spatial(call, field, value, dims, default):
    if value is None:
        return [default] * dims
    if isinstance(value, (int, np.integer)):
        return [int(value)] * dims
    value = [int(v) for v in value]
    if len(value) != dims:
        raise _invalid(call, field, "has %d entries; a %d-D input has %d spatial axes" % (len(value), dims + 2, dims))
    for i, v in enumerate(value):
        if not 0 <= v <= 0xFFFFFFFF:
            raise _invalid(call, "%s[%d]" % (field, i), "%d is not a 32-bit unsigned value" % v)
    return value


def _pool_output_size(call, x, window, strides, dilations, start, end):
    out = []
    for i in range(len(window)):
        padded = x.shape[i + 2] + start[i] + end[i]
        k = 1 + (window[i] - 1) * dilations[i]
        if window[i] < 1 or strides[i] < 1 or dilations[i] < 1:
            out.append(1)  # the library names the zero field
        elif k > padded:
            raise _invalid(call, "window[%d]" % i, "the dilated window (%d) is larger than the padded input (%d)"
                           % (k, padded))
        else:
            out.append((padded - k) // strides[i] + 1)
    return out


def max_pool(x, window, *, strides=None, dilations=None, start_padding=None, end_padding=None,
             output_size=None, return_indices=False, index_dtype="uint32", device=None):
    """DirectML's MAX_POOLING2 on a 4-D (NCHW) or 5-D (NCDHW) array.

    window, strides (default 1), dilations (default 1), start_padding and
    end_padding (default 0) are an int or one value per spatial axis.
    output_size is the spatial output extent; None is DirectML's floor
    formula. With return_indices, returns (y, indices): indices are flat over
    the whole input (n, c and the spatial axes), as DirectML writes them, in
    index_dtype uint32 or uint64. Values follow semantics.md rule 9: NaN
    and -inf are never selected; an all-padding window gives the type's
    lowest finite value and index 0.
    """
    plan = _pool_plan(x, window, strides, dilations, start_padding, end_padding, output_size,
                      return_indices, index_dtype)
    _run(device, plan)
    return plan.results()


def _pool_plan(x, window, strides, dilations, start_padding, end_padding, output_size,
               return_indices, index_dtype):
    call = "max_pool"
    x = np.asarray(x)
    if x.ndim not in (4, 5):
        raise _invalid(call, "x", "max_pool takes 4-D (NCHW) or 5-D (NCDHW) arrays; got %d-D" % x.ndim)
    dims = x.ndim - 2
    win = _spatial(call, "window", window, dims, None)
    st = _spatial(call, "strides", strides, dims, 1)
    dil = _spatial(call, "dilations", dilations, dims, 1)
    sp = _spatial(call, "start_padding", start_padding, dims, 0)
    ep = _spatial(call, "end_padding", end_padding, dims, 0)
    if output_size is None:
        size = _pool_output_size(call, x, win, st, dil, sp, ep)
    else:
        size = _spatial(call, "output_size", output_size, dims, None)
    idt = _index_dtype(call, index_dtype)
    inp = _Tensor(call, "x", x)
    shape = tuple(x.shape[:2]) + tuple(size)
    out = _Tensor(call, "output", np.empty(shape, inp.array.dtype))
    idx = _Tensor(call, "indices", np.empty(shape, idt)) if return_indices else None
    arrays = [_capi.u32_array(a) for a in (st, win, sp, ep, dil)]
    desc = _capi.MaxPooling2Desc(ctypes.pointer(inp.desc), ctypes.pointer(out.desc),
                                 ctypes.pointer(idx.desc) if idx else None, dims, *arrays)
    return _Plan(_capi.OPERATOR_MAX_POOLING2, desc, arrays, inp, [out, idx])


class Operator:
    """A prepared operator: validated, compiled and initialized once for
    one input shape and dtype, then called on many C-ordered arrays of that
    shape and dtype without recompiling (other layouts are copied to C
    order). Make one with prepare_argmax, prepare_argmin or
    prepare_max_pool; close it (or use it as a context manager) before
    closing its device. Calls from several threads take turns."""

    def __init__(self, plan, device):
        self._plan = plan
        self._shape = plan.inp.array.shape
        self._dtype = plan.inp.array.dtype
        self._device = default_device() if device is None else device
        handle = ctypes.c_uint64(0)
        od = _operator_desc(plan)
        _check(_lib.vkdml_operator_create(self._device.handle, ctypes.byref(od), ctypes.byref(handle)))
        self._handle = handle.value

    def __call__(self, x):
        """Runs the operator on x; returns what the one-shot function would."""
        if not self._handle:
            raise _invalid("Operator", "op", "is closed")
        x = np.asarray(x)
        if x.shape != self._shape or x.dtype.newbyteorder("=") != self._dtype:
            raise _invalid("Operator", "x", "shape %s dtype %s; the operator was prepared for shape %s dtype %s"
                           % (x.shape, x.dtype, self._shape, self._dtype))
        inp = _Tensor("Operator", "x", np.ascontiguousarray(x, self._dtype))
        outputs = [None if t is None else _Tensor("Operator", "output", np.empty_like(t.array))
                   for t in self._plan.outputs]
        ins, outs = _buffers([inp]), _buffers(outputs)
        _check(_lib.vkdml_operator_run(self._handle, ins, len(ins), outs, len(outs)))
        arrays = [t.array for t in outputs if t is not None]
        return arrays[0] if len(arrays) == 1 else tuple(arrays)

    def close(self):
        """Releases the operator; idempotent."""
        if self._handle:
            _check(_lib.vkdml_operator_destroy(self._handle))
            self._handle = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _template(shape, dtype):
    """A C-ordered array standing for the inputs a prepared operator takes."""
    return np.empty(tuple(int(n) for n in shape), np.dtype(dtype))


def prepare_argmax(shape, dtype, axes, *, direction="increasing", index_dtype="uint32", device=None):
    """argmax prepared for arrays of shape and dtype: an Operator."""
    plan = _arg_plan("prepare_argmax", _capi.OPERATOR_ARGMAX, _template(shape, dtype), axes, direction,
                     index_dtype)
    return Operator(plan, device)


def prepare_argmin(shape, dtype, axes, *, direction="increasing", index_dtype="uint32", device=None):
    """argmin prepared for arrays of shape and dtype: an Operator."""
    plan = _arg_plan("prepare_argmin", _capi.OPERATOR_ARGMIN, _template(shape, dtype), axes, direction,
                     index_dtype)
    return Operator(plan, device)


def prepare_max_pool(shape, dtype, window, *, strides=None, dilations=None, start_padding=None,
                     end_padding=None, output_size=None, return_indices=False, index_dtype="uint32",
                     device=None):
    """max_pool prepared for arrays of shape and dtype: an Operator."""
    plan = _pool_plan(_template(shape, dtype), window, strides, dilations, start_padding, end_padding,
                      output_size, return_indices, index_dtype)
    return Operator(plan, device)
