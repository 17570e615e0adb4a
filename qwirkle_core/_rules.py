"""Kernels that judge: one proposed placement, a whole board, the per-cell masks."""

from __future__ import annotations

import numpy as np

from ._geometry import ALL_KINDS, CENTER, EMPTY, GRID_SIZE, MARGIN, KArray, KInt
from ._jit import kernel
from ._lines import fold_tile, line_points, line_through
from ._movegen import cross_checks

# Verdicts of check_placement / board_problem.  The Python layer turns each into a
# message that names the rule.
OK = 0
NO_TILES = 1
TOO_MANY_TILES = 2
SAME_CELL = 3
NOT_ONE_LINE = 4
CELL_TAKEN = 5
GAP = 6
NOT_TOUCHING = 7
INVALID_LINE = 8
NOT_CONNECTED = 9


@kernel
def _kind_at(grid: KArray, r: KInt, c: KInt) -> KInt:
    if r < 0 or c < 0 or r >= GRID_SIZE or c >= GRID_SIZE:
        return EMPTY
    return grid[r, c]


@kernel
def check_placement(
    grid: KArray, board_empty: KInt, row_origin: KInt, col_origin: KInt, placed: KArray
) -> tuple[KInt, KInt, KInt, KInt, KInt]:
    """Judge placing ``placed`` (rows of [row, col, kind], caller's coordinates).

    Returns (verdict, score, row, col, direction): on OK the score; otherwise the cell
    the verdict is about and, for INVALID_LINE, the direction of the line (0 = row,
    1 = column).  ``grid`` is left as it was.
    """
    rows = placed[:, 0]
    cols = placed[:, 1]
    kinds = placed[:, 2]
    n = rows.shape[0]
    if n == 0:
        return NO_TILES, 0, 0, 0, 0
    if n > 6:
        return TOO_MANY_TILES, 0, 0, 0, 0
    for a in range(n):
        for b in range(a + 1, n):
            if rows[a] == rows[b] and cols[a] == cols[b]:
                return SAME_CELL, 0, rows[a], cols[a], 0
    same_row = True
    same_col = True
    for a in range(1, n):
        if rows[a] != rows[0]:
            same_row = False
        if cols[a] != cols[0]:
            same_col = False
    if not (same_row or same_col):
        return NOT_ONE_LINE, 0, rows[0], cols[0], 0
    # Along the line: position of each tile, and the span it covers.
    lo = cols[0] if same_row else rows[0]
    hi = lo
    for a in range(n):
        v = cols[a] if same_row else rows[a]
        lo = min(lo, v)
        hi = max(hi, v)

    if board_empty:
        # Any straight, contiguous, valid line is a legal opening.
        if hi - lo + 1 != n:
            for v in range(lo, hi + 1):
                found = False
                for a in range(n):
                    if (cols[a] if same_row else rows[a]) == v:
                        found = True
                if not found:
                    if same_row:
                        return GAP, 0, rows[0], v, 0
                    return GAP, 0, v, cols[0], 1
        allowed = np.int64(ALL_KINDS)
        for v in range(lo, hi + 1):
            for a in range(n):
                if (cols[a] if same_row else rows[a]) == v:
                    allowed = fold_tile(allowed, kinds[a])
        if allowed < 0:
            return INVALID_LINE, 0, rows[0], lo if same_row else cols[0], 0 if same_row else 1
        return OK, (1 if n == 1 else line_points(n)), 0, 0, 0

    dr = CENTER - row_origin
    dc = CENTER - col_origin
    for a in range(n):
        if _kind_at(grid, rows[a] + dr, cols[a] + dc) != EMPTY:
            return CELL_TAKEN, 0, rows[a], cols[a], 0
    # Every cell between the first and the last tile is placed now or already taken.
    for v in range(lo, hi + 1):
        r = rows[0] if same_row else v
        c = v if same_row else cols[0]
        if _kind_at(grid, r + dr, c + dc) != EMPTY:
            continue
        found = False
        for a in range(n):
            if rows[a] == r and cols[a] == c:
                found = True
        if not found:
            return GAP, 0, r, c, 0 if same_row else 1
    touching = hi - lo + 1 > n  # a board tile lies between two placed ones
    for a in range(n):
        r = rows[a] + dr
        c = cols[a] + dc
        if (
            _kind_at(grid, r - 1, c) != EMPTY
            or _kind_at(grid, r + 1, c) != EMPTY
            or _kind_at(grid, r, c - 1) != EMPTY
            or _kind_at(grid, r, c + 1) != EMPTY
        ):
            touching = True
    if not touching:
        return NOT_TOUCHING, 0, rows[0], cols[0], 0
    # Touching and gap-free: every placed cell lies within MARGIN of the tiles, so
    # inside the grid.  Put the tiles down, read the lines, take them back.
    for a in range(n):
        grid[rows[a] + dr, cols[a] + dc] = kinds[a]
    verdict = OK
    score = 0
    bad_r = 0
    bad_c = 0
    bad_dir = 0
    for direction in range(2):
        # The line along the placement (when n >= 2), and for each tile the line
        # across it; a single tile has both of its lines judged.
        along_row = direction == 0
        for a in range(n):
            if n >= 2 and a > 0 and along_row == same_row:
                continue  # the line along the placement is judged once
            length, allowed = line_through(
                grid, rows[a] + dr, cols[a] + dc, 0 if along_row else 1, 1 if along_row else 0
            )
            if allowed < 0 and verdict == OK:
                verdict = INVALID_LINE
                bad_r = rows[a]
                bad_c = cols[a]
                bad_dir = direction
            score += line_points(length)
    for a in range(n):
        grid[rows[a] + dr, cols[a] + dc] = EMPTY
    if verdict != OK:
        return verdict, 0, bad_r, bad_c, bad_dir
    return OK, score, 0, 0, 0


@kernel
def board_problem(
    grid: KArray, r0: KInt, r1: KInt, c0: KInt, c1: KInt, n_tiles: KInt
) -> tuple[KInt, KInt, KInt, KInt]:
    """Check every line of the tiles in the box [r0, r1) x [c0, c1) and that the tiles
    form one connected group.  Returns (verdict, grid_row, grid_col, direction)."""
    for direction in range(2):
        sr = 0 if direction == 0 else 1
        sc = 1 if direction == 0 else 0
        for r in range(r0, r1):
            for c in range(c0, c1):
                if grid[r, c] == EMPTY or grid[r - sr, c - sc] != EMPTY:
                    continue  # not the first tile of a line
                allowed = np.int64(ALL_KINDS)
                rr = r
                cc = c
                while grid[rr, cc] != EMPTY:
                    allowed = fold_tile(allowed, grid[rr, cc])
                    rr += sr
                    cc += sc
                if allowed < 0:
                    return INVALID_LINE, r, c, direction
    # Connectivity: a flood fill from one tile must reach them all.
    seen = np.zeros((r1 - r0 + 2, c1 - c0 + 2), np.bool_)
    queue = np.empty(n_tiles, np.int64)
    width = c1 - c0
    head = 0
    tail = 0
    for r in range(r0, r1):
        if tail > 0:
            break
        for c in range(c0, c1):
            if grid[r, c] != EMPTY:
                queue[0] = (r - r0) * width + (c - c0)
                seen[r - r0 + 1, c - c0 + 1] = True
                tail = 1
                break
    while head < tail:
        q = queue[head]
        head += 1
        r = r0 + q // width
        c = c0 + q % width
        for k in range(4):
            nr = r + (1 if k == 0 else -1 if k == 1 else 0)
            nc = c + (1 if k == 2 else -1 if k == 3 else 0)
            if grid[nr, nc] != EMPTY and not seen[nr - r0 + 1, nc - c0 + 1]:
                seen[nr - r0 + 1, nc - c0 + 1] = True
                queue[tail] = (nr - r0) * width + (nc - c0)
                tail += 1
    if tail != n_tiles:
        for r in range(r0, r1):
            for c in range(c0, c1):
                if grid[r, c] != EMPTY and not seen[r - r0 + 1, c - c0 + 1]:
                    return NOT_CONNECTED, r, c, 0
    return OK, 0, 0, 0


@kernel
def cell_masks(
    grid: KArray, r0: KInt, r1: KInt, c0: KInt, c1: KInt, row_origin: KInt, col_origin: KInt
) -> tuple[KArray, KArray]:
    """For every empty cell beside a tile: its coordinates (caller's frame) and the
    36-bit mask of the kinds that could be placed there alone."""
    checks = cross_checks(grid, r0, r1, c0, c1)
    row_mask, col_mask, width, singles = checks[1], checks[2], checks[5], checks[6]
    n = singles.shape[0]
    coords = np.empty((n, 2), np.int64)
    masks = np.empty(n, np.int64)
    row_shift = r0 - MARGIN - CENTER + row_origin
    col_shift = c0 - MARGIN - CENTER + col_origin
    for i in range(n):
        p = singles[i]
        coords[i, 0] = p // width + row_shift
        coords[i, 1] = p % width + col_shift
        masks[i] = row_mask[p] & col_mask[p]
    return coords, masks


@kernel
def fitting_kinds(grid: KArray, r0: KInt, r1: KInt, c0: KInt, c1: KInt) -> KInt:
    """The kinds that fit, alone, on at least one empty cell beside the tiles of a
    non-empty board (the union of the cells' legal-tile masks).

    This decides whether anyone can ever place again: a tile that fits no cell alone
    fits in no longer move either, since every legal move has a tile touching the
    board, and that tile is legal alone (its lines are parts of the move's lines)."""
    checks = cross_checks(grid, r0, r1, c0, c1)
    row_mask, col_mask, singles = checks[1], checks[2], checks[6]
    fits = np.int64(0)
    for i in range(singles.shape[0]):
        p = singles[i]
        fits |= row_mask[p] & col_mask[p]
    return fits
