"""Generated modules live as files in a cache directory, named by a content hash, next to
small JSON records by which a later process finds them without generating them again."""
import contextlib
import hashlib
import json
import linecache
import os
import stat
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


def trusted_dir(warning=UserWarning):
    """The cache directory, when only this user can write it; else None, with a `warning`
    (once) that modules are compiled in memory instead.

    Whoever can write the directory can make this process run their code (a module
    file, Numba's pickled index), so, as ssh treats `~/.ssh`, the directory (and Numba's
    folder in it, if there is one) must be owned by this user and not writable by group
    or others. A directory that does not exist yet is made so (mode 700)."""
    folder = cache_dir()
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        problem = _untrusted(folder) or _untrusted(os.path.join(folder, "__pycache__"))
    except OSError:
        return folder  # cannot be made: writing fails later, with its own warning
    if problem:
        warn_once(cache_problem("trust generated modules", folder, problem,
                                "compiling in memory instead, with nothing read from it",
                                "to a directory that only you can write (mode 700)"), warning)
        return None
    return folder


def _untrusted(folder):
    """Why `folder` cannot be trusted (someone else may write it), or None."""
    try:
        st = os.stat(folder)
    except FileNotFoundError:
        return None
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return f"{folder} is owned by user id {st.st_uid}, not by this user"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"{folder} is writable by {'others' if st.st_mode & stat.S_IWOTH else 'group'}" \
            f" (mode {stat.S_IMODE(st.st_mode):o}; chmod go-w fixes it)"
    return None


KEY_LINE = "# cache key: "


def with_key(source, key):
    """`source` with its cache key as its last line: everything it depends on that is
    not in its text (a hash), or None when some of that has no stable description.
    The key is part of the module's content hash, so its file and Numba's cache files
    for it change with it; a module keyed None is never written (see `load_module`)."""
    return f"{source}{KEY_LINE}{key or 'none'}\n"


def key_of(source):
    """The key that `with_key` put in `source`, 'none', or None when there is none."""
    last = source.rstrip("\n").rpartition("\n")[2]
    return last[len(KEY_LINE):] if last.startswith(KEY_LINE) else None


def cache_problem(what, directory, exc, instead="compiling in memory instead",
                  fix="to a writable directory, or empty this one"):
    """One message for a cache directory srcad cannot use: what failed, where, and the fix.

    `exc` is the exception, or a string saying why."""
    if isinstance(exc, OSError) and exc.errno:
        reason = os.strerror(exc.errno)
    else:
        reason = exc if isinstance(exc, str) else f"{type(exc).__name__}: {exc}"
    return (f"cannot {what} in the cache directory {directory} ({reason}); {instead}, which "
            f"works but is not reused by the next process. Set SRCAD_CACHE_DIR {fix}, to "
            "fix this.")


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
    When the cache directory cannot be written or trusted (see `trusted_dir`), the module
    is built in memory (no `__file__`, so Numba does not cache it) and a `warning` says
    so, once; so is a module whose key (see `with_key`) is 'none', silently.
    `variant` tells apart two imports of the same file (say, compiled and plain), which
    must not share module globals.
    """
    name = module_name(source, stem)
    folder = trusted_dir(warning) if key_of(source) != "none" else None
    path = os.path.join(folder, name + ".py") if folder else None
    if path and _read(path) != source:
        try:
            _write(path, source)
            # Numba's folder, before Numba makes it with the umask's mode (see trusted_dir)
            os.makedirs(os.path.join(folder, "__pycache__"), mode=0o700, exist_ok=True)
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
    folder = trusted_dir()
    source = _read(os.path.join(folder, name + ".py")) if folder else None
    stem = name.rpartition("_")[0]
    return source if source is not None and module_name(source, stem) == name else None


def load_record(key, digest, warning=UserWarning):
    """The JSON object `save_record(key, digest, ...)` left, or None (none, unreadable,
    or not for this `digest`).

    A record names a module file; it is believed only when it carries `digest` (the
    hash of everything its module depends on) and the module it names is whole and
    carries the same digest as its key line (see `with_key`): a record that names
    another function's module, or an older module, is not used. Nothing is read from a
    directory that `trusted_dir` does not trust (a `warning` says so, once)."""
    folder = trusted_dir(warning)
    text = _read(os.path.join(folder, key + ".json")) if folder else None
    try:
        record = json.loads(text) if text is not None else None
        source = cached_source(record["module"]) if record["digest"] == digest else None
    except (ValueError, TypeError, KeyError):
        return None
    return record if source is not None and key_of(source) == digest else None


def save_record(key, digest, value):
    """Keep the JSON object `value`, marked with `digest`, in the cache directory under
    `key`, for a later process. A record only saves time, so one that cannot be written
    is silently left out (a cache directory that cannot be written or trusted has been
    warned about already)."""
    folder = trusted_dir()
    if folder is None:
        return
    try:
        _write(os.path.join(folder, key + ".json"),
               json.dumps(dict(value, digest=digest), sort_keys=True))
    except OSError:
        pass
