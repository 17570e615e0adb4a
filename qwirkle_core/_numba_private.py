"""Every private numba name the package touches, in one place.

The rest of the package uses numba through its documented API (``numba.njit`` with
``cache=True``, ``numba.extending.intrinsic``, the event API ``numba.core.event``,
``numba.config.DISABLE_JIT``, a dispatcher's ``py_func``).  What it cannot get that
way, it gets here; each hook installs loudly (it raises, or warns with
``RuntimeWarning``, when numba no longer has what it needs) and ``tests/test_jit.py``
fails when any of them is inactive on the installed numba.

Measured on the project's 2-core machine (numba 0.68.1, Python 3.11; the commands are
in docs/performance.md's history of this change).  "Checked" is the numba versions on
which the hook was installed and its test passed.

====================================  ==============================================  ==============  ===============================================
name                                  what it buys (measured)                         checked         if numba drops it
====================================  ==============================================  ==============  ===============================================
``numba.config.CACHE_DIR``, set       the cache keyed on every source and the numba   0.59.1, 0.68.1  import raises (AttributeError): kernels would
while a kernel is decorated           version (``_jit._sources_digest``): without                     cache beside their sources, keyed on each
(:func:`cache_dir`)                   it an edited callee module leaves callers                       file alone, and run stale callees
                                      running the old callee from the cache
``Dispatcher.get_call_template``      one compiled copy of a callee per argument      0.59.1, 0.68.1  import raises (TypeError): every literal
replaced on each kernel               types, not one per literal constant passed to                   constant a kernel passes compiles one more
(:func:`unliteral_calls`)             it: MEASURE_TBD cold first self-play game 27.6 s -> 21.3 s,                 copy of the callee and all below it
                                      MEASURE_TBD README's first query 13.3 s -> 11.6 s
the ``_overload_func`` of numba's     a failed slice assignment compiles numba's      0.68.1 (0.59.1  RuntimeWarning at import: the first kernel
template for ``raise_with_shape_      plain error, not its shape-formatting one       has no such     that copies an array row compiles numba's
context`` (numba >= 0.60)             MEASURE_TBD (``str`` of ints, ``join``): cold first self-   template:       string machinery (seconds)
(:func:`short_shape_errors`)          MEASURE_TBD play game 21.3 s -> 18.6 s, first query         nothing to do)
                                      MEASURE_TBD 11.6 s -> 10.0 s
``Dispatcher.overloads[types]``       a hot call site calls the compiled code's own   0.59.1, 0.68.1  AttributeError/KeyError at the first query
``.entry_point``                      CPython entry, skipping the dispatcher's                        (``CompiledEntry`` would raise, not fall back)
(:func:`compiled_entry`)              MEASURE_TBD typing of each argument: 0.28 µs of a 3.9 µs
                                      mid-game ``count_moves``
``cgutils.alloca_once``,              the move generator's scratch stacks in its      0.59.1, 0.68.1  import of ``_movegen`` raises
``arrayobj.populate_array``,          stack frame (no allocation, no reference
a struct proxy's ``_getvalue``        MEASURE_TBD count): 0.41 µs of a 3.9 µs mid-game
(:func:`stack_array`)                 MEASURE_TBD ``count_moves`` against ``np.empty``
====================================  ==============================================  ==============  ===============================================

Not numba's but as private: ``_pyobjects`` reads CPython objects by address (through
the public ``numba.extending.intrinsic``); ``_pyobjects.reader()`` checks the layout
on live objects and returns None (the slow path serves) where it does not hold, and
``tests/test_pyobjects.py`` fails where it should hold and does not.  MEASURE_TBD It buys
``Board.from_placements`` 5.2 µs instead of 14.7 µs.

Dropped with the background compilation: ``Dispatcher._compile_for_args``,
``_compiler.fold_argument_types``, ``_can_compile``, ``_cache._cache_file._index_path``,
``global_compiler_lock``, ``OmittedArg``, ``Dispatcher.compile`` replaced on instances,
``typeof_pyval``; and ``numba.cpython.unsafe.numbers.trailing_zeros`` (``_lines`` has
its own two-line intrinsic, the same LLVM ``cttz``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, cast

import numba
import numpy as np

config: Any = numba.config  # numba's config attributes are made at run time


@contextmanager
def cache_dir(path: str | None) -> Iterator[None]:
    """Within this block, a kernel decorated with ``cache=True`` caches under ``path``
    (None: numba's own choice).  numba reads ``config.CACHE_DIR`` when a kernel is
    decorated; it is set back afterwards, so that other numba users in the process are
    unaffected."""
    saved = config.CACHE_DIR  # AttributeError if numba renamed it: loud, at import
    if path is not None:
        config.CACHE_DIR = path
    try:
        yield
    finally:
        config.CACHE_DIR = saved


def _check_get_call_template() -> None:
    from numba.core.dispatcher import Dispatcher

    method = getattr(Dispatcher, "get_call_template", None)
    code = getattr(method, "__code__", None)
    if code is None or code.co_varnames[: code.co_argcount] != ("self", "args", "kws"):
        raise TypeError(
            "qwirkle_core: this numba's Dispatcher.get_call_template is not (self, args, kws): "
            "the hook that compiles one copy of a callee per argument types cannot install "
            "(see qwirkle_core/_numba_private.py)"
        )


def unliteral_calls(dispatcher: Any) -> None:
    """When another kernel calls ``dispatcher``, type the call with plain argument
    types (``int64``, not ``Literal[int](0)``).  numba types a constant argument as a
    literal and compiles a separate copy of the callee, and of everything it calls,
    for each value; our kernels never need the literal (none uses ``numba.literally``).
    numba's typing of a call to a dispatcher goes through this method alone."""
    from numba.core import types as _types

    types: Any = _types  # untyped
    original = dispatcher.get_call_template

    def get_call_template(args: Any, kws: Any) -> Any:
        return original(tuple(types.unliteral(a) for a in args), {k: types.unliteral(v) for k, v in kws.items()})

    get_call_template.qwirkle_unliteral = True  # type: ignore[attr-defined]  # what the tests look for
    dispatcher.get_call_template = get_call_template


def short_shape_errors(compiling_ours: Callable[[], bool]) -> bool:
    """While ``compiling_ours()``, give a failed array-to-slice assignment numba's
    plain message ("cannot assign slice from input of different size") instead of
    numba 0.60+'s message with the shapes, which compiles its string machinery (``str``
    of ints, ``join``, f-strings) into the first kernel that copies an array row.  Our
    kernels never raise it (the Python layer checks every shape).  numba caches an
    overload's implementation per signature, so whichever compiles first in a process
    serves both; the only difference is the wording of an error.  Returns whether the
    hook is installed; False on a numba without the shape-formatting error (< 0.60);
    a RuntimeWarning where numba has it but the hook cannot find it."""
    from numba.core.typing import templates
    from numba.np import arrayobj

    target = getattr(arrayobj, "raise_with_shape_context", None)
    if target is None:
        return False  # numba < 0.60: the plain message is the only one
    cpu = getattr(arrayobj, "ol_raise_with_shape_context_cpu", None)
    generic = getattr(arrayobj, "ol_raise_with_shape_context_generic", None)
    installed = False
    if cpu is not None and generic is not None:

        # No annotations: numba checks that an overload's parameters and its
        # implementation's are the same, annotations included (with them, the CPU
        # template would fail for every kernel, and numba would take the generic one).
        def choose(src_shapes, index_shape):  # type: ignore[no-untyped-def]
            chosen = generic if compiling_ours() else cpu
            return chosen(src_shapes, index_shape)

        for key, fnty in templates.builtin_registry.globals:
            if key is not target:
                continue
            for template in getattr(fnty, "templates", ()):
                if getattr(template, "_overload_func", None) is cpu:
                    template._overload_func = staticmethod(choose)
                    installed = True
    if not installed:
        warnings.warn(
            f"qwirkle_core: numba {numba.__version__} formats shapes into slice-assignment errors but the "
            "hook that keeps that out of our kernels cannot find its template: first calls compile "
            "seconds longer (see qwirkle_core/_numba_private.py)",
            RuntimeWarning,
            stacklevel=2,
        )
    return installed


def short_shape_errors_installed() -> bool:
    """Whether :func:`short_shape_errors` replaced numba's template (for the tests)."""
    from numba.core.typing import templates
    from numba.np import arrayobj

    target = getattr(arrayobj, "raise_with_shape_context", None)
    for key, fnty in templates.builtin_registry.globals:
        if key is target:
            for template in getattr(fnty, "templates", ()):
                func = getattr(template, "_overload_func", None)
                if getattr(func, "__name__", "") == "choose" and func.__module__ == __name__:
                    return True
    return False


def compiled_entry(dispatcher: Any, args: tuple[Any, ...]) -> Callable[..., Any] | None:
    """The CPython entry of the kernel's compiled code for the types of ``args``, or
    None while there is none."""
    typeof: Any = numba.typeof  # untyped
    compiled = dispatcher.overloads.get(tuple(typeof(a) for a in args))
    return None if compiled is None else cast(Callable[..., Any], compiled.entry_point)


def stack_array(rows: int, cols: int) -> Callable[[], Any]:
    """``new()``, a kernel's ``rows`` x ``cols`` int64 array in the kernel's stack
    frame: no allocation and no reference count (a null meminfo), for a query's small
    stacks.  Such an array must not outlive the call.  With the JIT off, np.empty."""

    def in_python() -> Any:
        return np.empty((rows, cols), np.int64)

    if getattr(numba.config, "DISABLE_JIT"):  # noqa: B009 - numba's config is untyped
        return in_python
    from numba.core import cgutils, types  # pragma: no cover - the JIT-off run returns above
    from numba.extending import intrinsic
    from numba.np.arrayobj import populate_array

    array_type = types.Array(types.int64, 2, "C")

    @intrinsic
    def on_stack(typingctx: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            word = context.get_value_type(types.int64)
            data = cgutils.alloca_once(builder, word, size=rows * cols)  # type: ignore[no-untyped-call]
            array = context.make_array(array_type)(context, builder)
            intp = context.get_value_type(types.intp)
            populate_array(  # type: ignore[no-untyped-call]
                array,
                data=data,
                shape=[intp(rows), intp(cols)],
                strides=[intp(cols * 8), intp(8)],
                itemsize=intp(8),
                meminfo=None,
            )
            return array._getvalue()

        return array_type(), codegen

    return cast(Callable[[], Any], on_stack)


_check_get_call_template()
