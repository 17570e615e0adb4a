"""One place that decides how kernels are compiled.

Kernels use numba's on-disk cache so that a new process starts in a fraction of a
second.  numba raises at decoration time when it finds no writable cache directory
(a read-only install, a locked-down home); the library must still work there, only
slower to start, so we fall back to an uncached kernel instead of failing the import.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

# numba's OpenMP threading layer leaves its worker threads spinning after a parallel
# region; on a machine whose cores are busy that turns every later prange call into a
# 15-25 ms wait (measured on 2 cores).  Sleeping idle workers cost nothing we can
# measure.  setdefault keeps a caller's own choice; it must precede the first launch.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numba

F = TypeVar("F", bound=Callable[..., Any])

_PACKAGE = Path(__file__).resolve().parent


def _sources_digest() -> str:
    """A digest of every module of the package.

    numba's cache is keyed on the kernel's own source file only, so a kernel that calls
    a kernel of another module keeps running the old callee after that module changes.
    Caching under a directory named after all the sources makes any change start a
    fresh cache."""
    digest = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*.py")):  # subpackages too
        digest.update(path.relative_to(_PACKAGE).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _writable_dir(path: Path) -> bool:
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError:
        return False
    return True


def _choose_cache_dir() -> str | None:
    """Where our kernels cache: NUMBA_CACHE_DIR if the caller set it (None here: numba
    uses it), else a per-sources directory beside the package or in the user's cache,
    else None (numba then looks for a place itself, and kernel() falls back to no cache)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    name = f"numba-{_sources_digest()}"
    user_cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "qwirkle_core"
    for parent in (_PACKAGE / "__pycache__", user_cache):
        if _writable_dir(parent / name):
            # Caches of older sources are dead weight: drop them (best effort).
            for old in parent.glob("numba-*"):
                if old.name != name:
                    shutil.rmtree(old, ignore_errors=True)
            return str(parent / name)
    return None


CACHE_DIR = _choose_cache_dir()


def _compile(func: F, **options: Any) -> F:
    # numba reads config.CACHE_DIR when the kernel is decorated (to place its cache);
    # set it for our kernels only, so other numba users in the process are unaffected.
    config: Any = numba.config  # numba's config attributes are made at run time
    saved = config.CACHE_DIR
    if CACHE_DIR is not None:
        config.CACHE_DIR = CACHE_DIR
    try:
        try:
            return cast(F, numba.njit(cache=True, **options)(func))
        except RuntimeError:
            # "cannot cache function ...: no locator available" -- nowhere to write.
            return cast(F, numba.njit(cache=False, **options)(func))
    finally:
        config.CACHE_DIR = saved


def kernel(func: F) -> F:
    """Compile ``func`` in nopython mode, cached when a cache dir is writable."""
    return _compile(func)


def parallel_kernel(func: F) -> F:
    """Like :func:`kernel`, for kernels that use ``numba.prange``."""
    return _compile(func, parallel=True)


def inline_helper(func: F) -> F:
    """A small scalar helper, inlined into its callers at numba-IR level.

    A plain call between two cached kernels is not inlined across their separately
    compiled libraries; for helpers in the innermost loops that call costs more than
    the helper's work.
    """
    return cast(F, numba.njit(inline="always")(func))
