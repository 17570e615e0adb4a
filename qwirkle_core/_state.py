"""The board state every kernel works on: one int64 array, kept up to date on push/pop.

A state ``st`` covers a *window* of ``height`` x ``width`` cells around the tiles (their
box plus at least ``MARGIN`` empty cells on every side); window cell (i, j) is at the
caller's coordinates (st[S_TOP] + i, st[S_LEFT] + j) and has flat index p = i * width + j.
Layout (all int64):

- ``st[0:HEADER]``: the scalars S_* (window, tiles' box, tile counts per kind, ...);
- row info ``st[st[S_ROW_AT] + p]``: for an empty cell, the *cross-check* of its row:
  bits 0-35 the kinds that could join the runs of tiles beside it in its row
  (ALL_KINDS when it has none; see ``_lines.fold_tile``), and the number of tiles of
  those runs << LEN_SHIFT.  For a tile, ``~kind`` (negative);
- column info ``st[st[S_COL_AT] + p]``: the same along the column;
- occupancy ``st[st[S_OCC_AT] + i * words + w]``: bit b of word w is cell (i, 64 w + b).

The info of every empty cell is kept exact on push and pop: placing tiles only changes
the info of the empty cells at the two ends of each run they join, so a push rewrites
those (about 4 per tile) and logs every word it writes into an undo log; pop writes the
old words back.  A query reads the info directly, with no recomputation.

The undo log is an int64 array: ``log[0]`` entries, entry e at ``log[1 + 2e]`` (index
into st, or -1 for the mark that opens a push) and ``log[2 + 2e]`` (the old word).  A
push writes at most LOG_PER_PUSH entries.

When a push would bring tiles within MARGIN cells of the window's edge, ``push`` changes
nothing and returns NEED_REGROW; the caller builds a larger window with
:func:`regrown` (a new array: the old one stays valid as the state before the push)
and pushes again.  The empty board has a window of 0 x 0 cells.
"""

from __future__ import annotations

import numpy as np

from ._constants import ALL_KINDS, COORD_MAX, MAX_SPAN, N_KINDS
from ._jit import borrowing_gil_kernel, borrowing_kernel, gil_kernel, helper, kernel
from ._layout import COL_COLS, COL_KINDS, COL_N, COL_ROWS, COL_SCORE, KArray, KInt
from ._lines import fold_tile, line_points
from ._pyobjects import int_value, is_int, is_list, item_of, sequence_of, tile_kind

# Header slots.
S_HEIGHT = 0
S_WIDTH = 1
S_WORDS = 2  # occupancy words per window row
S_TOP = 3  # caller's row of window row 0
S_LEFT = 4  # caller's column of window column 0
S_R0 = 5  # tiles' box in window coordinates, half-open: rows [R0, R1), columns [C0, C1)
S_R1 = 6
S_C0 = 7
S_C1 = 8
S_TILES = 9
S_FULL = 10  # kinds with all 3 copies on the board
S_ROW_AT = 11  # where the sections start
S_COL_AT = 12
S_OCC_AT = 13
S_ERROR = 14  # build's verdict (OK = 0) and what it is about: row, column, and
S_ERROR_ROW = 15  # the direction of an invalid line, or the kind and its count
S_ERROR_COL = 16
S_ERROR_ARG = 17
S_ERROR_N = 18
S_ONE = 20  # kinds with at least 1 copy on the board
S_TWO = 21  # kinds with at least 2 copies on the board
S_COUNTS = 24  # 36 slots: tiles of each kind on the board
HEADER = 64

LEN_SHIFT = 40
# Empty cells a query needs around the tiles: a line is at most 6 long and must contain
# a cell next to a tile, so no move reaches more than 6 cells beyond the box; the 7th is
# the empty cell that ends the line (the generator reads it).
MARGIN = 7
GROW_MARGIN = 12  # margin of a window built anew
LOG_PER_PUSH = 64  # log entries one push writes, at most (1 mark + 8 header + 6 tiles * 8)
NEED_REGROW = -100  # push's answer when the window must grow first
SEEN = 64  # subtracted from a tile's word while build's flood fill has reached it

# Verdicts (build's S_ERROR, and judge's / push's); the Python layer names each rule.
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
TOO_MANY_COPIES = 10
TOO_FAR = 11
BAD_INPUT = 12
VERDICT_NAMES = {  # a move's verdict in a few words (Board's messages say the cell too)
    NO_TILES: "no tiles", TOO_MANY_TILES: "more than 6 tiles", SAME_CELL: "two tiles on one cell",
    NOT_ONE_LINE: "not in one line", CELL_TAKEN: "a cell is taken", GAP: "a gap in the line",
    NOT_TOUCHING: "not touching the board", INVALID_LINE: "an invalid line", NOT_CONNECTED: "not connected",
    TOO_MANY_COPIES: "more than 3 copies of a tile", TOO_FAR: "too far out", BAD_INPUT: "not a move",
}


def empty_state() -> KArray:
    """The state of the empty board."""
    st = np.zeros(HEADER, np.int64)
    st[S_ROW_AT] = st[S_COL_AT] = st[S_OCC_AT] = HEADER
    return st


def new_log(pushes: int = 16) -> KArray:
    """An undo log with room for ``pushes`` pushes."""
    return np.zeros(1 + 2 * LOG_PER_PUSH * pushes, np.int64)


@helper
def new_empty_state() -> KArray:
    """empty_state() inside kernels."""
    st = np.zeros(HEADER, np.int64)
    st[S_ROW_AT] = HEADER
    st[S_COL_AT] = HEADER
    st[S_OCC_AT] = HEADER
    return st


# ----------------------------------------------------------------- small helpers
@helper
def logged_write(st: KArray, log: KArray, i: KInt, value: KInt) -> None:
    """st[i] = value, remembering the old word in the log (which must have room).

    Branch-free on purpose: a helper whose body branches keeps an atomic incref and
    decref of each array argument at every call once inlined (numba's pruning pairs
    them only within one basic block), and push calls this about 6 times per tile.  A
    caller that wants no undo passes a scratch log and resets it (place_tiles)."""
    e = log[0]
    log[1 + 2 * e] = i
    log[2 + 2 * e] = st[i]
    log[0] = e + 1
    st[i] = value


@helper
def line_info(st: KArray, at: KInt, x: KInt, step: KInt) -> KInt:
    """The info word of the empty cell ``x`` along ``step`` (1: its row, with ``at`` the
    row-info section; width: its column, with the column-info section): the kinds the
    run before it and the run after it allow together, and their length.

    For valid runs L (before) and R (after), L + x + R is a valid line for the kinds
    allowed by both if R's kinds can all join L, else for none."""
    before = np.int64(ALL_KINDS)
    n_before = 0
    t = x - step
    while st[at + t] < 0:
        before = fold_tile(before, ~st[at + t])
        n_before += 1
        t -= step
    after = np.int64(ALL_KINDS)
    after_kinds = np.int64(0)
    n_after = 0
    t = x + step
    while st[at + t] < 0:
        kind = ~st[at + t]
        after = fold_tile(after, kind)
        after_kinds |= np.int64(1) << kind
        n_after += 1
        t += step
    return joined_info(before, n_before, after, after_kinds, n_after)


@helper
def joined_info(before: KInt, n_before: KInt, after: KInt, after_kinds: KInt, n_after: KInt) -> KInt:
    """The info word of an empty cell between a run L of ``n_before`` tiles that folds
    to ``before`` and a run R of ``n_after`` tiles (the kinds ``after_kinds``) that
    folds to ``after`` (either run may be empty: n = 0, fold ALL_KINDS).

    For valid runs, L + x + R is a valid line for the kinds allowed by both if R's
    kinds can all join L, else for none."""
    mask = np.int64(ALL_KINDS)
    length = 0
    if n_before > 0:
        mask = before if before >= 0 else np.int64(0)
        length = n_before
    if n_after > 0:
        if after < 0:
            after = np.int64(0)
        if length == 0:
            mask = after
        elif after_kinds & ~mask == 0:
            mask &= after
        else:
            mask = np.int64(0)
        length += n_after
    return mask | (np.int64(length) << LEN_SHIFT)


@helper
def kind_at(st: KArray, row: KInt, col: KInt) -> KInt:
    """The kind on the caller's cell (row, col), or -1 (empty, or outside the window)."""
    i = row - st[S_TOP]
    j = col - st[S_LEFT]
    if i < 0 or j < 0 or i >= st[S_HEIGHT] or j >= st[S_WIDTH]:
        return -1
    word = st[st[S_ROW_AT] + i * st[S_WIDTH] + j]
    return ~word if word < 0 else -1


@helper
def run_line(st: KArray, p: KInt, step: KInt) -> tuple[KInt, KInt]:
    """(length, kinds that could join, or -1 if invalid) of the line of tiles through
    the occupied window cell ``p`` along ``step``."""
    at = st[S_ROW_AT]
    while st[at + p - step] < 0:
        p -= step
    allowed = np.int64(ALL_KINDS)
    n = 0
    while st[at + p] < 0:
        allowed = fold_tile(allowed, ~st[at + p])
        n += 1
        p += step
    return n, allowed


# ------------------------------------------------------------------- building
@helper
def _blank(top: KInt, left: KInt, height: KInt, width: KInt) -> KArray:
    """A window with no tiles."""
    n = height * width
    words = (width + 63) // 64
    st = np.empty(HEADER + 2 * n + height * words, np.int64)
    st[:HEADER] = 0
    st[HEADER : HEADER + 2 * n] = ALL_KINDS
    st[HEADER + 2 * n :] = 0
    st[S_HEIGHT] = height
    st[S_WIDTH] = width
    st[S_WORDS] = words
    st[S_TOP] = top
    st[S_LEFT] = left
    st[S_R0] = height
    st[S_R1] = 0
    st[S_C0] = width
    st[S_C1] = 0
    st[S_ROW_AT] = HEADER
    st[S_COL_AT] = HEADER + n
    st[S_OCC_AT] = HEADER + 2 * n
    return st


@helper
def _place(st: KArray, i: KInt, j: KInt, kind: KInt) -> None:
    """Put a tile on the empty window cell (i, j), without the cross-checks or the log."""
    width = st[S_WIDTH]
    p = i * width + j
    st[st[S_ROW_AT] + p] = ~kind
    st[st[S_COL_AT] + p] = ~kind
    o = st[S_OCC_AT] + i * st[S_WORDS] + j // 64
    st[o] |= np.int64(1) << (j % 64)
    st[S_R0] = min(st[S_R0], i)
    st[S_R1] = max(st[S_R1], i + 1)
    st[S_C0] = min(st[S_C0], j)
    st[S_C1] = max(st[S_C1], j + 1)
    st[S_TILES] += 1
    st[S_COUNTS + kind] += 1
    _mark_count(st, kind)


@helper
def _mark_count(st: KArray, kind: KInt) -> None:
    """Set ``kind``'s bit in the masks of kinds with at least 1, 2, 3 copies."""
    bit = np.int64(1) << kind
    st[S_ONE] |= bit
    if st[S_COUNTS + kind] >= 2:
        st[S_TWO] |= bit
    if st[S_COUNTS + kind] >= 3:
        st[S_FULL] |= bit


@helper
def _sweep(st: KArray, at: KInt, outer0: KInt, outer1: KInt, outer_step: KInt, inner0: KInt, inner1: KInt, step: KInt) -> KInt:
    """Write the info (section ``at``) of every empty cell beside a run of tiles along
    ``step``, going over the lines ``outer0 * outer_step`` .. of the tiles' box, each
    from ``inner0`` to ``inner1``; each run is folded once, not once per cell beside it.

    Returns the smallest window index of the first cell of an invalid run, or -1."""
    bad = np.int64(-1)
    for o in range(outer0, outer1):
        base = o * outer_step
        x = inner0
        prev_end = np.int64(-2)  # inner index of the empty cell after the last run
        prev_fold = np.int64(ALL_KINDS)
        prev_n = np.int64(0)
        while x < inner1:
            if st[at + base + x * step] >= 0:
                x += 1
                continue
            first = x
            fold = np.int64(ALL_KINDS)
            kinds = np.int64(0)
            n = np.int64(0)
            while st[at + base + x * step] < 0:
                kind = ~st[at + base + x * step]
                fold = fold_tile(fold, kind)
                kinds |= np.int64(1) << kind
                n += 1
                x += 1
            if fold < 0 and (bad < 0 or base + first * step < bad):
                bad = base + first * step
            # The cell before the run; the one after it unless a run follows at once
            # (that run writes it, knowing both).
            if prev_end == first - 1:
                st[at + base + (first - 1) * step] = joined_info(prev_fold, prev_n, fold, kinds, n)
            else:
                st[at + base + (first - 1) * step] = joined_info(np.int64(ALL_KINDS), 0, fold, kinds, n)
            if st[at + base + (x + 1) * step] >= 0:
                st[at + base + x * step] = joined_info(fold, n, np.int64(ALL_KINDS), 0, 0)
            prev_end = x
            prev_fold = fold
            prev_n = n
            x += 1
    return bad


@helper
def _fill_cross_checks(st: KArray) -> KInt:
    """The info of every empty cell beside a tile, computed from scratch.  Returns
    where the first invalid line starts: -1 if none, else the window index of its
    first cell, in (row, col) order, rows before columns, plus ``height * width``
    for a column."""
    width = st[S_WIDTH]
    r0 = st[S_R0]
    r1 = st[S_R1]
    c0 = st[S_C0]
    c1 = st[S_C1]
    bad_row = _sweep(st, st[S_ROW_AT], r0, r1, width, c0, c1, 1)
    bad_col = _sweep(st, st[S_COL_AT], c0, c1, 1, r0, r1, width)
    if bad_row >= 0:
        return bad_row
    if bad_col >= 0:
        return bad_col + st[S_HEIGHT] * width
    return -1


@helper
def _set_error(st: KArray, verdict: KInt, row: KInt, col: KInt, arg: KInt, n: KInt) -> KArray:
    st[S_ERROR] = verdict
    st[S_ERROR_ROW] = row
    st[S_ERROR_COL] = col
    st[S_ERROR_ARG] = arg
    st[S_ERROR_N] = n
    return st


@kernel
def build(values: KArray, columns: KInt) -> KArray:
    """The state of the board whose tiles are given column by column in ``values``
    (int64): see :func:`_build`."""
    return _build(values, columns)


# Type codes of Python's ``marshal`` format (version 2: no back-references, every int
# that fits 32 bits written as TYPE_INT and 4 bytes little-endian).
MARSHAL_INT = 0x69  # 'i'
MARSHAL_LIST = 0x5B  # '['
MARSHAL_TUPLE = 0x28  # '('


@helper
def _int32_at(data: bytes, at: KInt) -> KInt:
    """The little-endian signed 32-bit integer at ``data[at:at + 4]``."""
    value = (
        np.int64(data[at])
        | (np.int64(data[at + 1]) << 8)
        | (np.int64(data[at + 2]) << 16)
        | (np.int64(data[at + 3]) << 24)
    )
    return value - ((value >> 31) << 32)


@helper
def _bad_input() -> KArray:
    return _set_error(new_empty_state(), BAD_INPUT, 0, 0, 0, 0)


@kernel
def build_marshalled(data: bytes, columns: KInt) -> KArray:
    """:func:`build` from the bytes that ``marshal.dumps(value, 2)`` writes (a ``bytes``
    object, which numba reads as a read-only uint8 array), so
    that checking the types of a board's Python values and packing them take one C
    call and this loop, not a Python-level pass per value:

    - ``columns`` 4: ``value`` is a list of n lists of four ints [row, col, colour,
      shape] (``Board.from_json``);
    - ``columns`` 3: ``value`` is a tuple of 2n ints, the n rows then the n columns,
      and the n kinds follow as one byte each (``Board.from_placements``).

    marshal writes exact ints, lists and tuples with their own codes, and booleans,
    floats, subclasses, other objects and ints beyond 32 bits differently (or not at
    all), so any other value fails the exact layout checked here: BAD_INPUT, and the
    caller checks its input the slow way to say what is wrong."""
    size = len(data)
    if size < 5:
        return _bad_input()
    if columns == 4:
        n = _int32_at(data, 1)
        if data[0] != MARSHAL_LIST or n <= 0 or size != 5 + 25 * n:
            return _bad_input()
        values = np.empty(4 * n, np.int64)
        at = 5
        for a in range(n):
            if data[at] != MARSHAL_LIST or _int32_at(data, at + 1) != 4:
                return _bad_input()
            at += 5
            for k in range(4):
                if data[at] != MARSHAL_INT:
                    return _bad_input()
                values[k * n + a] = _int32_at(data, at + 1)
                at += 5
        return _build(values, 4)
    coords = _int32_at(data, 1)
    n = coords // 2
    if data[0] != MARSHAL_TUPLE or coords <= 0 or coords % 2 != 0 or size != 5 + 5 * coords + n:
        return _bad_input()
    values = np.empty(3 * n, np.int64)
    at = 5
    for a in range(coords):
        if data[at] != MARSHAL_INT:
            return _bad_input()
        values[a] = _int32_at(data, at + 1)
        at += 5
    for a in range(n):
        values[coords + a] = data[at + a]
    return _build(values, 3)


@gil_kernel
def build_in_place(items: KInt, json: bool, reader: KArray) -> KArray:
    """:func:`build` from the Python list at address ``items``, read where it lies
    (``_pyobjects``; ``reader`` is ``_pyobjects.reader()``, and the caller holds the
    list): its items are ``(row, col, Tile)`` or ``(row, col, colour, shape)`` tuples or
    lists (``Board.from_placements``), or with ``json`` only ``[row, col, colour, shape]``
    lists (``Board.from_json``).  Exact ints and the 36 tiles only: anything else, or
    a list of no tiles or of more than MAX_SPAN, gives BAD_INPUT, and the caller
    checks its input the slow way to say what is wrong."""
    n = sequence_of(items, reader, False)
    if n <= 0 or n > MAX_SPAN:
        return _bad_input()
    values = np.empty(3 * n, np.int64)
    for a in range(n):
        item = item_of(items, True, a)
        size = sequence_of(item, reader, not json)
        in_list = is_list(item, reader)
        if size == 3 and not json:
            kind = tile_kind(item_of(item, in_list, 2), reader)
        elif size == 4:
            color = item_of(item, in_list, 2)
            shape = item_of(item, in_list, 3)
            if not is_int(color, reader) or not is_int(shape, reader):
                return _bad_input()
            color = int_value(color, reader)
            shape = int_value(shape, reader)
            kind = color * 6 + shape if 0 <= color < 6 and 0 <= shape < 6 else -1
        else:
            return _bad_input()
        row = item_of(item, in_list, 0)
        col = item_of(item, in_list, 1)
        if kind < 0 or not is_int(row, reader) or not is_int(col, reader):
            return _bad_input()
        values[a] = int_value(row, reader)
        values[n + a] = int_value(col, reader)
        values[2 * n + a] = kind
    return _build(values, 3)


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


@helper
def _build(values: KArray, columns: KInt) -> KArray:
    """The state of the board whose tiles are given column by column in ``values``:
    the n rows, then the n columns (caller's coordinates), then the n kinds, or the n
    colours and then the n shapes when ``columns`` is 4 (n = len(values) // columns).

    Checked: coordinates in the playing area (|row|, |col| <= COORD_MAX) and tiles
    that exist (else BAD_INPUT: the caller checks its input itself to say what is
    wrong), two tiles on one cell, more than 3 copies of a kind, tiles too far apart,
    an invalid line, tiles not connected.  A rejected board gives an empty state whose
    st[S_ERROR] is the verdict (OK = 0 otherwise), st[S_ERROR_ROW], st[S_ERROR_COL]
    the caller's cell it is about, st[S_ERROR_ARG] the direction of an invalid line (0
    row, 1 column) or the kind with too many copies (st[S_ERROR_N] of them).  The
    checks are made in that order, each over the tiles in the given order (lines and
    connectivity: in (row, col) order of their first cell); TOO_FAR (the tiles span
    MAX_SPAN cells or more) is found before all but the first."""
    n = values.shape[0] // columns
    if n == 0:
        return new_empty_state()
    lo_r = values[0]
    hi_r = lo_r
    lo_c = values[n]
    hi_c = lo_c
    for a in range(n):
        row = values[a]
        col = values[n + a]
        if columns == 4:
            color = values[2 * n + a]
            shape = values[3 * n + a]
            if color < 0 or color >= 6 or shape < 0 or shape >= 6:
                return _set_error(new_empty_state(), BAD_INPUT, 0, 0, 0, 0)
        else:
            kind = values[2 * n + a]
            if kind < 0 or kind >= 36:
                return _set_error(new_empty_state(), BAD_INPUT, 0, 0, 0, 0)
        # Not abs(): the reader of Python ints clips them to int64, and abs(-2**63)
        # is -2**63 again.
        if row < -COORD_MAX or row > COORD_MAX or col < -COORD_MAX or col > COORD_MAX:
            return _set_error(new_empty_state(), BAD_INPUT, 0, 0, 0, 0)
        lo_r = min(lo_r, row)
        hi_r = max(hi_r, row)
        lo_c = min(lo_c, col)
        hi_c = max(hi_c, col)
    if hi_r - lo_r >= MAX_SPAN or hi_c - lo_c >= MAX_SPAN:
        # No window for it; the caller looks for the problems to report first.
        return _set_error(new_empty_state(), TOO_FAR, 0, 0, 0, 0)
    top = lo_r - GROW_MARGIN
    left = lo_c - GROW_MARGIN
    st = _blank(top, left, hi_r - lo_r + 1 + 2 * GROW_MARGIN, hi_c - lo_c + 1 + 2 * GROW_MARGIN)
    width = st[S_WIDTH]
    row_at = st[S_ROW_AT]
    for a in range(n):
        i = values[a] - top
        j = values[n + a] - left
        if st[row_at + i * width + j] < 0:
            return _set_error(new_empty_state(), SAME_CELL, values[a], values[n + a], 0, 0)
        _place(st, i, j, _kind_of(values, columns, n, a))
    for a in range(n):
        kind = _kind_of(values, columns, n, a)
        if st[S_COUNTS + kind] > 3:
            return _set_error(new_empty_state(), TOO_MANY_COPIES, 0, 0, kind, st[S_COUNTS + kind])
    height = st[S_HEIGHT]
    bad = _fill_cross_checks(st)
    if bad >= 0:
        direction = 0 if bad < height * width else 1
        p = bad - direction * height * width
        return _set_error(new_empty_state(), INVALID_LINE, p // width + top, p % width + left, direction, 0)
    # Connectivity: a flood fill from the first tile in (row, col) order must reach
    # them all.  A reached tile is marked in its own row word, ~kind - SEEN (a tile's
    # word is -1..-36, so a marked one is below -36), and unmarked at the end: no
    # array of the window's size to allocate and clear.
    r0 = st[S_R0]
    c0 = st[S_C0]
    start = r0 * width + c0
    while st[row_at + start] >= 0:
        start += 1
    queue = np.empty(n, np.int64)
    queue[0] = start
    st[row_at + start] -= SEEN
    head = 0
    tail = 1
    while head < tail:
        p = queue[head]
        head += 1
        for q in (p - 1, p + 1, p - width, p + width):
            word = st[row_at + q]
            if word < 0 and word >= -N_KINDS:
                st[row_at + q] = word - SEEN
                queue[tail] = q
                tail += 1
    for a in range(tail):
        st[row_at + queue[a]] += SEEN
    if tail != n:
        for p in range(r0 * width, st[S_R1] * width):
            if st[row_at + p] < 0 and not _reached(queue, tail, p):
                return _set_error(new_empty_state(), NOT_CONNECTED, p // width + top, p % width + left, 0, 0)
    return st


@helper
def _reached(queue: KArray, tail: KInt, p: KInt) -> bool:
    """Whether the flood fill reached cell ``p`` (only asked of a board it did not
    connect, to name the first tile it missed)."""
    for a in range(tail):
        if queue[a] == p:
            return True
    return False


@helper
def _kind_of(values: KArray, columns: KInt, n: KInt, a: KInt) -> KInt:
    """The kind of tile ``a`` of build's ``values``."""
    if columns == 4:
        return values[2 * n + a] * 6 + values[3 * n + a]
    return values[2 * n + a]


@kernel
def regrown(st: KArray, move: KArray) -> KArray:
    """A new state with the tiles of ``st`` in a window around them and the cells of
    ``move`` (a move row), GROW_MARGIN cells on every side.  ``st`` is left as it is."""
    n = move[COL_N]
    lo_r = np.int64(move[COL_ROWS])
    hi_r = lo_r
    lo_c = np.int64(move[COL_COLS])
    hi_c = lo_c
    for s in range(n):
        lo_r = min(lo_r, np.int64(move[COL_ROWS + s]))
        hi_r = max(hi_r, np.int64(move[COL_ROWS + s]))
        lo_c = min(lo_c, np.int64(move[COL_COLS + s]))
        hi_c = max(hi_c, np.int64(move[COL_COLS + s]))
    if st[S_TILES] > 0:
        lo_r = min(lo_r, st[S_TOP] + st[S_R0])
        hi_r = max(hi_r, st[S_TOP] + st[S_R1] - 1)
        lo_c = min(lo_c, st[S_LEFT] + st[S_C0])
        hi_c = max(hi_c, st[S_LEFT] + st[S_C1] - 1)
    top = lo_r - GROW_MARGIN
    left = lo_c - GROW_MARGIN
    new = _blank(top, left, hi_r - lo_r + 1 + 2 * GROW_MARGIN, hi_c - lo_c + 1 + 2 * GROW_MARGIN)
    if st[S_TILES] > 0:
        width = st[S_WIDTH]
        row_at = st[S_ROW_AT]
        di = st[S_TOP] - top
        dj = st[S_LEFT] - left
        for i in range(st[S_R0], st[S_R1]):
            for j in range(st[S_C0], st[S_C1]):
                word = st[row_at + i * width + j]
                if word < 0:
                    _place(new, i + di, j + dj, ~word)
        _fill_cross_checks(new)
    return new


# ---------------------------------------------------------------- judging a move
@kernel
def judge(st: KArray, move: KArray) -> tuple[KInt, KInt, KInt, KInt, KInt]:
    """Judge placing the tiles of ``move`` (a move row, caller's coordinates).

    Returns (verdict, score, row, col, arg): on OK the score; otherwise the cell the
    verdict is about and, for INVALID_LINE, the direction of the line (0 = row,
    1 = column); for TOO_MANY_COPIES the kind (in ``arg``) and how many copies the
    board holds (in ``row``).  ``st`` is left as it was."""
    n = move[COL_N]
    if n == 0:
        return NO_TILES, 0, 0, 0, 0
    if n > 6:
        return TOO_MANY_TILES, 0, 0, 0, 0
    for a in range(n):
        k = move[COL_KINDS + a]
        same = 0
        for b in range(n):
            if move[COL_KINDS + b] == k:
                same += 1
        if st[S_COUNTS + k] + same > 3:
            return TOO_MANY_COPIES, 0, st[S_COUNTS + k], 0, k
    for a in range(n):
        for b in range(a + 1, n):
            if move[COL_ROWS + a] == move[COL_ROWS + b] and move[COL_COLS + a] == move[COL_COLS + b]:
                return SAME_CELL, 0, move[COL_ROWS + a], move[COL_COLS + a], 0
    row0 = np.int64(move[COL_ROWS])
    col0 = np.int64(move[COL_COLS])
    same_row = True
    same_col = True
    for a in range(1, n):
        if move[COL_ROWS + a] != row0:
            same_row = False
        if move[COL_COLS + a] != col0:
            same_col = False
    if not (same_row or same_col):
        return NOT_ONE_LINE, 0, row0, col0, 0
    # Along the line: the span the tiles cover.
    lo = col0 if same_row else row0
    hi = lo
    for a in range(n):
        along = np.int64(move[COL_COLS + a]) if same_row else np.int64(move[COL_ROWS + a])
        lo = min(lo, along)
        hi = max(hi, along)

    if st[S_TILES] == 0:
        # Any straight, contiguous, valid line is a legal opening.
        if hi - lo + 1 != n:
            for v in range(lo, hi + 1):
                found = False
                for a in range(n):
                    if (move[COL_COLS + a] if same_row else move[COL_ROWS + a]) == v:
                        found = True
                if not found:
                    if same_row:
                        return GAP, 0, row0, v, 0
                    return GAP, 0, v, col0, 1
        allowed = np.int64(ALL_KINDS)
        for v in range(lo, hi + 1):
            for a in range(n):
                if (move[COL_COLS + a] if same_row else move[COL_ROWS + a]) == v:
                    allowed = fold_tile(allowed, move[COL_KINDS + a])
        if allowed < 0:
            return INVALID_LINE, 0, row0, lo if same_row else col0, 0 if same_row else 1
        return OK, (1 if n == 1 else line_points(n)), 0, 0, 0

    for a in range(n):
        if kind_at(st, move[COL_ROWS + a], move[COL_COLS + a]) >= 0:
            return CELL_TAKEN, 0, move[COL_ROWS + a], move[COL_COLS + a], 0
    # Every cell between the first and the last tile is placed now or already taken.
    for v in range(lo, hi + 1):
        r = row0 if same_row else v
        c = v if same_row else col0
        if kind_at(st, r, c) >= 0:
            continue
        found = False
        for a in range(n):
            if move[COL_ROWS + a] == r and move[COL_COLS + a] == c:
                found = True
        if not found:
            return GAP, 0, r, c, 0 if same_row else 1
    touching = hi - lo + 1 > n  # a board tile lies between two placed ones
    for a in range(n):
        r = np.int64(move[COL_ROWS + a])
        c = np.int64(move[COL_COLS + a])
        if (
            kind_at(st, r - 1, c) >= 0
            or kind_at(st, r + 1, c) >= 0
            or kind_at(st, r, c - 1) >= 0
            or kind_at(st, r, c + 1) >= 0
        ):
            touching = True
    if not touching:
        return NOT_TOUCHING, 0, row0, col0, 0
    # Touching and gap-free: every placed cell lies within 6 cells of the tiles, so
    # inside the window.  Put the tiles down, read the lines, take them back.
    width = st[S_WIDTH]
    row_at = st[S_ROW_AT]
    saved = np.empty(6, np.int64)
    for a in range(n):
        p = (move[COL_ROWS + a] - st[S_TOP]) * width + (move[COL_COLS + a] - st[S_LEFT])
        saved[a] = st[row_at + p]
        st[row_at + p] = ~np.int64(move[COL_KINDS + a])
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
            p = (move[COL_ROWS + a] - st[S_TOP]) * width + (move[COL_COLS + a] - st[S_LEFT])
            length, allowed = run_line(st, p, 1 if along_row else width)
            if allowed < 0 and verdict == OK:
                verdict = INVALID_LINE
                bad_r = move[COL_ROWS + a]
                bad_c = move[COL_COLS + a]
                bad_dir = direction
            score += line_points(length)
    for a in range(n):
        p = (move[COL_ROWS + a] - st[S_TOP]) * width + (move[COL_COLS + a] - st[S_LEFT])
        st[row_at + p] = saved[a]
    if verdict != OK:
        return verdict, 0, bad_r, bad_c, bad_dir
    return OK, score, 0, 0, 0


# ------------------------------------------------------------------ push and pop
@kernel
def push(st: KArray, log: KArray, move: KArray, check: KInt) -> KInt:
    """Place the tiles of ``move`` (a move row) and bring the cross-checks up to date,
    logging every word written into ``log``, which must have room for LOG_PER_PUSH
    more entries.  Returns the move's score; with ``check``, judged
    first (its score is then computed), and -verdict if illegal, changing nothing.
    Returns NEED_REGROW, changing nothing, when the tiles would come within MARGIN
    cells of the window's edge (or the board is empty): see :func:`regrown`.
    Unchecked, ``move`` must be legal (a row of a move table of this position)."""
    if check:
        verdict, score, _, _, _ = judge(st, move)
        if verdict != OK:
            return -verdict
    else:
        score = move[COL_SCORE]
    return push_legal(st, log, move, score)


@borrowing_kernel
def push_legal(st: KArray, log: KArray, move: KArray, score: KInt) -> KInt:
    """:func:`push` of a legal ``move`` whose score is ``score`` (what the game loop
    calls: its moves come from move tables, and it compiles no judge)."""
    n = move[COL_N]
    height = st[S_HEIGHT]
    width = st[S_WIDTH]
    top = st[S_TOP]
    left = st[S_LEFT]
    for s in range(n):
        i = move[COL_ROWS + s] - top
        j = move[COL_COLS + s] - left
        if i < MARGIN or j < MARGIN or i >= height - MARGIN or j >= width - MARGIN:
            return NEED_REGROW
    # The mark that opens this push's entries, then the header words it changes.
    e = log[0]
    log[1 + 2 * e] = -1
    log[2 + 2 * e] = 0
    log[0] = e + 1
    for slot in range(S_R0, S_FULL + 1):
        logged_write(st, log, slot, st[slot])
    logged_write(st, log, S_ONE, st[S_ONE])
    logged_write(st, log, S_TWO, st[S_TWO])
    row_at = st[S_ROW_AT]
    col_at = st[S_COL_AT]
    occ_at = st[S_OCC_AT]
    words = st[S_WORDS]
    for s in range(n):
        i = move[COL_ROWS + s] - top
        j = move[COL_COLS + s] - left
        kind = np.int64(move[COL_KINDS + s])
        p = i * width + j
        logged_write(st, log, row_at + p, ~kind)
        logged_write(st, log, col_at + p, ~kind)
        o = occ_at + i * words + j // 64
        logged_write(st, log, o, st[o] | (np.int64(1) << (j % 64)))
        logged_write(st, log, S_COUNTS + kind, st[S_COUNTS + kind] + 1)
        _mark_count(st, kind)
        st[S_R0] = min(st[S_R0], i)
        st[S_R1] = max(st[S_R1], i + 1)
        st[S_C0] = min(st[S_C0], j)
        st[S_C1] = max(st[S_C1], j + 1)
    st[S_TILES] += n
    # The empty cells at both ends of every run that now holds a placed tile (the
    # tiles of a move lie in one run along its line: those ends once).
    along_row = n == 1 or move[COL_ROWS] == move[COL_ROWS + 1]
    for s in range(n):
        p = (move[COL_ROWS + s] - top) * width + (move[COL_COLS + s] - left)
        for direction in range(2):
            if s > 0 and (direction == 0) == along_row:
                continue
            at = row_at if direction == 0 else col_at
            step = 1 if direction == 0 else width
            x = p - step
            while st[at + x] < 0:
                x -= step
            logged_write(st, log, at + x, line_info(st, at, x, step))
            x = p + step
            while st[at + x] < 0:
                x += step
            logged_write(st, log, at + x, line_info(st, at, x, step))
    return score


@kernel
def pop(st: KArray, log: KArray) -> None:
    """Take back the last push: write back every word it logged, newest first."""
    e = log[0]
    while e > 0:
        e -= 1
        i = log[1 + 2 * e]
        if i < 0:
            break
        st[i] = log[2 + 2 * e]
    log[0] = e


@kernel
def tiles_of(st: KArray) -> KArray:
    """Every tile as a row [row, col, kind] (caller's coordinates), in (row, col) order."""
    out = np.empty((st[S_TILES], 3), np.int64)
    if st[S_TILES] == 0:
        return out
    width = st[S_WIDTH]
    row_at = st[S_ROW_AT]
    n = 0
    for i in range(st[S_R0], st[S_R1]):
        for j in range(st[S_C0], st[S_C1]):
            word = st[row_at + i * width + j]
            if word < 0:
                out[n, 0] = i + st[S_TOP]
                out[n, 1] = j + st[S_LEFT]
                out[n, 2] = ~word
                n += 1
    return out
