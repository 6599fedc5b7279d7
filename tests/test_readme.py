"""Every example in README.md runs as written.

The fenced code blocks are read from README.md itself. Its ```python blocks run in order
in one namespace, as a reader pasting them into one Python session would run them, in a
fresh directory with an empty cache. A block that shows an error on purpose says so with
a `# raises SrcadError` comment (any exception name of srcad or the builtins) and must
raise it. Output, generated code and error messages belong in ```text or plain ``` blocks,
which do not run.

In those other blocks, each `$ python -m srcad ...` line runs the command line on the files
the README shows (a ```python block whose first line is `# model.py`). It must exit as the
README says (0, or the number after a following `$ echo $?`) and print the first line of
output the README shows.
"""
import builtins
import os
import re
import shlex
import subprocess
import sys
import types
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

import srcad

README = Path(__file__).resolve().parent.parent / "README.md"

OPENING_FENCE = re.compile(r"( {0,3})(`{3,}|~{3,})\s*([^`\s]*)")
RAISES = re.compile(r"#\s*raises\s+(\w+)")
FILE_NAME = re.compile(r"#\s*([\w./-]+\.py)\s*")


@dataclass
class Block:
    """A fenced code block of README.md: its info string (`python`, `bash`, or empty), the
    README line of its first line of code, and its text."""

    language: str
    line: int
    text: str

    def where(self):
        first = next((s.strip() for s in self.text.splitlines() if s.strip()), "")
        return f"README.md line {self.line}, the block starting `{first}`"


@dataclass
class Command:
    """A `$ python -m srcad ...` line of a README block, the first line of output the
    README shows for it, and the exit code it gives."""

    line: int
    arguments: list
    first_output: str
    exit_code: int = 0


def fenced_blocks(markdown):
    """The fenced code blocks of `markdown`, as CommonMark reads them: a fence of three or
    more backticks or tildes, indented by at most three spaces, closed by a fence of the
    same character at least as long (or by the end of the document)."""
    lines = markdown.splitlines()
    blocks, i = [], 0
    while i < len(lines):
        opening = OPENING_FENCE.fullmatch(lines[i].rstrip())
        i += 1
        if not opening:
            continue
        indent, fence, language = len(opening[1]), opening[2], opening[3]
        closing = re.compile(rf" {{0,3}}{fence[0]}{{{len(fence)},}}\s*")
        start = i
        while i < len(lines) and not closing.fullmatch(lines[i]):
            i += 1
        code = [re.sub(rf"^ {{0,{indent}}}", "", s) for s in lines[start:i]]
        blocks.append(Block(language.lower(), start + 1, "\n".join(code) + "\n"))
        i += 1
    return blocks


def srcad_commands(blocks):
    """The `$ python -m srcad ...` lines of the blocks that are not Python."""
    commands = []
    for block in blocks:
        if block.language == "python":
            continue
        lines = block.text.splitlines() + [""]
        for k, line in enumerate(lines[:-1]):
            following = lines[k + 1]
            if line.startswith("$ python -m srcad "):
                shown = "" if following.startswith("$ ") else following
                commands.append(Command(block.line + k, shlex.split(line[len("$ python "):]),
                                        shown))
            elif line.strip() == "$ echo $?" and commands:
                commands[-1].exit_code = int(following)
    return commands


def shown_files(blocks):
    """The files the README shows, by name: ```python blocks whose first line is
    `# name.py`."""
    return {named[1]: block.text for block in blocks if block.language == "python"
            for named in [FILE_NAME.fullmatch(block.text.partition("\n")[0])] if named}


def expected_exception(block):
    """The exception class a `# raises NAME` comment in `block` names, or None."""
    marker = RAISES.search(block.text)
    if marker is None:
        return None
    cls = getattr(srcad, marker[1], None) or getattr(builtins, marker[1], None)
    assert isinstance(cls, type) and issubclass(cls, BaseException), \
        f"{block.where()}: `# raises {marker[1]}` names no exception of srcad or the builtins"
    return cls


BLOCKS = fenced_blocks(README.read_text(encoding="utf-8"))
PYTHON = [b for b in BLOCKS if b.language == "python"]
COMMANDS = srcad_commands(BLOCKS)


def test_readme_has_examples():
    assert len(PYTHON) >= 5 and COMMANDS, "README.md: no ```python blocks or commands found"


def test_python_blocks_run_in_order(tmp_path, monkeypatch):
    """One module file holds every block, so srcad reads each function's source from it;
    each block is compiled at its own lines of that file and runs in the module's namespace,
    so that a failure names its block."""
    monkeypatch.setenv("SRCAD_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "readme_session.py"
    offsets, text = [], ""
    for block in PYTHON:
        text += f"# README.md line {block.line}\n"
        offsets.append(text.count("\n"))
        text += block.text + "\n"
    path.write_text(text, encoding="utf-8")
    module = types.ModuleType("readme_session")
    module.__file__ = str(path)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    with warnings.catch_warnings():
        warnings.simplefilter("error", srcad.SrcadWarning)  # no quiet fall-back to Python
        for block, offset in zip(PYTHON, offsets):
            code = compile("\n" * offset + block.text, str(path), "exec", dont_inherit=True)
            run_block(block, code, module.__dict__)


def run_block(block, code, namespace):
    expected = expected_exception(block)
    try:
        exec(code, namespace)
    except Exception as exc:
        if expected is not None and isinstance(exc, expected):
            return
        raise AssertionError(f"{block.where()} raised {type(exc).__name__}: {exc}") from exc
    assert expected is None, f"{block.where()} should raise {expected.__name__}"


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: f"line{c.line}")
def test_command(command, tmp_path):
    """The command, run on copies of the files the README shows, in a fresh directory."""
    for name, text in shown_files(BLOCKS).items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    where = f"README.md line {command.line}, `python {shlex.join(command.arguments)}`"
    for target in command.arguments[2:]:
        file = target.partition(":")[0] if ".py:" in target else None
        assert file is None or (tmp_path / file).exists(), \
            f"{where}: no ```python block shows {file} (with `# {file}` as its first line)"
    env = {**os.environ, "SRCAD_CACHE_DIR": str(tmp_path / "cache")}
    run = subprocess.run([sys.executable, *command.arguments], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == command.exit_code, \
        f"{where} exited {run.returncode}, not {command.exit_code}:\n{run.stdout}{run.stderr}"
    printed = run.stdout.partition("\n")[0]
    assert printed == command.first_output, \
        f"{where} printed first\n  {printed}\nwhere the README shows\n  {command.first_output}"
