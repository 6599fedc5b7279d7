"""The cache directory of generated modules and Numba's files next to them: whatever state
it is in (read-only, full, corrupt, stale, several processes writing at once), a gradient
is still right. srcad falls back to compiling in memory, with one `SrcadWarning` naming the
directory and the fix."""
import errno
import glob
import os
import subprocess
import sys
import tempfile
import textwrap
import threading
import warnings

import numba.core.caching
import numpy as np
import pytest

import srcad
import srcad.derivative
from codegen.module import load_module
from tests.cache_functions import loss
from tests.fd import assert_grad_close, fd_grad

XS = np.linspace(-1.0, 1.0, 7)

pytestmark = pytest.mark.usefixtures("new_process")


def check(g):
    """`g` (a gradient of `loss` w.r.t. both arguments) agrees with finite differences."""
    assert_grad_close(g(0.7, XS), fd_grad(loss, (0.7, XS), (0, 1)))


def modules(folder):
    return sorted(folder.glob("loss_*.py"))


def test_module_file_is_written_once_by_content_hash(cache):
    check(srcad.grad(loss, wrt=(0, 1), jit=False))
    (path,) = modules(cache)
    stamp = path.stat().st_mtime_ns
    g = srcad.grad(loss, wrt=(0, 1), jit=False)
    check(g)
    assert path.stat().st_mtime_ns == stamp  # same bytes: not rewritten (Numba's stamp holds)
    assert g.last.plain.__file__ == str(path)
    assert not list(cache.glob("*.tmp"))


@pytest.mark.parametrize("content", [
    "truncated",
    "older srcad",
    "not utf-8",
])
def test_stale_or_corrupt_module_file_is_rewritten(cache, content):
    check(srcad.grad(loss, wrt=(0, 1), jit=False))
    srcad.derivative.clear()
    (path,) = modules(cache)
    good = path.read_text()
    if content == "truncated":
        path.write_text(good[: len(good) // 2])
    elif content == "older srcad":  # valid Python, same name, wrong gradient
        path.write_text(good.replace("return", "return 0 *", 1) + "\nRAN_OLD = True\n")
    else:
        path.write_bytes(b"\xff\xfe" + good.encode()[:100])
    g = srcad.grad(loss, wrt=(0, 1), jit=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", srcad.SrcadWarning)
        check(g)
    assert path.read_text() == good
    assert not hasattr(g.last.plain, "RAN_OLD")


def _warns_about(folder, *words):
    return pytest.warns(srcad.SrcadWarning, match=_pattern(folder, *words))


def _pattern(folder, *words):
    import re
    return "(?s)" + "".join(f"(?=.*{re.escape(w)})"
                            for w in (str(folder), *words, "SRCAD_CACHE_DIR"))


def test_read_only_cache_dir_compiles_in_memory(cache, monkeypatch):
    cache.mkdir()

    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", str(cache))

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    g = srcad.grad(loss, wrt=(0, 1), jit=False)
    with _warns_about(cache, "Permission denied") as record:
        check(g)
    assert len([w for w in record if w.category is srcad.SrcadWarning]) == 1
    assert not list(cache.iterdir())
    assert getattr(g.last.plain, "__file__", None) is None


def test_cache_dir_that_cannot_exist(tmp_path, monkeypatch):
    # a real failure, for root too: the cache path runs through a regular file
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    folder = blocker / "cache"
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(folder))
    with _warns_about(folder, "Not a directory"):
        check(srcad.grad(loss, wrt=(0, 1), jit=True))


def test_full_disk_compiles_in_memory_and_leaves_no_temporary_file(cache, monkeypatch):
    cache.mkdir()

    def full(src, dst):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "replace", full)
    with _warns_about(cache, "No space left on device"):
        check(srcad.grad(loss, wrt=(0, 1), jit=False))
    assert not list(cache.iterdir())


def test_cache_dir_that_cannot_be_created(tmp_path, monkeypatch):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    folder = blocker / "cache"
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(folder))
    with _warns_about(folder, "Not a directory"):
        check(srcad.grad(loss, wrt=(0, 1), jit=False))


def test_in_memory_module_still_shows_its_lines(cache, monkeypatch):
    """Tracebacks and inspect read a module built in memory like a file."""
    import inspect

    def full(src, dst):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "replace", full)
    g = srcad.grad(loss, wrt=(0, 1), jit=False)
    with pytest.warns(srcad.SrcadWarning):
        check(g)
    fwd = getattr(g.last.plain, g.last.top.fwd_name)
    assert inspect.getsource(fwd) in g.last.source


def test_threads_writing_the_same_module(cache):
    source = "def f(x):\n    return 2.0 * x\n" + "# padding\n" * 2000
    results, errors = [], []

    def work():
        try:
            results.append(load_module(source, "hammer").f(1.5))
        except Exception as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and results == [3.0] * 16
    (path,) = cache.glob("hammer_*.py")
    assert path.read_text() == source
    assert not list(cache.glob("*.tmp"))


# --- Numba's on-disk cache (jit=True) -------------------------------------------------


def test_numba_cannot_place_its_cache_files(cache, monkeypatch):
    ensure = numba.core.caching._CacheLocator.ensure_cache_path

    def unwritable(self):  # read-only: the cache dir, and Numba's own folder for its files
        path = self.get_cache_path()
        if path.startswith(str(cache)) or "__pycache__" not in path:
            raise PermissionError(errno.EACCES, "Permission denied", path)
        ensure(self)

    monkeypatch.setattr(numba.core.caching._CacheLocator, "ensure_cache_path", unwritable)
    g = srcad.grad(loss, wrt=(0, 1), jit=True)
    with _warns_about(cache / "__pycache__", "Numba", "not writable") as record:
        check(g)
    assert len([w for w in record if w.category is srcad.SrcadWarning]) == 1


def test_numba_cache_on_a_full_disk(cache, monkeypatch):
    def full(self, name, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(numba.core.caching.IndexDataCacheFile, "_save_data", full)
    g = srcad.grad(loss, wrt=(0, 1), jit=True)
    with _warns_about(cache, "Numba", "No space left on device") as record:
        check(g)
    assert len([w for w in record if w.category is srcad.SrcadWarning]) == 1
    assert "Numba could not compile" not in str(record[0].message)


@pytest.mark.parametrize("suffix", ["nbi", "nbc"])
def test_garbage_numba_cache_files(cache, suffix):
    check(srcad.grad(loss, wrt=(0, 1), jit=True))  # writes the index and data files
    srcad.derivative.clear()
    files = glob.glob(str(cache / "__pycache__" / f"*.{suffix}"))
    assert files
    for name in files:
        with open(name, "wb") as fh:
            fh.write(b"\x80\x04garbage" * 8)
    g = srcad.grad(loss, wrt=(0, 1), jit=True)
    with _warns_about(cache / "__pycache__", "cannot read Numba's cache files"):
        check(g)
    assert g.last.module is not g.last.plain  # still compiled, only without the disk cache


_WORKER = textwrap.dedent("""
    import os, sys, time
    import numpy as np
    import srcad
    from tests.test_caching import loss, XS
    go = sys.argv[1]
    open(go + "." + str(os.getpid()), "w").close()  # ready
    while not os.path.exists(go):
        time.sleep(0.001)
    gw, gxs = srcad.grad(loss, wrt=(0, 1), jit=True)(0.7, XS)
    print(float(gw), *map(float, gxs))
""")


def test_processes_compiling_the_same_new_function_at_once(cache, tmp_path):
    """Several processes, one empty cache dir, the same new function at the same moment."""
    n = 3
    go = str(tmp_path / "go")
    env = dict(os.environ, SRCAD_CACHE_DIR=str(cache))
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    procs = [subprocess.Popen([sys.executable, "-c", _WORKER, go], cwd=root, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(n)]
    try:
        while len(glob.glob(go + ".*")) < n and all(p.poll() is None for p in procs):
            threading.Event().wait(0.01)
        open(go, "w").close()
        outputs = [p.communicate(timeout=120) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    want = fd_grad(loss, (0.7, XS), (0, 1))
    for p, (out, err) in zip(procs, outputs):
        assert p.returncode == 0, err
        values = [float(v) for v in out.split()]
        assert_grad_close((values[0], np.array(values[1:])), want)
    assert len(modules(cache)) == 1
    assert not list(cache.glob("*.tmp"))
    # a later process finds the module and Numba's files and still gets it right
    check(srcad.grad(loss, wrt=(0, 1), jit=True))
