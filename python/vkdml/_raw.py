"""vkdml.run: DirectML descs as plain data, run on raw buffers, so that a
backend's recorded DirectML calls can be replayed exactly; and
vkdml.devices.

A desc is a dict holding "type" (the DML_OPERATOR_TYPE without its prefix:
"ARGMAX", "ARGMIN", "REDUCE", "MAX_POOLING", "MAX_POOLING1",
"MAX_POOLING2") and the desc's fields under DirectML's names
(DML_ARGMAX_OPERATOR_DESC's InputTensor, OutputTensor, AxisCount, Axes,
AxisDirection, ...). A tensor is a dict of DML_BUFFER_TENSOR_DESC's fields
(DataType, Flags, DimensionCount, Sizes, Strides, TotalTensorSizeInBytes,
GuaranteedBaseOffsetAlignment). Enumerations are their names without the
prefix ("FLOAT32", "DECREASING", "ARGMIN") or their numbers. The Go
desc's JSON names (Input, Output, OutputIndices, as vkdml's parity corpus
and golden cases write them) are accepted too. Counts (AxisCount,
DimensionCount) may be left out and are then the arrays' lengths.
"""

from __future__ import annotations

import ctypes
import json
import re
from typing import Any, Dict, List, Mapping, Sequence

import numpy as np

from . import _api, _capi
from ._errors import ArgumentTypeError, api, invalid

_OPERATORS = {"ARGMAX": _capi.OPERATOR_ARGMAX, "ARGMIN": _capi.OPERATOR_ARGMIN, "REDUCE": _capi.OPERATOR_REDUCE,
              "MAX_POOLING": _capi.OPERATOR_MAX_POOLING, "MAX_POOLING1": _capi.OPERATOR_MAX_POOLING1,
              "MAX_POOLING2": _capi.OPERATOR_MAX_POOLING2}
_DATA_TYPES = {"UNKNOWN": 0, "FLOAT32": 1, "FLOAT16": 2, "UINT32": 3, "UINT16": 4, "UINT8": 5, "INT32": 6,
               "INT16": 7, "INT8": 8, "FLOAT64": 9, "UINT64": 10, "INT64": 11}
_DIRECTIONS = {"INCREASING": 0, "DECREASING": 1}
_FUNCTIONS = {"ARGMAX": 0, "ARGMIN": 1}
# The Go desc's JSON names, and DirectML's.
_ALIASES = {"Input": "InputTensor", "Output": "OutputTensor", "OutputIndices": "OutputIndicesTensor"}


class _Reader:
    """Reads one desc's fields, naming each in errors as desc.Field."""

    def __init__(self, fields: Mapping[str, Any], where: str):
        if not isinstance(fields, Mapping):
            raise invalid("run", where, "is a %s, not a dict of fields" % type(fields).__name__, ArgumentTypeError)
        self.fields = {_ALIASES.get(k, k): v for k, v in fields.items()}
        self.where = where
        self.keep: List[Any] = []  # the ctypes objects the desc points to

    def field(self, name):
        return "%s.%s" % (self.where, name)

    def enum(self, name, names, default=None):
        v = self.fields.get(name, default)
        if v is None:
            raise invalid("run", self.field(name), "is required")
        if isinstance(v, str):
            if v.upper() not in names:
                raise invalid("run", self.field(name), "%r is not one of %s" % (v, ", ".join(names)))
            return names[v.upper()]
        return _capi.u32("run", self.field(name), v)

    def u32(self, name, default=None):
        v = self.fields.get(name, default)
        if v is None:
            raise invalid("run", self.field(name), "is required")
        return _capi.u32("run", self.field(name), v)

    def array(self, name, count=None, required=True):
        """A uint32 array field, checked against count when one is given."""
        v = self.fields.get(name)
        if v is None:
            if required:
                raise invalid("run", self.field(name), "is required")
            return None, 0
        values = _capi.u32_list("run", self.field(name), v)
        if count is not None and count != len(values):
            raise invalid("run", self.field(name), "has %d entries; the count says %d" % (len(values), count))
        arr = _capi.u32_array("run", self.field(name), values)
        self.keep.append(arr)
        return arr, len(values)

    def tensor(self, name, required=True):
        v = self.fields.get(name)
        if v is None:
            if required:
                raise invalid("run", self.field(name), "is required")
            return None
        t = _Reader(v, self.field(name))
        desc = _capi.TensorDesc()
        desc.data_type = t.enum("DataType", _DATA_TYPES)
        desc.flags = t.u32("Flags", 0)
        count = t.fields.get("DimensionCount")
        desc.sizes, n = t.array("Sizes", None if count is None else t.u32("DimensionCount"))
        desc.dimension_count = n
        desc.strides, _ = t.array("Strides", n, required=False)
        desc.total_tensor_size_in_bytes = _capi.u64("run", t.field("TotalTensorSizeInBytes"),
                                                    t.fields.get("TotalTensorSizeInBytes") or 0)
        desc.guaranteed_base_offset_alignment = t.u32("GuaranteedBaseOffsetAlignment", 0)
        self.keep.extend(t.keep + [desc])
        return ctypes.pointer(desc)


def _reduction(r, op_type):
    inp, out = r.tensor("InputTensor"), r.tensor("OutputTensor")
    count = r.fields.get("AxisCount")
    axes, n = r.array("Axes", None if count is None else r.u32("AxisCount"), required=count not in (None, 0))
    if op_type == _capi.OPERATOR_REDUCE:
        return _capi.ReduceDesc(r.enum("ReduceFunction", _FUNCTIONS, r.fields.get("Function")), inp, out, n, axes)
    return _capi.ArgMaxDesc(inp, out, n, axes, r.enum("AxisDirection", _DIRECTIONS, "INCREASING"))


def _pooling(r, op_type):
    inp, out = r.tensor("InputTensor"), r.tensor("OutputTensor")
    count = r.fields.get("DimensionCount")
    n = None if count is None else r.u32("DimensionCount")
    names = ["Strides", "WindowSize", "StartPadding", "EndPadding"]
    if op_type == _capi.OPERATOR_MAX_POOLING2:
        names.append("Dilations")
    arrays = []
    for name in names:
        arr, got = r.array(name, n)
        n = got if n is None else n
        arrays.append(arr)
    if op_type == _capi.OPERATOR_MAX_POOLING:
        return _capi.MaxPoolingDesc(inp, out, n, *arrays)
    idx = r.tensor("OutputIndicesTensor", required=False)
    cls = _capi.MaxPooling1Desc if op_type == _capi.OPERATOR_MAX_POOLING1 else _capi.MaxPooling2Desc
    return cls(inp, out, idx, n, *arrays)


def _operator_desc(desc):
    if not isinstance(desc, Mapping):
        raise invalid("run", "desc", "is a %s, not a dict" % type(desc).__name__, ArgumentTypeError)
    kind = desc.get("type", desc.get("Type"))
    if not isinstance(kind, str) or kind.upper() not in _OPERATORS:
        raise invalid("run", "desc.type", "%r is not one of %s" % (kind, ", ".join(_OPERATORS)))
    op_type = _OPERATORS[kind.upper()]
    r = _Reader({k: v for k, v in desc.items() if k not in ("type", "Type")}, "desc")
    if op_type in (_capi.OPERATOR_ARGMAX, _capi.OPERATOR_ARGMIN, _capi.OPERATOR_REDUCE):
        c = _reduction(r, op_type)
    else:
        c = _pooling(r, op_type)
    return op_type, c, r.keep


def _host_buffer(field, buf, writable):
    """buf (a numpy array or any contiguous buffer) as a uint8 array over
    the same memory; None stays None (an absent tensor)."""
    if buf is None:
        return None
    try:
        view = memoryview(buf)
    except TypeError:
        raise invalid("run", field, "is a %s, not a buffer (numpy array, bytes, bytearray, memoryview)"
                      % type(buf).__name__, ArgumentTypeError) from None
    if not view.contiguous:
        raise invalid("run", field, "is not contiguous: a raw buffer is the tensor's memory as its desc lays it out")
    if writable and view.readonly:
        raise invalid("run", field, "is read-only; outputs are written in place")
    return np.frombuffer(view.cast("B") if view.ndim != 1 or view.format != "B" else view, np.uint8)


@api("run")
def run(desc: Mapping[str, Any], inputs: Sequence[Any], outputs: Sequence[Any], *,
        device: _api.DeviceLike = None) -> None:
    """Runs a DirectML desc given as plain data (see the module's notes) on
    raw host buffers, in the desc's order: inputs are read, outputs
    (writable buffers; None for an absent optional output) are written in
    place, only where their elements lie (bytes the strides skip keep their
    values). The desc is validated with every DirectML rule first, with
    errors naming desc fields as DirectML does. The compiled operator is
    cached per device, as the one-shot functions' are."""
    op_type, c, keep = _operator_desc(desc)
    ins = [_host_buffer("inputs[%d]" % i, b, False) for i, b in enumerate(inputs)]
    outs = [_host_buffer("outputs[%d]" % i, b, True) for i, b in enumerate(outputs)]
    dev = _api._resolve_device("run", device)
    od = _capi.OperatorDesc(op_type, ctypes.cast(ctypes.pointer(c), ctypes.c_void_p))
    in_bufs = (_capi.Buffer * max(len(ins), 1))(*[_raw_buffer(a) for a in ins])
    out_bufs = (_capi.Buffer * max(len(outs), 1))(*[_raw_buffer(a) for a in outs])
    _api._check(_api._lib.vkdml_run(dev.handle, ctypes.byref(od), in_bufs, len(ins), out_bufs, len(outs)))
    del keep


def _raw_buffer(a):
    return _capi.Buffer() if a is None else _capi.Buffer(a.ctypes.data, a.nbytes)


def _snake(name):
    """camelCase (with acronyms: vendorID, deviceUUID) as snake_case
    (vendor_id, device_uuid), the rule `vkdml devices --json` follows."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def _snake_keys(v):
    if isinstance(v, dict):
        return {_snake(k): _snake_keys(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_snake_keys(x) for x in v]
    return v


@api("devices")
def devices() -> List[Dict[str, Any]]:
    """The Vulkan devices: one dict each, with "index", "name", "type",
    "default" (the device device=None opens), "usable" and, when not,
    "unusable_because", then IDs, driver, features, limits and subgroup
    properties under snake_case names, as `vkdml devices --json` prints
    them. An index or a name substring from here is a device= argument."""
    length = ctypes.c_size_t(0)
    _api._check(_api._lib.vkdml_devices_json(None, 0, ctypes.byref(length)))
    buf = ctypes.create_string_buffer(length.value + 1)
    _api._check(_api._lib.vkdml_devices_json(buf, len(buf), None))
    return _snake_keys(json.loads(buf.value.decode("utf-8", "replace")))


