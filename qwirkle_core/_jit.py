"""One place that decides how kernels are compiled.

Kernels use numba's on-disk cache so that a new process starts in a fraction of a
second.  numba raises at decoration time when it finds no writable cache directory
(a read-only install, a locked-down home); the library must still work there, only
slower to start, so we fall back to an uncached kernel instead of failing the import.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar, cast

# numba's OpenMP threading layer leaves its worker threads spinning after a parallel
# region; on a machine whose cores are busy that turns every later prange call into a
# 15-25 ms wait (measured on 2 cores).  Sleeping idle workers cost nothing we can
# measure.  setdefault keeps a caller's own choice; it must precede the first launch.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numba

F = TypeVar("F", bound=Callable[..., Any])


def kernel(func: F) -> F:
    """Compile ``func`` with ``nopython`` mode, cached when a cache dir is writable."""
    try:
        return cast(F, numba.njit(cache=True)(func))
    except RuntimeError:
        # "cannot cache function ...: no locator available" -- nowhere to write.
        return cast(F, numba.njit(cache=False)(func))


def parallel_kernel(func: F) -> F:
    """Like :func:`kernel`, for kernels that use ``numba.prange``."""
    try:
        return cast(F, numba.njit(cache=True, parallel=True)(func))
    except RuntimeError:
        return cast(F, numba.njit(cache=False, parallel=True)(func))


def inline_helper(func: F) -> F:
    """A small scalar helper, inlined into its callers at numba-IR level.

    A plain call between two cached kernels is not inlined across their separately
    compiled libraries; for helpers in the innermost loops that call costs more than
    the helper's work.
    """
    return cast(F, numba.njit(inline="always")(func))
