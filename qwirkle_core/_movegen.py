"""The move-generation kernel.

One call enumerates every legal placement of a hand on a board, with its score, into
a caller's int32 table (one row per move, see the ``COL_*`` constants), reading the
cross-checks that the board state (``_state``) keeps up to date: a query recomputes
nothing and allocates nothing (its small stacks live in its stack frame, new_scratch).

How it avoids producing a move twice (the wolges idea, adapted to Qwirkle):
- one-tile moves are enumerated once per cell, from the cell's cross-check mask
  (the kinds allowed by its row AND its column), never once per direction;
- moves of two or more tiles lie in exactly one row or column, so each is found by
  a walk along that line from the first cell of the line it forms (the cell before it
  is empty): the start and the tiles fix the move, and no other walk yields it.
The walk keeps the line's "addable kinds" mask (see ``fold_tile``): placing a tile is
one AND, a line of six folds to 0, and identical tiles in the hand collapse because the
hand is a kind mask.

The cells a walk starts from come from the occupancy bits, a row (64 cells) at a time:
an empty cell beside a tile (one-tile moves), the first tile of a run or an empty cell
with a tile across the line and none before it (anchors); all in (row, col) order.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ._constants import ALL_KINDS, COORD_MAX, MAX_SPAN, NEIGHBOURS, WORD_LOW_63
from ._jit import JIT_OFF, helper, inline_helper, kernel, query_kernel
from ._layout import COL_COLS, COL_KINDS, COL_N, COL_ROWS, COL_SCORE, KArray, KInt
from ._lines import fold_tile, line_points, lowest_bit, lowest_kind
from ._numba_private import stack_array as _stack_array
from ._state import (
    LEN_SHIFT,
    S_C0,
    S_C1,
    S_COL_AT,
    S_FULL,
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

# A move table is int32[rows, OUT_COLS], one move row each (COL_*, see _layout).
INITIAL_CAPACITY = 256

# What generate keeps (it always counts every legal move).
MODE_ALL = 0  # every move
MODE_COUNT = 1  # none: only the count
MODE_ANY = 2  # the first move found, then stop
MODE_BEST = 3  # every move of the highest score

MODE_BITS = 3  # the mode in generate's ``mode``; the bits above it are options
CHECK_EDGE = 4  # option: answer NEAR_EDGE when a move could leave the playing area

HAND_CONFLICT = -1  # generate's answer for a hand holding a kind whose 3 copies are on the board
NEAR_EDGE = -2  # generate's answer, with CHECK_EDGE, for a board near the playing area's edge

# A move reaches at most 6 cells beyond the tiles (a line of six with one of them on the
# board's edge), so a board farther than this from the edge of the playing area has no
# move that would cross it.
EDGE_REACH = 7

# Rows of the scratch array of a query (int64[N_SCRATCH, 8]).
K_LEFT_KIND = 0  # left part, nearest the anchor first
K_LEFT_ALLOWED = 1  # the line's addable kinds with n_left left tiles
K_LEFT_TODO = 2  # kinds still to try at left depth n_left
K_RIGHT_ALLOWED = 3  # the line's addable kinds before the i-th right tile
K_RIGHT_TODO = 4  # kinds still to try there
K_RIGHT_POINTS = 5  # points of the cross lines before it
K_MOVE_CELL = 6  # the move being made: its cells in line order (the left part, the
K_MOVE_KIND = 7  # anchor, then the right tiles, which the walk puts here itself) and kinds
N_SCRATCH = 8


# The rows a query goes over (the tiles' rows and one each side) and the occupancy words
# of a row, at most: a window is at most MAX_SPAN + 2 * GROW_MARGIN cells wide.
MAX_QUERY_ROWS = MAX_SPAN + 2
MAX_ROW_WORDS = 3


new_scratch = _stack_array(N_SCRATCH, 8)
# Per query row and occupancy word, the empty cells where a tile of the hand fits
# (bit b: cell 64 * word + b), found by the one-tile pass for the walks.
new_fit_words = _stack_array(MAX_QUERY_ROWS, MAX_ROW_WORDS)


@helper
def unsigned(index: KInt) -> Any:
    """``index`` as an unsigned int, for indexing: numba then skips the negative-index
    wraparound (a compare and an add per access); the kernels' indices are never negative
    (the bounds-checked run would catch one: cast to unsigned, it is out of bounds)."""
    return np.uint64(index)  # pragma: no cover - compiled only (plain Python: operator.index)


# With the JIT off, the index as it is: operator.index is a C function, which a coverage
# tracer does not trace line by line as it would a Python one (the JIT-off run calls this
# a few hundred times a query).
if JIT_OFF:
    unsigned = operator.index  # type: ignore[assignment]


@helper
def reciprocal(divisor: KInt) -> KInt:
    """ceil(2**32 / divisor): ``(x * reciprocal(d)) >> 32 == x // d`` for 0 <= x and
    x * d < 2**32 (Granlund and Montgomery's division by an invariant integer).  The
    walks divide a flat cell by the window's width for every tile they write, and a
    multiply and a shift cost a fraction of a division; a window is at most
    MAX_SPAN + 2 * GROW_MARGIN cells wide and high, so x * d stays far below 2**32."""
    return ((np.int64(1) << 32) + divisor - 1) // divisor


# A query's (width, reciprocal(width), top, left, clip): clip where a move could leave
# the playing area (near_edge), so that record_move drops those moves.
Window = tuple[KInt, KInt, KInt, KInt, bool]
# A pass's direction: (step, reciprocal(step), along_at, cross_at), the step from a cell
# to the next along the line and the offsets in ``st`` of the cross-check words along
# it and across it.
Line = tuple[KInt, KInt, KInt, KInt]
# The moves a pass has seen: (rows kept, legal moves, best score kept), and whether it
# stopped early (MODE_ANY found one).
Tally = tuple[KInt, KInt, KInt, bool]


@inline_helper
def write_move(out: KArray, count: KInt, scratch: KArray, n: KInt, score: KInt, window: Window) -> None:
    """Row ``count`` of ``out``: the move of the ``n`` tiles in scratch[K_MOVE_*, :n],
    flat cells of the ``window`` (its cell 0 is the caller's (top, left))."""
    width, per_width, top, left, _ = window
    move_row = unsigned(count)
    out[move_row, COL_N] = n
    out[move_row, COL_SCORE] = score
    for s in range(6):
        if s < n:
            cell = scratch[K_MOVE_CELL, s]
            row = (cell * per_width) >> 32
            out[move_row, COL_ROWS + s] = row + top
            out[move_row, COL_COLS + s] = cell - row * width + left
            out[move_row, COL_KINDS + s] = scratch[K_MOVE_KIND, s]
        else:
            out[move_row, COL_ROWS + s] = 0
            out[move_row, COL_COLS + s] = 0
            out[move_row, COL_KINDS + s] = -1


@helper
def keep_move(mode: KInt, score: KInt, best: KInt, count: KInt) -> tuple[bool, KInt, KInt]:
    """Whether ``mode`` keeps a move of ``score``; the best score and the rows kept
    so far after it (a better score under MODE_BEST drops the rows kept)."""
    if mode == MODE_COUNT:
        return False, best, count
    if mode == MODE_BEST:
        if score < best:
            return False, best, count
        if score > best:
            return True, score, 0
    return True, best, count


@inline_helper
def leaves_area(scratch: KArray, n: KInt, window: Window) -> bool:
    """Whether a tile of the move in scratch[K_MOVE_*, :n] lies beyond the playing
    area's edge (|row|, |col| <= COORD_MAX)."""
    width, per_width, top, left, _ = window
    for s in range(n):
        cell = scratch[K_MOVE_CELL, s]
        row = (cell * per_width) >> 32
        if abs(row + top) > COORD_MAX or abs(cell - row * width + left) > COORD_MAX:
            return True
    return False


@inline_helper
def record_move(
    out: KArray, scratch: KArray, n: KInt, score: KInt, mode: KInt, count: KInt, total: KInt, best: KInt,
    window: Window,
) -> Tally:
    """The move writer: the legal move of the ``n`` tiles in scratch[K_MOVE_*, :n],
    scoring ``score``, counted, and written as the next row of ``out`` if ``mode`` keeps
    it and the table has room (the rows kept are counted beyond it: the caller then
    asks again with a larger table).  Returns the tally after it, which says stop
    under MODE_ANY.  Near the playing area's edge (the window's ``clip``), a move with a
    tile beyond it is no legal move: not counted, not kept.  (Here, the one writer of
    every move, so that no caller of ``generate`` -- the bots, the rule that a pass needs
    no placement, the endgame solver -- ever sees one.)"""
    if window[4] and leaves_area(scratch, n, window):
        return count, total, best, False
    total += 1
    keep, best, count = keep_move(mode, score, best, count)
    if keep:
        if count < out.shape[0]:
            write_move(out, count, scratch, n, score, window)
        return count + 1, total, best, mode == MODE_ANY
    return count, total, best, False


@inline_helper
def generate_openings(out: KArray, scratch: KArray, hand_mask: KInt, row: KInt, col: KInt, mode: KInt) -> KInt:
    """Every opening move of the kinds in ``hand_mask`` on the empty board, in the
    canonical frame: the line starts at (row, col) and runs east.  Returns what
    :func:`generate` returns."""
    window = (8, reciprocal(8), row, col, False)  # a window 8 cells wide: the line fits its row
    count = 0
    total = 0
    best = -1
    depth = 0
    scratch[K_LEFT_ALLOWED, 0] = ALL_KINDS
    scratch[K_LEFT_TODO, 0] = hand_mask & ALL_KINDS
    for s in range(6):
        scratch[K_MOVE_CELL, s] = s
    while depth >= 0:
        todo = scratch[K_LEFT_TODO, depth]
        if todo == 0:
            depth -= 1
            continue
        kind = lowest_kind(todo)
        scratch[K_LEFT_TODO, depth] = todo & (todo - 1)
        scratch[K_MOVE_KIND, depth] = kind
        allowed = fold_tile(scratch[K_LEFT_ALLOWED, depth], kind)
        n_placed = depth + 1
        score = 1 if n_placed == 1 else line_points(n_placed)
        count, total, best, stop = record_move(out, scratch, n_placed, score, mode, count, total, best, window)
        if stop:
            return 1
        todo = allowed & hand_mask
        if todo != 0:
            depth += 1
            scratch[K_LEFT_ALLOWED, depth] = allowed
            scratch[K_LEFT_TODO, depth] = todo
    return total if mode == MODE_COUNT else count


@helper
def start_cells(st: KArray, o: KInt, w: KInt, words: KInt, walk: KInt) -> KInt:
    """The cells of occupancy word ``o`` (word ``w`` of its row) where pass ``walk``
    starts: 0, the empty cells beside a tile; 1, the anchors of moves along the row
    (a tile, or an empty cell with a tile above or below, with no tile before it);
    2, the anchors of moves along the column (likewise, across)."""
    tiles = st[unsigned(o)]
    west = tiles << 1  # bit b: the cell before b holds a tile
    east = (tiles >> 1) & WORD_LOW_63
    if w > 0:
        west |= (st[unsigned(o - 1)] >> 63) & 1
    if w + 1 < words:
        east |= st[unsigned(o + 1)] << 63
    north = st[unsigned(o - words)]
    south = st[unsigned(o + words)]
    if walk == 0:
        return ~tiles & (west | east | north | south)
    if walk == 1:
        return (tiles | north | south) & ~west
    return (tiles | west | east) & ~north


@helper
def row_live_tiles(tiles: KInt, fit: KInt, fit_word_before: KInt, more_words: KInt) -> KInt:
    """The tiles of an occupancy word that a move along their row can be built on: those
    of runs with a cell at either end where a hand tile fits (``fit``: the one-tile
    pass's cells of this word, ``fit_word_before``: of the word before, 0 for none).
    Runs reaching the word's last cell when ``more_words`` are kept (their end lies in
    the next word, not known here)."""
    after = fit
    if more_words:
        after |= tiles & ~WORD_LOW_63
    # From each fitting cell down through the run before it (a run has at most six tiles).
    for _ in range(6):
        after |= ((after >> 1) & WORD_LOW_63) & tiles
    before = (fit << 1) | ((fit_word_before >> 63) & 1)
    return tiles & (after | before)


@kernel
def near_edge(st: KArray) -> bool:
    """Whether a tile of the board ``st`` lies within EDGE_REACH cells of the playing
    area's edge, so that some move could leave the area (|row|, |col| <= COORD_MAX)."""
    return tiles_near_edge(st)


@helper
def tiles_near_edge(st: KArray) -> bool:
    """:func:`near_edge` for the kernels (a helper, inlined: generate asks it at every
    call, and a call to a kernel costs more than its few comparisons)."""
    if st[S_TILES] == 0:
        return False
    reach = COORD_MAX - EDGE_REACH
    top = st[S_TOP]
    left = st[S_LEFT]
    return bool(
        top + st[S_R0] < -reach
        or top + st[S_R1] - 1 > reach
        or left + st[S_C0] < -reach
        or left + st[S_C1] - 1 > reach
    )


# The one-tile pass.


@helper
def one_tile_points(row_info: KInt, col_info: KInt) -> KInt:
    """What one tile scores on an empty cell beside a tile, from the cell's row and
    column info (see ``_state``): each line of two or more tiles it makes."""
    return line_points((row_info >> LEN_SHIFT) + 1) + line_points((col_info >> LEN_SHIFT) + 1)


@helper
def placement_points(st: KArray, cell: KInt, kind: KInt) -> KInt:
    """What a tile of ``kind`` alone scores on window cell ``cell``, which has a tile
    beside it (or holds one); -1 where the cell holds a tile or the kind fits not both
    its row and its column."""
    row_info = st[st[S_ROW_AT] + cell]
    col_info = st[st[S_COL_AT] + cell]
    if row_info < 0 or ((row_info & col_info) >> kind) & 1 == 0:
        return -1
    return one_tile_points(row_info, col_info)


@inline_helper
def fitting_cells(st: KArray, cells: KInt, row_base: KInt, row_at: KInt, col_at: KInt, hand_mask: KInt) -> KInt:
    """The ``cells`` (bits of the 64 cells from flat cell ``row_base``) where a tile of
    the hand fits both the cell's row and its column (their cross-check words at
    ``row_at`` and ``col_at`` in ``st``).  Without a branch on each: whether a cell fits
    follows no pattern a CPU could learn."""
    fit = np.int64(0)
    while cells != 0:
        bit = lowest_bit(cells)
        cells &= cells - 1
        cell = row_base + bit
        fits = st[unsigned(row_at + cell)] & st[unsigned(col_at + cell)] & hand_mask
        fit |= np.int64(fits != 0) << bit
    return fit


@inline_helper
def one_tile_pass(
    st: KArray, out: KArray, scratch: KArray, fit_words: KArray, hand_mask: KInt, mode: KInt, window: Window,
) -> Tally:
    """The one-tile moves: one per (empty cell beside a tile, kind of the hand that fits
    its row and its column), whatever the direction, in (row, col) order.  Fills
    ``fit_words`` with those cells, for the walks.  Returns the tally."""
    width = window[0]
    row_at = st[S_ROW_AT]
    col_at = st[S_COL_AT]
    occ_at = st[S_OCC_AT]
    words = st[S_WORDS]
    first_row = st[S_R0] - 1
    count = 0
    total = 0
    best = -1
    for i in range(first_row, st[S_R1] + 1):
        for w in range(words):
            row_base = i * width + w * 64
            cells = start_cells(st, occ_at + i * words + w, w, words, 0)
            fit = fitting_cells(st, cells, row_base, row_at, col_at, hand_mask)
            fitting = fit
            while fitting != 0:
                cell = row_base + lowest_bit(fitting)
                fitting &= fitting - 1
                row_info = st[unsigned(row_at + cell)]
                col_info = st[unsigned(col_at + cell)]
                fits = row_info & col_info & hand_mask
                score = one_tile_points(row_info, col_info)
                if mode == MODE_BEST and score < best:
                    continue  # none of this cell's moves is kept (MODE_BEST needs no total)
                scratch[K_MOVE_CELL, 0] = cell
                while fits != 0:
                    scratch[K_MOVE_KIND, 0] = lowest_kind(fits)
                    fits &= fits - 1
                    count, total, best, stop = record_move(out, scratch, 1, score, mode, count, total, best, window)
                    if stop:
                        return count, total, best, True
            fit_words[unsigned(i - first_row), unsigned(w)] = fit
    return count, total, best, False


@inline_helper
def fill_down_words(st: KArray, fit_words: KArray, down_words: KArray) -> None:
    """``down_words``: per query row and occupancy word, the tiles whose column run has
    a cell below it where a tile of the hand fits (``fit_words``), bottom row first."""
    occ_at = st[S_OCC_AT]
    words = st[S_WORDS]
    first_row = st[S_R0] - 1
    last_row = st[S_R1]
    for i in range(last_row, first_row - 1, -1):
        r = i - first_row
        for w in range(words):
            below = np.int64(0)
            if i < last_row:
                below = fit_words[unsigned(r + 1), unsigned(w)] | down_words[unsigned(r + 1), unsigned(w)]
            down_words[unsigned(r), unsigned(w)] = st[unsigned(occ_at + i * words + w)] & below


# The walks: the moves of 2..6 tiles along a line (a row, or a column).


@inline_helper
def anchor_cells(
    st: KArray, fit_words: KArray, down_words: KArray, walk: KInt, r: KInt, o: KInt, w: KInt, words: KInt,
) -> KInt:
    """The anchors of pass ``walk`` (see start_cells) in occupancy word ``o`` (word
    ``w`` of query row ``r``) that can start a move.  A move along a line places a
    tile next to the run of board tiles it builds on, on the cell before the run or the
    cell after it, which the one-tile pass found fitting: an empty anchor must be such
    a cell itself (its first tile fits it as a one-tile move would, its row and its
    column); a tile anchor needs one at an end of its run (along a row: row_live_tiles;
    along a column: down_words, or the cell above)."""
    fit_here = fit_words[unsigned(r), unsigned(w)]
    if walk == 1:
        fit_before = fit_words[unsigned(r), unsigned(w - 1)] if w > 0 else 0
        live = row_live_tiles(st[unsigned(o)], fit_here, fit_before, w + 1 < words)
    else:
        fit_above = fit_words[unsigned(r - 1), unsigned(w)] if r > 0 else 0
        live = st[unsigned(o)] & (down_words[unsigned(r), unsigned(w)] | fit_above)
    return start_cells(st, o, w, words, walk) & (live | fit_here)


@inline_helper
def tile_run(st: KArray, anchor: KInt, line: Line) -> tuple[KInt, KInt]:
    """For a tile anchor (the cell before it is empty): the kinds that can join its run
    (-1: none, the run is dead) and the empty cell after it.  The along-line word of
    the cell before the anchor says both when nothing lies before that cell; otherwise
    the run is folded tile by tile."""
    step, _, along_at, cross_at = line
    before_info = st[unsigned(along_at + anchor - step)]
    if st[unsigned(along_at + anchor - 2 * step)] >= 0:
        return before_info & ALL_KINDS, anchor + (before_info >> LEN_SHIFT) * step
    run_allowed = np.int64(ALL_KINDS)
    run_end = anchor
    while st[unsigned(cross_at + run_end)] < 0 and run_allowed >= 0:
        run_allowed = fold_tile(run_allowed, ~st[unsigned(cross_at + run_end)])
        run_end += step
    return run_allowed, run_end


@inline_helper
def lay_out_start(scratch: KArray, anchor: KInt, anchor_kind: KInt, n_left: KInt, step: KInt) -> None:
    """scratch[K_MOVE_*, :n_left + 1]: the left part's tiles in line order, then the
    anchor.  The anchor's slot is written even for a board tile (the right walk then
    overwrites it): no branch to mispredict."""
    for k in range(n_left):
        scratch[K_MOVE_CELL, unsigned(k)] = anchor - (n_left - k) * step
        scratch[K_MOVE_KIND, unsigned(k)] = scratch[K_LEFT_KIND, unsigned(n_left - 1 - k)]
    scratch[K_MOVE_CELL, unsigned(n_left)] = anchor
    scratch[K_MOVE_KIND, unsigned(n_left)] = anchor_kind


@inline_helper
def next_right_node(
    st: KArray, scratch: KArray, frame: KInt, n_prior: KInt, line: Line,
) -> tuple[KInt, KInt, KInt, KInt]:
    """The right walk's next node: a child of the deepest frame, from ``frame`` down,
    with a tile left to try that the line takes (its tile placed, through the board
    tiles after it).  Returns (its frame, its addable kinds, its cross lines' points,
    the empty cell its line ends before); frame -1: none, the walk is done."""
    step, _, _, cross_at = line
    while frame >= 0:
        right_todo = scratch[K_RIGHT_TODO, unsigned(frame)]
        if right_todo == 0:
            frame -= 1
            continue
        right_kind = lowest_kind(right_todo)
        scratch[K_RIGHT_TODO, unsigned(frame)] = right_todo & (right_todo - 1)
        right_cell = scratch[K_MOVE_CELL, unsigned(n_prior + frame)]
        node_allowed = fold_tile(scratch[K_RIGHT_ALLOWED, unsigned(frame)], right_kind)
        walk_end = right_cell + step
        while st[unsigned(cross_at + walk_end)] < 0 and node_allowed >= 0:
            node_allowed = fold_tile(node_allowed, ~st[unsigned(cross_at + walk_end)])
            walk_end += step
        if node_allowed < 0:
            continue
        scratch[K_MOVE_KIND, unsigned(n_prior + frame)] = right_kind
        cross_len = st[unsigned(cross_at + right_cell)] >> LEN_SHIFT
        node_points = scratch[K_RIGHT_POINTS, unsigned(frame)] + line_points(cross_len + 1)
        return frame, node_allowed, node_points, walk_end
    return -1, 0, 0, 0


@inline_helper
def right_walk(
    st: KArray, out: KArray, scratch: KArray, line_start: KInt, n_prior: KInt, allowed: KInt, points: KInt,
    end: KInt, hand_mask: KInt, mode: KInt, count: KInt, total: KInt, best: KInt, line: Line, window: Window,
) -> Tally:
    """The right walk: every move whose line starts at ``line_start`` with the
    ``n_prior`` tiles laid out in scratch[K_MOVE_*, :n_prior] (the left part and the
    anchor, whose line takes ``allowed`` and ends before the empty cell ``end``; their
    cross lines score ``points``), going on to the right.

    A node of the walk has n_right tiles placed after them, at scratch[K_MOVE_*,
    n_prior:n_prior + n_right] (so the move is laid out for the move writer as it is
    made).  Each node records its move once; only nodes with tiles left to try are
    pushed as frames (frame f: the choice of the (f+1)-th right tile), so a leaf costs
    no stack traffic.  Returns the tally."""
    _, per_step, _, cross_at = line
    walk_end = end
    node_allowed = allowed
    node_points = points
    n_right = 0
    frame = -1
    while True:
        n_placed = n_prior + n_right
        if n_placed >= 2:
            length = ((walk_end - line_start) * per_step) >> 32
            score = node_points + line_points(length)
            count, total, best, stop = record_move(out, scratch, n_placed, score, mode, count, total, best, window)
            if stop:
                return count, total, best, True
        right_todo = node_allowed & hand_mask & st[unsigned(cross_at + walk_end)]
        if n_placed >= 6:
            right_todo = 0
        # The node's frame, written whether or not it has a tile to try (slot n_right is
        # free): a select, not a branch, says whether it is pushed.
        scratch[K_MOVE_CELL, unsigned(n_prior + n_right)] = walk_end
        scratch[K_RIGHT_ALLOWED, unsigned(n_right)] = node_allowed
        scratch[K_RIGHT_POINTS, unsigned(n_right)] = node_points
        scratch[K_RIGHT_TODO, unsigned(n_right)] = right_todo
        frame = n_right if right_todo != 0 else frame
        frame, node_allowed, node_points, walk_end = next_right_node(st, scratch, frame, n_prior, line)
        if frame < 0:
            return count, total, best, False
        n_right = frame + 1


@inline_helper
def next_left_state(scratch: KArray, n_left: KInt) -> KInt:
    """The left part's next state: a child of the deepest state, from ``n_left`` down,
    with a kind left to try (its tile placed); its depth, or -1: none."""
    while n_left >= 0 and scratch[K_LEFT_TODO, unsigned(n_left)] == 0:
        n_left -= 1
    if n_left < 0:
        return n_left
    todo = scratch[K_LEFT_TODO, unsigned(n_left)]
    kind = lowest_kind(todo)
    scratch[K_LEFT_TODO, unsigned(n_left)] = todo & (todo - 1)
    scratch[K_LEFT_KIND, unsigned(n_left)] = kind
    left_allowed = scratch[K_LEFT_ALLOWED, unsigned(n_left)]
    scratch[K_LEFT_ALLOWED, unsigned(n_left + 1)] = fold_tile(left_allowed, kind)
    return n_left + 1


@inline_helper
def left_part(
    st: KArray, out: KArray, scratch: KArray, anchor: KInt, anchor_kind: KInt, n_anchor: KInt, allowed: KInt,
    points: KInt, end: KInt, hand_mask: KInt, mode: KInt, count: KInt, total: KInt, best: KInt, line: Line,
    window: Window,
) -> Tally:
    """The left part: tiles on the free cells before the anchor (``n_anchor`` tiles
    placed there, of ``anchor_kind``, 0 for a board tile; the line takes ``allowed``,
    ends before the empty cell ``end``, and the cross lines score ``points``), each
    followed by the right walk where the line may start.  Each state (n_left tiles
    before the anchor) is visited once, as soon as it is reached (depth first, kinds in
    order); only states with kinds left to try stay on the stack, as in the right walk.
    Returns the tally."""
    step, _, _, cross_at = line
    n_left = 0
    scratch[K_LEFT_ALLOWED, 0] = allowed
    while True:
        before = anchor - (n_left + 1) * step  # the cell before the left tiles
        left_allowed = scratch[K_LEFT_ALLOWED, unsigned(n_left)]
        before_info = st[unsigned(cross_at + before)]
        n_prior = n_anchor + n_left
        # A line start with fewer than two tiles of its own makes a move only with a
        # tile on the cell after the run it builds on (one-tile moves come from the
        # first pass); half of them have none that fits there, and nothing to lay out
        # or walk.
        fits_after = left_allowed & hand_mask & st[unsigned(cross_at + end)]
        walkable = n_prior >= 2 or fits_after != 0
        if before_info >= 0 and walkable:
            # The line may start here.
            lay_out_start(scratch, anchor, anchor_kind, n_left, step)
            count, total, best, stop = right_walk(
                st, out, scratch, before + step, n_prior, left_allowed, points, end, hand_mask, mode,
                count, total, best, line, window,
            )
            if stop:
                return count, total, best, True
        # Children: one more tile before, if that cell is free (empty, and no tile
        # across it: its word's length is 0; a tile's word is negative).
        todo = left_allowed & hand_mask
        if before_info >> LEN_SHIFT != 0 or n_prior >= 6:
            todo = 0
        scratch[K_LEFT_TODO, unsigned(n_left)] = todo
        n_left = next_left_state(scratch, n_left)
        if n_left < 0:
            return count, total, best, False


@inline_helper
def anchor_moves(
    st: KArray, out: KArray, scratch: KArray, anchor: KInt, hand_mask: KInt, mode: KInt, count: KInt,
    total: KInt, best: KInt, line: Line, window: Window,
) -> Tally:
    """The moves of 2..6 tiles whose leftmost anchor is ``anchor`` (the cell before
    it is empty): for each kind the anchor can take (an empty anchor: each kind of the
    hand its cross line and the run after it accept; a board tile: itself), the left
    part and the right walks.  Returns the tally."""
    step, _, along_at, cross_at = line
    anchor_info = st[unsigned(cross_at + anchor)]
    anchor_empty = anchor_info >= 0
    if anchor_empty:
        # run_allowed: the kinds the tiles after the anchor (up to the empty cell
        # run_end) accept, which the anchor's own word along the line says.
        along_info = st[unsigned(along_at + anchor)]
        run_allowed = along_info & ALL_KINDS
        run_end = anchor + ((along_info >> LEN_SHIFT) + 1) * step
        choices = anchor_info & run_allowed & hand_mask
    else:
        run_allowed, run_end = tile_run(st, anchor, line)
        addable = run_allowed & hand_mask
        if run_allowed < 0 or addable & (addable - 1) == 0:
            # Every tile of the move joins this line, and a move (of two tiles at
            # least) holds two kinds the line accepts: the hand has fewer (two tile
            # anchors in three).
            return count, total, best, False
        choices = np.int64(1)  # one pass: the board tile itself
    while choices != 0:
        if anchor_empty:
            anchor_kind = lowest_kind(choices)
            # anchor_kind joins the run (choices lie in run_allowed).
            line_allowed = run_allowed & NEIGHBOURS[anchor_kind] & ~(np.int64(1) << anchor_kind)
            base_points = line_points((anchor_info >> LEN_SHIFT) + 1)
            n_anchor = 1
            if line_allowed & hand_mask == 0:
                choices &= choices - 1
                continue
        else:
            anchor_kind = -1
            line_allowed = run_allowed
            base_points = 0
            n_anchor = 0
        choices &= choices - 1
        count, total, best, stop = left_part(
            st, out, scratch, anchor, anchor_kind, n_anchor, line_allowed, base_points, run_end, hand_mask, mode,
            count, total, best, line, window,
        )
        if stop:
            return count, total, best, True
    return count, total, best, False


@inline_helper
def line_pass(
    st: KArray, out: KArray, scratch: KArray, fit_words: KArray, down_words: KArray, hand_mask: KInt,
    mode: KInt, walk: KInt, count: KInt, total: KInt, best: KInt, window: Window,
) -> Tally:
    """The moves along rows (``walk`` 1) or columns (2), from each anchor of the rows
    beside the tiles in (row, col) order.  Returns the tally."""
    width, per_width, _, _, _ = window
    row_at = st[S_ROW_AT]
    col_at = st[S_COL_AT]
    if walk == 1:
        line = (np.int64(1), reciprocal(1), row_at, col_at)  # a move along a row crosses columns
    else:
        line = (width, per_width, col_at, row_at)
    occ_at = st[S_OCC_AT]
    words = st[S_WORDS]
    first_row = st[S_R0] - 1
    for i in range(first_row, st[S_R1] + 1):
        for w in range(words):
            o = occ_at + i * words + w
            cells = anchor_cells(st, fit_words, down_words, walk, i - first_row, o, w, words)
            while cells != 0:
                anchor = i * width + w * 64 + lowest_bit(cells)
                cells &= cells - 1
                count, total, best, stop = anchor_moves(
                    st, out, scratch, anchor, hand_mask, mode, count, total, best, line, window,
                )
                if stop:
                    return count, total, best, True
    return count, total, best, False


@helper
def kinds_apart(hand_mask: KInt) -> bool:
    """Whether no two kinds of ``hand_mask`` share a colour or a shape (kind = colour *
    6 + shape): no two tiles of such a hand can stand in one line (copies of one kind
    cannot either), so its only moves are one-tile moves."""
    colours = 0
    shapes = 0
    kinds = hand_mask
    while kinds:
        kind = lowest_kind(kinds)
        kinds &= kinds - 1
        colour = np.int64(1) << (kind // 6)
        shape = np.int64(1) << (kind % 6)
        if colours & colour or shapes & shape:
            return False
        colours |= colour
        shapes |= shape
    return True


@query_kernel
def generate(st: KArray, out: KArray, hand_mask: KInt, mode: KInt) -> KInt:
    """Every legal move of the kinds in ``hand_mask`` on the board ``st`` (a state,
    see ``_state``), written into ``out`` (int32[capacity, OUT_COLS]) as ``mode`` keeps
    them (see MODE_*), in the caller's coordinates.  On the empty board: the openings
    in the canonical frame (from (0, 0), east).

    Returns the number of rows kept (MODE_ALL, MODE_BEST) -- when it exceeds the
    capacity, only the first rows were written: call again with a larger table -- or
    the number of legal moves (MODE_COUNT; MODE_ANY: 0 or 1).  HAND_CONFLICT when the
    hand holds a kind whose three copies are all on the board.  With ``CHECK_EDGE``
    or'ed into ``mode``: NEAR_EDGE, writing nothing, when a tile lies within
    EDGE_REACH cells of the playing area's edge (some move could then leave it, and the
    caller keeps only the moves inside).  A constant ``mode`` (MODE_ALL), or an
    argument that was one, reaches it typed as a literal, and numba compiles it once
    for each (about 9 s each, cold): the cold callers in kernels pass
    ``np.int64(...)``; the hot ones (the bots' turns, the endgame solver's replies)
    pass the literal on purpose.

    Moves of 2..6 tiles are generated from the leftmost (topmost) *anchor* of their
    line: a board tile, or an empty cell with a tile beside it across the line.  The
    cells before that anchor touch nothing, so they hold placed tiles only ("left
    part", any tiles that fit the line); from the anchor the walk goes on to the right
    through board tiles and cross-checked cells (the right walk).  Every move has
    exactly one leftmost anchor, hence is produced once; choosing the anchor's tile
    first narrows the left part to that tile's colour or shape, so little work is
    wasted.  Cells are flat window indices; a line's ``step`` walks along it (1 or the
    window's width).

    The parts, each a helper inlined here, over the query's stack arrays (scratch,
    fit_words, down_words): one_tile_pass, then per direction line_pass -> anchor_moves
    -> left_part -> right_walk, each move through record_move (the move writer).
    """
    if hand_mask & st[S_FULL]:
        return HAND_CONFLICT
    check_edge = mode & CHECK_EDGE
    mode &= MODE_BITS
    scratch = new_scratch()
    if st[S_TILES] == 0:
        return generate_openings(out, scratch, hand_mask, 0, 0, mode)
    # Asked here rather than by the Python layer before the call: a query then reads
    # no header word in Python.
    clip = tiles_near_edge(st)
    if check_edge and clip:
        return NEAR_EDGE
    width = st[S_WIDTH]
    window = (width, reciprocal(width), st[S_TOP], st[S_LEFT], clip)
    fit_words = new_fit_words()
    count, total, best, stop = one_tile_pass(st, out, scratch, fit_words, hand_mask, mode, window)
    if stop:
        return 1
    if kinds_apart(hand_mask):
        # No two tiles of the hand can share a line: the walks would find nothing (an
        # endgame's hands are often such: 7-8 % less time for the endgame solver).
        return total if mode == MODE_COUNT else count
    down_words = new_fit_words()
    fill_down_words(st, fit_words, down_words)
    for walk in range(1, 3):
        count, total, best, stop = line_pass(
            st, out, scratch, fit_words, down_words, hand_mask, mode, walk, count, total, best, window,
        )
        if stop:
            return 1
    return total if mode == MODE_COUNT else count
