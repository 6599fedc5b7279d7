"""The transform benchmark's quick cases run end to end, in this process (and one of them
in a fresh one, as `python -m benchmarks.transform` runs each), and every gradient it
times agrees with central finite differences. Nothing here asserts a timing."""
import os

from benchmarks import transform


def test_generated_functions_are_what_the_benchmark_says():
    src = transform.straight_line("f", 200)
    assert src.startswith("def f(x):") and len(src.strip().splitlines()) >= 200
    assert all(part in src for part in ("if ", "else:", "+=", "np.sum(", "np.exp(", "[::-1]"))
    chain = transform.helper_chain("c", 3)
    assert [line.split("(")[0] for line in chain.splitlines() if line.startswith("def ")] \
        == ["def c_0", "def c_1", "def c_2", "def c_3"]


def test_quick_run_checks_every_gradient_and_restores_the_cache_dir(monkeypatch):
    monkeypatch.setenv("SRCAD_CACHE_DIR", "/nonexistent/kept")
    rows = transform.run(transform.cases(quick=True))
    assert os.environ["SRCAD_CACHE_DIR"] == "/nonexistent/kept"
    assert [r["label"] for r in rows] == \
        ["straight 20", "straight 40", "chain depth 2", "chain depth 3"]
    assert {r["label"]: r["check"] for r in rows} == {r["label"]: "ok" for r in rows}
    assert all(r["lines"] > 0 and r["seconds"] > 0 for r in rows)
    table = transform.render(rows)
    assert "gradient checks against finite differences: 4/4 passed." in table
    assert "FAIL" not in table


def test_a_case_measured_in_a_fresh_process_checks_its_gradient():
    case = transform.cases(quick=True)[-1]
    row = transform.run_fresh(case)
    assert row["label"] == "chain depth 3" and row["check"] == "ok" and row["seconds"] > 0


def test_a_transform_leaves_no_cycles_holding_its_trees(tmp_path, monkeypatch):
    """What a transform builds is freed by reference counting when the build ends: a
    cycle holding the program (its trees, contexts, def-use chains) would leave hundreds
    of thousands of objects for a later garbage collection to scan and free."""
    import gc

    import gast
    import numpy as np

    import srcad
    from srcad.context import Context
    from srcad.program import Program

    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path))
    module = transform.load_module([transform.straight_line("cycles", 60)], str(tmp_path))
    x = np.linspace(-0.7, 0.9, 4)
    gc.collect()
    gc.disable()
    try:
        srcad.value_and_grad(module.cycles, jit=False)(x)
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        held = [o for o in gc.garbage if isinstance(o, (Program, Context, gast.FunctionDef))]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert held == []
