"""Never run stale or foreign code: whatever the generated code depends on is in its key
(constants folded in, helpers, custom rules, srcad itself), srcad differentiates the code
of the function object it was given, a gradient object notices changed code, and the
cache directory is trusted only when no one else can write it."""
import importlib
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import srcad
import srcad.derivative
from tests.fd import fd_grad

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

pytestmark = pytest.mark.usefixtures("cache", "new_process")


def _load(folder, name, text):
    """Import (or reload) module `name` from `text`, written to folder/name.py."""
    (folder / f"{name}.py").write_text(textwrap.dedent(text))
    importlib.invalidate_caches()
    sys.path.insert(0, str(folder))
    old, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        if name in sys.modules:
            return importlib.reload(sys.modules[name])
        return importlib.import_module(name)
    finally:
        sys.dont_write_bytecode = old
        sys.path.remove(str(folder))


# --- what a new process sharing the cache directory sees ------------------------------

USER = """
    import enum

    import srcad


    class Cfg:
        SCALE = {scale}

        @staticmethod
        def helper(x):
            return {helper}


    class Mode(enum.Enum):
        X = {mode}


    def weight(x):
        return x


    weight.K = {attr}


    def cube(x):
        return {cube}


    @srcad.defvjp(cube)
    def _(g, ans, x):
        return ({rule} * g * x * x,)


    def f_class(x):
        return Cfg.SCALE * x * x


    def f_enum(x):
        return Mode.X.value * x * x


    def f_attr(x):
        return weight.K * x * x


    def f_static(x):
        return Cfg.helper(x) * x


    def f_rule(x):
        return cube(x) + x
"""
BASE = {"scale": "2.0", "helper": "x * 3.0", "mode": "3.0", "attr": "1.5",
        "cube": "x * x * x", "rule": "3.0"}
EDITS = {  # the item, the function that reads it, the edit, jit
    "class attribute": ("f_class", {"scale": "2.75"}, False),
    "enum value": ("f_enum", {"mode": "4.25"}, True),
    "function attribute": ("f_attr", {"attr": "-0.5"}, False),
    "static method": ("f_static", {"helper": "x * x"}, False),
    "custom rule": ("f_rule", {"rule": "2.0"}, True),
    "function of a custom rule": ("f_rule", {"cube": "x * x * x * 2.0"}, True),
}
_PROCESS = """
import sys
sys.path.insert(0, sys.argv[1])
import srcad
import user_for_stale_code as user
value, grad = srcad.value_and_grad(getattr(user, sys.argv[2]), jit=sys.argv[3] == "1")(0.5)
print(repr(value), repr(grad))
"""


def _in_a_new_process(folder, name, jit):
    run = subprocess.run([sys.executable, "-B", "-c", _PROCESS, str(folder), name,
                          "1" if jit else "0"], capture_output=True, text=True, cwd=ROOT,
                         env=dict(os.environ), timeout=300)
    assert run.returncode == 0, run.stderr
    return [float(v) for v in run.stdout.split()]


@pytest.mark.parametrize("item", list(EDITS))
def test_an_edit_outside_the_function_reaches_a_new_process(tmp_path, item):
    name, edit, jit = EDITS[item]
    _load(tmp_path, "user_for_stale_code", USER.format(**BASE))
    _in_a_new_process(tmp_path, name, jit)  # fills the cache directory
    user = _load(tmp_path, "user_for_stale_code", USER.format(**dict(BASE, **edit)))
    value, grad = _in_a_new_process(tmp_path, name, jit)
    fn = getattr(user, name)
    assert value == pytest.approx(fn(0.5))
    if name == "f_rule":  # the rule's own derivative, whatever it is
        assert grad == pytest.approx(float(edit.get("rule", BASE["rule"])) * 0.25 + 1.0)
    else:
        assert grad == pytest.approx(fd_grad(fn, (0.5,), 0), rel=1e-6)


def test_srcad_itself_is_in_the_key(monkeypatch):
    """After an upgrade of srcad (its runtime helpers, its rules), a module compiled by the
    old version is not run: the module, and so Numba's cache of it, has another name."""
    user = _scaled(2.0)
    first = srcad.grad(user)
    assert first(1.5) == pytest.approx(6.0)
    srcad.derivative.clear()
    monkeypatch.setattr(srcad.derivative, "_TOOLCHAIN", [("an upgraded srcad",)])
    second = srcad.grad(user)
    assert second(1.5) == pytest.approx(6.0)
    assert first.last.module.__file__ != second.last.module.__file__


def _scaled(c):
    def f(x):
        return x * x * c
    return f


# --- within one process ----------------------------------------------------------------


def test_a_new_gradient_sees_a_class_attribute_changed(tmp_path):
    user = _load(tmp_path, "user_for_class_attribute", USER.format(**BASE))
    assert srcad.grad(user.f_class)(0.5) == pytest.approx(2.0)
    user.Cfg.SCALE = 5.0
    assert srcad.grad(user.f_class)(0.5) == pytest.approx(5.0)


@pytest.mark.parametrize("jit", [False, True])
def test_the_same_gradient_object_sees_constants_changed(tmp_path, jit):
    user = _load(tmp_path, f"user_for_constants_{jit}", USER.format(**BASE))
    g_class, g_enum = srcad.grad(user.f_class, jit=jit), srcad.grad(user.f_enum, jit=jit)
    assert g_class(0.5) == pytest.approx(2.0) and g_enum(0.5) == pytest.approx(3.0)
    user.Cfg.SCALE = 5.0
    user.Mode = __import__("enum").Enum("Mode", {"X": 7.0})
    assert g_class(0.5) == pytest.approx(5.0)
    assert g_enum(0.5) == pytest.approx(7.0)


def test_a_rule_registered_again_is_used_with_jit():
    def cube(x):
        return x * x * x

    def f(x):
        return cube(x) + x

    srcad.defvjp(cube)(lambda g, ans, x: (3.0 * g * x * x,))
    assert srcad.grad(f)(0.5) == pytest.approx(1.75)
    srcad.defvjp(cube)(lambda g, ans, x: (2.0 * g,))  # a rule's own derivative, not cube's
    assert srcad.grad(f)(0.5) == pytest.approx(3.0)


# --- the source srcad reads is the function's code --------------------------------------

TWO = """
    def g(x):
        return 5.0 * x


    def f(x):
        return x * x
"""


def test_a_file_edited_after_import_is_refused(tmp_path):
    user = _load(tmp_path, "user_edited_after_import", TWO)
    f = user.f
    (tmp_path / "user_edited_after_import.py").write_text(
        textwrap.dedent(TWO).replace("x * x", "x * x * x  # edited"))
    with pytest.raises(srcad.SrcadError, match="changed after the function was defined"):
        srcad.grad(f)(2.0)


def test_lines_inserted_above_the_function_are_refused(tmp_path):
    user = _load(tmp_path, "user_lines_inserted", TWO)
    f = user.f
    (tmp_path / "user_lines_inserted.py").write_text("import math\n\n\n" + textwrap.dedent(TWO))
    with pytest.raises(srcad.SrcadError, match="reload the module"):
        srcad.grad(f)(2.0)


# --- a gradient object notices changed code ---------------------------------------------


def _helper(x, k=2.0):
    return x * k


def _other_helper(x, k=2.0):
    return x * x * k


def _uses_helper(x, c=1.0):
    return _helper(x) * c


def test_a_gradient_object_sees_changed_helpers_and_defaults():
    g = srcad.grad(_uses_helper, jit=False)
    assert g(3.0) == pytest.approx(2.0)
    saved = _helper.__code__, _helper.__defaults__, _uses_helper.__defaults__
    try:
        _uses_helper.__defaults__ = (10.0,)
        assert g(3.0) == pytest.approx(20.0)
        _helper.__defaults__ = (3.0,)
        assert g(3.0) == pytest.approx(30.0)
        _helper.__code__ = _other_helper.__code__
        assert g(3.0) == pytest.approx(fd_grad(_uses_helper, (3.0,), 0), rel=1e-6)
    finally:
        _helper.__code__, _helper.__defaults__, _uses_helper.__defaults__ = saved


def test_a_gradient_object_sees_a_closure_cell_changed():
    c = 2.0

    def f(x):
        return x * x * c

    g = srcad.grad(f, jit=False)
    assert g(1.0) == pytest.approx(4.0)
    c = 5.0
    assert g(1.0) == pytest.approx(10.0)


# --- the cache directory and its records --------------------------------------------------


def _f_for_records(x):
    return x * x


def _g_for_records(x):
    return 10.0 * x


def test_a_record_naming_another_functions_module_is_not_used(cache):
    assert srcad.grad(_f_for_records, jit=False)(2.0) == pytest.approx(4.0)
    assert srcad.grad(_g_for_records, jit=False)(2.0) == pytest.approx(10.0)
    srcad.derivative.clear()
    (f_record,) = cache.glob("_f_for_records_*.json")
    (g_record,) = cache.glob("_g_for_records_*.json")
    f_record.write_text(g_record.read_text())
    value, grad = srcad.value_and_grad(_f_for_records, jit=False)(2.0)
    assert (value, grad) == (pytest.approx(4.0), pytest.approx(4.0))


@pytest.mark.parametrize("problem", ["writable by others", "owned by someone else"])
def test_an_untrusted_cache_dir_is_not_read(cache, monkeypatch, problem):
    """A forged module, named by its own content hash, and a record for it that carries
    the right digest: whoever could write them is not this user, so neither is read."""
    assert srcad.grad(_f_for_records, jit=False)(2.0) == pytest.approx(4.0)
    srcad.derivative.clear()
    (record,) = cache.glob("_f_for_records_*.json")
    value = json.loads(record.read_text())
    good = cache / (value["module"] + ".py")
    forged = good.read_text().replace("\ndef ", "\nimport builtins\nbuiltins.FORGED = 1\ndef ", 1)
    from codegen.module import module_name
    name = module_name(forged, value["module"].rpartition("_")[0])
    (cache / (name + ".py")).write_text(forged)
    record.write_text(json.dumps(dict(value, module=name)))
    if problem == "writable by others":
        cache.chmod(0o777)
    else:
        monkeypatch.setattr(os, "getuid", lambda: os.stat(cache).st_uid + 1)
    from codegen import module
    monkeypatch.setattr(module, "_WARNED", set())
    with pytest.warns(srcad.SrcadWarning, match="compiling in memory") as record_warnings:
        assert srcad.grad(_f_for_records, jit=False)(2.0) == pytest.approx(4.0)
        assert srcad.grad(_g_for_records, jit=False)(2.0) == pytest.approx(10.0)
    assert len([w for w in record_warnings if w.category is srcad.SrcadWarning]) == 1
    import builtins
    assert not hasattr(builtins, "FORGED")
    assert not list(cache.glob("_g_for_records_*"))


# --- argument errors ------------------------------------------------------------------


def _two(x, y):
    return x * y


def test_an_unknown_keyword_is_named():
    with pytest.raises(srcad.SrcadError, match="no parameter `z`"):
        srcad.grad(_two)(1.0, z=2.0)
    with pytest.raises(srcad.SrcadError, match="'y'"):
        srcad.grad(_two)(1.0)
    assert srcad.grad(_two)(x=1.0, y=np.float64(2.0)) == pytest.approx(2.0)
