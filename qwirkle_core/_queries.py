"""Kernels of the exhaustive queries (see :mod:`qwirkle_core.queries`).

Each query is one call into this module: the kernel generates what it needs (with the
move generator of ``_movegen``) and reduces it without going back to Python.  Tables
are the generator's move tables (``_layout.COL_*``), in caller coordinates.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import prange

from ._constants import ALL_KINDS, COORD_MAX, EMPTY, N_KINDS
from ._frontier import frontier, in_area
from ._jit import batch_kernel, inline_helper, kernel, parallel_kernel
from ._layout import COL_COLS, COL_KINDS, COL_N, COL_ROWS, COL_SCORE, OUT_COLS, KArray, KInt
from ._lines import fold_tile, line_points
from ._movegen import INITIAL_CAPACITY, MODE_ALL, MODE_BEST, MODE_COUNT, generate
from ._state import (
    LEN_SHIFT,
    S_C0,
    S_C1,
    S_COL_AT,
    S_LEFT,
    S_R0,
    S_R1,
    S_ROW_AT,
    S_TILES,
    S_TOP,
    S_WIDTH,
    kind_at,
)

# Planes of position_planes, in this order.
PLANE_COLORS = 0  # 6 planes: a tile of colour c (0..5) on the cell
PLANE_SHAPES = 6  # 6 planes: a tile of shape s
PLANE_OCCUPIED = 12  # 1 plane: any tile
PLANE_LEGAL = 13  # 36 planes: kind k fits on the (empty) cell as a one-tile move
N_PLANES = PLANE_LEGAL + N_KINDS  # 49

# Empty cells kept around the scratch region of move_risk: every cell it reads lies
# at most two cells beyond the box of the tiles and the moves (see move_risk).
RISK_MARGIN = 4
INITIAL_BATCH_ROWS = 4096


@kernel
def table_of(st: KArray, hand_mask: KInt, mode: KInt) -> tuple[KArray, KInt]:
    """(table, total): the move table ``generate`` fills for ``mode`` (exactly its
    rows), and for MODE_COUNT the number of legal moves (else the number of rows)."""
    out = np.empty((INITIAL_CAPACITY, OUT_COLS), np.int32)
    n = generate(st, out, hand_mask, np.int64(mode))
    if mode == MODE_COUNT:
        return out[:0], n
    if n > out.shape[0]:
        out = np.empty((n, OUT_COLS), np.int32)
        n = generate(st, out, hand_mask, np.int64(mode))
    if n * 4 < out.shape[0]:
        return out[:n].copy(), n  # a small result does not pin a large buffer
    return out[:n], n


@kernel
def best_moves(st: KArray, hand_mask: KInt, k: KInt) -> KArray:
    """The ``k`` highest-scoring moves, best first, equal scores in generation order.

    A counting sort on the score: one pass counts the moves of each score, which fixes
    the lowest score kept and how many of its moves fit; a second pass writes each
    kept move at its place."""
    table = table_of(st, hand_mask, np.int64(MODE_ALL))[0]
    n = table.shape[0]
    k = min(k, n)
    if k <= 0:
        return table[:0].copy()
    top = np.int64(0)
    for m in range(n):
        top = max(top, np.int64(table[m, COL_SCORE]))
    per_score = np.zeros(top + 1, np.int64)
    for m in range(n):
        per_score[table[m, COL_SCORE]] += 1
    threshold = top
    above = 0  # moves scoring more than threshold
    while above + per_score[threshold] < k:
        above += per_score[threshold]
        threshold -= 1
    at_threshold = k - above  # how many moves of the threshold score are kept
    place = np.zeros(top + 1, np.int64)
    filled = 0
    for score in range(top, threshold - 1, -1):
        place[score] = filled
        filled += per_score[score]
    out = np.empty((k, OUT_COLS), np.int32)
    for m in range(n):
        score = table[m, COL_SCORE]
        if score < threshold:
            continue
        if score == threshold:
            if at_threshold == 0:
                continue
            at_threshold -= 1
        out[place[score]] = table[m]
        place[score] += 1
    return out


@kernel
def moves_with_kinds(st: KArray, hand_mask: KInt, kinds_mask: KInt) -> KArray:
    """The moves of ``hand_mask`` that place at least one tile of a kind in ``kinds_mask``."""
    table = table_of(st, hand_mask, np.int64(MODE_ALL))[0]
    keep = np.zeros(table.shape[0], np.bool_)
    n_keep = 0
    for m in range(table.shape[0]):
        for s in range(table[m, COL_N]):
            if (kinds_mask >> np.int64(table[m, COL_KINDS + s])) & 1:
                keep[m] = True
                n_keep += 1
                break
    out = np.empty((n_keep, OUT_COLS), np.int32)
    i = 0
    for m in range(table.shape[0]):
        if keep[m]:
            out[i] = table[m]
            i += 1
    return out


@kernel
def moves_on_cells(st: KArray, hand_mask: KInt, cell_rows: KArray, cell_cols: KArray) -> KArray:
    """The moves of ``hand_mask`` that place a tile on at least one of the cells
    (``cell_rows[i]``, ``cell_cols[i]``), caller coordinates.

    The cells are marked on a grid over the box of every generated move's cells, so a
    move is kept or dropped in six lookups whatever the number of cells."""
    table = table_of(st, hand_mask, np.int64(MODE_ALL))[0]
    n = table.shape[0]
    if n == 0 or cell_rows.shape[0] == 0:
        return table[:0].copy()
    lo_r = np.int64(table[0, COL_ROWS])
    hi_r = lo_r
    lo_c = np.int64(table[0, COL_COLS])
    hi_c = lo_c
    for m in range(n):
        for s in range(table[m, COL_N]):
            lo_r = min(lo_r, np.int64(table[m, COL_ROWS + s]))
            hi_r = max(hi_r, np.int64(table[m, COL_ROWS + s]))
            lo_c = min(lo_c, np.int64(table[m, COL_COLS + s]))
            hi_c = max(hi_c, np.int64(table[m, COL_COLS + s]))
    height = hi_r - lo_r + 1
    width = hi_c - lo_c + 1
    marked = np.zeros(height * width, np.bool_)
    for i in range(cell_rows.shape[0]):
        r = np.int64(cell_rows[i]) - lo_r
        c = np.int64(cell_cols[i]) - lo_c
        if 0 <= r < height and 0 <= c < width:
            marked[r * width + c] = True
    keep = np.zeros(n, np.bool_)
    n_keep = 0
    for m in range(n):
        for s in range(table[m, COL_N]):
            r = np.int64(table[m, COL_ROWS + s]) - lo_r
            c = np.int64(table[m, COL_COLS + s]) - lo_c
            if marked[r * width + c]:
                keep[m] = True
                n_keep += 1
                break
    out = np.empty((n_keep, OUT_COLS), np.int32)
    i = 0
    for m in range(n):
        if keep[m]:
            out[i] = table[m]
            i += 1
    return out


@kernel
def qwirkle_slots(st: KArray, unseen: KArray) -> tuple[KArray, KArray, KArray, KArray, KArray]:
    """Every empty cell where one tile, legal there alone, makes a line of six.

    Returns (coords, kinds, unseen_kinds, unseen_copies, points): the cells (caller
    coordinates, one row each); the 36-bit mask of the kinds that do it (legal in both
    the row and the column of the cell); those with ``unseen[kind] > 0``; the sum of
    ``unseen`` over them; the score of such a one-tile move (the same for every kind
    of the cell).  Non-empty boards only."""
    singles = frontier(st)
    width = st[S_WIDTH]
    row_at = st[S_ROW_AT]
    col_at = st[S_COL_AT]
    unseen_mask = np.int64(0)
    for kind in range(N_KINDS):
        if unseen[kind] > 0:
            unseen_mask |= np.int64(1) << kind
    n = 0
    found = np.empty(singles.shape[0], np.int64)
    for i in range(singles.shape[0]):
        p = singles[i]
        row_info = st[row_at + p]
        col_info = st[col_at + p]
        if (row_info >> LEN_SHIFT == 5 or col_info >> LEN_SHIFT == 5) and row_info & col_info & ALL_KINDS != 0:
            found[n] = p
            n += 1
    coords = np.empty((n, 2), np.int64)
    kinds = np.empty(n, np.int64)
    unseen_kinds = np.empty(n, np.int64)
    copies = np.zeros(n, np.int64)
    points = np.empty(n, np.int64)
    for i in range(n):
        p = found[i]
        row_info = st[row_at + p]
        col_info = st[col_at + p]
        coords[i, 0] = p // width + st[S_TOP]
        coords[i, 1] = p % width + st[S_LEFT]
        fits = row_info & col_info & ALL_KINDS
        kinds[i] = fits
        unseen_kinds[i] = fits & unseen_mask
        for kind in range(N_KINDS):
            if (fits >> kind) & 1:
                copies[i] += unseen[kind]
        points[i] = line_points((row_info >> LEN_SHIFT) + 1) + line_points((col_info >> LEN_SHIFT) + 1)
    return coords, kinds, unseen_kinds, copies, points


@inline_helper
def _six_kinds(cells: KArray, width: KInt, p: KInt) -> KInt:
    """The kinds that make a line of six when placed alone on the empty cell ``p`` of a
    flat region (rows ``width`` long, empty cells all around the tiles): 0 unless the
    row or the column of ``p`` holds five tiles; else the kinds that both accept."""
    row_allowed = np.int64(ALL_KINDS)
    col_allowed = np.int64(ALL_KINDS)
    row_n = 0
    col_n = 0
    t = p - 1
    while cells[t] != EMPTY:
        row_allowed = fold_tile(row_allowed, cells[t])
        row_n += 1
        t -= 1
    t = p + 1
    while cells[t] != EMPTY:
        row_allowed = fold_tile(row_allowed, cells[t])
        row_n += 1
        t += 1
    t = p - width
    while cells[t] != EMPTY:
        col_allowed = fold_tile(col_allowed, cells[t])
        col_n += 1
        t -= width
    t = p + width
    while cells[t] != EMPTY:
        col_allowed = fold_tile(col_allowed, cells[t])
        col_n += 1
        t += width
    if (row_n != 5 and col_n != 5) or row_allowed < 0 or col_allowed < 0:
        return np.int64(0)
    return row_allowed & col_allowed


@kernel
def move_risk(st: KArray, hand_mask: KInt, unseen: KArray) -> tuple[KArray, KArray, KArray]:
    """Every legal move of ``hand_mask``, and what it leaves the next player.

    A *slot* is an empty cell of the playing area where one tile of a kind with
    ``unseen[kind] > 0``, legal there alone, makes a line of six.  Returns (table, open_after, opened): per move, the
    number of slots on the board after the move, and how many of those were not slots
    before it.

    Each move's tiles are put on a scratch copy of the region, and only the cells whose
    lines the move changes are judged again: the cells it fills and the empty cell at
    each end of every line through a placed tile (a cell's row and column runs change
    only if a placed tile joins one of them, and then the cell ends that tile's line).
    Every other cell keeps its status from before the move.

    Reads stay inside the region: lines lie inside the box of the board's tiles and the
    moves' cells, so an end cell is at most one cell outside that box and its runs stop
    one cell further (nothing lies outside the box); RISK_MARGIN = 4 > 2.
    """
    table = table_of(st, hand_mask, np.int64(MODE_ALL))[0]
    n = table.shape[0]
    unseen_mask = np.int64(0)
    for kind in range(N_KINDS):
        if unseen[kind] > 0:
            unseen_mask |= np.int64(1) << kind
    open_after = np.zeros(n, np.int32)
    opened = np.zeros(n, np.int32)
    if n == 0:
        return table, open_after, opened
    empty = st[S_TILES] == 0
    dr = 0  # the region is laid out in the caller's coordinates
    dc = 0
    # Box of the tiles and of every move's cells (closed bounds).
    if empty:
        lo_r = np.int64(table[0, COL_ROWS])
        lo_c = np.int64(table[0, COL_COLS])
        hi_r = lo_r
        hi_c = lo_c
    else:
        lo_r = st[S_TOP] + st[S_R0]
        hi_r = st[S_TOP] + st[S_R1] - 1
        lo_c = st[S_LEFT] + st[S_C0]
        hi_c = st[S_LEFT] + st[S_C1] - 1
    for m in range(n):
        for s in range(table[m, COL_N]):
            gr = np.int64(table[m, COL_ROWS + s]) + dr
            gc = np.int64(table[m, COL_COLS + s]) + dc
            lo_r = min(lo_r, gr)
            hi_r = max(hi_r, gr)
            lo_c = min(lo_c, gc)
            hi_c = max(hi_c, gc)
    top = lo_r - RISK_MARGIN
    left = lo_c - RISK_MARGIN
    height = hi_r - lo_r + 1 + 2 * RISK_MARGIN
    width = hi_c - lo_c + 1 + 2 * RISK_MARGIN
    cells = np.empty(height * width, np.int8)
    for i in range(height):
        for j in range(width):
            cells[i * width + j] = kind_at(st, top + i, left + j) if not empty else EMPTY
    # The slots before any move.
    slot0 = np.zeros(height * width, np.bool_)
    n_slots0 = 0
    if not empty:
        for i in range(1, height - 1):
            for j in range(1, width - 1):
                p = i * width + j
                if cells[p] != EMPTY:
                    continue
                if (
                    cells[p - 1] == EMPTY and cells[p + 1] == EMPTY
                    and cells[p - width] == EMPTY and cells[p + width] == EMPTY
                ):
                    continue
                if _six_kinds(cells, width, p) & unseen_mask != 0 and in_area(top, left, width, p):
                    slot0[p] = True
                    n_slots0 += 1
    placed = np.empty(6, np.int64)
    ends = np.empty(16, np.int64)
    for m in range(n):
        n_placed = table[m, COL_N]
        for s in range(n_placed):
            p = (np.int64(table[m, COL_ROWS + s]) + dr - top) * width + (
                np.int64(table[m, COL_COLS + s]) + dc - left
            )
            placed[s] = p
            cells[p] = table[m, COL_KINDS + s]
        n_ends = 0
        for s in range(n_placed):
            for direction in range(2):
                step = 1 if direction == 0 else width
                for sign in range(2):
                    t = placed[s]
                    if sign == 0:
                        while cells[t] != EMPTY:
                            t -= step
                    else:
                        while cells[t] != EMPTY:
                            t += step
                    seen = False
                    for e in range(n_ends):
                        if ends[e] == t:
                            seen = True
                            break
                    if not seen:
                        ends[n_ends] = t
                        n_ends += 1
        lost = 0
        for s in range(n_placed):
            if slot0[placed[s]]:
                lost += 1
        after = 0
        new = 0
        for e in range(n_ends):
            p = ends[e]
            if slot0[p]:
                lost += 1
            if _six_kinds(cells, width, p) & unseen_mask != 0 and in_area(top, left, width, p):
                after += 1
                if not slot0[p]:
                    new += 1
        open_after[m] = n_slots0 - lost + after
        opened[m] = new
        for s in range(n_placed):
            cells[placed[s]] = EMPTY
    return table, open_after, opened


@batch_kernel
def _batch_table(buffer: KArray, offsets: KArray, hand_masks: KArray, i: KInt, mode: KInt) -> tuple[KArray, KInt]:
    """table_of() for position i of a packed batch (see batch_generate).  Its callers
    pass ``i`` and ``mode`` as int64 (a prange index is unsigned, a constant mode a
    literal): each other type of either would compile it once more (and, for the
    mode, table_of), for nothing, since generate takes the mode as an int64 anyway."""
    return table_of(buffer[offsets[i] : offsets[i + 1]], hand_masks[i], mode)


@parallel_kernel
def batch_generate(buffer: KArray, offsets: KArray, hand_masks: KArray, mode: KInt) -> tuple[KArray, KArray]:
    """Counts (MODE_COUNT) or best scores (MODE_BEST) of many positions, in parallel.

    Position i is the board state ``buffer[offsets[i]:offsets[i + 1]]`` (see
    ``_state``) with the hand ``hand_masks[i]``.  Returns (totals, best): the number
    of legal moves (MODE_COUNT) and, for MODE_BEST, the best score (0 where there is
    no move)."""
    n = offsets.shape[0] - 1
    totals = np.zeros(n, np.int64)
    best = np.zeros(n, np.int64)
    for i in prange(n):
        table, total = _batch_table(buffer, offsets, hand_masks, np.int64(i), mode)
        totals[i] = total
        if mode == MODE_BEST and table.shape[0] > 0:
            best[i] = table[0, COL_SCORE]
    return totals, best


@batch_kernel
def batch_generate_serial(buffer: KArray, offsets: KArray, hand_masks: KArray, mode: KInt) -> tuple[KArray, KArray]:
    """batch_generate on the calling thread only."""
    n = offsets.shape[0] - 1
    totals = np.zeros(n, np.int64)
    best = np.zeros(n, np.int64)
    for i in range(n):
        table, total = _batch_table(buffer, offsets, hand_masks, np.int64(i), mode)
        totals[i] = total
        if mode == MODE_BEST and table.shape[0] > 0:
            best[i] = table[0, COL_SCORE]
    return totals, best


@parallel_kernel
def batch_moves(buffer: KArray, offsets: KArray, hand_masks: KArray) -> tuple[KArray, KArray]:
    """Every legal move of many positions (packed as for batch_generate), in parallel.

    Returns (table, starts): the moves of position i are ``table[starts[i]:starts[i+1]]``.
    One parallel pass counts, the second writes each position's moves in its place."""
    n = offsets.shape[0] - 1
    counts = np.zeros(n, np.int64)
    for i in prange(n):
        counts[i] = _batch_table(buffer, offsets, hand_masks, np.int64(i), np.int64(MODE_COUNT))[1]
    starts = np.zeros(n + 1, np.int64)
    for i in range(n):
        starts[i + 1] = starts[i] + counts[i]
    out = np.empty((starts[n], OUT_COLS), np.int32)
    for i in prange(n):
        table = _batch_table(buffer, offsets, hand_masks, np.int64(i), np.int64(MODE_ALL))[0]
        out[starts[i]:starts[i + 1]] = table
    return out, starts


@batch_kernel
def batch_moves_serial(buffer: KArray, offsets: KArray, hand_masks: KArray) -> tuple[KArray, KArray]:
    """batch_moves on the calling thread only (one pass: the tables are appended)."""
    n = offsets.shape[0] - 1
    starts = np.zeros(n + 1, np.int64)
    out = np.empty((INITIAL_BATCH_ROWS, OUT_COLS), np.int32)
    for i in range(n):
        table = _batch_table(buffer, offsets, hand_masks, np.int64(i), np.int64(MODE_ALL))[0]
        end = starts[i] + table.shape[0]
        if end > out.shape[0]:
            bigger = np.empty((max(end, 2 * out.shape[0]), OUT_COLS), np.int32)
            bigger[: starts[i]] = out[: starts[i]]
            out = bigger
        out[starts[i]:end] = table
        starts[i + 1] = end
    return out[: starts[n]].copy(), starts


@kernel
def position_planes(st: KArray, top: KInt, left: KInt, height: KInt, width: KInt) -> Any:
    """The N_PLANES x height x width uint8 planes (order: PLANE_*) of the window whose
    top-left cell has caller coordinates (top, left)."""
    out = np.zeros((N_PLANES, height, width), np.uint8)
    if st[S_TILES] == 0:
        # Only the opening cell (0, 0), where every kind fits.
        if 0 <= -top < height and 0 <= -left < width:
            for k in range(N_KINDS):
                out[PLANE_LEGAL + k, -top, -left] = 1
        return out
    # The tiles' box, clipped to the window (caller's coordinates).
    for r in range(max(st[S_TOP] + st[S_R0], np.int64(top)), min(st[S_TOP] + st[S_R1], np.int64(top) + height)):
        for c in range(max(st[S_LEFT] + st[S_C0], np.int64(left)), min(st[S_LEFT] + st[S_C1], np.int64(left) + width)):
            kind = kind_at(st, r, c)
            if kind != EMPTY:
                i = r - top
                j = c - left
                out[PLANE_COLORS + kind // 6, i, j] = 1
                out[PLANE_SHAPES + kind % 6, i, j] = 1
                out[PLANE_OCCUPIED, i, j] = 1
    singles = frontier(st)
    region_width = st[S_WIDTH]
    row_at = st[S_ROW_AT]
    col_at = st[S_COL_AT]
    for s in range(singles.shape[0]):
        p = singles[s]
        i = p // region_width + st[S_TOP] - top
        j = p % region_width + st[S_LEFT] - left
        # (A cell beyond the playing area's edge takes no tile: no legal plane there.)
        if 0 <= i < height and 0 <= j < width and abs(i + top) <= COORD_MAX and abs(j + left) <= COORD_MAX:
            fits = st[row_at + p] & st[col_at + p] & ALL_KINDS
            for k in range(N_KINDS):
                if (fits >> k) & 1:
                    out[PLANE_LEGAL + k, i, j] = 1
    return out
