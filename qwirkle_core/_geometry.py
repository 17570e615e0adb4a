"""Temporary: these names live in ``_constants`` and ``_layout`` now; this module goes
once ``_movegen`` (being rewritten) imports them from there."""

from __future__ import annotations

from ._constants import ALL_KINDS, COORD_MAX, NEIGHBOURS
from ._layout import KArray, KInt

__all__ = ["ALL_KINDS", "COORD_MAX", "NEIGHBOURS", "KArray", "KInt"]
