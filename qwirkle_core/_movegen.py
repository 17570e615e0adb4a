"""The move-generation kernels.

One call enumerates every legal placement of a hand on a board, with its score, into
a preallocated int32 table (one row per move, see the ``COL_*`` constants).

How it avoids producing a move twice (the wolges idea, adapted to Qwirkle):
- one-tile moves are enumerated once per cell, from the cell's cross-check mask
  (the kinds allowed by its row AND its column), never once per direction;
- moves of two or more tiles lie in exactly one row or column, so each is found by
  a walk along that line from the first cell of the line it forms (the cell before it
  is empty): the start and the tiles fix the move, and no other walk yields it.
The walk keeps the line's "addable kinds" mask (see ``fold_tile``): placing a tile is
one AND, a line of six folds to 0, and identical tiles in the hand collapse because the
hand is a kind mask.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._geometry import ALL_KINDS, CENTER, EMPTY, MARGIN, KArray, KInt
from ._jit import kernel
from ._lines import fold_tile, line_points, lowest_kind

# Columns of a move table.
OUT_COLS = 20
COL_N = 0  # number of tiles placed (1..6)
COL_SCORE = 1
COL_ROWS = 2  # rows of the placed tiles, slots COL_N.. unused
COL_COLS = 8
COL_KINDS = 14  # kinds, -1 in unused slots
INITIAL_CAPACITY = 256

# What generate_moves keeps (it always counts every legal move).
MODE_ALL = 0  # every move
MODE_COUNT = 1  # none: only the count
MODE_ANY = 2  # the first move found, then stop
MODE_BEST = 3  # every move of the highest score


@kernel
def _grown(out: KArray) -> KArray:
    # Four times larger: a position with 20,000 moves copies its table twice, not six
    # times, and touches far fewer fresh pages.
    bigger = np.empty((out.shape[0] * 4, OUT_COLS), np.int32)
    bigger[: out.shape[0]] = out
    return bigger


@kernel
def _trimmed(out: KArray, count: KInt) -> KArray:
    """The first ``count`` rows of a move table.  A copy when it is much smaller than the
    buffer (so a small result does not pin a large buffer), else a view (so a large
    result is not copied again)."""
    if count * 4 < out.shape[0]:
        return out[:count].copy()
    return out[:count]


@kernel
def cross_checks(grid: KArray, r0: KInt, r1: KInt, c0: KInt, c1: KInt) -> Any:
    """Copy the working region around the box [r0, r1) x [c0, c1) and compute, for
    every empty cell beside a tile, the kinds its row run and its column run allow and
    how many tiles each run holds; list the cells the generator starts from.

    Returns (cells, row_mask, col_mask, row_len, col_len, width, singles,
    row_anchors, col_anchors).  The first five are flat arrays over the region, whose
    top-left cell is grid (r0 - MARGIN, c0 - MARGIN) and whose rows are ``width``
    long.  A cell with no neighbour in a direction has mask ALL_KINDS and length 0
    there.  ``singles``: empty cells with a neighbour.  ``row_anchors``: where a move
    along a row can have its first anchor -- the first tile of a row run, or an empty
    cell with a tile above or below and none to its left (a tile to its left would
    make that tile's run the first anchor); ``col_anchors`` likewise for columns.
    Only the ring of cells one step around the box can have neighbours.
    """
    height = (r1 - r0) + 2 * MARGIN
    width = (c1 - c0) + 2 * MARGIN
    top = r0 - MARGIN
    left = c0 - MARGIN
    n = height * width
    cells = np.empty(n, np.int8)
    for i in range(height):  # row slices: twice as fast as a cell-by-cell copy
        cells[i * width : (i + 1) * width] = grid[top + i, left : left + width]
    # One allocation per dtype, split into views: allocations are a measurable part
    # of a call this short.
    masks = np.full(2 * n, ALL_KINDS, np.int64)
    row_mask = masks[:n]
    col_mask = masks[n:]
    lengths = np.zeros(2 * n, np.int8)
    row_len = lengths[:n]
    col_len = lengths[n:]
    ring = (r1 - r0 + 2) * (c1 - c0 + 2)
    lists = np.empty(3 * ring, np.int64)
    singles = lists[:ring]
    row_anchors = lists[ring : 2 * ring]
    col_anchors = lists[2 * ring :]
    n_singles = 0
    n_row = 0
    n_col = 0
    # Fold every run of tiles once, along rows then columns, and give its result to
    # the empty cell at each end.  A cell between two runs L and R takes L's and R's
    # addable kinds together: for valid L and R, L + cell + R is a valid line for the
    # kinds in allowed(L) & allowed(R) if R's kinds can all join L, else for none.
    for direction in range(2):
        if direction == 0:
            along, across = 1, width
            n_lines, line_len = r1 - r0, c1 - c0
            line_mask, line_len_arr = row_mask, row_len
        else:
            along, across = width, 1
            n_lines, line_len = c1 - c0, r1 - r0
            line_mask, line_len_arr = col_mask, col_len
        for line in range(n_lines):
            # First cell of the line, one step before the box.
            p = (MARGIN + line) * across + (MARGIN - 1) * along
            run = 0
            allowed = np.int64(ALL_KINDS)
            kinds = np.int64(0)
            for _ in range(line_len + 2):
                kind = cells[p]
                if kind != EMPTY:
                    if run == 0:
                        allowed = np.int64(ALL_KINDS)
                        kinds = np.int64(0)
                    allowed = fold_tile(allowed, kind)
                    kinds |= np.int64(1) << kind
                    run += 1
                elif run > 0:
                    if allowed < 0:
                        allowed = np.int64(0)
                    # p is the cell after the run: the run is its left part.
                    line_mask[p] = allowed
                    line_len_arr[p] = run
                    # The cell before the run: the run is its right part.
                    w = p - (run + 1) * along
                    if line_len_arr[w] == 0:
                        line_mask[w] = allowed
                    elif kinds & ~line_mask[w] == 0:
                        line_mask[w] &= allowed
                    else:
                        line_mask[w] = 0
                    line_len_arr[w] += run
                    run = 0
                p += along
    for i in range(MARGIN - 1, height - MARGIN + 1):
        for j in range(MARGIN - 1, width - MARGIN + 1):
            p = i * width + j
            west = cells[p - 1] != EMPTY
            north = cells[p - width] != EMPTY
            if cells[p] != EMPTY:
                if not west:
                    row_anchors[n_row] = p
                    n_row += 1
                if not north:
                    col_anchors[n_col] = p
                    n_col += 1
                continue
            across_row = row_len[p] > 0
            across_col = col_len[p] > 0
            if across_row or across_col:
                singles[n_singles] = p
                n_singles += 1
            if across_col and not west:
                row_anchors[n_row] = p
                n_row += 1
            if across_row and not north:
                col_anchors[n_col] = p
                n_col += 1
    return (
        cells, row_mask, col_mask, row_len, col_len, width,
        singles[:n_singles], row_anchors[:n_row], col_anchors[:n_col],
    )


@kernel
def generate_moves(
    grid: KArray, r0: KInt, r1: KInt, c0: KInt, c1: KInt,
    hand_mask: KInt, row_origin: KInt, col_origin: KInt, mode: KInt,
) -> tuple[KArray, KInt]:
    """Every legal move of the kinds in ``hand_mask`` on a non-empty board whose
    tiles lie in the grid box [r0, r1) x [c0, c1).

    ``row_origin``/``col_origin`` give the caller's coordinates of the grid centre;
    the table holds the caller's coordinates.  Returns (table, total): the moves that
    ``mode`` keeps (see MODE_*) and the number of legal moves (for MODE_ANY, 0 or 1).

    Moves of 2..6 tiles are generated from the leftmost (topmost) *anchor* of their
    line: a board tile, or an empty cell with a tile beside it across the line.  The
    cells before that anchor touch nothing, so they hold placed tiles only ("left
    part", any tiles that fit the line); from the anchor the walk goes on to the right
    through board tiles and cross-checked cells.  Every move has exactly one leftmost
    anchor, hence is produced once; choosing the anchor's tile first narrows the left
    part to that tile's colour or shape, so little work is wasted.  Cells are flat
    indices into the region; ``step`` walks along the line (1 or ``width``).
    """
    (cells, row_mask, col_mask, row_len, col_len, width,
     singles, row_anchors, col_anchors) = cross_checks(grid, r0, r1, c0, c1)
    row_shift = r0 - MARGIN - CENTER + row_origin
    col_shift = c0 - MARGIN - CENTER + col_origin
    out = np.empty((INITIAL_CAPACITY, OUT_COLS), np.int32)
    count = 0  # rows kept in out
    total = 0  # legal moves seen
    best = -1

    # --- One-tile moves: one per (cell, kind), whatever the direction. ---
    for si in range(singles.shape[0]):
        p = singles[si]
        fits = row_mask[p] & col_mask[p] & hand_mask
        if fits == 0:
            continue
        points = line_points(row_len[p] + 1) + line_points(col_len[p] + 1)
        while fits != 0:
            kind = lowest_kind(fits)
            fits &= fits - 1
            total += 1
            if mode == MODE_COUNT or (mode == MODE_BEST and points < best):
                continue
            if mode == MODE_BEST and points > best:
                best = points
                count = 0
            if count == out.shape[0]:
                out = _grown(out)
            row = out[count]
            row[COL_N] = 1
            row[COL_SCORE] = points
            row[COL_ROWS] = p // width + row_shift
            row[COL_COLS] = p % width + col_shift
            row[COL_KINDS] = kind
            for s in range(1, 6):
                row[COL_ROWS + s] = 0
                row[COL_COLS + s] = 0
                row[COL_KINDS + s] = -1
            count += 1
            if mode == MODE_ANY:
                return out[:1].copy(), 1

    # --- Moves of 2..6 tiles, along rows (direction 0) then columns (1). ---
    stacks = np.empty((8, 8), np.int64)  # one allocation for the eight small stacks
    left_kind = stacks[0]  # left part, nearest the anchor first
    left_allowed = stacks[1]  # line's addable kinds with d left tiles
    left_todo = stacks[2]  # kinds still to try at left depth d
    right_pos = stacks[3]  # right_pos[i]: cell of the i-th right tile
    right_allowed = stacks[4]  # line's addable kinds at each frame
    right_todo = stacks[5]  # kinds still to try there
    right_points = stacks[6]  # points of the cross lines so far
    right_kind = stacks[7]

    for direction in range(2):
        if direction == 0:
            step = 1
            anchors = row_anchors
            cross_mask, cross_len = col_mask, col_len
        else:
            step = width
            anchors = col_anchors
            cross_mask, cross_len = row_mask, row_len
        for ai in range(anchors.shape[0]):
            px = anchors[ai]
            anchor_empty = cells[px] == EMPTY
            if anchor_empty:
                choices = cross_mask[px] & hand_mask
            else:
                choices = np.int64(1)  # one pass: the board tile itself
            while choices != 0:
                if anchor_empty:
                    anchor_kind = lowest_kind(choices)
                    allowed = fold_tile(np.int64(ALL_KINDS), anchor_kind)
                    base_points = line_points(cross_len[px] + 1)
                    n_anchor = 1
                    t = px + step
                else:
                    anchor_kind = -1
                    allowed = np.int64(ALL_KINDS)
                    base_points = 0
                    n_anchor = 0
                    t = px
                choices &= choices - 1
                while cells[t] != EMPTY and allowed >= 0:
                    allowed = fold_tile(allowed, cells[t])
                    t += step
                if allowed < 0 or allowed & hand_mask == 0:
                    # Every other tile of the move must join this line: none can.
                    continue
                right_start = t
                # Left part: tiles on the free cells before the anchor (depth d).
                d = 0
                left_allowed[0] = allowed
                left_todo[0] = -1  # marks "state not yet visited"
                while d >= 0:
                    if left_todo[d] == -1:
                        # Visit the state with d left tiles; py is the cell before them.
                        py = px - (d + 1) * step
                        allowed_d = left_allowed[d]
                        if cells[py] == EMPTY:
                            # The line may start at a: walk to the right.  A node of
                            # the walk has rd tiles placed after the anchor, at
                            # right_pos[0..rd-1] (kinds right_kind[...]); its line ends
                            # before the empty cell t.  Each node emits its move once;
                            # only nodes with tiles left to try are pushed as frames
                            # (frame i: the choice of the (i+1)-th right tile), so a
                            # leaf costs no stack traffic.
                            n_prior = n_anchor + d
                            a = py + step
                            t = right_start
                            node_allowed = allowed_d
                            node_points = base_points
                            rd = 0
                            top = -1
                            while True:
                                n_placed = n_prior + rd
                                keep = False
                                if n_placed >= 2:
                                    score = node_points + line_points((t - a) // step)
                                    total += 1
                                    keep = mode != MODE_COUNT and (mode != MODE_BEST or score >= best)
                                    if mode == MODE_BEST and score > best:
                                        best = score
                                        count = 0
                                if keep:
                                    if count == out.shape[0]:
                                        out = _grown(out)
                                    row = out[count]
                                    row[COL_N] = n_placed
                                    row[COL_SCORE] = score
                                    s = 0
                                    for e in range(d - 1, -1, -1):
                                        q = px - (e + 1) * step
                                        row[COL_ROWS + s] = q // width + row_shift
                                        row[COL_COLS + s] = q % width + col_shift
                                        row[COL_KINDS + s] = left_kind[e]
                                        s += 1
                                    if n_anchor:
                                        row[COL_ROWS + s] = px // width + row_shift
                                        row[COL_COLS + s] = px % width + col_shift
                                        row[COL_KINDS + s] = anchor_kind
                                        s += 1
                                    for e in range(rd):
                                        q = right_pos[e]
                                        row[COL_ROWS + s] = q // width + row_shift
                                        row[COL_COLS + s] = q % width + col_shift
                                        row[COL_KINDS + s] = right_kind[e]
                                        s += 1
                                    while s < 6:
                                        row[COL_ROWS + s] = 0
                                        row[COL_COLS + s] = 0
                                        row[COL_KINDS + s] = -1
                                        s += 1
                                    count += 1
                                    if mode == MODE_ANY:
                                        return out[:1].copy(), 1
                                if n_placed < 6:
                                    todo = node_allowed & hand_mask & cross_mask[t]
                                    if todo != 0:
                                        top = rd
                                        right_pos[rd] = t
                                        right_allowed[rd] = node_allowed
                                        right_points[rd] = node_points
                                        right_todo[rd] = todo
                                # The next node: a child of the deepest frame with a
                                # tile left to try.
                                found = False
                                while top >= 0:
                                    todo = right_todo[top]
                                    if todo == 0:
                                        top -= 1
                                        continue
                                    kind = lowest_kind(todo)
                                    right_todo[top] = todo & (todo - 1)
                                    p = right_pos[top]
                                    node_allowed = fold_tile(right_allowed[top], kind)
                                    t = p + step
                                    while cells[t] != EMPTY and node_allowed >= 0:
                                        node_allowed = fold_tile(node_allowed, cells[t])
                                        t += step
                                    if node_allowed < 0:
                                        continue
                                    right_kind[top] = kind
                                    node_points = right_points[top] + line_points(cross_len[p] + 1)
                                    rd = top + 1
                                    found = True
                                    break
                                if not found:
                                    break
                        # Children: one more tile on py, if py is a free cell.
                        if cells[py] == EMPTY and cross_len[py] == 0 and n_anchor + d < 6:
                            left_todo[d] = allowed_d & hand_mask
                        else:
                            left_todo[d] = 0
                    todo = left_todo[d]
                    if todo == 0:
                        d -= 1
                        continue
                    kind = lowest_kind(todo)
                    left_todo[d] = todo & (todo - 1)
                    left_kind[d] = kind
                    left_allowed[d + 1] = fold_tile(left_allowed[d], kind)
                    left_todo[d + 1] = -1
                    d += 1
    return _trimmed(out, count), total


@kernel
def generate_openings(hand_mask: KInt, row: KInt, col: KInt, mode: KInt) -> tuple[KArray, KInt]:
    """Every opening move of the kinds in ``hand_mask`` on the empty board, in the
    canonical frame: the line starts at (row, col) and runs east.  Same results as
    generate_moves."""
    out = np.empty((INITIAL_CAPACITY, OUT_COLS), np.int32)
    count = 0
    total = 0
    best = -1
    placed_kind = np.empty(7, np.int64)
    frame_allowed = np.empty(7, np.int64)
    frame_todo = np.empty(7, np.int64)
    depth = 0
    frame_allowed[0] = ALL_KINDS
    frame_todo[0] = hand_mask & ALL_KINDS
    while depth >= 0:
        todo = frame_todo[depth]
        if todo == 0:
            depth -= 1
            continue
        kind = lowest_kind(todo)
        frame_todo[depth] = todo & (todo - 1)
        placed_kind[depth] = kind
        allowed = fold_tile(frame_allowed[depth], kind)
        n_placed = depth + 1
        score = 1 if n_placed == 1 else line_points(n_placed)
        total += 1
        keep = mode != MODE_COUNT and (mode != MODE_BEST or score >= best)
        if mode == MODE_BEST and score > best:
            best = score
            count = 0
        if keep:
            if count == out.shape[0]:
                out = _grown(out)
            line = out[count]
            line[COL_N] = n_placed
            line[COL_SCORE] = score
            for s in range(6):
                if s < n_placed:
                    line[COL_ROWS + s] = row
                    line[COL_COLS + s] = col + s
                    line[COL_KINDS + s] = placed_kind[s]
                else:
                    line[COL_ROWS + s] = 0
                    line[COL_COLS + s] = 0
                    line[COL_KINDS + s] = -1
            count += 1
            if mode == MODE_ANY:
                return out[:1].copy(), 1
        todo = allowed & hand_mask
        if todo != 0:
            depth += 1
            frame_allowed[depth] = allowed
            frame_todo[depth] = todo
    return _trimmed(out, count), total
