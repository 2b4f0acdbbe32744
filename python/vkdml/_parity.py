"""vkdml.compare: one case of your own against DirectML's result for it.

    import numpy as np, vkdml
    desc = {"Type": "ARGMAX",
            "InputTensor": {"DataType": "FLOAT32", "Sizes": [3, 4], "TotalTensorSizeInBytes": 48},
            "OutputTensor": {"DataType": "UINT32", "Sizes": [3, 1], "TotalTensorSizeInBytes": 12},
            "Axes": [1], "AxisDirection": "DML_AXIS_DIRECTION_INCREASING"}
    r = vkdml.compare(desc, [x], [directml_output])
    r.verdict        # "equal", "differ explained", "differ unexplained", ...
    r.differences[0].coordinates, r.differences[0].source, r.differences[0].hints

The comparison is the one `vkdml parity --case` and the corpus runner make
(internal/parity, in Go), reached through libvkdml's vkdml_parity_compare:
the desc is read by the same strict reader, the verdicts, the rules that
explain a difference and the hints are the same, so a case compared here
and on the command line gets the same verdict.
"""

from __future__ import annotations

import ctypes
import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from . import _api, _capi
from ._errors import ArgumentTypeError, Error, api, invalid

# The verdicts, as vkdml parity --case prints them.
EQUAL = "equal"
DIFFER_EXPLAINED = "differ explained"
DIFFER_UNEXPLAINED = "differ unexplained"
REJECTED_BY_BOTH = "rejected by both"
REJECTED_BY_VKDML = "rejected by vkdml"
REJECTED_BY_EXPECTED = "rejected by expected"
# REDUCE's float functions: the outputs differ from the expected ones
# within docs/semantics.md rule 44's bound (passes), or beyond it.
WITHIN_BOUND = "within bound"
OUTSIDE_BOUND = "outside bound"
NOT_COMPARED = "not compared"

# The first result buffer; a longer result is asked for again at its size.
_RESULT_CAPACITY = 1 << 20


@dataclass(frozen=True)
class Hint:
    """A rule that often explains a difference: kind is "nan", "tie",
    "signed zero", "all-padding window", "out-of-range index", "duplicate
    index" or "int64 ordering"; detail names the rule in docs/semantics.md."""
    kind: str
    detail: str


@dataclass(frozen=True)
class Source:
    """The part of an input that produced an output element: kind
    "window" (pooling) or "block" (reductions), the box start <= c < end
    with step per input axis (start negative or end past the size where a
    window reaches into padding); kind "elements" (MAX_UNPOOLING), the
    input coordinates whose index names the element."""
    input: int
    kind: str
    start: Tuple[int, ...] = ()
    end: Tuple[int, ...] = ()
    step: Tuple[int, ...] = ()
    elements: Tuple[Tuple[int, ...], ...] = ()
    extreme: str = ""
    partial: bool = False


@dataclass(frozen=True)
class Difference:
    """One output element where vkdml and the expected result differ:
    coordinates (None for a byte between a strided output's elements), both
    values as text (NaN and -0 kept) and as bits, the source and hints."""
    output: int
    coordinates: Optional[Tuple[int, ...]]
    buffer_element: int
    expected: str
    vkdml: str
    expected_bits: str
    vkdml_bits: str
    source: Optional[Source]
    hints: Tuple[Hint, ...]


@dataclass(frozen=True)
class Comparison:
    """vkdml.compare's result. verdict is one of EQUAL, DIFFER_EXPLAINED,
    DIFFER_UNEXPLAINED, REJECTED_BY_BOTH, REJECTED_BY_VKDML,
    REJECTED_BY_EXPECTED, WITHIN_BOUND and OUTSIDE_BOUND (REDUCE's float
    functions, docs/semantics.md rule 44) or NOT_COMPARED (no expected
    result given); rule
    is the documented reason of an explained difference; outputs says per
    output what was compared ("buffer" or "elements") and how many
    elements differ; differences lists the first 16 per output; expected
    and vkdml are each side's HRESULT, stage, message and summary; record
    is the whole result as `vkdml parity --case --json` gives it."""
    verdict: str
    passed: bool
    rule: str
    differences: Tuple[Difference, ...]
    outputs: Tuple[Dict[str, Any], ...]
    expected: Optional[Dict[str, Any]]
    vkdml: Dict[str, Any]
    detail: str
    record: Dict[str, Any] = field(repr=False)

    def __str__(self):
        lines = ["verdict: %s" % self.verdict]
        if self.rule:
            lines.append("rule: %s" % self.rule)
        for d in self.differences:
            where = "buffer element %d" % d.buffer_element if d.coordinates is None else str(list(d.coordinates))
            line = "output %d at %s: expected %s, vkdml %s" % (d.output, where, d.expected, d.vkdml)
            if d.source is not None:
                line += "; from input %d %s" % (d.source.input, d.source.kind)
            lines.append(line + "".join("; hint: %s" % h.kind for h in d.hints))
        return "\n".join(lines)


def _tuple(v):
    return tuple(v) if v is not None else ()


def _difference(d):
    s = d.get("source")
    source = None if s is None else Source(
        input=s["input"], kind=s["kind"], start=_tuple(s.get("start")), end=_tuple(s.get("end")),
        step=_tuple(s.get("step")), elements=tuple(tuple(e) for e in s.get("elements") or ()),
        extreme=s.get("extreme", ""), partial=s.get("partial", False))
    coords = d.get("coordinates")
    return Difference(output=d["output"], coordinates=None if coords is None else tuple(coords),
                      buffer_element=d["buffer_element"], expected=d["expected"], vkdml=d["vkdml"],
                      expected_bits=d["expected_bits"], vkdml_bits=d["vkdml_bits"], source=source,
                      hints=tuple(Hint(h["kind"], h["detail"]) for h in d.get("hints") or ()))


def _plain(call, v):
    """json.dumps' default: NumPy scalars and arrays as numbers and lists;
    anything else (a set, an object) is refused naming its type."""
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, (range, tuple)):
        return list(v)
    raise invalid(call, "desc", "holds a %s (%r), which is not plain data: use dicts, lists, strings and numbers"
                  % (type(v).__name__, v), ArgumentTypeError)


def _buffers(call, field, arrays):
    """The arrays as C buffers (contiguous copies where needed) and their
    data types ("" for a raw buffer without one)."""
    if isinstance(arrays, (str, bytes, np.ndarray)) or not isinstance(arrays, Sequence):
        raise invalid(call, field, "is a %s, not a list of arrays (one per tensor, in binding order)"
                      % type(arrays).__name__, ArgumentTypeError)
    views, types = [], []
    for i, a in enumerate(arrays):
        name = "%s[%d]" % (field, i)
        if isinstance(a, np.ndarray):
            types.append(a.dtype.name if a.dtype.kind in "fiub" else str(a.dtype))
            a = np.ascontiguousarray(a)
        else:
            types.append("")
        try:
            view = memoryview(a)
        except TypeError:
            raise invalid(call, name, "is a %s, not an array or buffer" % type(a).__name__, ArgumentTypeError) from None
        views.append(np.frombuffer(view.cast("B") if view.ndim != 1 or view.format != "B" else view, np.uint8))
    bufs = (_capi.Buffer * max(len(views), 1))(*[_capi.Buffer(v.ctypes.data, v.nbytes) for v in views])
    return bufs, views, types


@api("compare")
def compare(desc: Mapping[str, Any], inputs: Sequence[Any], expected: Optional[Sequence[Any]] = None, *,
            hresult: Optional[str] = None, device: _api.DeviceLike = None) -> Comparison:
    """Runs desc (DirectML's names, as vkdml.run reads it) on inputs (one
    array per input tensor in binding order: a packed tensor's elements,
    or any tensor's whole buffer) and compares vkdml's outputs with
    expected, DirectML's (one array per output: its elements, or its whole
    buffer after a run that started with every byte 0xCD), as `vkdml
    parity --case` does. hresult names DirectML's failure code when it
    rejected the desc (expected is then None). Neither given: nothing is
    compared (verdict NOT_COMPARED), vkdml's outcome is still reported."""
    if not isinstance(desc, Mapping):
        raise invalid("compare", "desc", "is a %s, not a dict" % type(desc).__name__, ArgumentTypeError)
    if hresult is not None and not isinstance(hresult, str):
        raise invalid("compare", "hresult", "is a %s, not a name such as \"E_INVALIDARG\"" % type(hresult).__name__,
                      ArgumentTypeError)
    in_bufs, in_keep, in_types = _buffers("compare", "inputs", inputs)
    exp_bufs, exp_keep, exp_types = _buffers("compare", "expected", expected if expected is not None else [])
    spec = {"desc": desc, "expected": expected is not None, "input_types": in_types, "expected_types": exp_types}
    if hresult:
        spec["hresult"] = hresult
    try:
        text = json.dumps(spec, default=lambda v: _plain("compare", v), allow_nan=False)
    except Error:
        raise
    except ValueError as e:  # a NaN or infinity, which JSON cannot hold
        raise invalid("compare", "desc", str(e)) from None
    dev = _api._resolve_device("compare", device)
    result = _call(dev, text.encode("utf-8"), in_bufs, len(in_keep), exp_bufs, len(exp_keep))
    del in_keep, exp_keep
    r = json.loads(result)
    return Comparison(verdict=r["verdict"], passed=r["passed"], rule=r.get("rule", ""),
                      differences=tuple(_difference(d) for d in r["differences"]),
                      outputs=tuple(r["outputs"]), expected=r.get("expected"), vkdml=r["vkdml"],
                      detail=r.get("detail", ""), record=r)


def _call(dev, spec, in_bufs, nin, exp_bufs, nexp):
    capacity = _RESULT_CAPACITY
    while True:
        buf = ctypes.create_string_buffer(capacity)
        length = ctypes.c_size_t(0)
        _api._check(_api._lib.vkdml_parity_compare(dev.handle, spec, in_bufs, nin, exp_bufs, nexp,
                                                   buf, capacity, ctypes.byref(length)))
        if length.value < capacity:
            return buf.value.decode("utf-8", "replace")
        capacity = length.value + 1


__all__: List[str] = ["compare", "Comparison", "Difference", "Source", "Hint", "EQUAL", "DIFFER_EXPLAINED",
                      "DIFFER_UNEXPLAINED", "REJECTED_BY_BOTH", "REJECTED_BY_VKDML", "REJECTED_BY_EXPECTED",
                      "NOT_COMPARED"]
