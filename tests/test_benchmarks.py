"""The benchmark suite runs end to end at smoke size and every srcad gradient in it
passes its finite-difference check. Nothing here asserts a timing."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(args, tmp_path, timeout):
    env = dict(os.environ, SRCAD_CACHE_DIR=str(tmp_path / "cache"))
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_smoke_run_checks_every_srcad_gradient(tmp_path):
    out = tmp_path / "results.json"
    proc = run(["benchmarks", "--smoke", "--no-peers", "--json", str(out)], tmp_path, 900)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    rows = json.loads(out.read_text())
    assert [r["key"] for r in rows] == ["W1", "W2", "W3", "W4", "W5", "W6"]
    assert {r["key"]: r["check"] for r in rows} == {r["key"]: "ok" for r in rows}
    assert all(r["srcad_ms"] > 0 and r["primal_ms"] > 0 for r in rows)
    assert "srcad gradient checks: 6/6 passed." in proc.stdout
    assert "FAIL" not in proc.stdout


def test_startup_process_reports_its_costs(tmp_path):
    proc = run(["benchmarks.startup", "W4", "smoke"], tmp_path, 600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert set(result) == {"seconds", "compile_seconds", "peak_rss_mb"}
    assert result["seconds"] >= result["compile_seconds"] > 0


def test_bridges_train_the_same_model_as_the_frameworks(tmp_path):
    # the srcad layers' gradients agree with torch autograd's, and training lowers the loss
    proc = run(["benchmarks.bridges", "--smoke"], tmp_path, 600)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    rows = [line.split("|") for line in proc.stdout.splitlines() if line.startswith("| srcad")]
    assert [r[1].strip() for r in rows] == ["srcad.torch", "srcad.jax"]
    for r in rows:
        assert float(r[5]) < 1e-12, r  # gradient error against torch autograd
        first, last = (float(v) for v in r[6].split("→"))
        assert last < first, r


def test_compile_benchmark_checks_every_gradient(tmp_path):
    # --quick: three of the vectorized functions, each compiled in a fresh process
    out = tmp_path / "compile.json"
    proc = run(["benchmarks.compile", "--quick", "--json", str(out)], tmp_path, 900)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    rows = json.loads(out.read_text())
    assert [r["name"] for r in rows] == ["huber", "softmax_xent", "stencil"]
    assert {r["name"]: r["check"] for r in rows} == {r["name"]: "ok" for r in rows}
    assert all(r["primal_s"] > 0 and r["srcad_s"] > 0 and r["tape_arrays"] >= 0
               for r in rows)
    assert "srcad gradient checks: 3/3 passed." in proc.stdout


def test_vectorized_gradients_match_finite_differences(cache):
    # every vectorized workload, srcad without jit (no Numba compilation: fast); the
    # run below checks the compiled gradients too, on one workload
    from benchmarks import measure, vectorized_run
    from benchmarks.vectorized_workloads import WORKLOADS

    for w in WORKLOADS:
        small = w.args(w.small)
        want = (float(w.fn(*small)), measure.fd_gradients(w.fn, small, w.wrt))
        got = vectorized_run.srcad_run(w, "no-jit", small)()
        assert measure.compare(*got, *want) == "ok", w.key


def test_vectorized_smoke_run_checks_srcad_both_ways(tmp_path):
    # the entry point end to end on one workload: one Numba compilation, not four
    out = tmp_path / "vectorized.json"
    proc = run(["benchmarks", "--vectorized", "--smoke", "--no-peers", "--only", "V1",
                "--json", str(out)], tmp_path, 600)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    rows = json.loads(out.read_text())
    assert [r["key"] for r in rows] == ["V1"]
    assert rows[0]["check"] == {"jit": "ok", "no-jit": "ok", "auto": "ok"}
    assert rows[0]["diff"]["no-jit"] <= 1e-8
    assert set(rows[0]["ms"]) == {"primal", "jit", "no-jit"}
    assert "srcad gradient checks: 1/1 passed." in proc.stdout
    assert "FAIL" not in proc.stdout
