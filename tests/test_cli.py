"""`python -m srcad show` and `python -m srcad demo`."""
import subprocess
import sys
import textwrap

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
