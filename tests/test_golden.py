"""Golden files of generated source: every change to srcad's output shows up in review.

`SRCAD_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py` rewrites the files in
tests/golden/ from the current compiler; check the diff before committing it.
The functions live in tests/golden_functions.py, whose file name and line numbers appear in
the generated module's header.
"""
import difflib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import srcad
from tests import golden_functions as gf
from tests.fd import assert_grad_close, fd_grad

GOLDEN = Path(__file__).parent / "golden"
ROOT = Path(__file__).parent.parent
UPDATE = os.environ.get("SRCAD_UPDATE_GOLDEN") == "1"

XS = np.array([0.3, -0.2, 0.5])
YS = np.array([1.0, 0.4])

# golden file -> (function, example arguments, wrt)
CASES = {
    "loss.txt": (gf.loss, (0.7, XS), ("w", "xs")),
    "pairwise.txt": (gf.pairwise, (XS, YS), ("xs", "ys")),
    "layer_sum.txt": (gf.layer_sum, (0.7, XS), ("w", "xs")),
}


def generate(name):
    fn, args, wrt = CASES[name]
    return srcad.source(srcad.grad(fn, wrt=wrt, jit=False), *args)


@pytest.mark.parametrize("name", sorted(CASES))
def test_generated_source_matches_golden_file(name):
    path = GOLDEN / name
    got = generate(name).encode("utf-8")
    if UPDATE:
        path.write_bytes(got)
        return
    assert path.exists(), f"{path} is missing: run with SRCAD_UPDATE_GOLDEN=1 to create it"
    want = path.read_bytes()
    if got != want:
        diff = difflib.unified_diff(want.decode("utf-8").splitlines(),
                                    got.decode("utf-8").splitlines(),
                                    f"golden/{name}", "generated", lineterm="")
        pytest.fail(f"generated source differs from golden/{name} (if intended, rerun with "
                    "SRCAD_UPDATE_GOLDEN=1):\n" + "\n".join(diff), pytrace=False)


def test_golden_directory_has_no_stale_files():
    assert sorted(p.name for p in GOLDEN.iterdir() if p.is_file()) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_functions_have_correct_gradients(name):
    fn, args, wrt = CASES[name]
    assert_grad_close(srcad.grad(fn, wrt=wrt, jit=False)(*args), fd_grad(fn, args, wrt))


@pytest.mark.parametrize("name", sorted(CASES))
def test_generation_is_deterministic(name):
    assert generate(name) == generate(name)


def test_generation_does_not_depend_on_hash_seed():
    code = ("import hashlib, sys\n"
            "from tests.test_golden import CASES, generate\n"
            "text = ''.join(generate(n) for n in sorted(CASES))\n"
            "sys.stdout.write(hashlib.sha256(text.encode()).hexdigest())\n")
    digests = set()
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed, SRCAD_UPDATE_GOLDEN="0")
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True,
                             capture_output=True, text=True, timeout=120)
        digests.add(out.stdout)
    assert len(digests) == 1, "generated source depends on the string hash seed"
