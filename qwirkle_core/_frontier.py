"""The frontier of a board: its empty cells beside a tile, and the kinds each one takes.

Read from the board state's cross-checks (``_state``): a one-tile move on a frontier cell
is legal exactly when its kind is in the cell's row and column masks."""

from __future__ import annotations

import numpy as np

from ._constants import COORD_MAX, WORD_LOW_63
from ._jit import helper, kernel
from ._layout import KArray, KInt
from ._lines import lowest_bit
from ._state import (
    S_COL_AT,
    S_HEIGHT,
    S_LEFT,
    S_OCC_AT,
    S_R0,
    S_R1,
    S_ROW_AT,
    S_TILES,
    S_TOP,
    S_WIDTH,
    S_WORDS,
)


@kernel
def frontier(st: KArray) -> KArray:
    """The flat window cells that are empty and beside a tile, in (row, col) order."""
    if st[S_TILES] == 0:
        return np.empty(0, np.int64)
    words = st[S_WORDS]
    width = st[S_WIDTH]
    occ_at = st[S_OCC_AT]
    first_row = st[S_R0] - 1
    last_row = st[S_R1]
    out = np.empty((last_row - first_row + 1) * (st[S_WIDTH]), np.int64)
    n = 0
    for i in range(first_row, last_row + 1):
        for w in range(words):
            o = occ_at + i * words + w
            tiles = st[o]
            west = tiles << 1
            east = (tiles >> 1) & WORD_LOW_63
            if w > 0:
                west |= (st[o - 1] >> 63) & 1
            if w + 1 < words:
                east |= st[o + 1] << 63
            cells = ~tiles & (west | east | st[o - words] | st[o + words])
            while cells != 0:
                out[n] = i * width + w * 64 + lowest_bit(cells)
                cells &= cells - 1
                n += 1
    return out[:n]


@kernel
def cell_masks(st: KArray) -> tuple[KArray, KArray]:
    """For every empty cell beside a tile: its coordinates (caller's frame) and the
    36-bit mask of the kinds that could be placed there alone."""
    cells = frontier(st)
    n = cells.shape[0]
    coords = np.empty((n, 2), np.int64)
    masks = np.empty(n, np.int64)
    width = st[S_WIDTH]
    row_at = st[S_ROW_AT]
    col_at = st[S_COL_AT]
    for i in range(n):
        p = cells[i]
        coords[i, 0] = p // width + st[S_TOP]
        coords[i, 1] = p % width + st[S_LEFT]
        masks[i] = st[row_at + p] & st[col_at + p] & 0xFFFFFFFFF
    return coords, masks


@kernel
def fitting_kinds(st: KArray) -> KInt:
    """The kinds that fit, alone, on at least one empty cell beside the tiles of a
    non-empty board (the union of the cells' legal-tile masks).

    This decides whether anyone can ever place again: a tile that fits no cell alone
    fits in no longer move either, since every legal move has a tile touching the
    board, and that tile is legal alone (its lines are parts of the move's lines)."""
    cells = frontier(st)
    row_at = st[S_ROW_AT]
    col_at = st[S_COL_AT]
    width = st[S_WIDTH]
    top = st[S_TOP]
    left = st[S_LEFT]
    # A cell beyond the playing area's edge takes no tile: where the window reaches past
    # it (a board near the edge), such cells are passed over.
    clip = window_leaves_area(st)
    fits = np.int64(0)
    for i in range(cells.shape[0]):
        p = cells[i]
        if clip and not in_area(top, left, width, p):
            continue
        fits |= st[row_at + p] & st[col_at + p]
    return fits & 0xFFFFFFFFF


@helper
def in_area(top: KInt, left: KInt, width: KInt, p: KInt) -> bool:
    """Whether cell ``p`` of a region whose top-left cell is (top, left) in the caller's
    coordinates, ``width`` cells wide, lies in the playing area (no tile is ever played
    beyond its edge)."""
    return bool(abs(top + p // width) <= COORD_MAX and abs(left + p % width) <= COORD_MAX)


@helper
def window_leaves_area(st: KArray) -> bool:
    """Whether a cell of the state's window lies beyond the playing area's edge
    (|row|, |col| <= COORD_MAX)."""
    return bool(
        st[S_TOP] < -COORD_MAX
        or st[S_TOP] + st[S_HEIGHT] - 1 > COORD_MAX
        or st[S_LEFT] < -COORD_MAX
        or st[S_LEFT] + st[S_WIDTH] - 1 > COORD_MAX
    )
