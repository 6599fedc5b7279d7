"""Every test transforms with the parse-back check after each pass switched on: a pass whose
tree does not print as the same program fails where it happens, named.

The cache tests share two fixtures: `new_process` (no derivative in memory) and `cache` (an
empty cache directory)."""
import os

import pytest

os.environ.setdefault("SRCAD_CHECK_PASSES", "1")


@pytest.fixture
def new_process():
    """Each test starts as a new process would: no derivative made yet in memory."""
    import srcad.derivative  # here: this file imports no srcad module before a test does

    srcad.derivative.clear()
    yield
    srcad.derivative.clear()


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache directory (not made yet) as SRCAD_CACHE_DIR; its path."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(folder))
    return folder
