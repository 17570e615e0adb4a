"""Kernels that judge: the verdicts of a move or a board, and the per-cell masks.

Judging a move (``_state.judge``) and checking a whole board (``_state.build``) live
with the board state; this module names their verdicts and reads the masks out."""

from __future__ import annotations

import numpy as np

from ._geometry import KArray, KInt
from ._jit import borrowing_gil_kernel, kernel
from ._lines import lowest_bit
from ._pyobjects import is_list, item_of, sequence_of, tile_kind
from ._state import (
    CELL_TAKEN,
    GAP,
    INVALID_LINE,
    NO_TILES,
    NOT_CONNECTED,
    NOT_ONE_LINE,
    NOT_TOUCHING,
    OK,
    S_COL_AT,
    S_FULL,
    S_LEFT,
    S_OCC_AT,
    S_ONE,
    S_R0,
    S_R1,
    S_ROW_AT,
    S_TILES,
    S_TOP,
    S_TWO,
    S_WIDTH,
    S_WORDS,
    SAME_CELL,
    TOO_FAR,
    TOO_MANY_COPIES,
    TOO_MANY_TILES,
)

__all__ = [
    "CELL_TAKEN", "GAP", "INVALID_LINE", "NOT_CONNECTED", "NOT_ONE_LINE", "NOT_TOUCHING", "NO_TILES", "OK",
    "SAME_CELL", "TOO_FAR", "TOO_MANY_COPIES", "TOO_MANY_TILES", "cell_masks", "fitting_kinds", "frontier",
    "hand_mask_in_place",
]

WORD_LOW_63 = 0x7FFFFFFFFFFFFFFF


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
    fits = np.int64(0)
    for i in range(cells.shape[0]):
        p = cells[i]
        fits |= st[row_at + p] & st[col_at + p]
    return fits & 0xFFFFFFFFF


HAND_UNREAD = -1  # hand_mask_in_place: not a list or tuple of at most 6 of the 36 tiles
HAND_TOO_MANY_COPIES = -2  # hand_mask_in_place: with the board's, more than 3 copies of a kind


@borrowing_gil_kernel
def hand_mask_in_place(hand: KInt, reader: KArray, st: KArray) -> KInt:
    """The kind mask of the hand at address ``hand``, read where it lies (see
    ``_pyobjects``; the caller holds it): a list or a tuple of at most six of the 36
    tiles, which with the board ``st`` make at most 3 copies of any kind.  Else
    HAND_UNREAD or HAND_TOO_MANY_COPIES, and the caller checks the hand the slow way,
    which takes what the API allows and names what is wrong."""
    n = sequence_of(hand, reader, True)
    if n < 0 or n > 6:
        return HAND_UNREAD
    in_list = is_list(hand, reader)
    once = np.int64(0)  # kinds held at least once, twice, three times, four times
    twice = np.int64(0)
    thrice = np.int64(0)
    four = np.int64(0)
    for a in range(n):
        kind = tile_kind(item_of(hand, in_list, a), reader)
        if kind < 0:
            return HAND_UNREAD
        bit = np.int64(1) << kind
        four |= thrice & bit
        thrice |= twice & bit
        twice |= once & bit
        once |= bit
    if four or once & st[S_FULL] or twice & st[S_TWO] or thrice & st[S_ONE]:
        return HAND_TOO_MANY_COPIES
    return once

