"""A hint to the CPU to bring a cache line in before a kernel reads it: LLVM's
``prefetch``, through numba's public ``intrinsic``.

For a kernel that knows an address it will read soon, well before it reads it: the
endgame solver's transposition table is 48 MiB, so each look into it is a cache miss
(about 120 cycles on the project's machine), and the solver knows which bucket it
will look at next one move ahead.  A prefetch never faults, whatever the address;
with the JIT off it does nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from ._jit import compiled_or_plain
from ._layout import KInt


def _prefetch_in_python(address: KInt) -> None:
    """Nothing: plain Python has no cache to warm (the JIT off)."""


def _prefetch_intrinsic() -> Callable[[KInt], None]:  # pragma: no cover - compiled only
    """``llvm.prefetch`` of the byte at ``address`` (an integer), for reading, with
    the most locality, into the data cache."""
    from llvmlite import ir  # type: ignore[import-untyped]
    from numba.core import types
    from numba.extending import intrinsic

    @intrinsic
    def prefetch(typingctx: Any, address: Any) -> Any:
        if not isinstance(address, types.Integer):
            return None

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            byte_pointer = ir.IntType(8).as_pointer()
            i32 = ir.IntType(32)
            name = "llvm.prefetch.p0i8"
            function = builder.module.globals.get(name)
            if function is None:
                function = ir.Function(builder.module, ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32]), name)
            pointer = builder.inttoptr(args[0], byte_pointer)
            # read (0), keep it in every cache level (3), the data cache (1)
            builder.call(function, [pointer, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
            return context.get_dummy_value()

        return types.void(address), codegen

    return cast(Callable[[KInt], None], prefetch)


prefetch = compiled_or_plain(_prefetch_intrinsic, _prefetch_in_python)
