"""The package is typed (PEP 561): py.typed ships with it, and every public
function and method annotates its parameters and its result."""

import inspect
import os

import vkdml


def test_py_typed_ships_with_the_package():
    assert os.path.exists(os.path.join(os.path.dirname(vkdml.__file__), "py.typed"))


def _public_callables():
    for name in vkdml.__all__:
        obj = getattr(vkdml, name)
        if inspect.isfunction(obj):
            yield name, obj
        elif inspect.isclass(obj) and not issubclass(obj, BaseException):
            for attr, member in vars(obj).items():
                if attr.startswith("_") and attr not in ("__init__", "__call__"):
                    continue
                fn = member.fget if isinstance(member, property) else member
                if inspect.isfunction(fn):
                    yield "%s.%s" % (name, attr), fn


def test_public_api_is_annotated():
    missing = []
    for name, fn in _public_callables():
        sig = inspect.signature(fn)
        for p in sig.parameters.values():
            if p.name != "self" and p.annotation is inspect.Parameter.empty:
                missing.append("%s(%s)" % (name, p.name))
        if sig.return_annotation is inspect.Signature.empty:
            missing.append("%s -> ?" % name)
    assert not missing, "unannotated: %s" % ", ".join(missing)
