"""One place that decides how kernels are compiled and cached.

Kernels are ``numba.njit(cache=True)`` functions: a kernel compiles at its first call
in an environment and is kept in numba's on-disk cache, which every later process
loads in milliseconds.  The first compilation of a process says so, once, before it
starts: one line on stderr (library users have no logger configured), an INFO record
on the ``qwirkle_core`` logger, and a DEBUG record per kernel with its time.
``qwirkle-core warmup`` compiles everything ahead.

The cache lives in a directory named after every source of the package and the numba
version (:func:`_sources_digest`), so an edit anywhere starts a fresh cache.  numba
raises at decoration time when it finds no writable cache directory (a read-only
install, a locked-down home); the library must still work there, only slower to start,
so we fall back to an uncached kernel instead of failing the import (and warn once,
saying how to fix it).

Kernels release the GIL, so independent games run on Python threads without numba's
parallel (``prange``) compilation, which alone took 12 s.  Every private numba name the
package touches is in :mod:`qwirkle_core._numba_private`, with what it buys.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import shutil
import sys
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

from . import _numba_private

# numba's own annotations are partial: use its event API untyped.
event: Any = _event

F = TypeVar("F", bound=Callable[..., Any])

# NUMBA_DISABLE_JIT=1 (the coverage test run): every kernel is its plain Python source.
JIT_OFF = bool(getattr(numba.config, "DISABLE_JIT"))  # noqa: B009 - numba's config is untyped

log = logging.getLogger("qwirkle_core")

_PACKAGE = Path(__file__).resolve().parent


def _sources_digest() -> str:
    """A digest of every module of the package, and of the numba that compiles it.

    numba's cache is keyed on the kernel's own source file only, so a kernel that calls
    a kernel of another module keeps running the old callee after that module changes.
    Caching under a directory named after all the sources makes any change start a
    fresh cache.  Inside it numba files each kernel under its source file's path (and
    checks the file's size and time), so the same sources at the same path find it again
    (a later process, a reinstall into the same environment, another environment with an
    editable install of the same checkout); sources installed at another path (a
    regular install into another environment) compile their own (measured; the table in
    docs/development.md)."""
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


# ---------------------------------------------------------- announcing compilation
# What a first compilation costs, measured on the project's 2-core machine, loaded
# (numba 0.68.1, an empty cache, 2026-12-02): the README's first query 8.6-9.7 s (8.3-9.2
# s of CPU), every kernel (``qwirkle-core warmup``, 2 processes) 152 s.
FIRST_QUERY_SECONDS = 10
EVERYTHING_MINUTES = "2-3"
STDERR_RECORD = "qwirkle_core_on_stderr"  # set on the INFO record whose line is on stderr already

_ours: set[int] = set()  # id() of every dispatcher made here (they live as long as the process)
_local = threading.local()  # stack: (ours, began) per compilation in progress on this thread
_announced = False
_announce_lock = threading.Lock()
# Who says the compile line on stderr: the library, or the command line, which sets its
# own name so that every line it writes there starts the same (docs/cli.md).
stderr_name = "qwirkle_core"


def compiled_here() -> bool:
    """Whether this process has compiled any of our kernels (rather than loading every
    one it ran from the cache)."""
    return _announced


def first_compile_line() -> str:
    """The line the first compilation of a process prints on stderr."""
    where = (
        "kept in " + cache_location()
        if CACHING
        else "no writable cache: every new process compiles again; set NUMBA_CACHE_DIR to a writable directory"
    )
    return (
        f"{stderr_name}: compiling kernels for first use, once per environment "
        f"(about {FIRST_QUERY_SECONDS} s for a first query, {EVERYTHING_MINUTES} min for everything; {where}); "
        "'qwirkle-core warmup' (or 'python -m qwirkle_core warmup') does it ahead"
    )


def _announce() -> None:
    global _announced
    with _announce_lock:
        if _announced:
            return
        _announced = True
    line = first_compile_line()
    bars = sys.modules.get("tqdm")
    try:
        if bars is not None:  # a progress bar may be on screen: print above it
            bars.tqdm.write(line, file=sys.stderr)
        elif sys.stderr is not None:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()
    except (OSError, ValueError):  # a closed stderr: the logger still has it
        pass
    log.info("%s", line.removeprefix(f"{stderr_name}: "), extra={STDERR_RECORD: True})


class _CompileListener(event.Listener):  # type: ignore[misc]  # a base class of type Any
    """Announces the first compilation of one of our kernels in the process, and logs
    each outermost one's time (numba's event API: ``numba:compile`` starts and ends
    around every compilation, nested ones included, and not around a cache load)."""

    def on_start(self, ev: Any) -> None:
        stack = getattr(_local, "stack", None)
        if stack is None:
            stack = _local.stack = []
        dispatcher = ev.data["dispatcher"]
        ours = id(dispatcher) in _ours
        outermost = ours and not any(o for o, _ in stack)
        stack.append((ours, time.perf_counter() if outermost else None))
        if outermost:
            _announce()
            log.debug("compiling %s", dispatcher.py_func.__name__)

    def on_end(self, ev: Any) -> None:
        stack = getattr(_local, "stack", None)
        if not stack:
            return
        _, began = stack.pop()
        if began is not None:
            log.debug("compiled %s in %.1f s", ev.data["dispatcher"].py_func.__name__, time.perf_counter() - began)


event.register("numba:compile", _CompileListener())


def _warn_no_cache(name: str) -> None:
    global CACHING
    if CACHING:
        CACHING = False
        log.warning(
            "qwirkle_core: no writable directory for numba's cache (at %s): every new process "
            "compiles the kernels again (seconds). Set NUMBA_CACHE_DIR to a writable directory.",
            name,
        )


class CompiledEntry:
    """How a hot Python call site calls a kernel: ``entry.call(*args)``.  Its first
    calls go through numba's dispatcher (which compiles or loads the kernel); once the
    dispatcher holds compiled code for the types of a call's arguments, ``call``
    becomes that code's own CPython entry, which skips the dispatcher's typing of every
    argument and its lookup (``_numba_private.compiled_entry``).  So a call site must
    pass arguments of the same types every time (the compiled code trusts them, as the
    dispatcher's lookup no longer checks).  With the JIT off it stays the function."""

    __slots__ = ("call", "dispatcher")

    def __init__(self, dispatcher: Any) -> None:
        self.dispatcher = dispatcher
        self.call: Callable[..., Any] = dispatcher if JIT_OFF else self._first_calls

    def _first_calls(self, *args: Any) -> Any:
        result = self.dispatcher(*args)
        entry = _numba_private.compiled_entry(self.dispatcher, args)
        if entry is not None:
            self.call = entry
        return result


def _compile(func: F, **options: Any) -> F:
    # Reference counting stated for every kernel: numba lets a callee that does not
    # state it inherit its first caller's setting, so a kernel first compiled for a
    # borrowing_kernel would have none, whichever kernel called it later.
    options.setdefault("_nrt", True)
    options.setdefault("nogil", True)
    with _numba_private.cache_dir(CACHE_DIR):
        try:
            dispatcher = numba.njit(cache=True, **options)(func)
        except RuntimeError:
            # "cannot cache function ...: no locator available" -- nowhere to write.
            _warn_no_cache(func.__name__)
            dispatcher = numba.njit(cache=False, **options)(func)
    if not JIT_OFF:  # (with the JIT off numba returns the plain function)
        _ours.add(id(dispatcher))
    return cast(F, dispatcher)


def kernel(func: F) -> F:
    """Compile ``func`` in nopython mode (GIL released), cached when a cache dir is
    writable, compiled at its first call.  For kernels whose one call does one
    position's or one turn's work."""
    return _compile(func)


def borrowing_kernel(func: F) -> F:
    """A :func:`kernel` compiled without reference counting (numba's ``_nrt=False``).

    For kernels that allocate no array, return no array and keep none: every array
    they see is borrowed from a caller that holds it for the call (the turn's small
    kernels; the endgame solver's search, whose scratch its caller passes).  numba
    otherwise increfs each array argument on entry and decrefs it on exit, an atomic
    operation each, and its pruning removes the pair only when no other decref lies
    between them; in a kernel of a few branches and views that is 2 x (arrays + views)
    atomic operations per call (take_tiles: 13), more than the kernel's own work."""
    return _compile(func, _nrt=False)


def query_kernel(func: F) -> F:
    """A :func:`borrowing_kernel` that keeps the GIL: for a kernel that Python calls
    once per query of a few microseconds, allocating nothing and returning a number.
    Its CPython entry then unboxes each array without making a reference-counted
    handle for it (an allocation and two atomic operations), and does not release and
    take back the GIL: measured on a kernel of two arrays and two ints, 0.12 µs a call
    against 0.35 µs, a tenth of a mid-game query.  Queries from many threads then run
    one at a time, as their Python around them does."""
    return _compile(func, _nrt=False, nogil=False)


def gil_kernel(func: F) -> F:
    """A kernel that keeps the GIL for its whole call: for the one that reads Python
    objects where they lie (``_pyobjects``), which no other thread may change or free
    meanwhile."""
    return _compile(func, nogil=False)


def borrowing_gil_kernel(func: F) -> F:
    """A :func:`gil_kernel` compiled without reference counting, as a
    :func:`query_kernel` is: for the hand reader, called once per query, which
    allocates nothing and returns a number."""
    return _compile(func, nogil=False, _nrt=False)


def batch_kernel(func: F) -> F:
    """A :func:`kernel` that does a batch's work (many games or positions) in one call."""
    return _compile(func)


def parallel_kernel(func: F) -> F:
    """Like :func:`batch_kernel`, for kernels that use ``numba.prange``."""
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


def inline_batch_kernel(func: F) -> F:
    """An :func:`inline_kernel` that does a batch's work (see :func:`batch_kernel`)."""
    return _compile(func, inline="always")


def compiled_or_plain(make_compiled: Callable[[], Callable[..., Any]], plain: F) -> F:
    """What ``make_compiled`` builds (an ``intrinsic``: it imports llvmlite and numba's
    extension API only when called), or ``plain`` with the JIT off, where an intrinsic
    cannot run as Python."""
    return plain if JIT_OFF else cast(F, make_compiled())


def helper(func: F) -> F:
    """A small function for kernels: compiled once, and inlined by LLVM into each
    kernel that calls it (numba links the callee's code into the caller's module before
    optimising it, so a call to a few-line function costs nothing at run time).

    Prefer it to :func:`inline_helper`: numba-IR inlining copies, types and lowers the
    helper again at every call site, which made the first call of the move generator
    seconds slower to compile, and measured no faster at run time."""
    return _compile(func, no_cpython_wrapper=True, no_cfunc_wrapper=True)


def borrowing_helper(func: F) -> F:
    """A :func:`helper` compiled without reference counting, for helpers that allocate
    no array, return none and keep none: any caller may call it, counted or not, as
    it holds the arrays it passes for the call.

    A helper that LLVM does not inline stays a call, and with reference counting every
    array it takes (and every view it makes of one) costs an incref on the way in and
    a decref on the way out, atomic operations that numba's pruning mostly keeps where
    the helper branches.  In the endgame solver, whose search calls helpers of up to 13
    arrays at every position, they were a third of its time (perf: NRT_incref and
    NRT_decref, 17 % each)."""
    return _compile(func, _nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)


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
    comes out of numba as ``SystemError: ... returned a result with an exception set``,
    wrapped once or twice (the dispatcher's SystemError, caused by the one of numba's
    unpickling of the result, caused by the handler's exception); this raises the
    handler's exception itself instead, so that callers end cleanly (exit 130 or 143).
    A SystemError with no other exception at the end of its chain is raised as it is."""

    @functools.wraps(kernel)
    def call(*args: Any) -> Any:
        try:
            return kernel(*args)
        except SystemError as exc:
            cause: BaseException | None = exc
            while isinstance(cause, SystemError):
                cause = cause.__cause__ or cause.__context__
            if cause is None:
                raise
        # Raised here, outside the handler, so that it gets no SystemError as its context
        # (which would make a cycle: that SystemError's cause is this exception).
        raise cause.with_traceback(None)

    return cast(F, call)
