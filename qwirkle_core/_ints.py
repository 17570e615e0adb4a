"""Reading an integer argument: one value, read once.

A public function that takes a count, an index, a coordinate or a seed and accepts a
numpy integer for it reads it here: an int (an IntEnum too) or a numpy integer, never a
boolean or a float however whole.  The value is read once, with ``operator.index``, and that same number is both
range-checked and returned, so an ``int`` subclass whose ``__int__`` or ``__index__``
disagrees with its value cannot pass the check as one number and reach a kernel as
another.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .errors import QwirkleError, show


def int_value(value: Any) -> int | None:
    """The integer value of ``value`` (an exact ``int``), or None when it is not an
    integer: anything but an int or a numpy integer, and booleans (Python's and
    numpy's)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        return None
    # For an int (a subclass too) operator.index gives the value itself, whatever the
    # subclass's __index__ or __int__ say; for a numpy integer, its value.
    return int.__index__(operator.index(value))


def read_int(value: Any, what: str, lo: int, hi: int, error: type[QwirkleError] = QwirkleError) -> int:
    """``value`` as an int in ``lo..hi`` (inclusive), else ``error`` naming ``what``."""
    number = int_value(value)
    if number is None:
        raise error(f"{what} must be an integer, got {show(value)}")
    if not lo <= number <= hi:
        raise error(f"{what} must be {lo:,}..{hi:,}, got {_short(number)}")
    return number


def _short(number: int) -> str:
    """An integer for a message, however many digits it has."""
    if abs(number) < 10**30:
        return str(number)
    return f"an integer of {number.bit_length()} bits"
