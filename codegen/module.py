"""Generated modules live as files in a cache directory, named by a content hash, next to
small JSON records by which a later process finds them without generating them again."""
import contextlib
import hashlib
import json
import linecache
import os
import sys
import tempfile
import types
import warnings


def cache_dir():
    """Where generated modules are written: $SRCAD_CACHE_DIR, else a per-user folder."""
    root = os.environ.get("SRCAD_CACHE_DIR")
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "srcad")
    return root


def cache_problem(what, directory, exc, instead="compiling in memory instead"):
    """One message for a cache directory srcad cannot use: what failed, where, and the fix.

    `exc` is the exception, or a string saying why."""
    if isinstance(exc, OSError) and exc.errno:
        reason = os.strerror(exc.errno)
    else:
        reason = exc if isinstance(exc, str) else f"{type(exc).__name__}: {exc}"
    return (f"cannot {what} in the cache directory {directory} ({reason}); {instead}, which "
            "works but is not reused by the next process. Set SRCAD_CACHE_DIR to a writable "
            "directory, or empty this one, to fix this.")


def warn_once(message, category):
    """`warnings.warn` each distinct message once per process."""
    if message not in _WARNED:
        _WARNED.add(message)
        warnings.warn(message, category, stacklevel=4)


_WARNED = set()


def _read(path):
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError):
        return None


def _write(path, source):
    """Write `source` to `path` atomically: a temporary file in the same folder, then
    `os.replace`, so concurrent writers and readers only ever see a whole file."""
    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(source)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def load_module(source, stem, variant="", warning=UserWarning):
    """Import `source` as a fresh module backed by the file `<cache>/<stem>_<hash>.py`.

    The file is (re)written unless it already holds exactly `source`, and the module runs
    `source` itself, never what a file says, so a stale or corrupt file cannot be imported.
    When the cache directory cannot be written, the module is built in memory (no
    `__file__`, so Numba does not cache it) and a `warning` says so, once.
    `variant` tells apart two imports of the same file (say, compiled and plain), which
    must not share module globals.
    """
    name = module_name(source, stem)
    folder = cache_dir()
    path = os.path.join(folder, name + ".py")
    if _read(path) != source:
        try:
            _write(path, source)
        except OSError as exc:
            warn_once(cache_problem("write generated modules", folder, exc), warning)
            path = None
    mod_name = f"_srcad_generated.{name}{variant}"
    module = types.ModuleType(mod_name)
    filename = path or f"<srcad {name}.py>"
    if path:
        module.__file__ = path
    else:
        lines = source.splitlines(keepends=True)
        linecache.cache[filename] = (len(source), None, lines, filename)
    sys.modules[mod_name] = module
    exec(compile(source, filename, "exec"), module.__dict__)
    return module


def module_name(source, stem):
    """`<stem>_<hash>`: the name under which `load_module` writes `source`."""
    return f"{stem}_{hashlib.sha256(source.encode()).hexdigest()[:16]}"


def cached_source(name):
    """The source in the module file `name` (see `module_name`) in the cache directory,
    if it is whole: its content hash is the one in its name. Else None."""
    source = _read(os.path.join(cache_dir(), name + ".py"))
    stem = name.rpartition("_")[0]
    return source if source is not None and module_name(source, stem) == name else None


def load_record(key):
    """The JSON value `save_record` left under `key`, or None (none, or unreadable)."""
    text = _read(os.path.join(cache_dir(), key + ".json"))
    try:
        return json.loads(text) if text is not None else None
    except ValueError:
        return None


def save_record(key, value):
    """Keep the JSON `value` in the cache directory under `key`, for a later process.
    A record only saves time, so one that cannot be written is silently left out (a
    cache directory that cannot be written has been warned about already)."""
    try:
        _write(os.path.join(cache_dir(), key + ".json"), json.dumps(value, sort_keys=True))
    except OSError:
        pass
