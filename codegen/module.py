"""Generated modules live as files in a cache directory, named by a content hash."""
import hashlib
import importlib.util
import os
import sys
import tempfile


def cache_dir():
    """Where generated modules are written: $SRCAD_CACHE_DIR, else a per-user folder."""
    root = os.environ.get("SRCAD_CACHE_DIR")
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "srcad")
    try:
        os.makedirs(root, exist_ok=True)
    except OSError:
        root = os.path.join(tempfile.gettempdir(), "srcad-cache")
        os.makedirs(root, exist_ok=True)
    return root


def _read(path):
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except OSError:
        return None


def load_module(source, stem, variant=""):
    """Write `source` to `<cache>/<stem>_<hash>.py` (once) and import it as a fresh module.

    `variant` tells apart two imports of the same file (say, compiled and plain), which
    must not share module globals.
    """
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    name = f"{stem}_{digest}"
    path = os.path.join(cache_dir(), name + ".py")
    if _read(path) != source:
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(source)
        os.replace(tmp, path)
    mod_name = f"_srcad_generated.{name}{variant}"
    spec = importlib.util.spec_from_file_location(mod_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    spec.loader.exec_module(module)
    return module
