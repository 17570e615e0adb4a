"""Every private numba name the package touches, in one place.

The rest of the package uses numba through its documented API (``numba.njit`` with
``cache=True``, ``numba.extending.intrinsic``, the event API ``numba.core.event``,
``numba.config.DISABLE_JIT``, a dispatcher's ``py_func``).  What it cannot get that
way, it gets here, with no silent fallback (a missing name raises), and
``tests/test_jit.py`` fails when any of them is inactive on the installed numba.

Measured on the project's 2-core machine, shared and loaded (numba 0.68.1, Python 3.11,
2026-12-02); "checked" is the numba versions on which each hook's test passed.

===============================  ============================================  ==============  ==========================================
name                             what it buys (measured)                       checked         if numba drops or changes it
===============================  ============================================  ==============  ==========================================
``numba.config.CACHE_DIR``, set  the cache keyed on every source and the       0.59.1, 0.68.1  AttributeError at import; if numba stops
while a kernel is decorated      numba version (``_jit._sources_digest``):                     reading it at decoration, kernels cache
(:func:`cache_dir`)              without it an edited callee module leaves                     beside their sources and may run a stale
                                 its callers running the old callee                            callee: ``test_kernels_decorated_in_our_
                                                                                               cache_dir_cache_there`` fails
``Dispatcher.overloads[types]``  hot call sites call the compiled code's own   0.59.1, 0.68.1  AttributeError at the first query (no
``.entry_point``                 CPython entry, skipping the dispatcher's                      fallback); ``test_a_compiled_entry_...``
(:func:`compiled_entry`)         typing of each argument: mid-game                             fails
                                 ``count_moves`` 1.91 µs against 2.09 µs
``cgutils.alloca_once``,         the move generator's scratch stacks in its    0.59.1, 0.68.1  ``_movegen`` fails to import or compile;
``arrayobj.populate_array``,     stack frame (no allocation, no reference                      ``test_a_stack_array_lives_in_the_kernels_
a struct proxy's ``_getvalue``   count): mid-game ``count_moves`` 1.95 µs                      frame`` fails
(:func:`stack_array`)            against 2.15 µs with ``np.empty`` (and the
                                 reference counting that needs)
===============================  ============================================  ==============  ==========================================

The µs are medians over 60 mid-game positions (``benchmarks/positions.py``) of the best of
five batches of 200 calls, five rounds, in one process: the two ways of calling (or two
source trees, as ``benchmarks/interleaved.py`` loads them) alternated position by
position.

Not numba's but as private: ``_pyobjects`` reads CPython objects by address (through
the public ``numba.extending.intrinsic``); ``_pyobjects.reader()`` checks the layout
on live objects and returns None (the slow path serves) where it does not hold, and
``tests/test_pyobjects.py`` fails where it should hold and does not.  It buys
``Board.from_placements`` of a mid-game board 4.4 µs against 13.3 µs (same measurement).

Dropped, measured not worth a private hook (cold compile, CPU seconds of a fresh process
on an empty cache, hook on against off, runs alternated): replacing each kernel's
``get_call_template`` so that a literal constant passed to a callee does not compile a
copy of it per value (the README's first query 7.9-8.3 s against 9.0-9.6 s; a first
self-play game 17.0-17.8 s against 15.6-18.1 s), and replacing the ``_overload_func`` of
numba's ``raise_with_shape_context`` template in its global registry so that our kernels
do not compile numba 0.60+'s shape-formatting error message (first query 7.9-8.3 s
against 9.1-9.7 s; self-play game 17.0-17.8 s against 17.8-18.6 s).  Both off together:
first query 7.3-9.6 s (median 8.2) against 8.4-9.9 s (median 9.3); self-play game 15.9-16.3 s
against 16.8-18.3 s.  About a second, once per environment, and nothing once ``warmup``
has run.  (The shape-error hook had also been inactive for its own purpose: its
annotated chooser failed numba's parameter check, so numba's CPU template failed for
every kernel in the process, ours and other libraries', and all took the plain message;
with two copies of the package in one process, the second found no template to replace.)

Dropped with the background compilation: ``Dispatcher._compile_for_args``,
``_compiler.fold_argument_types``, ``_can_compile``, ``_cache._cache_file._index_path``,
``global_compiler_lock``, ``OmittedArg``, ``Dispatcher.compile`` replaced on instances,
``typeof_pyval``; and ``numba.cpython.unsafe.numbers.trailing_zeros`` (``_lines`` has
its own two-line intrinsic, the same LLVM ``cttz``).
"""

from __future__ import annotations

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

