"""fork(): a child of a process that loaded vkdml gets vkdml.ForkError
(E_FAIL, naming the spawn and forkserver start methods) from every call,
never a hang; spawn and forkserver workers work. Each case runs in its own
interpreter, under a timeout that turns a hang into a failure."""

import os
import subprocess
import sys
import textwrap

import pytest

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The child's checks: every kind of call raises ForkError with the rule.
CHILD_CHECKS = textwrap.dedent('''
    import numpy as np, vkdml
    def expect_fork_error(call):
        try:
            call()
        except vkdml.ForkError as e:
            assert e.hresult == vkdml.E_FAIL, e
            assert "spawn" in str(e) and "forkserver" in str(e), e
            assert isinstance(e, vkdml.Error) and isinstance(e, RuntimeError)
        else:
            raise AssertionError("no ForkError")
    def child_checks(dev=None):
        expect_fork_error(lambda: vkdml.Device())
        expect_fork_error(lambda: vkdml.argmax(np.zeros(3, np.float32), 0))
        expect_fork_error(lambda: vkdml.prepare_argmin((3,), np.float32, 0))
        if dev is not None:
            expect_fork_error(lambda: vkdml.argmax(np.zeros(3, np.float32), 0, device=dev))
            expect_fork_error(lambda: dev.name)
            dev.close()  # releasing in the child is a no-op, not a hang
''')


def run_script(body, timeout=90):
    """Runs CHILD_CHECKS + body in a fresh interpreter; fails on a hang."""
    env = dict(os.environ, PYTHONPATH=PACKAGE + os.pathsep + os.environ.get("PYTHONPATH", ""))
    try:
        r = subprocess.run([sys.executable, "-X", "faulthandler", "-c", CHILD_CHECKS + textwrap.dedent(body)],
                           env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        pytest.fail("the script hung for %ds:\n%s\n%s" % (timeout, e.stdout, e.stderr))
    assert r.returncode == 0, "exit %d\nstdout:\n%s\nstderr:\n%s" % (r.returncode, r.stdout, r.stderr)
    return r.stdout


def fork_and_wait():
    return '''
    def in_child(body):
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                body()
                code = 0
            except BaseException:
                import traceback; traceback.print_exc()
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    '''


def test_fork_right_after_import():
    run_script('''
    import os
    ''' + fork_and_wait() + '''
    in_child(child_checks)
    print("ok")
    ''')


def test_fork_after_use_and_the_parent_goes_on():
    out = run_script('''
    import os
    ''' + fork_and_wait() + '''
    dev = vkdml.Device()
    assert vkdml.argmax(np.array([1, 3, 2], np.float32), 0, device=dev)[0] == 1
    op = vkdml.prepare_argmax((3,), np.float32, 0, device=dev)
    in_child(lambda: child_checks(dev))
    in_child(lambda: (child_checks(), expect_fork_error(lambda: op(np.zeros(3, np.float32)))))
    assert op(np.array([0, 0, 5], np.float32))[0] == 2  # the parent is unaffected
    op.close(); dev.close()
    print("parent ok")
    ''')
    assert "parent ok" in out


def test_forked_child_that_exits_normally():
    """A child that returns through the interpreter's exit (finalizers,
    atexit) with open devices and operators exits, it does not hang."""
    run_script('''
    import os, sys
    dev = vkdml.Device()
    op = vkdml.prepare_argmax((3,), np.float32, 0, device=dev)
    vkdml.argmax(np.zeros(2, np.float32), 0)  # opens the default device
    pid = os.fork()
    if pid == 0:
        child_checks(dev)
        sys.exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    op.close(); dev.close()
    ''')


def test_c_library_refuses_in_a_forked_child():
    """Below the Python guard, libvkdml itself refuses (pthread_atfork)."""
    run_script('''
    import ctypes, os
    from vkdml import _api, _capi
    ''' + fork_and_wait() + '''
    def raw_calls():
        lib = _api._lib._lib  # the CDLL, bypassing Python's guard
        handle = ctypes.c_uint64(0)
        hr = lib.vkdml_device_create(None, ctypes.byref(handle))
        assert hr == -0x7FFFBFFB, hex(hr & 0xFFFFFFFF)  # E_FAIL
        msg = lib.vkdml_last_error().decode()
        assert "forked" in msg and "spawn" in msg, msg
    in_child(raw_calls)
    ''')


def test_multiprocessing_fork_pool_raises_fork_error():
    out = run_script('''
    import multiprocessing as mp
    def work(i):
        try:
            return int(vkdml.argmax(np.array([i, 9, 0], np.float32), 0)[0])
        except vkdml.ForkError as e:
            return "ForkError: " + str(e)
    if __name__ == "__main__":
        vkdml.argmax(np.zeros(2, np.float32), 0)
        with mp.get_context("fork").Pool(2) as pool:
            results = pool.map(work, range(4))
        assert all(isinstance(r, str) and "forkserver" in r for r in results), results
        print("fork pool ok")
    ''')
    assert "fork pool ok" in out


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_multiprocessing_spawn_and_forkserver_work(method, tmp_path):
    """The start methods the error names do work: each worker loads vkdml
    afresh. The worker lives in a file, as these methods require."""
    script = tmp_path / "workers.py"
    script.write_text(CHILD_CHECKS + textwrap.dedent('''
    import multiprocessing as mp, sys
    def work(i):
        x = np.zeros(5, np.float32)
        x[i] = 1
        return int(vkdml.argmax(x, 0)[0])
    if __name__ == "__main__":
        vkdml.argmax(np.zeros(2, np.float32), 0)  # the parent uses vkdml first
        with mp.get_context(sys.argv[1]).Pool(2) as pool:
            assert pool.map(work, range(5)) == list(range(5))
        print("pool ok")
    '''))
    env = dict(os.environ, PYTHONPATH=PACKAGE + os.pathsep + os.environ.get("PYTHONPATH", ""))
    try:
        r = subprocess.run([sys.executable, str(script), method], env=env, capture_output=True, text=True,
                           timeout=180)
    except subprocess.TimeoutExpired as e:
        pytest.fail("%s pool hung:\n%s\n%s" % (method, e.stdout, e.stderr))
    assert r.returncode == 0 and "pool ok" in r.stdout, r.stderr


def test_fork_error_pickles():
    import pickle
    import vkdml
    e = vkdml.ForkError(vkdml.E_FAIL, "argmax: forked")
    e2 = pickle.loads(pickle.dumps(e))
    assert type(e2) is vkdml.ForkError and e2.hresult == vkdml.E_FAIL and str(e2) == "argmax: forked"
