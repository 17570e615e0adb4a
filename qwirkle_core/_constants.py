"""The game's numbers and the masks of kinds, defined here once: the kernels and the
Python layer import them from here.

A tile *kind* is ``color * 6 + shape`` (0..35); kernels see only kinds and 36-bit
masks of kinds (bit ``kind`` set for each kind held)."""

from __future__ import annotations

import numpy as np

# The tiles (qwirkle_core.tiles names them for people).
N_COLORS = 6
N_SHAPES = 6
N_KINDS = N_COLORS * N_SHAPES  # 36
COPIES_PER_KIND = 3
N_TILES = N_KINDS * COPIES_PER_KIND  # 108

# The game (docs/rules.md).
MAX_PLAYERS = 6
HAND_SIZE = 6  # a hand holds at most this many tiles; a place draws back to it
GOING_OUT_BONUS = 6  # for the player who empties their hand when the bag is empty

# The board.  Tiles and moves lie at |row|, |col| <= COORD_MAX (see
# qwirkle_core.moves).  Every cell a kernel touches lies within 7 cells of a tile, so
# below 2**30 in absolute value, as the kernels' int32 arithmetic assumes.
COORD_MAX = (1 << 30) - 8  # 1,073,741,816
MAX_SPAN = N_TILES  # a connected board of n <= 108 tiles spans at most n cells each way
EMPTY = -1  # an empty cell in a kernel's scratch region of kinds

# Masks.
ALL_KINDS = (1 << N_KINDS) - 1  # the 36-bit mask of every kind
WORD_LOW_63 = 0x7FFFFFFFFFFFFFFF  # an int64 word's 63 low bits (a logical shift right by 1 keeps these)


def _color_mask(color: int) -> int:
    return sum(1 << (color * N_SHAPES + s) for s in range(N_SHAPES))


def _shape_mask(shape: int) -> int:
    return sum(1 << (c * N_SHAPES + shape) for c in range(N_COLORS))


# NEIGHBOURS[k]: the kinds that share a colour or a shape with kind k (k included).
# Folding a line's tiles through these masks gives the set of kinds that could join it
# (see _lines.fold_tile).
NEIGHBOURS = np.array(
    [_color_mask(k // N_SHAPES) | _shape_mask(k % N_SHAPES) for k in range(N_KINDS)], dtype=np.int64
)
