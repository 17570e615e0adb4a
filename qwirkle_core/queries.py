"""Exhaustive queries on a position, each one kernel call (no per-move Python).

Every function takes a :class:`~qwirkle_core.Board` first and checks its other
arguments; the board is only read.  Results are numpy arrays or a
:class:`~qwirkle_core.MoveList` (a table; no :class:`~qwirkle_core.Move` object is
built until you index it).  Kinds are ``color * 6 + shape``; a *kind mask* has bit
``k`` set for kind ``k``.

>>> from qwirkle_core import Board, Move, parse_tiles, queries
>>> board = Board("Rc@0,0 Rs@0,1 Rd@0,2 Rl@0,3")
>>> queries.top_moves(board, parse_tiles("Rx Rb Yc"), 2)
<MoveList 2 moves: Rx@0,4 Rb@0,5 (12), Rb@0,4 Rx@0,5 (12)>
>>> risk = queries.move_risk(board, parse_tiles("Rx Yc"))
>>> len(risk.moves), [str(m) for m, r in zip(risk.moves, risk.risky) if r]
(12, ['Rx@0,-1', 'Rx@0,4'])
>>> board.push(Move.from_text("Rx@0,-1"))
<Move Rx@0,-1 score=5>
>>> slots = queries.qwirkle_slots(board)
>>> slots.coords.tolist(), [str(t) for t in slots.tiles(0)], slots.unseen_copies.tolist()
([[0, -2], [0, 4]], ['Rb'], [3, 3])
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple

import numba
import numpy as np
import numpy.typing as npt

from . import _queries
from ._constants import COORD_MAX, HAND_SIZE
from ._ints import read_int
from ._iterables import items_of
from ._jit import interruptible
from ._layout import COL_COLS, COL_ROWS, COL_SCORE
from ._movegen import MODE_ALL, MODE_BEST, MODE_COUNT
from ._queries import N_PLANES, PLANE_COLORS, PLANE_LEGAL, PLANE_OCCUPIED, PLANE_SHAPES
from .board import Board, table_for_mode, tile_kinds
from .errors import InvalidMoveError, InvalidPositionError, InvalidTileError, QwirkleError, show
from .moves import MoveList, check_coord, inside_area, is_int
from .tiles import ALL_TILES, COPIES_PER_KIND, N_KINDS, Tile

__all__ = [
    "N_PLANES",
    "PLANE_COLORS",
    "PLANE_LEGAL",
    "PLANE_OCCUPIED",
    "PLANE_SHAPES",
    "MoveRisk",
    "Planes",
    "QwirkleSlots",
    "batch_best_scores",
    "batch_counts",
    "batch_moves",
    "count_moves",
    "has_move",
    "mask_tiles",
    "move_risk",
    "moves_on_cells",
    "moves_with_tiles",
    "position_planes",
    "qwirkle_slots",
    "top_moves",
    "unseen_counts",
]

Int64Array = npt.NDArray[np.int64]
# No position has anywhere near this many moves (the most found is about 40,000), so
# a larger k asks for all of them; it keeps k inside the kernel's int64.
MAX_K = 1 << 31
# The largest planes window side: 49 float32 planes of 1024 x 1024 are about 200 MB.
MAX_PLANE_SIDE = 1024
Position = tuple[Board, Sequence[Tile]]


def mask_tiles(mask: int | np.integer[Any]) -> list[Tile]:
    """The tiles of a kind mask (an integer 0..2**36 - 1: bit k for kind k), in kind
    order."""
    m = read_int(mask, "a kind mask", 0, (1 << N_KINDS) - 1, InvalidTileError)
    return [ALL_TILES[k] for k in range(N_KINDS) if (m >> k) & 1]


# ------------------------------------------------------------------ checking
def _board(board: object) -> Board:
    if not isinstance(board, Board):
        raise InvalidPositionError(f"expected a Board, got {show(board)}")
    return board


def _state(board: Board) -> Int64Array:
    return board.state_arrays()[0]


def _reusable(hand: Any) -> Any:
    """A hand that can be read twice (a one-shot iterator is read into a list)."""
    # At most one tile more than a hand holds: the hand's own check then refuses it,
    # and an endless iterator is not walked to its end.
    return list(itertools.islice(hand, HAND_SIZE + 1)) if isinstance(hand, Iterator) else hand


def _iterable(tiles: object, what: str) -> Iterable[Any]:
    if isinstance(tiles, (str, bytes)) or not isinstance(tiles, Iterable):
        raise InvalidTileError(f"{what} is a sequence of Tiles, got {show(tiles)}")
    return tiles


def _tile_kinds(tiles: object, what: str) -> list[int]:
    return tile_kinds(_iterable(tiles, what), what)


def _length(sequence: Sequence[Any]) -> int:
    """``len(sequence)``, or -1 where it has none that fits in an index."""
    try:
        return len(sequence)
    except (TypeError, OverflowError):
        return -1


def _is_count(value: object) -> bool:
    return type(value) is int or isinstance(value, np.integer)


def _counts_shaped(unseen: object) -> bool:
    """Whether ``unseen`` is meant as counts (a sequence of integers), not tiles: all of
    its items are integers where it has 36, its first is one where it has another length
    (so a long sequence is told by one item, never walked)."""
    if not isinstance(unseen, Sequence) or isinstance(unseen, (str, bytes)):
        return False
    n = _length(unseen)
    if n == N_KINDS:
        return all(_is_count(x) for x in unseen)
    try:
        return n > 0 and _is_count(unseen[0])
    except Exception:  # noqa: BLE001 - a sequence whose items cannot be read is no counts
        return False


def unseen_counts(board: Board, unseen: object = None, hand: Sequence[Tile] | None = None) -> Int64Array:
    """The 36 counts of the tiles a player cannot see, checked against the board.

    ``unseen`` is a sequence of Tiles (e.g. ``Game.unseen_tiles(player)``) or 36
    non-negative integer counts, one per kind.  ``None`` means every copy that is not
    on the board (and not in ``hand``, when given)."""
    board = _board(board)
    on_board = np.array(board.tile_counts(), dtype=np.int64)
    if unseen is None:
        counts = COPIES_PER_KIND - on_board
        if hand is None:
            return counts  # nothing to check: the board holds at most 3 of a kind
        held = _tile_kinds(itertools.islice(_iterable(hand, "a hand"), HAND_SIZE + 1), "a hand")
        if len(held) > HAND_SIZE:
            raise InvalidPositionError(f"a hand holds at most {HAND_SIZE} tiles")
        for k in held:
            counts[k] -= 1
    elif isinstance(unseen, np.ndarray) or _counts_shaped(unseen):
        if isinstance(unseen, Sequence) and _length(unseen) != N_KINDS:  # told before converting
            raise InvalidPositionError(f"unseen counts are {N_KINDS} integers, got {show(unseen)}")
        arr = np.asarray(unseen)
        if arr.shape != (N_KINDS,) or not (np.issubdtype(arr.dtype, np.integer) or arr.dtype == np.bool_):
            raise InvalidPositionError(f"unseen counts are {N_KINDS} integers, got {show(unseen)}")
        counts = arr.astype(np.int64)
    else:
        counts = np.zeros(N_KINDS, np.int64)
        # At most the game's 108 tiles (one more, to tell): a long iterable is refused
        # after that many items, never walked to its end.
        for k in _tile_kinds(itertools.islice(_iterable(unseen, "unseen"), N_KINDS * COPIES_PER_KIND + 1), "unseen"):
            counts[k] += 1
    if (counts < 0).any():
        raise InvalidPositionError(f"negative unseen count for {ALL_TILES[int(np.argmin(counts))]}")
    over = counts + on_board > COPIES_PER_KIND
    if over.any():
        k = int(np.flatnonzero(over)[0])
        raise InvalidPositionError(
            f"{int(counts[k])} unseen copies of {ALL_TILES[k]} and {int(on_board[k])} on the board; "
            f"the game has {COPIES_PER_KIND}"
        )
    return counts


def _cells(cells: object) -> tuple[Int64Array, Int64Array]:
    if isinstance(cells, np.ndarray):
        if cells.size == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        if cells.ndim != 2 or cells.shape[1] != 2 or not np.issubdtype(cells.dtype, np.integer):
            raise InvalidMoveError(f"cells are an (n, 2) integer array of (row, col), got shape {cells.shape}")
        if ((cells < -COORD_MAX) | (cells > COORD_MAX)).any():
            raise InvalidMoveError(f"a cell coordinate is out of range (|row|, |col| <= {COORD_MAX:,})")
        arr = cells.astype(np.int64)
        return np.ascontiguousarray(arr[:, 0]), np.ascontiguousarray(arr[:, 1])
    if isinstance(cells, (str, bytes)) or not isinstance(cells, Iterable):
        raise InvalidMoveError(f"cells are a sequence of (row, col), got {show(cells)}")
    rows = []
    cols = []
    for cell in cells:
        if not isinstance(cell, (tuple, list)) or len(cell) != 2:
            raise InvalidMoveError(f"a cell is (row, col), got {show(cell)}")
        rows.append(check_coord(cell[0], "row"))
        cols.append(check_coord(cell[1], "col"))
    return np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64)


# ------------------------------------------------------------------ moves
def count_moves(board: Board, hand: Sequence[Tile]) -> int:
    """How many legal moves ``hand`` has (:meth:`Board.count_moves`)."""
    return _board(board).count_moves(hand)


def has_move(board: Board, hand: Sequence[Tile]) -> bool:
    """Whether ``hand`` has a legal move; the search stops at the first (:meth:`Board.has_move`)."""
    return _board(board).has_move(hand)


def top_moves(board: Board, hand: Sequence[Tile], k: int) -> MoveList:
    """The ``k`` highest-scoring moves, best first; among equal scores, in generation
    order (the order of :meth:`Board.legal_moves`).  Fewer when there are fewer moves.

    The kernel selects them with a counting sort on the score; no Move is built."""
    board = _board(board)
    if not is_int(k):
        raise QwirkleError(f"k must be an integer, got {show(k)}")
    if k < 0:
        raise QwirkleError(f"k must be at least 0, got {k}")
    k = int(min(k, MAX_K))  # no position has more moves: a larger k means all of them
    mask = board.hand_mask(hand)
    if board.near_edge():
        table = board.legal_moves(hand).table
        order = np.argsort(-table[:, COL_SCORE], kind="stable")[:k]
        return MoveList._trusted(table[order])
    return MoveList._trusted(_queries.best_moves(_state(board), mask, k))


def moves_with_tiles(
    board: Board, hand: Sequence[Tile], tiles: Sequence[Tile], *, any_of: bool = False
) -> MoveList:
    """The legal moves of ``hand`` restricted to ``tiles`` (a part of the hand):
    moves that place only tiles of ``tiles`` (default), or with ``any_of=True`` the
    moves that place at least one of them.  In generation order."""
    board = _board(board)
    hand = _reusable(hand)
    mask = board.hand_mask(hand)
    kinds = _tile_kinds(tiles, "tiles")
    held = Counter(tile_kinds(hand, "a hand"))
    for kind, n in Counter(kinds).items():
        if held[kind] < n:
            raise InvalidPositionError(f"{ALL_TILES[kind]} is not in the hand {n} time(s)")
    tiles_mask = sum(1 << k for k in set(kinds))
    if any_of:
        table = _queries.moves_with_kinds(_state(board), mask, tiles_mask)
    else:
        table = _queries.table_of(_state(board), tiles_mask, MODE_ALL)[0]
    return MoveList._trusted(inside_area(table) if board.near_edge() else table)


def moves_on_cells(board: Board, hand: Sequence[Tile], cells: Any) -> MoveList:
    """The legal moves of ``hand`` that place a tile on at least one of ``cells``
    (``(row, col)`` pairs, or an (n, 2) integer array), in generation order.

    On the empty board the moves are the openings in the canonical frame (from (0, 0)
    eastward), so only cells of row 0, columns 0..5 can match."""
    board = _board(board)
    mask = board.hand_mask(hand)
    rows, cols = _cells(cells)
    table = _queries.moves_on_cells(_state(board), mask, rows, cols)
    return MoveList._trusted(inside_area(table) if board.near_edge() else table)


# ------------------------------------------------------------------ Qwirkle slots
class QwirkleSlots(NamedTuple):
    """Cells where one tile completes a line of six (a Qwirkle), as parallel arrays.

    ``coords[i]``: (row, col) of the empty cell; ``kinds[i]``: the kind mask of the
    tiles that would do it, each legal there alone (its row AND its column accept it);
    ``unseen[i]``: those kinds of which at least one copy is unseen; ``unseen_copies[i]``:
    how many unseen tiles in all would do it; ``points[i]``: the score of that one-tile
    move (12, or 24 and more when it also completes or extends the other line)."""

    coords: Int64Array
    kinds: npt.NDArray[np.uint64]
    unseen: npt.NDArray[np.uint64]
    unseen_copies: Int64Array
    points: Int64Array

    def tiles(self, i: int) -> list[Tile]:
        """The tiles that complete a Qwirkle on slot ``i``."""
        return mask_tiles(self.kinds[self._slot(i)])

    def unseen_tiles(self, i: int) -> list[Tile]:
        """The unseen tiles (one per kind) that complete a Qwirkle on slot ``i``."""
        return mask_tiles(self.unseen[self._slot(i)])

    def _slot(self, i: int) -> int:
        """A slot's index (negative: from the end, as a sequence's)."""
        n = len(self.kinds)
        return read_int(i, "a slot index", -n, n - 1) % max(n, 1)


def qwirkle_slots(board: Board, unseen: object = None) -> QwirkleSlots:
    """Every empty cell where some tile, played there alone, completes a line of six,
    with the kinds that would do it and which of them are unseen.

    ``unseen``: the tiles the player cannot see (a sequence of Tiles such as
    ``Game.unseen_tiles(player)``, or 36 counts); ``None``: every copy not on the board.
    Only single tiles count (a line of four that two tiles could finish has no slot)."""
    board = _board(board)
    counts = unseen_counts(board, unseen)
    if board.is_empty():
        z = np.zeros(0, np.int64)
        return QwirkleSlots(np.zeros((0, 2), np.int64), z.astype(np.uint64), z.astype(np.uint64), z, z)
    coords, kinds, unseen_kinds, copies, points = _queries.qwirkle_slots(_state(board), counts)
    slots = QwirkleSlots(coords, kinds.view(np.uint64), unseen_kinds.view(np.uint64), copies, points)
    if board.near_edge():
        keep = (np.abs(coords) <= COORD_MAX).all(axis=1)
        slots = QwirkleSlots(
            coords[keep], slots.kinds[keep], slots.unseen[keep], copies[keep], points[keep]
        )
    return slots


# ------------------------------------------------------------------ risk
class MoveRisk(NamedTuple):
    """What each legal move leaves the next player (see :func:`move_risk`).

    ``moves``: every legal move, in generation order; ``open_after[i]``: the number of
    Qwirkle slots with an unseen tile on the board after move i; ``opened[i]``: how
    many of those the move itself created (cells that were no such slot before it)."""

    moves: MoveList
    open_after: npt.NDArray[np.int32]
    opened: npt.NDArray[np.int32]

    @property
    def risky(self) -> npt.NDArray[np.bool_]:
        """Whether the move leaves the next player a one-tile Qwirkle."""
        return self.open_after > 0

    @property
    def opens(self) -> npt.NDArray[np.bool_]:
        """Whether the move creates a one-tile Qwirkle that was not there before."""
        return self.opened > 0


def move_risk(board: Board, hand: Sequence[Tile], unseen: object = None) -> MoveRisk:
    """For each legal move of ``hand``: whether it leaves the next player a Qwirkle.

    Definition.  After the move, a *slot* is an empty cell where a single tile of a
    kind that is still unseen (``unseen`` counts > 0), legal there alone -- both its
    row and its column accept it -- makes a line of exactly six.  A move is *risky*
    when the board after it has a slot (``open_after > 0``); it *opens* one when some
    slot after it was not a slot before (``opened > 0``): typically it made or extended
    a line to five tiles (possibly by joining two runs).  Playing into an existing slot,
    or making its cross line refuse the missing tile, closes it.  A slot that was open
    before and stays open makes a move risky but does not make it open anything: to
    follow the seeds' advice, avoid ``opens``.  Only one-tile completions count: a line of four that
    the next player would need two given tiles to finish is not a risk here (with two
    or more tiles to find, any line of four or less would be "risky"; the seeds'
    advice is about lines of five).

    ``unseen`` as in :func:`unseen_counts`; ``None``: every copy that is neither on the
    board nor in ``hand``."""
    board = _board(board)
    hand = _reusable(hand)
    mask = board.hand_mask(hand)
    counts = unseen_counts(board, unseen, hand if unseen is None else None)
    table, open_after, opened = _queries.move_risk(_state(board), mask, counts)
    if board.near_edge():
        rows = table[:, COL_ROWS : COL_ROWS + 6]
        cols = table[:, COL_COLS : COL_COLS + 6]
        inside = ((np.abs(rows) <= COORD_MAX) & (np.abs(cols) <= COORD_MAX)).all(axis=1)
        table, open_after, opened = table[inside], open_after[inside], opened[inside]
    return MoveRisk(MoveList._trusted(table), open_after, opened)


# ------------------------------------------------------------------ batch
class _Packed(NamedTuple):
    """Positions as batch_generate takes them: the board states end to end, where
    each starts, and the hand masks."""

    buffer: Int64Array
    offsets: Int64Array
    hand_masks: Int64Array


def _pack(positions: object) -> _Packed:
    """Each board's state, copied into one flat buffer, and each hand's mask."""
    if isinstance(positions, (str, bytes)) or not isinstance(positions, Iterable):
        raise InvalidPositionError(f"positions are a sequence of (Board, hand), got {show(positions)}")
    states = []
    masks = []
    for item in positions:
        if item.__class__ is not tuple and item.__class__ is not list or len(item) != 2:
            raise InvalidPositionError(f"a position is (Board, hand), got {show(item)}")
        board = item[0]
        if board.__class__ is not Board:
            raise InvalidPositionError(f"expected a Board, got {show(board)}")
        masks.append(board.hand_mask(item[1]))
        states.append(_state(board))
    offsets = np.zeros(len(states) + 1, np.int64)
    np.cumsum([len(st) for st in states], out=offsets[1:])
    return _Packed(
        np.concatenate(states) if states else np.zeros(0, np.int64), offsets, np.array(masks, dtype=np.int64)
    )


def _threads(threads: int | None) -> int:
    """The number of threads to use: ``None`` means numba's current setting (all
    cores unless NUMBA_NUM_THREADS or numba.set_num_threads says otherwise)."""
    if threads is None:
        return int(numba.get_num_threads())
    most = int(getattr(numba.config, "NUMBA_NUM_THREADS"))  # noqa: B009 - untyped module
    if type(threads) is not int or not 1 <= threads <= most:
        raise QwirkleError(f"threads must be an integer from 1 to {most}, got {show(threads)}")
    return threads


MAX_POSITIONS = 10**7  # per batch call: a longer iterable is refused, never walked to its end


def _listed(positions: object) -> list[Any]:
    items = items_of(positions)
    if items is None:
        raise InvalidPositionError(f"positions are a sequence of (Board, hand), got {show(positions)}")
    listed = list(itertools.islice(items, MAX_POSITIONS + 1))
    if len(listed) > MAX_POSITIONS:
        raise InvalidPositionError(f"a batch holds at most {MAX_POSITIONS:,} positions")
    return listed


def _edge_positions(positions: list[Any]) -> bool:
    """Whether a (checked) position lies near the edge of the playing area, where the
    batch kernels would list moves beyond it: the batch is then answered one by one."""
    return any(isinstance(p, (tuple, list)) and isinstance(p[0], Board) and p[0].near_edge() for p in positions)


def _batch_generate(positions: Iterable[Position], mode: int, threads: int | None) -> tuple[Int64Array, ...]:
    n_threads = _threads(threads)
    positions = _listed(positions)
    packed = _pack(positions)
    if _edge_positions(positions):
        results = [table_for_mode(b.legal_moves(h).table, mode) for b, h in positions]
        best = [int(t[:, COL_SCORE].max()) if len(t) else 0 for t, _ in results]
        return np.array([n for _, n in results], np.int64), np.array(best, np.int64)
    if n_threads == 1:
        return _queries.batch_generate_serial(*packed, mode)
    before = numba.get_num_threads()
    numba.set_num_threads(n_threads)
    try:
        return interruptible(_queries.batch_generate)(*packed, mode)
    finally:
        numba.set_num_threads(before)


def batch_counts(positions: Iterable[Position], threads: int | None = None) -> Int64Array:
    """The number of legal moves of each ``(board, hand)``, all positions in one
    parallel kernel call (a numba ``prange`` over the positions).

    ``threads``: how many threads (default: numba's setting, all cores); 1 runs a
    serial kernel on the calling thread, which is faster for small batches and on a
    machine whose cores are all busy: a parallel loop waits for its slowest thread, and
    numba's OpenMP layer spin-waits between loops (``OMP_WAIT_POLICY=PASSIVE``, set
    before the first parallel call, stops that)."""
    return _batch_generate(positions, MODE_COUNT, threads)[0]


def batch_best_scores(positions: Iterable[Position], threads: int | None = None) -> Int64Array:
    """The best score of each ``(board, hand)`` (0 where the hand has no move), in one
    parallel kernel call; ``threads`` as in :func:`batch_counts`."""
    return _batch_generate(positions, MODE_BEST, threads)[1]


def batch_moves(positions: Iterable[Position], threads: int | None = None) -> list[MoveList]:
    """Every legal move of each ``(board, hand)``, as one MoveList per position (each a
    view of one shared table), in one parallel kernel call; ``threads`` as in
    :func:`batch_counts`."""
    n_threads = _threads(threads)
    positions = _listed(positions)
    packed = _pack(positions)
    if _edge_positions(positions):
        return [b.legal_moves(h) for b, h in positions]
    if n_threads == 1:
        table, starts = _queries.batch_moves_serial(*packed)
    else:
        before = numba.get_num_threads()
        numba.set_num_threads(n_threads)
        try:
            table, starts = interruptible(_queries.batch_moves)(*packed)
        finally:
            numba.set_num_threads(before)
    bounds = starts.tolist()
    return [MoveList._trusted(table[a:b]) for a, b in itertools.pairwise(bounds)]


# ------------------------------------------------------------------ planes
class Planes(NamedTuple):
    """``planes[p, i, j]`` is plane ``p`` at cell ``(origin[0] + i, origin[1] + j)``.

    Plane order (``N_PLANES`` = 49): ``PLANE_COLORS + c`` (0..5) a tile of colour c
    (red, orange, yellow, green, blue, purple); ``PLANE_SHAPES + s`` (6..11) a tile of
    shape s (circle, square, diamond, clover, star4, star8); ``PLANE_OCCUPIED`` (12)
    any tile; ``PLANE_LEGAL + k`` (13..48) the empty cells where a tile of kind k can
    be played alone (as :meth:`Board.legal_tile_masks`; on the empty board only
    (0, 0))."""

    planes: npt.NDArray[Any]
    origin: tuple[int, int]


def position_planes(
    board: Board,
    size: int | tuple[int, int] = 32,
    origin: tuple[int, int] | None = None,
    dtype: Any = np.float32,
) -> Planes:
    """The position as ``N_PLANES`` x height x width numpy planes (see :class:`Planes`).

    ``size``: the window, an int (square) or (height, width).  ``origin``: caller
    coordinates of the window's top-left cell; by default the window is centred on the
    tiles' bounding box (cell (0, 0) on the empty board): its centre cell
    ``(height // 2, width // 2)`` is the middle cell of the box (rounded down).  Tiles
    outside the window are left out."""
    board = _board(board)
    if isinstance(size, tuple):
        if len(size) != 2:
            raise QwirkleError(f"size is an int or (height, width), got {show(size)}")
        height, width = size
    else:
        height = width = size
    for v in (height, width):
        if not is_int(v) or not 1 <= v <= MAX_PLANE_SIDE:
            raise QwirkleError(f"a window side is an integer from 1 to {MAX_PLANE_SIDE}, got {show(v)}")
    try:
        out_dtype = np.dtype(dtype)
    except Exception:  # noqa: BLE001 - numpy parses a dtype string with ast: any error may come out
        raise QwirkleError(f"dtype must be a numpy dtype, got {show(dtype)}") from None
    height = int(height)
    width = int(width)
    if origin is None:
        bounds = board.bounds()
        if bounds is None:
            centre = (0, 0)
        else:
            centre = ((bounds[0] + bounds[1]) // 2, (bounds[2] + bounds[3]) // 2)
        top, left = centre[0] - height // 2, centre[1] - width // 2
    else:
        if not isinstance(origin, (tuple, list)) or len(origin) != 2:
            raise InvalidMoveError(f"origin is (row, col), got {show(origin)}")
        top, left = check_coord(origin[0], "row"), check_coord(origin[1], "col")
    planes = _queries.position_planes(_state(board), top, left, height, width)
    return Planes(planes.astype(out_dtype, copy=False), (top, left))
