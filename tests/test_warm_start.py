"""A later process finds its gradients generated already: the cache directory keeps, next
to each module, a record under a hash of everything the transformation read, and a match
loads the module without transforming (or importing the compiler). Anything the
transformation reads that changes (the function, a helper, a constant, a closure, a
custom rule, srcad itself) gives another hash, so the gradient is never a stale one."""
import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import gast
import numpy as np
import pytest

import srcad
import srcad.derivative
from codegen.fingerprint import function_digest
from codegen.templates import template_body
from tests.cache_functions import loss, scaled_by
from tests.fd import assert_grad_close, fd_grad

XS = np.linspace(-1.0, 1.0, 5)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

pytestmark = pytest.mark.usefixtures("new_process")


def check(f, g, args, wrt):
    assert_grad_close(g(*args), fd_grad(f, args, wrt))


def _transforming_fails(monkeypatch):
    from srcad.program import Program

    def refuse(*args, **kwargs):
        raise AssertionError("the function was transformed again")

    monkeypatch.setattr(Program, "specialize", refuse)


@pytest.mark.parametrize("jit", [False, True])
def test_a_recorded_module_is_loaded_without_transforming(cache, monkeypatch, jit):
    first = srcad.grad(loss, wrt=(0, 1), jit=jit)
    check(loss, first, (0.7, XS), (0, 1))
    (record,) = cache.glob("loss_*.json")
    assert json.loads(record.read_text())["module"] + ".py" in os.listdir(cache)
    srcad.derivative.clear()

    _transforming_fails(monkeypatch)
    again = srcad.grad(loss, wrt=(0, 1), jit=jit)
    check(loss, again, (0.7, XS), (0, 1))
    assert again.last.source == first.last.source
    assert (again.last.module is again.last.plain) == (not jit)
    monkeypatch.undo()
    # what needs the transformation still has it, made on demand
    assert srcad.source(again) == srcad.source(first)
    assert again.last.top.ctx.fsrc.name == "loss"


def test_showing_passes_transforms_again_so_they_are_shown(cache, monkeypatch, capsys):
    srcad.grad(loss, wrt=(0, 1), jit=False)(0.7, XS)  # recorded
    srcad.derivative.clear()
    monkeypatch.setenv("SRCAD_SHOW", "ToANF")
    srcad.grad(loss, wrt=(0, 1), jit=False)(0.7, XS)
    assert "# --- loss after ToANF" in capsys.readouterr().err


def test_kinds_and_wrt_have_records_of_their_own(cache):
    check(loss, srcad.grad(loss, wrt=0, jit=False), (0.7, XS), 0)
    check(loss, srcad.grad(loss, wrt=(0, 1), jit=False), (0.7, XS), (0, 1))
    check(loss, srcad.grad(loss, wrt=1, jit=False), (0.7, XS), 1)
    g = srcad.grad(loss, wrt=0, jit=False)
    check(loss, g, (0.7, XS), 0)
    xs_int = np.arange(4)
    assert_grad_close(g(0.7, xs_int), fd_grad(loss, (0.7, xs_int), 0))
    assert len(list(cache.glob("loss_*.json"))) == 4


def _write_module(folder, name, text):
    """Import `text` as a new module from folder/name.py."""
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(text))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


USER = """
    import math

    SCALE = {scale}

    def helper(x, p={p}):
        return math.sin(x) ** {power} * p

    def f(x):
        return helper(x) * SCALE + x
"""


@pytest.mark.parametrize("change", ["helper", "constant", "default", "none"])
def test_an_edit_gives_a_new_gradient(cache, tmp_path, change):
    """The user's file before and after an edit, imported under the same name as by two
    processes (every edit changes the file's size, so no stale bytecode is read)."""
    base = {"scale": "2.0", "p": "1.5", "power": "2"}
    edited = dict(base, **{"helper": {"power": "3.0"}, "constant": {"scale": "3.25"},
                           "default": {"p": "-0.75"}, "none": {}}[change])
    name = f"user_file_{change}"
    before = _write_module(tmp_path, name, USER.format(**base))
    check(before.f, srcad.grad(before.f, jit=False), (0.4,), 0)
    after = _write_module(tmp_path, name, USER.format(**edited))
    check(after.f, srcad.grad(after.f, jit=False), (0.4,), 0)
    assert len(list(cache.glob("f_*.json"))) == (1 if change == "none" else 2)


def test_a_closure_is_part_of_the_function(cache):
    f2, f3 = scaled_by(2.0), scaled_by(3.0)
    check(f2, srcad.grad(f2, jit=False), (0.5,), 0)
    check(f3, srcad.grad(f3, jit=False), (0.5,), 0)  # same source, same line, other c


def test_a_constant_read_from_a_module_is_part_of_the_function(cache, tmp_path):
    consts = _write_module(tmp_path, "consts_for_warm_start", "K = 2.0\n")
    user = _write_module(tmp_path, "uses_consts_for_warm_start", """
        import consts_for_warm_start as consts

        def f(x):
            return consts.K * x * x
    """)
    check(user.f, srcad.grad(user.f, jit=False), (0.5,), 0)
    consts.K = 5.0
    check(user.f, srcad.grad(user.f, jit=False), (0.5,), 0)


def test_a_custom_rule_added_later_is_used(cache):
    def cube(x):
        return x * x * x

    def f(x):
        return cube(x) + x * x

    check(f, srcad.grad(f, jit=False), (1.3,), 0)
    srcad.defvjp(cube)(lambda g, ans, x: (2.0 * g,))  # not the derivative: a rule's own
    assert srcad.grad(f, jit=False)(1.3) == pytest.approx(2.0 + 2 * 1.3)
    assert srcad.grad(f, jit=False)(1.3) == pytest.approx(2.0 + 2 * 1.3)
    assert len(list(cache.glob("f_*.json"))) == 1  # none for the module calling the rule


@pytest.mark.parametrize("damage", ["garbage", "wrong shape", "missing module"])
def test_a_damaged_record_only_costs_a_transformation(cache, damage):
    check(loss, srcad.grad(loss, wrt=(0, 1), jit=False), (0.7, XS), (0, 1))
    srcad.derivative.clear()
    (record,) = cache.glob("loss_*.json")
    good = record.read_text()
    if damage == "garbage":
        record.write_bytes(b"\x80{not json")
    elif damage == "wrong shape":
        record.write_text(json.dumps({"module": 3, "top": [], "functions": "x"}))
    else:
        for module in cache.glob("loss_*.py"):
            module.unlink()
    check(loss, srcad.grad(loss, wrt=(0, 1), jit=False), (0.7, XS), (0, 1))
    assert record.read_text() == good


def test_a_record_of_a_module_file_changed_since_is_not_trusted(cache):
    check(loss, srcad.grad(loss, wrt=(0, 1), jit=False), (0.7, XS), (0, 1))
    srcad.derivative.clear()
    (module,) = cache.glob("loss_*.py")
    good = module.read_text()
    module.write_text(good.replace("return", "return 0 *", 1))  # valid, and wrong
    check(loss, srcad.grad(loss, wrt=(0, 1), jit=False), (0.7, XS), (0, 1))
    assert module.read_text() == good


_PROCESS = textwrap.dedent("""
    import sys
    import numpy as np
    import srcad
    from tests.test_caching import loss, XS  # a test module that imports no more of srcad
    g = srcad.grad(loss, wrt=(0, 1), jit=False)
    gw, gxs = g(0.7, XS)
    print(float(gw), *map(float, gxs))
    print(*sorted(m for m in ("srcad.rules", "srcad.program", "srcad.passes", "beniget")
                  if m in sys.modules))
""")


def test_a_second_process_does_not_load_the_compiler(cache):
    from tests import test_caching

    env = dict(os.environ, SRCAD_CACHE_DIR=str(cache))
    runs = [subprocess.run([sys.executable, "-c", _PROCESS], capture_output=True, text=True,
                           env=env, cwd=ROOT, timeout=300) for _ in range(2)]
    want = fd_grad(test_caching.loss, (0.7, test_caching.XS), (0, 1))
    loaded = []
    for run in runs:
        assert run.returncode == 0, run.stderr
        values, modules = run.stdout.splitlines()
        values = [float(v) for v in values.split()]
        assert_grad_close((values[0], np.array(values[1:])), want)
        loaded.append(modules.split())
    assert "srcad.rules" in loaded[0] and "srcad.program" in loaded[0]
    assert loaded[1] == []


def test_import_srcad_leaves_the_compiler_for_later():
    script = ("import sys, srcad\n"
              "print('srcad.rules' in sys.modules, 'srcad.program' in sys.modules)\n"
              "print(srcad.rules.registry.by_name('np.sin') is not None)\n")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["False", "False", "True"]


# --- the digest itself (codegen.fingerprint) ----------------------------------------


def test_digest_sees_helpers_defaults_and_globals_but_not_decorators(tmp_path):
    mod = _write_module(tmp_path, "digest_subject", """
        import functools
        import numpy as np

        RATE = 0.5

        def helper(x, k=2):
            return np.sin(x) * k

        @functools.lru_cache(maxsize=None)
        def decorated(x):
            return x

        def f(x):
            return helper(x) * RATE
    """)
    base = function_digest(mod.f)
    assert base == function_digest(mod.f)
    mod.RATE = 0.25
    assert function_digest(mod.f) != base
    mod.RATE = 0.5
    assert function_digest(mod.f) == base
    mod.helper.__defaults__ = (3,)
    assert function_digest(mod.f) != base
    mod.helper.__defaults__ = (2,)
    mod.RATE = np.ones(3)  # an array: no stable description
    assert function_digest(mod.f) is None
    assert function_digest(mod.decorated.__wrapped__) is not None  # `functools` not read


def test_digest_of_functions_calling_each_other(tmp_path):
    mod = _write_module(tmp_path, "digest_mutual", """
        def even(n):
            return n == 0 or odd(n - 1)

        def odd(n):
            return n != 0 and even(n - 1)
    """)
    assert function_digest(mod.even) is not None
    assert function_digest(mod.even) != function_digest(mod.odd)


def test_template_bodies_are_the_parsed_source_of_each_template():
    """The templates of every rule, read from one parse of their file, equal each parsed
    on its own from `inspect.getsource` (line numbers included)."""
    import inspect

    from srcad.rules import registry

    assert registry.by_name("np.sin") is not None  # the rules are loaded
    modules = [sys.modules[f"srcad.rules.{m}"] for m in
               ("builtins", "linalg", "math", "numpy", "operators", "runtime")]
    functions = [v for mod in modules + [sys.modules["srcad.runtime"]]
                 for v in vars(mod).values()
                 if inspect.isfunction(v) and v.__module__ == mod.__name__]
    assert len(functions) > 100
    for fn in functions:
        tree = gast.parse(textwrap.dedent(inspect.getsource(fn))).body[0].body
        if tree and isinstance(tree[0], gast.Expr) and isinstance(tree[0].value, gast.Constant):
            tree = tree[1:]
        got = template_body(fn)
        assert [gast.dump(s, include_attributes=True) for s in got] == \
            [gast.dump(s, include_attributes=True) for s in tree], fn.__qualname__
