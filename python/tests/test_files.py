"""$VKDML_TUNING naming a FIFO, /dev/zero, /dev/urandom, a folder or a file
over its 1 MiB bound fails vkdml.Device() at once with vkdml.Error naming
the variable, the path and the reason: no hang on the FIFO, no reading
/dev/zero until memory runs out. Each case runs in its own interpreter
(the library reads the environment it was loaded with), under a timeout
that turns a hang into a failure."""

import os
import subprocess
import sys

import pytest

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCRIPT = '''
import vkdml
try:
    vkdml.Device()
except vkdml.Error as e:
    print(e)
else:
    raise SystemExit("no error")
'''


def hostile_tuning_files(tmp_path):
    """Yields (name, path, what the error must say) for each kind."""
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    yield "fifo", str(fifo), "not a regular file (a FIFO)"
    for dev in ("/dev/zero", "/dev/urandom"):
        if os.path.exists(dev):
            yield dev, dev, "not a regular file (a character device)"
    folder = tmp_path / "folder.json"
    folder.mkdir()
    yield "folder", str(folder), "not a regular file (a directory)"
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate((1 << 20) + 1)
    yield "oversize", str(big), "over the limit of 1 MiB"


@pytest.mark.skipif(sys.platform == "win32", reason="no FIFOs or /dev")
def test_tuning_file_not_regular(tmp_path):
    for name, path, want in hostile_tuning_files(tmp_path):
        env = dict(os.environ, VKDML_TUNING=path,
                   PYTHONPATH=PACKAGE + os.pathsep + os.environ.get("PYTHONPATH", ""))
        try:
            r = subprocess.run([sys.executable, "-X", "faulthandler", "-c", SCRIPT],
                               env=env, capture_output=True, text=True, timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail("%s: vkdml.Device() hung with VKDML_TUNING=%s" % (name, path))
        assert r.returncode == 0, "%s: exit %d\n%s\n%s" % (name, r.returncode, r.stdout, r.stderr)
        assert "VKDML_TUNING" in r.stdout and path in r.stdout and want in r.stdout, (name, r.stdout)
