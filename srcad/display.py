"""Showing generated source to a person: highlighted HTML for Jupyter, colour for a terminal.

Each adjoint block of a generated module starts with a `# grad of: <primal line>` comment.
Both displays make those comments stand out and add where the primal line is in the user's
file or notebook cell (`example.py:6`, `Cell In[3], line 4`). Pygments is optional: it is
imported only here, when something is displayed, and without it the HTML is a plain
`<pre>` with the same marks and the terminal text is uncoloured.

>>> text = "def f_rev(x):\\n    # grad of: y = x * x\\n    d_x = 2.0 * x\\n"
>>> lines = annotate(text, {})
>>> [(line, note) for line, note in lines if note is not None]
[('    # grad of: y = x * x', '')]
"""
import html
import os
import re

_DEF = re.compile(r"def (\w+)\(")
_GRAD_OF = re.compile(r"\s*# grad of: (.*)$")

MARK_BACKGROUND = "#fff2b3"  # the `# grad of:` lines in HTML
NOTE_COLOR = "#8a5a00"


def user_functions(program):
    """Generated function name -> the user's `FunctionSource` it was made from."""
    out = {}
    for spec in getattr(program, "order", ()):
        fsrc = getattr(getattr(spec, "ctx", None), "fsrc", None)
        if fsrc is None:
            continue
        for attr in ("fwd_name", "rev_name", "jvp_name"):
            name = getattr(spec, attr, None)
            if name:
                out[name] = fsrc
    return out


def where(fsrc, text):
    """Where the stripped primal line `text` is in `fsrc`'s source: `example.py:6`,
    `Cell In[3], line 4`, `example.py:6, 9` when it occurs twice, or '' when not found."""
    numbers = [fsrc.offset + i + 1 for i, line in enumerate(getattr(fsrc, "lines", ()))
               if line.strip() == text]
    if not numbers:
        return ""
    lines = ", ".join(map(str, numbers))
    if fsrc.cell:
        return f"{fsrc.cell}, line{'s' if len(numbers) > 1 else ''} {lines}"
    return f"{os.path.basename(fsrc.filename)}:{lines}"


def annotate(text, functions):
    """The lines of generated `text`, each with None, or for a `# grad of:` comment the
    place of its primal line ('' when unknown)."""
    out, current = [], None
    for line in text.splitlines():
        match = _DEF.match(line)
        if match:
            current = functions.get(match.group(1))
        match = _GRAD_OF.match(line)
        if match is None:
            out.append((line, None))
        else:
            out.append((line, where(current, match.group(1).strip()) if current else ""))
    return out


def _with_notes(lines):
    """The source with `  <- place` appended to each `# grad of:` comment that has one."""
    return "\n".join(line + (f"  <- {note}" if note else "") for line, note in lines) + "\n"


# a notebook's own CSS may give a `pre` the page's font (`font-family: inherit`): the
# element around it says monospace, so that inheriting finds it
_FONT = "font-family: var(--jp-code-font-family, ui-monospace, Menlo, Consolas, monospace)"


def to_html(text, functions=None):
    """The generated module as highlighted HTML, `# grad of:` lines marked and placed."""
    lines = annotate(text, functions or {})
    marked = [i + 1 for i, (_, note) in enumerate(lines) if note is not None]
    try:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import PythonLexer
        from pygments.styles.default import DefaultStyle
        from pygments.token import Comment
    except ImportError:
        return _plain_html(lines)

    class Style(DefaultStyle):  # inline styles ignore `hl_color`: the style carries it
        highlight_color = MARK_BACKGROUND
        styles = {**DefaultStyle.styles, Comment.Single: f"bold {NOTE_COLOR}"}

    formatter = HtmlFormatter(noclasses=True, hl_lines=marked, nobackground=True, style=Style)
    body = highlight(_with_notes(lines), PythonLexer(), formatter)
    return f'<div class="srcad-source" style="{_FONT}">' + body + "</div>"


def _plain_html(lines):
    rows = []
    for line, note in lines:
        if note is None:
            rows.append(html.escape(line))
        else:
            extra = f'  <span style="color: {NOTE_COLOR}">&lt;- {html.escape(note)}</span>' \
                if note else ""
            rows.append(f'<span style="background-color: {MARK_BACKGROUND}; '
                        f'font-weight: bold">{html.escape(line)}{extra}</span>')
    return f'<div class="srcad-source" style="{_FONT}"><pre>' + "\n".join(rows) + "</pre></div>"


def to_terminal(text, functions=None):
    """The generated module coloured for a terminal (plain when Pygments is missing or
    `NO_COLOR` is set), with the place of each `# grad of:` primal line appended to its
    comment; colours for a dark background unless `COLORFGBG` says the terminal is light."""
    notes = _with_notes(annotate(text, functions or {}))
    if os.environ.get("NO_COLOR"):
        return notes
    try:
        from pygments import highlight
        from pygments.formatters import TerminalFormatter
        from pygments.formatters.terminal import TERMINAL_COLORS
        from pygments.lexers import PythonLexer
        from pygments.token import Comment
    except ImportError:
        return notes
    colors = {**TERMINAL_COLORS, Comment: ("*yellow*", "*brightyellow*")}  # bold, to stand out
    light = os.environ.get("COLORFGBG", "").rpartition(";")[2] in ("7", "15")
    return highlight(notes, PythonLexer(),
                     TerminalFormatter(colorscheme=colors, bg="light" if light else "dark"))
