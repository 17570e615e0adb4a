"""One place that decides how kernels are compiled.

Kernels use numba's on-disk cache so that a new process starts in a fraction of a
second.  numba raises at decoration time when it finds no writable cache directory
(a read-only install, a locked-down home); the library must still work there, only
slower to start, so we fall back to an uncached kernel instead of failing the import
(and warn once, saying how to fix it).

What a first call compiles, and what it costs, is kept small here rather than in the
kernels (measured on the project's 2-core machine, fresh process, empty cache):

- *no literal specialisation*: numba types a module constant passed to another kernel
  (``MODE_ANY``, ``0``) as a literal and compiles a separate copy of the callee and of
  everything it calls for each value.  The self-play loop compiled ``generate_moves``
  three times and ``legal_placements`` twice; now each kernel compiles once;
- *short shape errors*: numba 0.60+ formats the shapes into the message of a failed
  array-to-slice assignment, which compiles its whole string machinery (``str`` of
  ints, ``join``, f-strings: 2-4 s) into the first kernel that copies an array
  row.  While one of our kernels compiles, that error is numba's plain "cannot assign
  slice from input of different size" (our kernels never raise it: the Python layer
  checks every shape);
- *no GIL*: kernels release the GIL, so independent games run on Python threads
  without numba's parallel (``prange``) compilation, which alone took 12 s.

Compiling is announced once per process on the ``qwirkle_core`` logger (INFO), before
it starts; the command line shows that line on stderr.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

# numba's OpenMP threading layer leaves its worker threads spinning after a parallel
# region; on a machine whose cores are busy that turns every later prange call into a
# 15-25 ms wait (measured on 2 cores).  Sleeping idle workers cost nothing we can
# measure.  setdefault keeps a caller's own choice; it must precede the first launch.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numba
from numba.core import event as _event
from numba.core import types as _types
from numba.core.typing import templates as _templates

# numba's own annotations are partial: use its internals untyped.
event: Any = _event
types: Any = _types
templates: Any = _templates

F = TypeVar("F", bound=Callable[..., Any])

log = logging.getLogger("qwirkle_core")

_PACKAGE = Path(__file__).resolve().parent


def _sources_digest() -> str:
    """A digest of every module of the package, and of the numba that compiles it.

    numba's cache is keyed on the kernel's own source file only, so a kernel that calls
    a kernel of another module keeps running the old callee after that module changes.
    Caching under a directory named after all the sources makes any change start a
    fresh cache; the same sources reinstalled (a new virtual environment, pip install
    again) find the cache of the last install."""
    digest = hashlib.sha256()
    digest.update(numba.__version__.encode())
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


def user_cache_root() -> Path:
    """The user's cache directory for this package (``$XDG_CACHE_HOME/qwirkle_core``,
    else ``~/.cache/qwirkle_core``)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "qwirkle_core"


KEEP_CACHES = 4


def _prune(parent: Path, name: str) -> None:
    """Mark cache ``name`` as just used and drop all but the ``KEEP_CACHES`` most
    recently used ones (caches of older sources are dead weight; a few are kept for
    checkouts of different versions side by side).  Best effort."""
    try:
        os.utime(parent / name)
        caches = sorted(parent.glob("numba-*"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return
    for old in caches[KEEP_CACHES:]:
        shutil.rmtree(old, ignore_errors=True)


def _choose_cache_dir() -> str | None:
    """Where our kernels cache: NUMBA_CACHE_DIR if the caller set it (None here: numba
    uses it), else a per-sources directory in the user's cache (it survives
    reinstalling the package), else beside the package, else None (numba then looks
    for a place itself, and kernel() falls back to no cache)."""
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    if chosen:
        if not _writable_dir(Path(chosen)):
            # numba then quietly caches elsewhere (beside the sources, or its own user
            # cache) or nowhere.  Said once, when it matters: at the first compilation,
            # or when someone asks where the cache is (warmup) -- not at import, before
            # the command line has set up its message lines.
            global CHOSEN_DIR_UNWRITABLE
            CHOSEN_DIR_UNWRITABLE = chosen
        return None
    name = f"numba-{_sources_digest()}"
    for parent in (user_cache_root(), _PACKAGE / "__pycache__"):
        if _writable_dir(parent / name):
            _prune(parent, name)
            return str(parent / name)
    return None


CHOSEN_DIR_UNWRITABLE: str | None = None  # NUMBA_CACHE_DIR, when set but not writable
CACHE_DIR = _choose_cache_dir()
CACHING = True  # becomes False at the first kernel that numba cannot cache


_warned_unwritable_choice = False


def _warn_unwritable_choice() -> None:
    global _warned_unwritable_choice
    if CHOSEN_DIR_UNWRITABLE is not None and not _warned_unwritable_choice:
        _warned_unwritable_choice = True
        log.warning(
            "qwirkle_core: NUMBA_CACHE_DIR=%s is not a writable directory; numba falls back to "
            "another cache place or none. Point NUMBA_CACHE_DIR at a writable directory.",
            CHOSEN_DIR_UNWRITABLE,
        )


def cache_location() -> str:
    """Where compiled kernels are kept, in words (for ``warmup`` and messages)."""
    _warn_unwritable_choice()
    if not CACHING:
        return "nowhere (no writable cache directory: set NUMBA_CACHE_DIR to one)"
    if CHOSEN_DIR_UNWRITABLE is not None:
        return f"numba's fallback cache directory (NUMBA_CACHE_DIR={CHOSEN_DIR_UNWRITABLE} is not writable)"
    return CACHE_DIR or os.environ.get("NUMBA_CACHE_DIR") or "numba's default cache directory"


# ----------------------------------------------------------------- compile hooks
_state = threading.local()  # depth: how many of our kernels are compiling on this thread
_announced = False


def compiling_ours() -> bool:
    """True while one of our kernels (or a function it calls) compiles on this thread."""
    return getattr(_state, "depth", 0) > 0


class _CompileListener(event.Listener):  # type: ignore[misc]  # a base class of type Any
    """Announces the first compilation of the process, and logs each one's time."""

    def __init__(self) -> None:
        self.began: dict[int, float] = {}

    def on_start(self, ev: Any) -> None:
        if not compiling_ours() or getattr(_state, "depth", 0) != 1:
            return
        dispatcher = ev.data["dispatcher"]
        if getattr(dispatcher, "_qwirkle_kernel", False) is not True:
            return
        global _announced
        name = dispatcher.py_func.__name__
        if getattr(_state, "announced_here", None) != id(dispatcher):
            _state.announced_here = id(dispatcher)
            self.began[id(dispatcher)] = time.perf_counter()
            level = logging.DEBUG if _announced else logging.INFO
            if not _announced:
                _announced = True
                where = (
                    "once; kept in " + cache_location()
                    if CACHING
                    else "no writable cache: every new process compiles again"
                )
                log.log(
                    level,
                    "compiling kernels for first use (%s): up to a minute or two; "
                    "'qwirkle-core warmup' does it ahead ...",
                    where,
                )
            log.debug("compiling %s", name)

    def on_end(self, ev: Any) -> None:
        began = self.began.pop(id(ev.data["dispatcher"]), None)
        if began is not None:
            _state.announced_here = None
            log.debug("compiled %s in %.1f s", ev.data["dispatcher"].py_func.__name__, time.perf_counter() - began)


event.register("numba:compile", _CompileListener())


def _short_shape_errors() -> None:
    """While our kernels compile, give a failed slice assignment numba's plain message
    (see the module docstring).  numba caches an overload's implementation per
    signature, so whichever compiles first in a process serves both; the only
    difference is the wording of an error our kernels never raise."""
    try:
        from numba.np import arrayobj

        target = arrayobj.raise_with_shape_context
        cpu = arrayobj.ol_raise_with_shape_context_cpu
        generic = arrayobj.ol_raise_with_shape_context_generic
    except AttributeError:  # another numba: nothing to do
        return
    for key, fnty in templates.builtin_registry.globals:
        if key is not target:
            continue
        for template in getattr(fnty, "templates", ()):
            if getattr(template, "_overload_func", None) is cpu:

                def choose(src_shapes: Any, index_shape: Any) -> Any:
                    chosen = generic if compiling_ours() else cpu
                    return chosen(src_shapes, index_shape)

                template._overload_func = staticmethod(choose)


_short_shape_errors()


def _tame(dispatcher: Any) -> Any:
    """Wrap a new dispatcher: mark its compilations as ours, and compile it for plain
    argument types when another kernel calls it (see the module docstring).  With
    NUMBA_DISABLE_JIT=1 numba returns the plain function: nothing to do."""
    compile_ = getattr(dispatcher, "compile", None)
    if compile_ is None:
        return dispatcher

    def compile(sig: Any) -> Any:
        depth = getattr(_state, "depth", 0)
        _state.depth = depth + 1
        try:
            return compile_(sig)
        finally:
            _state.depth = depth

    def get_call_template(args: Any, kws: Any) -> Any:
        pysig, folded = dispatcher._compiler.fold_argument_types(args, kws)
        plain = tuple(types.unliteral(a) for a in folded)
        if dispatcher._can_compile:
            compile(plain)
        template = templates.make_concrete_template(
            f"CallTemplate({dispatcher.py_func.__name__})",
            key=dispatcher.py_func.__name__,
            signatures=dispatcher.nopython_signatures,
        )
        return template, pysig, plain, {}

    dispatcher.compile = compile
    dispatcher.get_call_template = get_call_template
    dispatcher._qwirkle_kernel = True
    return dispatcher


def _warn_no_cache(name: str) -> None:
    global CACHING
    if CACHING:
        CACHING = False
        log.warning(
            "qwirkle_core: no writable directory for numba's cache (at %s): every new process "
            "compiles the kernels again (seconds). Set NUMBA_CACHE_DIR to a writable directory.",
            name,
        )


def _compile(func: F, **options: Any) -> F:
    # numba reads config.CACHE_DIR when the kernel is decorated (to place its cache);
    # set it for our kernels only, so other numba users in the process are unaffected.
    config: Any = numba.config  # numba's config attributes are made at run time
    saved = config.CACHE_DIR
    if CACHE_DIR is not None:
        config.CACHE_DIR = CACHE_DIR
    try:
        try:
            dispatcher = numba.njit(cache=True, nogil=True, **options)(func)
        except RuntimeError:
            # "cannot cache function ...: no locator available" -- nowhere to write.
            _warn_no_cache(func.__name__)
            dispatcher = numba.njit(cache=False, nogil=True, **options)(func)
        return cast(F, _tame(dispatcher))
    finally:
        config.CACHE_DIR = saved


def kernel(func: F) -> F:
    """Compile ``func`` in nopython mode (GIL released), cached when a cache dir is
    writable, compiled at its first call."""
    return _compile(func)


def parallel_kernel(func: F) -> F:
    """Like :func:`kernel`, for kernels that use ``numba.prange``."""
    return _compile(func, parallel=True)


def inline_kernel(func: F) -> F:
    """A kernel (callable from Python, cached) that other kernels inline at numba-IR
    level instead of calling.

    For the layers of a call chain (the game loop calls the turn, which calls the bot,
    which calls the move generator): numba optimises and generates machine code for
    every kernel's module with all its callees linked in, so each layer that is a
    kernel of its own compiles everything below it once more (half the CPU time of a
    first self-play game went to that).  Inlined, a layer costs its own typing once
    per call site and nothing more; keep it to functions with one or two call sites
    in kernels."""
    return _compile(func, inline="always")


def helper(func: F) -> F:
    """A small function for kernels: compiled once, and inlined by LLVM into each
    kernel that calls it (numba links the callee's code into the caller's module before
    optimising it, so a call to a few-line function costs nothing at run time).

    Prefer it to :func:`inline_helper`: numba-IR inlining copies, types and lowers the
    helper again at every call site, which made the first call of the move generator
    seconds slower to compile, and measured no faster at run time."""
    return _compile(func, no_cpython_wrapper=True, no_cfunc_wrapper=True)


def inline_helper(func: F) -> F:
    """A helper inlined into its callers at numba-IR level (typed and lowered again at
    every call site: costly to compile).

    Only for helpers that LLVM would not inline (too large) and whose call costs
    run-time speed: they take arrays, and a call that stays a call costs reference
    counting on each of them.  The move generator's walks are such helpers.
    """
    return cast(F, numba.njit(inline="always")(func))


def interruptible(kernel: F) -> F:
    """``kernel``, raising what interrupted it.  A signal whose Python handler raises
    (Ctrl-C's KeyboardInterrupt, the engine's SIGTERM) while a parallel kernel runs
    comes out of numba as ``SystemError: ... returned a result with an exception set``;
    this raises the exception itself instead, so that callers end cleanly (exit 130)."""

    @functools.wraps(kernel)
    def call(*args: Any) -> Any:
        try:
            return kernel(*args)
        except SystemError as exc:
            cause = exc.__cause__ or exc.__context__
            if cause is None:
                raise
            raise cause.with_traceback(None) from None

    return cast(F, call)
