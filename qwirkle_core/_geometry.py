"""Constants shared by the kernels: the empty-cell marker, kind masks, kernel types.

The board state itself (a compact window around the tiles, with every empty cell's
cross-checks) is described in ``_state``."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

# Kernel signatures use these: numba types the values itself, and mypy cannot follow
# numpy-scalar arithmetic inside a kernel body, so kernel scalars are left open.
KInt = Any  # an integer scalar inside a kernel (Python int or a numpy integer)
KArray = npt.NDArray[Any]

EMPTY = -1  # an empty cell in a kernel's scratch region of kinds

# The playing area: tiles and moves lie at |row|, |col| <= COORD_MAX (see
# qwirkle_core.moves).  Every cell a kernel touches lies within 7 cells of a tile, so
# below 2**30 in absolute value, as the kernels' int32 arithmetic assumes.
COORD_MAX = (1 << 30) - 8  # 1,073,741,816

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
