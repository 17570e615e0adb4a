"""Reading a board's Python values where they lie, from a kernel.

``Board.from_placements`` and ``Board.from_json`` get a list of ~50 placements from
Python.  Checking and packing them in Python costs a pass per check and a call per tile:
about 10 µs, three times the kernel that builds the board.  So the building kernel
reads the list and its items itself, by address, as a C extension would, checking
each object's type exactly before it reads anything else of it.  A list it cannot read
(any other type, a length out of range, a value out of range) makes it give up, and
the caller checks the list the slow way, which names what is wrong.

What it relies on (CPython, 64-bit, builds with a GIL; :func:`reader` checks it on
live objects and gives None anywhere else, and the callers then take another path):

- an object starts with its reference count and its type: the layout of ``PyObject``
  in CPython's stable ABI, which compiled extensions read directly;
- a list's or a tuple's length follows (``PyVarObject``); then a tuple's items lie
  inline and a list's are an array that the next word points to (``PyTupleObject``,
  ``PyListObject``: unchanged since Python 2);
- an int is its digit count and sign, in the word after its type, then its digits
  of 30 bits in 32-bit words: ``ob_size`` (the count, negative for a negative int)
  up to 3.11, ``lv_tag`` (the count << 3, then 0, 1 or 2 for positive, zero,
  negative) from 3.12.  Only one digit is ever read: a bigger int is no coordinate,
  colour or shape, and reads as BIG_INT (what the caller rejects);
- a tile is one of the 36 shared ``Tile`` objects: known by its address.

Why it is safe: the kernel that reads keeps the GIL for its whole call
(``_jit.gil_kernel``), so no other thread can change or free what it reads, and the
caller holds the list.  It follows a pointer only into an object whose type it has
checked, and reads only within the length that object gives; it calls nothing.  The
plain-Python versions of the two reads (for the JIT-off test run, and the layout check)
go through ctypes.
"""

from __future__ import annotations

import ctypes
import functools
import sys
import sysconfig
from collections.abc import Callable
from types import FunctionType
from typing import Any, cast

import numpy as np

from ._jit import JIT_OFF, helper
from ._layout import KArray, KInt
from .tiles import ALL_TILES, N_KINDS

WORD = 8
TYPE_AT = 8  # PyObject: ob_refcnt, ob_type
LENGTH_AT = 16  # PyVarObject: ob_size; an int's digit count and sign
ITEMS_AT = 24  # PyTupleObject: ob_item[] inline; PyListObject: a pointer to ob_item[]
DIGIT_BITS = 30
BIG_INT = np.int64(1) << 62  # what an int of two digits or more reads as (with its sign)

# The reader: what a kernel compares, found in this process.
R_LIST = 0  # the type objects list, tuple and int
R_TUPLE = 1
R_INT = 2
R_INT_TAGGED = 3  # 1: an int's count and sign are an lv_tag (3.12+), 0: an ob_size
R_TILES = 4  # the addresses of the 36 tiles, ascending
R_KINDS = R_TILES + N_KINDS  # the kind of each of them
READER_SIZE = R_KINDS + N_KINDS


def _word_at_in_python(address: int) -> int:
    return ctypes.c_int64.from_address(int(address)).value


def _digit_at_in_python(address: int) -> int:
    return ctypes.c_uint32.from_address(int(address)).value


def _intrinsics() -> tuple[Callable[[int], int], Callable[[int], int]]:
    """``word_at(address)``: the int64 at ``address``; ``digit_at(address)``: the
    uint32 there (an int's digit), as an int64."""
    if JIT_OFF:
        return _word_at_in_python, _digit_at_in_python
    from llvmlite import ir  # type: ignore[import-untyped]  # pragma: no cover - the JIT-off run returns above
    from numba.core import types
    from numba.extending import intrinsic

    word = ir.IntType(64)
    digit = ir.IntType(32)

    @intrinsic
    def word_at(typingctx: Any, address: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.load(builder.inttoptr(args[0], word.as_pointer()))

        return types.int64(types.int64), codegen

    @intrinsic
    def digit_at(typingctx: Any, address: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.zext(builder.load(builder.inttoptr(args[0], digit.as_pointer())), word)

        return types.int64(types.int64), codegen

    return cast(Callable[[int], int], word_at), cast(Callable[[int], int], digit_at)


word_at, digit_at = _intrinsics()


@helper
def type_of(obj: KInt) -> KInt:
    return word_at(obj + TYPE_AT)


@helper
def length_of(obj: KInt) -> KInt:
    """The length of a list or a tuple."""
    return word_at(obj + LENGTH_AT)


@helper
def item_of(sequence: KInt, in_list: bool, k: KInt) -> KInt:
    """Item ``k`` of a list (``in_list``) or a tuple, ``k`` below its length."""
    if in_list:
        return word_at(word_at(sequence + ITEMS_AT) + WORD * k)
    return word_at(sequence + ITEMS_AT + WORD * k)


@helper
def sequence_of(obj: KInt, reader: KArray, tuples_too: bool) -> KInt:
    """The length of ``obj`` if it is a list (or, with ``tuples_too``, a tuple), else -1."""
    kind = type_of(obj)
    if kind == reader[R_LIST] or (tuples_too and kind == reader[R_TUPLE]):
        return length_of(obj)
    return -1


@helper
def is_list(obj: KInt, reader: KArray) -> bool:
    return bool(type_of(obj) == reader[R_LIST])


@helper
def is_int(obj: KInt, reader: KArray) -> bool:
    """Whether ``obj`` is an int (exactly: not a bool, an IntEnum or a numpy int)."""
    return bool(type_of(obj) == reader[R_INT])


@helper
def int_value(obj: KInt, reader: KArray) -> KInt:
    """The value of an int (``is_int``) of one digit at most; +-BIG_INT for a bigger
    one."""
    count = word_at(obj + LENGTH_AT)
    if reader[R_INT_TAGGED]:
        digits = count >> 3
        negative = (count & 3) == 2
    else:
        digits = abs(count)
        negative = count < 0
    if digits == 0:
        return 0
    value = digit_at(obj + ITEMS_AT) if digits == 1 else BIG_INT
    return -value if negative else value


@helper
def tile_kind(obj: KInt, reader: KArray) -> KInt:
    """The kind of ``obj`` if it is one of the 36 tiles, else -1."""
    lo = R_TILES
    hi = R_TILES + N_KINDS
    while lo < hi:
        mid = (lo + hi) >> 1
        if reader[mid] < obj:
            lo = mid + 1
        else:
            hi = mid
    if lo < R_TILES + N_KINDS and reader[lo] == obj:
        return reader[lo + N_KINDS]
    return -1


def _int_value_in_python(obj: Any, tagged: int) -> int:
    """What the kernels read as ``obj``'s value (an int) with R_INT_TAGGED ``tagged``."""
    reading = np.zeros(READER_SIZE, np.int64)
    reading[R_INT_TAGGED] = tagged
    return int(_int_value_python()(id(obj), reading))


@functools.cache
def _int_value_python() -> Callable[[int, KArray], int]:
    """:func:`int_value`'s own source as plain Python, its reads through ctypes."""
    source = getattr(int_value, "py_func", int_value)  # (with the JIT off, the function itself)
    namespace = dict(source.__globals__, word_at=_word_at_in_python, digit_at=_digit_at_in_python)
    return cast(Callable[[int, KArray], int], FunctionType(source.__code__, namespace, source.__name__))


def _layout_holds(tagged: int) -> bool:
    """Whether live objects have the layout the module docstring describes: the type
    and the length read where they should be (each read within the object), then the
    items through them, and ints (``tagged``: as an lv_tag) by their digits."""
    values: list[Any] = [-(2**40), -7, 0, 1, 255, 2**31, 2**62, True, None]
    pairs = [(values, list), (tuple(values), tuple), (2**70, int)]
    for obj, kind in pairs:
        if _word_at_in_python(id(obj) + TYPE_AT) != id(kind):
            return False
    for sequence in (values, tuple(values)):
        if _word_at_in_python(id(sequence) + LENGTH_AT) != len(values):
            return False
    items = _word_at_in_python(id(values) + ITEMS_AT)
    for k, value in enumerate(values):
        if _word_at_in_python(items + WORD * k) != id(value):
            return False
    inline = tuple(values)
    for k, value in enumerate(inline):
        if _word_at_in_python(id(inline) + ITEMS_AT + WORD * k) != id(value):
            return False
    if sys.int_info.bits_per_digit != DIGIT_BITS or sys.int_info.sizeof_digit != 4:
        return False
    one_digit = [0, 1, -1, 5, -5, 1000, -1000, 2**29, -(2**29), 2**30 - 1, -(2**30 - 1)]
    for value in one_digit + [int(str(v)) for v in one_digit]:  # static and heap ints
        if _int_value_in_python(value, tagged) != value:
            return False
    for value in (2**30, -(2**30), 2**62, -(2**70)):
        if _int_value_in_python(value, tagged) != (BIG_INT if value > 0 else -BIG_INT):
            return False
    return True


@functools.cache
def reader() -> KArray | None:
    """The reader array of this process (R_*), or None where a kernel cannot read
    Python objects: another Python implementation, a 32-bit build, a free-threaded
    build (no GIL to keep others away), a reference-tracing debug build (two more words
    before every object), or any other layout than the module docstring's."""
    if sys.implementation.name != "cpython" or sys.maxsize != 2**63 - 1:
        return None
    if sysconfig.get_config_var("Py_GIL_DISABLED") or hasattr(sys, "getobjects"):
        return None
    tagged = int(sys.version_info >= (3, 12))
    if not _layout_holds(tagged):
        return None
    reading = np.zeros(READER_SIZE, np.int64)
    reading[R_LIST] = id(list)
    reading[R_TUPLE] = id(tuple)
    reading[R_INT] = id(int)
    reading[R_INT_TAGGED] = tagged
    tiles = sorted((id(tile), tile.kind) for tile in ALL_TILES)
    reading[R_TILES:R_KINDS] = [address for address, _ in tiles]
    reading[R_KINDS:] = [kind for _, kind in tiles]
    reading.setflags(write=False)  # what the kernel trusts
    return reading
