"""`python -m srcad show` and `python -m srcad demo`."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from srcad.cli import guess_kinds, main, parse_type
from srcad.kinds import FLOAT, INT, Kind

EXAMPLE = textwrap.dedent("""
    import math

    def loss(w, xs):
        h = 0.0
        for i in range(xs.shape[0]):
            h = math.tanh(w * h + xs[i])
        return h * h

    def grid(m, n):
        s = 0.0
        for i in range(n):
            s += m[i, 0] * m[0, i]
        return s
""")


@pytest.fixture
def example(tmp_path):
    path = tmp_path / "example.py"
    path.write_text(EXAMPLE)
    return path


def test_show_prints_the_generated_module(example, capsys):
    assert main(["show", f"{example}:loss", "--wrt", "0,1", "--nojit"]) == 0
    out = capsys.readouterr().out
    assert "def loss_fwd(w, xs):" in out and "def loss_rev(w, xs," in out
    assert "return d_w, d_xs" in out
    compile(out, "<shown>", "exec")


def test_show_guesses_types_from_use(example):
    from srcad.cli import load_function
    assert guess_kinds(load_function(f"{example}:loss")) == (FLOAT, Kind("f", 1))
    assert guess_kinds(load_function(f"{example}:grid")) == (Kind("f", 2), INT)


def test_show_takes_explicit_types(example, capsys):
    assert main(["show", f"{example}:grid", "--types", "2d,int"]) == 0
    assert "def grid_rev(m, n," in capsys.readouterr().out


@pytest.mark.parametrize("args, message", [
    (["show", "{ex}:missing"], "has no function 'missing'"),
    (["show", "{ex}:grid", "--wrt", "1"], "parameter `n` in --wrt has type int"),
    (["show", "{ex}:grid", "--types", "2d"], "1 types for 2 parameters"),
    (["show", "{ex}:loss", "--wrt", "nope"], "not a parameter"),
])
def test_show_reports_errors_without_a_traceback(example, capsys, args, message):
    assert main([a.replace("{ex}", str(example)) for a in args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_parse_type():
    assert parse_type("1d-int") == Kind("i", 1) and parse_type("float") == FLOAT
    with pytest.raises(Exception, match="unknown type"):
        parse_type("matrix")


def test_demo_checks_its_gradient():
    r = subprocess.run([sys.executable, "-m", "srcad", "demo"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert ": OK" in r.stdout and "def loss_rev(" in r.stdout


CHECKED = textwrap.dedent("""
    import math

    import numpy as np

    import srcad


    def loss(w, xs):
        h = 0.0
        for i in range(xs.shape[0]):
            h = math.tanh(w * h + xs[i])
            if h > 0.5:
                h = h * 0.9
        return h * h


    def power(x, n):
        return x ** n


    def snap(x):
        return np.floor(x)


    @srcad.defvjp(snap)
    def _(g, ans, x):
        return (g,)  # straight-through: not the true derivative, so the check must fail


    def quantized(x):
        return snap(4.0 * x) * x
""")


@pytest.fixture
def checked(tmp_path):
    path = tmp_path / "checked.py"
    path.write_text(CHECKED)
    return path


def test_check_agrees_with_finite_differences(checked, capsys):
    assert main(["check", f"{checked}:loss", "--args", "0.3,[-1,-0.5,0,0.5,1]", "--nojit"]) == 0
    out = capsys.readouterr().out
    assert "loss(w=0.3, xs=" in out and "d/d w" in out and "d/d xs[4]" in out
    assert out.rstrip().endswith(": OK") and "max relative error" in out


def test_check_takes_args_as_words_and_wrt_by_name(checked, capsys):
    assert main(["check", f"{checked}:loss", "--args", "0.3", "[1, 2]",
                 "--wrt", "w", "--nojit"]) == 0
    out = capsys.readouterr().out
    assert "d/d w" in out and "d/d xs" not in out


def test_check_leaves_ints_out_of_the_gradient(checked, capsys):
    assert main(["check", f"{checked}:power", "--args", "1.5,3", "--nojit"]) == 0
    out = capsys.readouterr().out
    assert "d/d x" in out and "d/d n" not in out


def test_check_exits_nonzero_on_a_mismatch(checked, capsys):
    assert main(["check", f"{checked}:quantized", "--args", "0.3", "--nojit"]) == 1
    assert capsys.readouterr().out.rstrip().endswith("MISMATCH")


def test_check_shows_a_few_elements_and_checks_all(checked, capsys):
    xs = "[" + ",".join(["0.1"] * 30) + "]"
    assert main(["check", f"{checked}:loss", "--args", f"0.3,{xs}", "--rows", "3",
                 "--nojit"]) == 0
    out = capsys.readouterr().out
    assert "d/d xs[2]" in out and "d/d xs[3]" not in out and "27 more elements" in out


@pytest.mark.parametrize("args, message", [
    (["--args", "0.3"], "1 values for 2 parameters"),
    (["--args", "np.ones(3)"], "only Python literals"),
    (["--args", "0.3,[1,2]", "--wrt", "q"], "not a parameter"),
])
def test_check_reports_errors_without_a_traceback(checked, capsys, args, message):
    assert main(["check", f"{checked}:loss", *args, "--nojit"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_show_forward_mode(example, capsys):
    assert main(["show", f"{example}:loss", "--mode", "fwd", "--nojit"]) == 0
    out = capsys.readouterr().out
    assert "def loss_jvp(w, xs, t_w):" in out and "_rev" not in out
    compile(out, "<shown>", "exec")


def test_show_color_marks_each_primal_line_with_its_place(example, capsys):
    assert main(["show", f"{example}:loss", "--color", "--nojit"]) == 0
    out = capsys.readouterr().out
    assert "\x1b[" in out  # ANSI colour
    assert "# grad of: h = math.tanh(w * h + xs[i])  <- example.py:7" in out


def test_show_color_without_pygments_is_plain(example, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "pygments", None)  # makes `import pygments` fail
    assert main(["show", f"{example}:loss", "--color", "--nojit"]) == 0
    out = capsys.readouterr().out
    assert "\x1b[" not in out and "<- example.py:7" in out
    compile(out, "<shown>", "exec")


def annotated(w, x: np.ndarray, grid: "np.ndarray", n=3, scale: float = 1, flag=False):
    return w * x[0] * grid[0, 1] * n * scale


def test_guess_kinds_reads_annotations_and_defaults():
    assert guess_kinds(annotated) == (FLOAT, Kind("f", 1), Kind("f", 2), INT, FLOAT,
                                      Kind("b", 0))


@pytest.mark.parametrize("text, words", [
    ("import numpy as np\ndef f(x)\n    return x\n", ["syntax error", ":2:"]),
    ("import not_a_module_anywhere\ndef f(x):\n    return x\n",
     ["importing", "ModuleNotFoundError"]),
], ids=["syntax", "import"])
def test_a_broken_target_file_is_an_error_not_a_traceback(tmp_path, capsys, text, words):
    path = tmp_path / "broken.py"
    path.write_text(text)
    assert main(["show", f"{path}:f"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("srcad: error:") and "Traceback" not in err
    for w in words:
        assert w in err
