"""Scalar helpers for lines, shared by every kernel (scalars only: cheap to call)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np

from ._constants import NEIGHBOURS
from ._jit import compiled_or_plain, helper
from ._layout import KInt


@helper
def fold_tile(allowed: KInt, kind: KInt) -> KInt:
    """Add tile ``kind`` to a line whose addable kinds are ``allowed``.

    Returns the kinds that could still join the line, or -1 if ``kind`` cannot join it
    (a duplicate, or no common colour or shape with the whole line).  Start a line with
    ``ALL_KINDS``.  For a valid line of two or more tiles the result is its colour (or
    shape) minus the kinds already in it; for one tile, its colour and shape minus
    itself.  A full line of six therefore folds to 0: nothing more can join it.
    """
    if allowed < 0 or (allowed >> kind) & 1 == 0:
        return -1
    return allowed & ~(np.int64(1) << kind) & NEIGHBOURS[kind]


@helper
def line_points(length: KInt) -> KInt:
    """Points for one scored line of ``length`` tiles (a Qwirkle of six scores 12)."""
    if length < 2:
        return 0
    if length == 6:
        return 12
    return length


def _trailing_zeros_in_python(x: KInt) -> KInt:
    """Index of the lowest set bit, for plain Python (the JIT off)."""
    x = int(x)
    return (x & -x).bit_length() - 1


def _trailing_zeros_intrinsic() -> Callable[[KInt], KInt]:  # pragma: no cover - compiled only
    """LLVM's ``cttz`` (one instruction), through numba's public ``intrinsic``, for any
    integer type (the result has the argument's type)."""
    from llvmlite import ir  # type: ignore[import-untyped]
    from numba.core import types
    from numba.extending import intrinsic

    @intrinsic
    def trailing_zeros(typingctx: Any, x: Any) -> Any:
        if not isinstance(x, types.Integer):
            return None

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

        return x(x), codegen

    return cast(Callable[[KInt], KInt], trailing_zeros)


_trailing_zeros = compiled_or_plain(_trailing_zeros_intrinsic, _trailing_zeros_in_python)


@helper
def lowest_bit(word: KInt) -> KInt:
    """Index of the lowest set bit of a non-zero int64 (one instruction under the JIT)."""
    return _trailing_zeros(word)


@helper
def lowest_kind(mask: KInt) -> KInt:
    """Index of the lowest set bit of a non-zero kind mask."""
    return _trailing_zeros(mask)
