"""vkdml.run: DirectML descs as plain data, run on raw buffers, so that a
backend's recorded DirectML calls can be replayed exactly; and
vkdml.devices.

A desc is a dict naming its operator under "type" (or "Type", or the
parity corpus's "operator": a DML_OPERATOR_TYPE, with or without its
prefix: "ARGMAX", "DML_OPERATOR_MAX_UNPOOLING") and holding the desc's
fields. Each field may be given under DirectML's name (InputTensor,
AxisCount, Axes, AxisDirection, ...), the Go desc's (Input, Output,
OutputIndices, Indices) or the corpus's (input, axes, axisDirection,
reduceFunction, windowSize, ...), once. A tensor is a dict of
DML_BUFFER_TENSOR_DESC's fields (DataType, Flags, DimensionCount, Sizes,
Strides, TotalTensorSizeInBytes, GuaranteedBaseOffsetAlignment, or the
corpus's dataType, sizes, ...). Enumerations are their names, with or
without DirectML's prefix and in any case ("FLOAT32",
"DML_AXIS_DIRECTION_DECREASING"), or their numbers. Counts (AxisCount,
DimensionCount) may be left out and are then the arrays' lengths; arrays
are lists, tuples, ranges, iterators or 1-D NumPy arrays. So a line of the parity
corpus is a desc as it is; its name, covers, note and expect are ignored.

Descs are strict, as the corpus reader (Go's schema.ReadDesc) is, and both
read the same tables (_schema.py, generated from internal/schema): a key
the operator does not hold, one field under two spellings, or a set, dict
or other unordered container where an array goes is refused, naming the
key with its path (desc.InputTensor.strides) and the closest known key. A
key of another operator's field is let through only when it is None.
"""

from __future__ import annotations

import collections.abc
import ctypes
import json
import re
from typing import Any, Dict, List, Mapping, Sequence

import numpy as np

from . import _api, _capi, _schema
from ._errors import ArgumentTypeError, api, invalid

# Every key that spells a field of some operator's desc.
_ANY_OPERATOR_KEY = frozenset(s for d in _schema.DESCS.values() for f in d.fields for s in f.spellings)


def _edit_distance(a, b):
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1]))
        prev = cur
    return prev[len(b)]


def _suggest(key, known):
    """The key of known closest to key: fewest edits away ignoring case (at
    most a third of its length, at least 2), then counting case; None when
    none is close. Go's schema.Suggest."""
    best, best_score = None, 0
    for k in known:
        d = _edit_distance(key.lower(), k.lower())
        score = d * 1000 + _edit_distance(key, k)
        if d <= max(2, len(k) // 3) and (best is None or score < best_score):
            best, best_score = k, score
    return best


def _is_count(table, name):
    return any(f.type == "array" and f.count == name for f in table)


class _Fields:
    """One desc's or tensor's fields as given: values by DirectML name
    (None left out), and each given field's path by the key that gave it."""

    def __init__(self, given, table, where, what, also=()):
        if not isinstance(given, Mapping):
            raise invalid("run", where, "is a %s, not a dict of fields" % type(given).__name__, ArgumentTypeError)
        by_spelling = {s: f for f in table for s in f.spellings}
        self.table, self.where = table, where
        self.values: Dict[str, Any] = {}
        self.paths: Dict[str, str] = {}
        for key, value in given.items():
            if not isinstance(key, str):
                raise invalid("run", where, "has the key %r, which is not a string" % (key,), ArgumentTypeError)
            if key in also:
                continue
            path = "%s.%s" % (where, key)
            f = by_spelling.get(key)
            if f is None:
                if value is None and table is not _schema.TENSOR_FIELDS and key in _ANY_OPERATOR_KEY:
                    continue  # another operator's field, absent
                why = "unknown key for %s (it holds %s)" % (what, ", ".join(f.name for f in table))
                close = _suggest(key, list(by_spelling) + list(also))
                if close is not None:
                    why += "; did you mean %r?" % close
                raise invalid("run", path, why)
            if f.name in self.paths:
                raise invalid("run", path, "%s is given twice, as %r and as %r; give it once"
                              % (f.name, self.paths[f.name].rsplit(".", 1)[1], key))
            self.paths[f.name] = path
            if value is not None:
                self.values[f.name] = value

    def path(self, name):
        return self.paths.get(name, "%s.%s" % (self.where, name))

    def key(self, name):
        return self.path(name).rsplit(".", 1)[1]

    def arrays(self):
        """The arrays given, checked: ordered, uint32 entries, lengths held
        to their count (given, else the first array's) and a required array
        given where its count is not 0. Returns the arrays and the counts."""
        arrays, counts = {}, {}
        for c in self.table:
            if not _is_count(self.table, c.name):
                continue
            want = None
            if c.name in self.values:
                want, want_from = _capi.u32("run", self.path(c.name), self.values[c.name]), self.key(c.name)
            missing = []
            for f in self.table:
                if f.type != "array" or f.count != c.name:
                    continue
                if f.name not in self.values:
                    if not f.optional:
                        missing.append(f.name)
                    continue
                arr = _capi.u32_list("run", self.path(f.name), _ordered(self.path(f.name), self.values[f.name]))
                arrays[f.name] = arr
                if want is None:
                    want, want_from = len(arr), self.key(f.name)
                elif len(arr) != want:
                    raise invalid("run", self.path(f.name), "has %d entries; %s says %d" % (len(arr), want_from, want))
            if missing and want:
                raise invalid("run", self.path(missing[0]), "is required: %s says %d entries" % (want_from, want))
            counts[c.name] = want or 0
        return arrays, counts

    def build(self, struct, keep):
        """The ctypes struct of these fields (C names from the table)."""
        arrays, counts = self.arrays()
        c = struct()
        for f in self.table:
            v = self.values.get(f.name)
            if f.name in counts:
                setattr(c, f.c, counts[f.name])
            elif f.type == "array":
                if f.name in arrays:
                    arr = (ctypes.c_uint32 * max(len(arrays[f.name]), 1))(*arrays[f.name])
                    keep.append(arr)
                    setattr(c, f.c, ctypes.cast(arr, ctypes.POINTER(ctypes.c_uint32)))
            elif v is None and not f.optional:
                raise invalid("run", self.path(f.name), "is required (as %s)" % " or ".join(f.spellings))
            elif f.type == "tensor":
                if v is not None:
                    t = _Fields(v, _schema.TENSOR_FIELDS, self.path(f.name), "%s (DML_BUFFER_TENSOR_DESC)" % f.name)
                    desc = t.build(_capi.TensorDesc, keep)
                    keep.append(desc)
                    setattr(c, f.c, ctypes.pointer(desc))
            else:  # a number, 0 when an optional one is left out
                v = 0 if v is None else v
                if f.enum is not None:
                    setattr(c, f.c, _enum(self.path(f.name), f.enum, v))
                elif f.type == "uint64":
                    setattr(c, f.c, _capi.u64("run", self.path(f.name), v))
                else:
                    setattr(c, f.c, _capi.u32("run", self.path(f.name), v))
        return c


def _ordered(field, values):
    """values, refused when it has no order of its own (a set, a dict or a
    dict's view): where DirectML takes an array, the order is the meaning.
    Lists, tuples, ranges, iterators and 1-D NumPy arrays are taken."""
    if isinstance(values, np.ndarray) and values.ndim != 1:
        raise invalid("run", field, "is a %d-D array; give a 1-D one" % values.ndim, ArgumentTypeError)
    if isinstance(values, (collections.abc.Set, collections.abc.Mapping, collections.abc.MappingView)):
        raise invalid("run", field, "is a %s, which has no order; give a list" % type(values).__name__,
                      ArgumentTypeError)
    return values


def _enum(field, enum, value):
    """An enum's value: a name (any case, DirectML's prefix optional), a
    number, or a number as a decimal string."""
    names = _schema.ENUMS[enum]
    if isinstance(value, str):
        name = value.upper()
        if name.startswith(enum + "_"):
            name = name[len(enum) + 1:]
        if name in names:
            return names.index(name)
        if value.isdigit() and value.isascii():
            return _capi.u32("run", field, int(value))
        raise invalid("run", field, "%r is not one of %s (%s), with or without %s_"
                      % (value, ", ".join(names), enum, enum))
    return _capi.u32("run", field, value)


def _operator_desc(desc):
    """desc's operator (its _schema.Desc), its ctypes struct, and the ctypes
    objects the struct points to."""
    if not isinstance(desc, Mapping):
        raise invalid("run", "desc", "is a %s, not a dict" % type(desc).__name__, ArgumentTypeError)
    type_keys = [k for k in desc if k in _schema.TYPE_KEYS]
    if not type_keys:
        raise invalid("run", "desc.type", "is required: give the operator as %s" % " or ".join(_schema.TYPE_KEYS))
    if len(type_keys) > 1:
        raise invalid("run", "desc." + type_keys[1], "the operator type is given twice, as %r and as %r; give it once"
                      % tuple(type_keys[:2]))
    kind = desc[type_keys[0]]
    name = kind.upper() if isinstance(kind, str) else None
    if name is not None and name.startswith(_schema.OPERATOR_PREFIX):
        name = name[len(_schema.OPERATOR_PREFIX):]
    if name not in _schema.DESCS:
        raise invalid("run", "desc." + type_keys[0], "%r is not one of %s" % (kind, ", ".join(_schema.DESCS)))
    op = _schema.DESCS[name]
    keep: List[Any] = []
    fields = _Fields(desc, op.fields, "desc", "%s's desc" % op.type, _schema.TYPE_KEYS + _schema.CASE_KEYS)
    return op, fields.build(op.struct, keep), keep


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
    op, c, keep = _operator_desc(desc)
    ins = [_host_buffer("inputs[%d]" % i, b, False) for i, b in enumerate(inputs)]
    outs = [_host_buffer("outputs[%d]" % i, b, True) for i, b in enumerate(outputs)]
    dev = _api._resolve_device("run", device)
    od = _capi.OperatorDesc(op.operator, ctypes.cast(ctypes.pointer(c), ctypes.c_void_p))
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


