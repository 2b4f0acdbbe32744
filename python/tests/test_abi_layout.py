"""Every ctypes struct in vkdml._capi has the size and field offsets of
its C struct in capi/vkdml.h, as a C compiler lays it out: a probe program
is compiled and run here. $VKDML_HEADER names the header when the tests
run outside the checkout."""

import ctypes
import os
import shutil
import subprocess

import pytest

from vkdml import _capi

STRUCTS = {
    "vkdml_tensor_desc": _capi.TensorDesc,
    **_capi.DESC_STRUCTS,  # the generated desc structs
    "vkdml_operator_desc": _capi.OperatorDesc,
    "vkdml_buffer": _capi.Buffer,
    "vkdml_device_options": _capi.DeviceOptions,
}


def _header():
    path = os.environ.get("VKDML_HEADER") or os.path.join(
        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "capi", "vkdml.h")
    if not os.path.exists(path):
        pytest.skip("no capi/vkdml.h here (set VKDML_HEADER)")
    return path


def _c_layout(tmp_path):
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler")
    lines = ['#include <stddef.h>', '#include <stdio.h>', '#include "%s"' % _header(), "int main(void) {"]
    for name, cls in STRUCTS.items():
        lines.append('    printf("%s sizeof %%zu\\n", sizeof(%s));' % (name, name))
        for field, _ in cls._fields_:
            lines.append('    printf("%s %s %%zu\\n", offsetof(%s, %s));' % (name, field, name, field))
    lines += ["    return 0;", "}"]
    src, exe = tmp_path / "probe.c", tmp_path / "probe"
    src.write_text("\n".join(lines) + "\n")
    subprocess.run([cc, "-std=c11", "-DVKDML_NO_PROTOTYPES", "-o", str(exe), str(src)], check=True,
                   capture_output=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    return {tuple(line.split()[:2]): int(line.split()[2]) for line in out.splitlines()}


def test_ctypes_structs_match_the_header(tmp_path):
    c = _c_layout(tmp_path)
    mismatches = []
    for name, cls in STRUCTS.items():
        if c[(name, "sizeof")] != ctypes.sizeof(cls):
            mismatches.append("%s: sizeof %d in C, %d in ctypes" % (name, c[(name, "sizeof")], ctypes.sizeof(cls)))
        for field, _ in cls._fields_:
            off = getattr(cls, field).offset
            if c[(name, field)] != off:
                mismatches.append("%s.%s: offset %d in C, %d in ctypes" % (name, field, c[(name, field)], off))
    assert not mismatches, "\n".join(mismatches)


def test_every_header_struct_has_a_ctypes_mirror():
    with open(_header()) as f:
        text = f.read()
    import re
    declared = set(re.findall(r"typedef struct (vkdml_\w+) \{", text))
    assert declared == set(STRUCTS), "ctypes mirrors missing for %s" % sorted(declared - set(STRUCTS))
