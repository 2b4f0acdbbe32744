"""vkdml's exceptions: every failure of a vkdml call is a vkdml.Error with
DirectML's HRESULT, subclassed from the built-in exception whose kind fits
(ValueError for a bad argument, MemoryError for one too large, ...), so
that code written for either catches it."""

import functools

S_OK = 0x00000000
E_FAIL = 0x80004005
E_INVALIDARG = 0x80070057
E_OUTOFMEMORY = 0x8007000E
E_NOTIMPL = 0x80004001
E_UNEXPECTED = 0x8000FFFF
DXGI_ERROR_UNSUPPORTED = 0x887A0004
DXGI_ERROR_DEVICE_REMOVED = 0x887A0005

# Each code above by its value: its symbolic name is the constant's.
HRESULT_NAMES = {code: name for name, code in list(globals().items())
                 if name.startswith(("S_", "E_", "DXGI_ERROR_"))}

# The rule for processes that fork, in the words every layer uses (the C
# library says the same in its own message).
FORK_RULE = ("this process was forked from one that had loaded libvkdml; the Go runtime's and the "
             "Vulkan driver's threads do not survive fork(), so vkdml cannot run in the child: start "
             "workers with the \"spawn\" or \"forkserver\" multiprocessing start method (or exec a new "
             "process)")


class Error(Exception):
    """A failure with DirectML's HRESULT (as an unsigned int, e.g.
    0x80070057 for E_INVALIDARG) and a message naming the call, the
    argument or field, and the rule it broke."""

    def __init__(self, hresult, message):
        super().__init__(message)
        self.hresult = hresult & 0xFFFFFFFF
        self.message = message

    @property
    def name(self):
        """The HRESULT's symbolic name, e.g. "E_INVALIDARG"."""
        return HRESULT_NAMES.get(self.hresult, "0x%08X" % self.hresult)

    def __reduce__(self):
        # Errors cross process boundaries (multiprocessing pickles a
        # worker's exception): rebuild with both arguments.
        return (type(self), (self.hresult, self.message))


class InvalidArgumentError(Error, ValueError):
    """E_INVALIDARG: an argument or a desc field breaks a rule."""


class ArgumentTypeError(InvalidArgumentError, TypeError):
    """E_INVALIDARG for an argument of the wrong Python type."""


class OutOfMemoryError(Error, MemoryError):
    """E_OUTOFMEMORY: a tensor larger than the host or the device holds."""


class UnsupportedError(Error, NotImplementedError):
    """DXGI_ERROR_UNSUPPORTED: a data type, feature level or device the
    device or vkdml does not support."""


class DeviceRemovedError(Error, RuntimeError):
    """DXGI_ERROR_DEVICE_REMOVED: the Vulkan device was lost."""


class InternalError(Error, RuntimeError):
    """E_UNEXPECTED: a bug in vkdml (a Go panic, say in a planner), caught
    before it reached Python; the message is one line (VKDML_TRACEBACK=1 in
    the environment when libvkdml loads prints the Go stack to stderr)."""


class ForkError(Error, RuntimeError):
    """E_FAIL in a process forked after libvkdml was loaded (see FORK_RULE)."""


_CLASSES = {
    E_INVALIDARG: InvalidArgumentError,
    E_OUTOFMEMORY: OutOfMemoryError,
    DXGI_ERROR_UNSUPPORTED: UnsupportedError,
    DXGI_ERROR_DEVICE_REMOVED: DeviceRemovedError,
    E_UNEXPECTED: InternalError,
}


def error_for(hresult, message):
    """The Error subclass for hresult, holding message."""
    hresult &= 0xFFFFFFFF
    if hresult == E_FAIL and "forked" in message:
        return ForkError(hresult, message)
    return _CLASSES.get(hresult, Error)(hresult, message)


def invalid(call, field, rule, cls=InvalidArgumentError):
    """An E_INVALIDARG error of call for field, worded as libvkdml words
    its own."""
    return cls(E_INVALIDARG, "%s: %s: %s [E_INVALIDARG]" % (call, field, rule))


def out_of_memory(call, field, rule):
    return OutOfMemoryError(E_OUTOFMEMORY, "%s: %s: %s [E_OUTOFMEMORY]" % (call, field, rule))


def forked(call):
    return ForkError(E_FAIL, "%s: %s [E_FAIL]" % (call, FORK_RULE))


def api(call):
    """Decorates a public entry point so that nothing but a vkdml.Error
    leaves it: the arguments are checked up front, and this is the net for
    what those checks did not foresee (numpy's or ctypes' own TypeError,
    OverflowError, ValueError or MemoryError), which becomes the matching
    vkdml.Error naming call, with the original as its cause."""

    def wrap(fn):
        @functools.wraps(fn)
        def checked(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except Error:
                raise
            except MemoryError as e:
                raise out_of_memory(call, "arguments", "%s: %s" % (type(e).__name__, e)) from e
            except TypeError as e:
                raise invalid(call, "arguments", "%s" % e, ArgumentTypeError) from e
            except (ValueError, OverflowError, IndexError, KeyError) as e:
                raise invalid(call, "arguments", "%s: %s" % (type(e).__name__, e)) from e
        return checked
    return wrap
