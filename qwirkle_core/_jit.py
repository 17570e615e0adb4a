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

*Compiling in the background* (see :func:`kernel`): in a new environment (no cached
code for a kernel) the first call of a kernel that does one position's or one turn's
work does not wait for numba.  It queues the kernel on one background thread and runs
the kernel's own source as plain Python meanwhile -- the same code the JIT-off test run
checks, so the same answers, a hundred to a thousand times slower per call.  When the
compiled kernel is ready numba's dispatcher finds it and plain Python is out of the
way: no wrapper stays on the call path.  A first query then answers in well under a
second instead of after seconds of compiling.  Kernels that do a batch's work (many
games, many positions) would be slow as plain Python, so they compile before they run
(:func:`batch_kernel`); ``selfplay`` plays its first games as plain Python itself while
its kernel compiles.  ``QWIRKLE_CORE_BACKGROUND_COMPILE=0`` (and :func:`foreground`)
turns this off: each first call then compiles before it returns, as the tests and
``warmup`` want.
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
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FunctionType, ModuleType
from typing import Any, TypeVar, cast

# numba's OpenMP threading layer leaves its worker threads spinning after a parallel
# region; on a machine whose cores are busy that turns every later prange call into a
# 15-25 ms wait (measured on 2 cores).  Sleeping idle workers cost nothing we can
# measure.  setdefault keeps a caller's own choice; it must precede the first launch.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numba
from numba.core import event as _event
from numba.core import types as _types
from numba.core.compiler_lock import global_compiler_lock as _global_compiler_lock
from numba.core.dispatcher import Dispatcher as _Dispatcher
from numba.core.dispatcher import OmittedArg
from numba.core.typing import templates as _templates

# numba's own annotations are partial: use its internals untyped.
global_compiler_lock: Any = _global_compiler_lock
event: Any = _event
types: Any = _types
templates: Any = _templates

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


# ------------------------------------------------------- compiling in the background
BACKGROUND_SETTING = "QWIRKLE_CORE_BACKGROUND_COMPILE"
_foreground_calls = 0  # foreground() blocks open, on any thread
_background_lock = threading.RLock()
_jobs: deque[tuple[Any, tuple[Any, ...], threading.Event]] = deque()  # under _background_lock
_queued: dict[tuple[int, tuple[Any, ...]], threading.Event] = {}  # (id(dispatcher), argument types): done
_failed: set[tuple[int, tuple[Any, ...]]] = set()
_worker: threading.Thread | None = None
# Plain Python serves first calls for this many seconds of their time in a process;
# after that a call waits for its compiled kernel.  Both threads need the GIL, and a
# thread that runs plain Python without pause slows the compilation several times
# over (measured: 3,000 self-play games took 92 s instead of 23 s): the budget keeps
# the first answers quick and sustained work no slower than compiling first.
PLAIN_PYTHON_BUDGET = 1.0
COMPILING_SWITCH_INTERVAL = 0.0005
_switch_interval = sys.getswitchinterval()  # the process's own, while the worker runs
_plain_seconds = 0.0


def background_wanted() -> bool:
    """Whether a first call may run as plain Python while its kernel compiles (the
    setting is read at each first call, so a test or a command can change it)."""
    return _foreground_calls == 0 and os.environ.get(BACKGROUND_SETTING, "1").strip() != "0"


@contextmanager
def foreground() -> Iterator[None]:
    """Within this block, a kernel's first call compiles before it runs (for warm-ups
    whose point is the compiled code, and for measurements)."""
    global _foreground_calls
    with _background_lock:
        _foreground_calls += 1
    try:
        yield
    finally:
        with _background_lock:
            _foreground_calls -= 1


def _has_cache_entry(dispatcher: Any) -> bool:
    """Whether numba's cache holds code of this kernel (an index file): then its first
    call loads it in milliseconds and nothing runs in the background."""
    index = getattr(getattr(getattr(dispatcher, "_cache", None), "_cache_file", None), "_index_path", None)
    return index is not None and os.path.exists(index)


def ready(dispatcher: Any) -> bool:
    """Whether the kernel has compiled code in this process (no plain Python any more)."""
    return bool(getattr(dispatcher, "overloads", True))


def _work() -> None:
    """The background thread: compile the queued kernels one at a time, in the order
    their first calls came; numba's dispatcher adds each one's code when it is done
    (and caches it for later processes).  The thread ends when the queue is empty (a
    later first call starts another), so that a process forks without it afterwards."""
    global _worker, _switch_interval
    with _background_lock:
        # Hand the GIL over more often while compiling: numba calls into LLVM
        # (releasing the GIL) thousands of times per kernel, and each time it would
        # wait up to a whole switch interval (5 ms) to get it back from a thread
        # running plain Python.
        _switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(COMPILING_SWITCH_INTERVAL)
    while True:
        with _background_lock:
            if not _jobs:
                sys.setswitchinterval(_switch_interval)
                _worker = None
                return
            dispatcher, argtypes, done = _jobs.popleft()
        try:
            dispatcher.compile(argtypes)
        except Exception as exc:  # noqa: BLE001 - the caller's next call compiles in the foreground and raises it
            with _background_lock:
                _failed.add((id(dispatcher), argtypes))
            log.warning("qwirkle_core: compiling %s in the background failed: %s", dispatcher.py_func.__name__, exc)
        finally:
            done.set()


def plain_python_budget_left() -> bool:
    """Whether first calls may still run as plain Python (see PLAIN_PYTHON_BUDGET)."""
    return _plain_seconds < PLAIN_PYTHON_BUDGET


def _timed(plain: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        global _plain_seconds
        began = time.perf_counter()
        try:
            return plain(*args)
        finally:
            _plain_seconds += time.perf_counter() - began

    return call


def plain_python_timed(dispatcher: Any) -> Callable[..., Any]:
    """:func:`plain_python`, its time counted against PLAIN_PYTHON_BUDGET."""
    return _timed(plain_python(dispatcher))


_said_waiting = False


def _say_waiting() -> None:
    """Say once per process that calls now wait for compiled kernels (a wait of seconds
    after the first quick answers is never silent)."""
    global _said_waiting
    if not _said_waiting:
        _said_waiting = True
        log.info("waiting for the kernels to finish compiling (seconds, once per environment) ...")


def wait_compiled(dispatcher: Any) -> None:
    """Wait (the GIL released) for the background compilations of this kernel."""
    with _background_lock:
        events = [done for (key, _), done in _queued.items() if key == id(dispatcher)]
    if any(not done.is_set() for done in events):
        _say_waiting()
    for done in events:
        done.wait()


def _queue(dispatcher: Any, argtypes: tuple[Any, ...]) -> threading.Event | None:
    """Queue a compilation (once per kernel and argument types) and return the event
    set when it is done; None if it failed before (the caller then compiles in the
    foreground, which raises the error)."""
    global _worker, _announced
    key = (id(dispatcher), argtypes)
    with _background_lock:
        if key in _failed:
            return None
        done = _queued.get(key)
        if done is not None:
            return done
        done = _queued[key] = threading.Event()
        _jobs.append((dispatcher, argtypes, done))
        if _worker is None:
            _worker = threading.Thread(target=_work, name="qwirkle-core-compile", daemon=True)
            _worker.start()
        announce, _announced = not _announced, True
    if announce:
        where = "kept in " + cache_location() if CACHING else "no writable cache: every new process compiles again"
        log.info(
            "compiling kernels in the background (once; %s); until each is ready its calls run "
            "as plain Python (same answers, slower). 'qwirkle-core warmup' compiles them ahead",
            where,
        )
    return done


def compile_in_background(dispatcher: Any, *args: Any) -> bool:
    """For the caller of a batch kernel that can do its first work in small pieces
    (``selfplay``'s first games): True if the kernel now compiles in the background
    (:func:`plain_python` serves meanwhile; :func:`ready` says when it is done), False if
    its compiled code is ready (it was, or it has just been loaded or compiled here)."""
    if ready(dispatcher):
        return False
    argtypes = tuple(dispatcher.typeof_pyval(a) for a in args)
    if background_wanted() and not _has_cache_entry(dispatcher) and _queue(dispatcher, argtypes) is not None:
        return True
    dispatcher.compile(argtypes)
    return False


# A fork while the background thread compiles would copy numba's compiler lock held by
# a thread the child does not have: the child's first compilation would wait forever
# (a multiprocessing pool, a data loader's workers).  So while the thread runs, a fork
# waits for the kernel being compiled, holding the lock across it; the child starts
# with no queue, a new lock of its own and the process's switch interval.
_fork = threading.local()  # held: this thread took the compiler lock for its fork


def _before_fork() -> None:
    if _worker is not None:
        global_compiler_lock.acquire()
        _fork.held = True


def _after_fork_in_parent() -> None:
    if getattr(_fork, "held", False):
        _fork.held = False
        global_compiler_lock.release()


def _after_fork_in_child() -> None:
    global _worker, _background_lock
    if getattr(_fork, "held", False):
        _fork.held = False
        global_compiler_lock.release()
    if _worker is not None:
        sys.setswitchinterval(_switch_interval)
    _background_lock = threading.RLock()  # another thread may have held it
    _worker = None
    _jobs.clear()
    _queued.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(
        before=_before_fork, after_in_parent=_after_fork_in_parent, after_in_child=_after_fork_in_child
    )


def _omits(args: tuple[Any, ...]) -> bool:
    return any(isinstance(a, OmittedArg) for a in args)


def _compile_in_background(dispatcher: Any) -> None:
    """Give the kernel a first call that does not wait for numba (module docstring).
    numba's dispatcher calls ``_compile_for_args`` only when no compiled code fits the
    arguments, and calls what it returns; compiled calls never come here."""
    compile_for_args = getattr(dispatcher, "_compile_for_args", None)
    if compile_for_args is None:  # NUMBA_DISABLE_JIT: a plain function already
        return

    def first_calls(*args: Any, **kws: Any) -> Any:
        # (Omitted default arguments arrive as numba's OmittedArg: no kernel has any,
        # and such a call compiles as before.)
        if not kws and background_wanted() and not _has_cache_entry(dispatcher) and not _omits(args):
            done = _queue(dispatcher, tuple(dispatcher.typeof_pyval(a) for a in args))
            if done is not None:
                if plain_python_budget_left():
                    return _timed(plain_python(dispatcher))
                if not done.is_set():
                    _say_waiting()
                    done.wait()  # the GIL released: the compilation runs at full speed
        return compile_for_args(*args, **kws)

    dispatcher._compile_for_args = first_calls


# What the plain-Python twins of the kernels see: each module's globals, with every
# numba dispatcher replaced by its plain twin (recursively), each module of the
# package by its twin namespace, and numba intrinsics by the Python functions
# registered for them (plain_python_twin).  Built once, at the first plain call.
_twins: dict[int, Any] = {}
_plain_functions: dict[int, FunctionType] = {}
_plain_namespaces: dict[str, dict[str, Any]] = {}


def plain_python_twin(compiled: Any, plain: Any) -> None:
    """Register what plain Python calls in place of ``compiled`` (a numba intrinsic,
    which only compiled code can call)."""
    _twins[id(compiled)] = plain


class _PlainModule:
    """A module of the package as plain-Python kernels see it (``loop.ending(...)``)."""

    def __init__(self, namespace: dict[str, Any]) -> None:
        self._namespace = namespace

    def __getattr__(self, name: str) -> Any:
        try:
            return self._namespace[name]
        except KeyError:
            raise AttributeError(name) from None


def _plain_namespace(module_globals: dict[str, Any]) -> dict[str, Any]:
    name = module_globals["__name__"]
    namespace = _plain_namespaces.get(name)
    if namespace is None:
        namespace = _plain_namespaces[name] = {}  # registered first: kernels call each other
        for key, value in list(module_globals.items()):
            namespace[key] = _plain_value(value)
    return namespace


def _plain_value(value: Any) -> Any:
    if id(value) in _twins:
        return _twins[id(value)]
    if isinstance(value, _Dispatcher):
        return plain_python(value)
    if isinstance(value, ModuleType) and value.__name__.startswith(__package__ + "."):
        return _PlainModule(_plain_namespace(vars(value)))
    return value


def plain_python(dispatcher: Any) -> Callable[..., Any]:
    """The kernel's source as a plain Python function whose calls to other kernels are
    plain Python too (never a compilation).  With NUMBA_DISABLE_JIT=1 the kernel is
    a plain function already."""
    if not isinstance(dispatcher, _Dispatcher):
        return cast(Callable[..., Any], dispatcher)
    with _background_lock:
        plain = _plain_functions.get(id(dispatcher))
        if plain is None:
            source = dispatcher.py_func
            namespace = _plain_namespace(source.__globals__)
            plain = _plain_functions.get(id(dispatcher))  # made while filling the namespace
            if plain is None:
                plain = FunctionType(source.__code__, namespace, source.__name__, source.__defaults__, source.__closure__)
                _plain_functions[id(dispatcher)] = plain
        return plain


class CompiledEntry:
    """How a hot Python call site calls a kernel: ``entry.call(*args)``.  Its first
    calls go through numba's dispatcher (which compiles, or runs plain Python while it
    compiles in the background); once the dispatcher holds compiled code for the types
    of a call's arguments, ``call`` becomes that code's own CPython entry, which skips
    the dispatcher's typing of every argument and its lookup: 0.25-0.3 µs of a
    ~4 µs query.  So a call site must pass arguments of the same types every time
    (the compiled code trusts them, as the dispatcher's lookup no longer checks)."""

    __slots__ = ("call", "dispatcher")

    def __init__(self, dispatcher: Any) -> None:
        self.dispatcher = dispatcher
        self.call: Callable[..., Any] = self._first_calls

    def _first_calls(self, *args: Any) -> Any:
        result = self.dispatcher(*args)
        entry = compiled_entry(self.dispatcher, args)
        if entry is not None:
            self.call = entry
        return result


def compiled_entry(dispatcher: Any, args: tuple[Any, ...]) -> Callable[..., Any] | None:
    """The CPython entry of the kernel's compiled code for the types of ``args`` (see
    :class:`CompiledEntry`), or None while there is none (with the JIT off, never)."""
    overloads = getattr(dispatcher, "overloads", None)
    if not overloads:
        return None
    compiled = overloads.get(tuple(dispatcher.typeof_pyval(a) for a in args))
    return None if compiled is None else cast(Callable[..., Any], compiled.entry_point)


def _compile(func: F, background: bool = False, **options: Any) -> F:
    # Reference counting stated for every kernel: numba lets a callee that does not
    # state it inherit its first caller's setting, so a kernel first compiled for a
    # borrowing_kernel would have none, whichever kernel called it later.
    options.setdefault("_nrt", True)
    options.setdefault("nogil", True)
    # numba reads config.CACHE_DIR when the kernel is decorated (to place its cache);
    # set it for our kernels only, so other numba users in the process are unaffected.
    config: Any = numba.config  # numba's config attributes are made at run time
    saved = config.CACHE_DIR
    if CACHE_DIR is not None:
        config.CACHE_DIR = CACHE_DIR
    try:
        try:
            dispatcher = numba.njit(cache=True, **options)(func)
        except RuntimeError:
            # "cannot cache function ...: no locator available" -- nowhere to write.
            _warn_no_cache(func.__name__)
            dispatcher = numba.njit(cache=False, **options)(func)
        dispatcher = _tame(dispatcher)
        if background:
            _compile_in_background(dispatcher)
        return cast(F, dispatcher)
    finally:
        config.CACHE_DIR = saved


def kernel(func: F) -> F:
    """Compile ``func`` in nopython mode (GIL released), cached when a cache dir is
    writable, compiled at its first call -- in the background where nothing is cached
    yet, its first calls running as plain Python meanwhile (see the module docstring).
    For kernels whose one call does one position's or one turn's work."""
    return _compile(func, background=True)


def borrowing_kernel(func: F) -> F:
    """A :func:`kernel` compiled without reference counting (numba's ``_nrt=False``).

    For small per-turn kernels that allocate no array, return no array and keep none:
    every array they see is borrowed from a caller that holds it for the call.  numba
    otherwise increfs each array argument on entry and decrefs it on exit, an atomic
    operation each, and its pruning removes the pair only when no other decref lies
    between them; in a kernel of a few branches and views that is 2 x (arrays + views)
    atomic operations per call (take_tiles: 13), more than the kernel's own work."""
    return _compile(func, background=True, _nrt=False)


def query_kernel(func: F) -> F:
    """A :func:`borrowing_kernel` that keeps the GIL: for a kernel that Python calls
    once per query of a few microseconds, allocating nothing and returning a number.
    Its CPython entry then unboxes each array without making a reference-counted
    handle for it (an allocation and two atomic operations), and does not release and
    take back the GIL: measured on a kernel of two arrays and two ints, 0.12 µs a call
    against 0.35 µs, a tenth of a mid-game query.  Queries from many threads then run
    one at a time, as their Python around them does."""
    return _compile(func, background=True, _nrt=False, nogil=False)


def gil_kernel(func: F) -> F:
    """A kernel that keeps the GIL for its whole call: for the one that reads Python
    objects where they lie (``_pyobjects``), which no other thread may change or free
    meanwhile.  Never run as plain Python (its first call compiles, or loads the cache,
    before it runs): its callers ask :func:`compile_in_background` first and take
    another path while it compiles."""
    return _compile(func, nogil=False)


def borrowing_gil_kernel(func: F) -> F:
    """A :func:`gil_kernel` compiled without reference counting, as a
    :func:`query_kernel` is: for the hand reader, called once per query, which
    allocates nothing and returns a number."""
    return _compile(func, nogil=False, _nrt=False)


def batch_kernel(func: F) -> F:
    """A :func:`kernel` that does a batch's work (many games or positions) in one call:
    as plain Python that would take minutes, so its first call compiles before it runs."""
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
    in kernels.  Compiled in the background like :func:`kernel`."""
    return _compile(func, background=True, inline="always")


def inline_batch_kernel(func: F) -> F:
    """An :func:`inline_kernel` that does a batch's work: compiled before its first call
    runs (see :func:`batch_kernel`)."""
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
