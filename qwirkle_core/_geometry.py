"""Constants shared by the kernels: the grid, the empty-cell marker, kind masks.

The board lives on a fixed ``GRID_SIZE`` x ``GRID_SIZE`` grid of tile kinds (int8,
``EMPTY`` = -1).  A connected board of n <= 108 tiles spans at most n cells in each
direction, and the rest of a game adds at most 108 - n tiles, so a grid whose centre
is put on the middle of the first tiles' bounding box can hold every continuation of
the game with ``MARGIN`` empty cells to spare around it: 128 - 108 >= MARGIN + 1.
The kernels therefore never need a bounds check, and the Python layer checks the one
place (the choice of centre) where that reasoning applies.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

# Kernel signatures use these: numba types the values itself, and mypy cannot follow
# numpy-scalar arithmetic inside a kernel body, so kernel scalars are left open.
KInt = Any  # an integer scalar inside a kernel (Python int or a numpy integer)
KArray = npt.NDArray[Any]

GRID_SIZE = 256
CENTER = GRID_SIZE // 2
# Empty cells kept around the bounding box in every kernel's working region: a line is
# at most 6 long and must contain a cell next to a tile, so no move reaches more than 6
# cells beyond the box; the 7th is the empty cell that ends the line.
MARGIN = 7
EMPTY = -1

N_KINDS = 36
ALL_KINDS = (1 << N_KINDS) - 1  # the 36-bit mask of every kind


def _color_mask(color: int) -> int:
    return sum(1 << (color * 6 + s) for s in range(6))


def _shape_mask(shape: int) -> int:
    return sum(1 << (c * 6 + shape) for c in range(6))


# NEIGHBOURS[k]: the kinds that share a colour or a shape with kind k (k included).
# Folding a line's tiles through these masks gives the set of kinds that could join it
# (see _lines.fold_tile).
NEIGHBOURS = np.array(
    [_color_mask(k // 6) | _shape_mask(k % 6) for k in range(N_KINDS)], dtype=np.int64
)

# 2 is a primitive root modulo 37, so 2**k % 37 differs for k = 0..35: a table indexed
# by ``bit % 37`` turns a one-bit mask into its index, identically with and without JIT.
BIT_INDEX_MOD37 = np.full(37, -1, dtype=np.int8)
for _k in range(N_KINDS):
    BIT_INDEX_MOD37[(1 << _k) % 37] = _k
del _k
