"""Reading a sequence argument: its items, or None where it is not one.

Text is not a sequence of tiles or positions here, and a 0-d numpy array says it is
``Iterable`` but cannot be iterated: both are told apart in this one place, so that
each caller only words its own error.  Callers take at most as many items as they can
use (``itertools.islice``), so an endless iterable is never walked to its end.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any


def items_of(value: object) -> Iterator[Any] | None:
    """An iterator over ``value``'s items, or None when it is text, not iterable, or
    refuses to be iterated (a 0-d array)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        return None
    try:
        return iter(value)
    except TypeError:
        return None
