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
from collections.abc import Callable
from typing import Any, cast

import numba
import numpy as np

from ._geometry import ALL_KINDS, COORD_MAX, NEIGHBOURS, KArray, KInt
from ._jit import JIT_OFF, helper, inline_helper, kernel, query_kernel
from ._lines import fold_tile, line_points, lowest_bit, lowest_kind
from ._state import (
    LEN_SHIFT,
    MAX_SPAN,
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

# Columns of a move table.
OUT_COLS = 20
COL_N = 0  # number of tiles placed (1..6)
COL_SCORE = 1
COL_ROWS = 2  # rows of the placed tiles, slots COL_N.. unused
COL_COLS = 8
COL_KINDS = 14  # kinds, -1 in unused slots
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
K_LEFT_TODO = 2  # kinds still to try at left depth n_left (-1: state not visited yet)
K_RIGHT_ALLOWED = 3  # the line's addable kinds before the i-th right tile
K_RIGHT_TODO = 4  # kinds still to try there
K_RIGHT_POINTS = 5  # points of the cross lines before it
K_MOVE_CELL = 6  # the move being made: its cells in line order (the left part, the
K_MOVE_KIND = 7  # anchor, then the right tiles, which the walk puts here itself) and kinds
N_SCRATCH = 8
WORD_LOW_63 = 0x7FFFFFFFFFFFFFFF


# The rows a query goes over (the tiles' rows and one each side) and the occupancy words
# of a row, at most: a window is at most MAX_SPAN + 2 * GROW_MARGIN cells wide.
MAX_QUERY_ROWS = MAX_SPAN + 2
MAX_ROW_WORDS = 3


def _stack_array(rows: int, cols: int) -> Callable[[], KArray]:
    """A function that gives an int64[rows, cols] array in the calling kernel's stack
    frame: no allocation and no reference count (a null meminfo), for a query's small
    stacks.  Such an array must not outlive the call, and the query keeps it to itself.
    With the JIT off it is np.empty."""

    def in_python() -> KArray:
        return np.empty((rows, cols), np.int64)

    if getattr(numba.config, "DISABLE_JIT"):  # noqa: B009 - numba's config is untyped
        return in_python
    from numba.core import cgutils, types  # pragma: no cover - the JIT-off run returns above
    from numba.extending import intrinsic
    from numba.np.arrayobj import populate_array

    array_type = types.Array(types.int64, 2, "C")

    @intrinsic
    def on_stack(typingctx: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            word = context.get_value_type(types.int64)
            data = cgutils.alloca_once(builder, word, size=rows * cols)  # type: ignore[no-untyped-call]
            array = context.make_array(array_type)(context, builder)
            intp = context.get_value_type(types.intp)
            populate_array(  # type: ignore[no-untyped-call]
                array,
                data=data,
                shape=[intp(rows), intp(cols)],
                strides=[intp(cols * 8), intp(8)],
                itemsize=intp(8),
                meminfo=None,
            )
            return array._getvalue()

        return array_type(), codegen

    return cast(Callable[[], KArray], on_stack)


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


@inline_helper
def write_move(
    out: KArray, count: KInt, scratch: KArray, n: KInt, score: KInt, width: KInt, per_width: KInt,
    top: KInt, left: KInt,
) -> None:
    """Row ``count`` of ``out``: the move of the ``n`` tiles in scratch[K_MOVE_*, :n]
    (flat cells of a window ``width`` wide whose cell 0 is the caller's (top, left);
    ``per_width`` is reciprocal(width))."""
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
def generate_openings(out: KArray, scratch: KArray, hand_mask: KInt, row: KInt, col: KInt, mode: KInt) -> KInt:
    """Every opening move of the kinds in ``hand_mask`` on the empty board, in the
    canonical frame: the line starts at (row, col) and runs east.  Returns what
    :func:`generate` returns."""
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
        total += 1
        keep, best, count = keep_move(mode, score, best, count)
        if keep:
            if count < out.shape[0]:
                write_move(out, count, scratch, n_placed, score, 8, reciprocal(8), row, col)
            count += 1
            if mode == MODE_ANY:
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
    caller keeps only the moves inside).

    Moves of 2..6 tiles are generated from the leftmost (topmost) *anchor* of their
    line: a board tile, or an empty cell with a tile beside it across the line.  The
    cells before that anchor touch nothing, so they hold placed tiles only ("left
    part", any tiles that fit the line); from the anchor the walk goes on to the right
    through board tiles and cross-checked cells (the right walk).  Every move has
    exactly one leftmost anchor, hence is produced once; choosing the anchor's tile
    first narrows the left part to that tile's colour or shape, so little work is
    wasted.  Cells are flat window indices; ``step`` walks along the line (1 or the
    window's width).
    """
    if hand_mask & st[S_FULL]:
        return HAND_CONFLICT
    check_edge = mode & CHECK_EDGE
    mode &= MODE_BITS
    scratch = new_scratch()
    if st[S_TILES] == 0:
        return generate_openings(out, scratch, hand_mask, 0, 0, mode)
    width = st[S_WIDTH]
    per_width = reciprocal(width)
    words = st[S_WORDS]
    top = st[S_TOP]
    left = st[S_LEFT]
    if check_edge and near_edge(st):
        # Asked here rather than by the Python layer before the call: a query then
        # reads no header word in Python (0.8 us of a 7 us query).
        return NEAR_EDGE
    row_at = st[S_ROW_AT]
    col_at = st[S_COL_AT]
    occ_at = st[S_OCC_AT]
    first_row = st[S_R0] - 1
    last_row = st[S_R1]
    count = 0  # rows kept
    total = 0  # legal moves seen
    best = -1

    # One-tile moves, then the moves along rows, then along columns, each pass over
    # the rows beside the tiles in (row, col) order.  ``cells`` holds the pass's
    # starting cells among the 64 cells of one occupancy word.
    fit_words = new_fit_words()
    for i in range(first_row, last_row + 1):
        for w in range(words):
            cells = start_cells(st, occ_at + i * words + w, w, words, 0)
            row_base = i * width + w * 64
            # First the cells where a tile of the hand fits, without a branch on each
            # (whether a cell fits follows no pattern a CPU could learn), then their moves.
            fit = np.int64(0)
            while cells != 0:
                bit = lowest_bit(cells)
                cells &= cells - 1
                cell = row_base + bit
                fits = st[unsigned(row_at + cell)] & st[unsigned(col_at + cell)] & hand_mask
                fit |= np.int64(fits != 0) << bit
            fitting = fit
            while fitting != 0:
                cell = row_base + lowest_bit(fitting)
                fitting &= fitting - 1
                # One per (cell, kind), whatever the direction.
                row_info = st[unsigned(row_at + cell)]
                col_info = st[unsigned(col_at + cell)]
                fits = row_info & col_info & hand_mask
                score = line_points((row_info >> LEN_SHIFT) + 1) + line_points((col_info >> LEN_SHIFT) + 1)
                if mode == MODE_BEST and score < best:
                    continue  # none of this cell's moves is kept (MODE_BEST needs no total)
                scratch[K_MOVE_CELL, 0] = cell
                while fits != 0:
                    kind = lowest_kind(fits)
                    fits &= fits - 1
                    total += 1
                    keep, best, count = keep_move(mode, score, best, count)
                    if keep:
                        if count < out.shape[0]:
                            scratch[K_MOVE_KIND, 0] = kind
                            write_move(out, count, scratch, 1, score, width, per_width, top, left)
                        count += 1
                        if mode == MODE_ANY:
                            return 1
            fit_words[unsigned(i - first_row), unsigned(w)] = fit
    # A move along a line places a tile next to the run of board tiles it builds on:
    # on the cell before the run or the cell after it, which the one-tile pass found
    # fitting.  down_words: the tiles whose column run has such a cell below it.
    down_words = new_fit_words()
    for i in range(last_row, first_row - 1, -1):
        r = i - first_row
        for w in range(words):
            below = np.int64(0)
            if i < last_row:
                below = fit_words[unsigned(r + 1), unsigned(w)] | down_words[unsigned(r + 1), unsigned(w)]
            down_words[unsigned(r), unsigned(w)] = st[unsigned(occ_at + i * words + w)] & below
    for walk in range(1, 3):
        if walk == 1:
            step = 1
            per_step = reciprocal(1)
            along_at = row_at
            cross_at = col_at  # a move along a row crosses columns
        else:
            step = width
            per_step = per_width
            along_at = col_at
            cross_at = row_at
        for i in range(first_row, last_row + 1):
            for w in range(words):
                o = occ_at + i * words + w
                r = i - first_row
                # An empty anchor's first tile must fit it as a one-tile move would (its
                # row and its column); a tile anchor needs such a cell at an end of its
                # run.  The others start no move.
                if walk == 1:
                    fit_before = fit_words[unsigned(r), unsigned(w - 1)] if w > 0 else 0
                    fit_here = fit_words[unsigned(r), unsigned(w)]
                    live = row_live_tiles(st[unsigned(o)], fit_here, fit_before, w + 1 < words)
                else:
                    fit_above = fit_words[unsigned(r - 1), unsigned(w)] if r > 0 else 0
                    live = st[unsigned(o)] & (down_words[unsigned(r), unsigned(w)] | fit_above)
                cells = start_cells(st, o, w, words, walk) & (live | fit_words[unsigned(r), unsigned(w)])
                while cells != 0:
                    anchor = i * width + w * 64 + lowest_bit(cells)
                    cells &= cells - 1
                    # Moves of 2..6 tiles whose leftmost anchor is anchor.
                    anchor_info = st[unsigned(cross_at + anchor)]
                    anchor_empty = anchor_info >= 0
                    # run_allowed: the kinds the tiles from anchor (anchor excluded when empty) to
                    # the next empty cell run_end accept.  The cell before anchor is empty,
                    # so an empty anchor's own word along the line says it; for a tile, the
                    # word of the cell before it does when nothing lies before that.
                    if anchor_empty:
                        along_info = st[unsigned(along_at + anchor)]
                        run_allowed = along_info & ALL_KINDS
                        run_end = anchor + ((along_info >> LEN_SHIFT) + 1) * step
                        # Kinds its column (row) accepts that can also join that run.
                        choices = anchor_info & run_allowed & hand_mask
                    else:
                        before_info = st[unsigned(along_at + anchor - step)]
                        if st[unsigned(along_at + anchor - 2 * step)] >= 0:
                            run_allowed = before_info & ALL_KINDS
                            run_end = anchor + (before_info >> LEN_SHIFT) * step
                        else:
                            run_allowed = np.int64(ALL_KINDS)
                            run_end = anchor
                            while st[unsigned(cross_at + run_end)] < 0 and run_allowed >= 0:
                                run_allowed = fold_tile(run_allowed, ~st[unsigned(cross_at + run_end)])
                                run_end += step
                        addable = run_allowed & hand_mask
                        if run_allowed < 0 or addable & (addable - 1) == 0:
                            # Every tile of the move joins this line, and a move (of two
                            # tiles at least) holds two kinds the line accepts: the hand
                            # has fewer (two tile anchors in three).
                            continue
                        choices = np.int64(1)  # one pass: the board tile itself
                    while choices != 0:
                        end = run_end
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
                        # Left part: tiles on the free cells before the anchor (depth n_left).
                        # Each state is visited once, as soon as it is reached (depth first,
                        # kinds in order); only states with kinds left to try stay on the
                        # stack, as in the right walk.
                        n_left = 0
                        scratch[K_LEFT_ALLOWED, 0] = line_allowed
                        while True:
                            # Visit the state with n_left left tiles; before is the cell
                            # before them.
                            before = anchor - (n_left + 1) * step
                            left_allowed = scratch[K_LEFT_ALLOWED, unsigned(n_left)]
                            before_info = st[unsigned(cross_at + before)]
                            n_prior = n_anchor + n_left
                            # A line start with fewer than two tiles of its own makes a
                            # move only with a tile on the cell after the run it builds on
                            # (one-tile moves come from the first pass); half of them
                            # have none that fits there, and nothing to lay out or walk.
                            fits_after = left_allowed & hand_mask & st[unsigned(cross_at + end)]
                            walkable = n_prior >= 2 or fits_after != 0
                            if before_info >= 0 and walkable:
                                # The line may start here: lay out the left part
                                # and the anchor, and walk to the right.
                                for k in range(n_left):
                                    scratch[K_MOVE_CELL, unsigned(k)] = anchor - (n_left - k) * step
                                    left_kind = scratch[K_LEFT_KIND, unsigned(n_left - 1 - k)]
                                    scratch[K_MOVE_KIND, unsigned(k)] = left_kind
                                # The anchor's slot, written even for a board tile (the
                                # right walk then overwrites it): no branch to mispredict.
                                scratch[K_MOVE_CELL, unsigned(n_left)] = anchor
                                scratch[K_MOVE_KIND, unsigned(n_left)] = anchor_kind
                                # The right walk: every move whose line starts at
                                # line_start with these n_prior tiles, going on to the
                                # right.  Written here, not as a function: while the
                                # generator counted references, an inlined function's
                                # array arguments cost an atomic incref and decref each
                                # per line start (a third of a query's time); without
                                # them (query_kernel), each walk direction inlined as a
                                # function of its own measured no faster (0.99 cold).
                                # A node of the walk has n_right tiles placed after
                                # them, at scratch[K_MOVE_*, n_prior:n_prior + n_right]
                                # (so the move is laid out for write_move as it is
                                # made); its line ends before the empty cell walk_end.
                                # Each node emits its move once; only nodes with tiles
                                # left to try are pushed as frames (frame f: the choice
                                # of the (f+1)-th right tile), so a leaf costs no
                                # stack traffic.
                                line_start = before + step
                                walk_end = end
                                node_allowed = left_allowed
                                node_points = base_points
                                n_right = 0
                                frame = -1
                                while True:
                                    n_placed = n_prior + n_right
                                    if n_placed >= 2:
                                        length = ((walk_end - line_start) * per_step) >> 32
                                        score = node_points + line_points(length)
                                        total += 1
                                        keep, best, count = keep_move(mode, score, best, count)
                                        if keep:
                                            if count < out.shape[0]:
                                                write_move(
                                                    out, count, scratch, n_placed, score,
                                                    width, per_width, top, left,
                                                )
                                            count += 1
                                            if mode == MODE_ANY:
                                                return 1
                                    right_todo = node_allowed & hand_mask & st[unsigned(cross_at + walk_end)]
                                    if n_placed >= 6:
                                        right_todo = 0
                                    # The node's frame, written whether or not it has a
                                    # tile to try (slot n_right is free): a select, not a
                                    # branch, says whether it is pushed.
                                    scratch[K_MOVE_CELL, unsigned(n_prior + n_right)] = walk_end
                                    scratch[K_RIGHT_ALLOWED, unsigned(n_right)] = node_allowed
                                    scratch[K_RIGHT_POINTS, unsigned(n_right)] = node_points
                                    scratch[K_RIGHT_TODO, unsigned(n_right)] = right_todo
                                    frame = n_right if right_todo != 0 else frame
                                    # The next node: a child of the deepest frame with a
                                    # tile left to try; none: this line start is done.
                                    found = False
                                    while frame >= 0:
                                        right_todo = scratch[K_RIGHT_TODO, unsigned(frame)]
                                        if right_todo == 0:
                                            frame -= 1
                                            continue
                                        right_kind = lowest_kind(right_todo)
                                        scratch[K_RIGHT_TODO, unsigned(frame)] = right_todo & (right_todo - 1)
                                        right_cell = scratch[K_MOVE_CELL, unsigned(n_prior + frame)]
                                        frame_allowed = scratch[K_RIGHT_ALLOWED, unsigned(frame)]
                                        node_allowed = fold_tile(frame_allowed, right_kind)
                                        walk_end = right_cell + step
                                        while st[unsigned(cross_at + walk_end)] < 0 and node_allowed >= 0:
                                            board_kind = ~st[unsigned(cross_at + walk_end)]
                                            node_allowed = fold_tile(node_allowed, board_kind)
                                            walk_end += step
                                        if node_allowed < 0:
                                            continue
                                        scratch[K_MOVE_KIND, unsigned(n_prior + frame)] = right_kind
                                        cross_len = st[unsigned(cross_at + right_cell)] >> LEN_SHIFT
                                        cross_points = line_points(cross_len + 1)
                                        node_points = scratch[K_RIGHT_POINTS, unsigned(frame)] + cross_points
                                        n_right = frame + 1
                                        found = True
                                        break
                                    if not found:
                                        break
                            # Children: one more tile before, if that cell is free (empty,
                            # and no tile across it: its word's length is 0; a tile's word
                            # is negative).
                            todo = left_allowed & hand_mask
                            if before_info >> LEN_SHIFT != 0 or n_anchor + n_left >= 6:
                                todo = 0
                            scratch[K_LEFT_TODO, unsigned(n_left)] = todo
                            # The next state: a child of the deepest state with a kind left.
                            while n_left >= 0 and scratch[K_LEFT_TODO, unsigned(n_left)] == 0:
                                n_left -= 1
                            if n_left < 0:
                                break
                            todo = scratch[K_LEFT_TODO, unsigned(n_left)]
                            kind = lowest_kind(todo)
                            scratch[K_LEFT_TODO, unsigned(n_left)] = todo & (todo - 1)
                            scratch[K_LEFT_KIND, unsigned(n_left)] = kind
                            left_allowed = scratch[K_LEFT_ALLOWED, unsigned(n_left)]
                            scratch[K_LEFT_ALLOWED, unsigned(n_left + 1)] = fold_tile(left_allowed, kind)
                            n_left += 1
    return total if mode == MODE_COUNT else count
