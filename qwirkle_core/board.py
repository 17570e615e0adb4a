"""The position: tiles on an unbounded board, kept as a numpy grid of kinds."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from . import _rules
from ._geometry import CENTER, EMPTY, GRID_SIZE, MARGIN
from ._movegen import MODE_ALL, MODE_ANY, MODE_BEST, MODE_COUNT, generate_moves, generate_openings
from .errors import IllegalMoveError, InvalidMoveError, InvalidPositionError, InvalidTileError
from .moves import Move, MoveList, Placement, _placement, parse_placements, placements_text
from .tiles import ALL_TILES, COPIES_PER_KIND, N_KINDS, Tile

MAX_HAND = 6
# A connected group of n tiles spans at most n cells each way; a game has 108 tiles.
MAX_SPAN = N_KINDS * COPIES_PER_KIND


class CellMasks(NamedTuple):
    """Legal-tile masks: ``coords[i]`` = (row, col) of an empty cell beside the tiles,
    ``masks[i]`` = the 36-bit set of kinds (bit ``color * 6 + shape``) that could be
    placed there alone.  Cells where nothing fits are included with mask 0."""

    coords: npt.NDArray[np.int64]
    masks: npt.NDArray[np.uint64]


class _Undo(NamedTuple):
    move: Move
    cells: tuple[tuple[int, int, int], ...]  # (grid row, grid col, kind) placed
    box: tuple[int, int, int, int]
    origin: tuple[int, int]


def _as_hand_sequence(hand: object) -> Sequence[Tile]:
    if isinstance(hand, (str, bytes)) or not hasattr(hand, "__len__") or not hasattr(hand, "__iter__"):
        raise InvalidPositionError(f"a hand is a sequence of Tiles, got {hand!r}")
    return list(hand)


def tile_kinds(tiles: Iterable[Tile], what: str) -> list[int]:
    """The kinds of ``tiles``, checking that each is a Tile (``what`` names them in
    the error)."""
    kinds = []
    for t in tiles:
        if t.__class__ is not Tile:
            raise InvalidTileError(f"{what} holds Tiles, got {t!r}")
        kinds.append(t.kind)
    return kinds


def hand_kinds(hand: Sequence[Tile]) -> list[int]:
    """Validate a hand (0..6 Tiles) and return its kinds."""
    hand = _as_hand_sequence(hand)
    if len(hand) > MAX_HAND:
        raise InvalidPositionError(f"a hand holds at most {MAX_HAND} tiles, got {len(hand)}")
    return tile_kinds(hand, "a hand")


class Board:
    """A Qwirkle board.

    ``Board()`` is empty; ``Board("Rc@0,0 Rs@0,1")`` parses the text form that
    ``repr`` writes; :meth:`from_placements` takes ``(row, col, Tile)`` items.
    Rows grow south, columns east; any integer offset is fine.

    >>> board = Board("Rc@0,0 Rs@0,1")
    >>> moves = board.legal_moves([Tile.from_text("Rd"), Tile.from_text("Bc")])
    >>> len(moves), moves.best()
    (8, <Move Rd@0,-1 score=3>)
    """

    __slots__ = ("_box", "_col_origin", "_counts", "_grid", "_n_tiles", "_row_origin", "_stack")

    def __init__(self, text: str | None = None) -> None:
        self._grid = np.full((GRID_SIZE, GRID_SIZE), EMPTY, dtype=np.int8)
        self._row_origin = 0  # caller's row of grid row CENTER
        self._col_origin = 0
        self._box = (CENTER, CENTER, CENTER, CENTER)  # tiles' grid box, half-open
        self._counts = [0] * N_KINDS
        self._n_tiles = 0
        self._stack: list[_Undo] = []
        if text:
            self._load(parse_placements(text))

    @classmethod
    def from_placements(cls, placements: Iterable[Any]) -> Board:
        """A board from ``(row, col, Tile)`` (or ``(row, col, color, shape)``) items.

        Raises :class:`InvalidPositionError` for a board that no game can produce."""
        board = cls()
        try:
            items = [_placement(p) for p in placements]
        except InvalidMoveError as exc:
            raise InvalidPositionError(str(exc)) from None
        board._load(items)
        return board

    @classmethod
    def from_json(cls, value: Any) -> Board:
        """From ``[[row, col, color, shape], ...]``."""
        if not isinstance(value, list):
            raise InvalidPositionError(f"a board is a list of [row, col, color, shape], got {value!r}")
        for item in value:
            if not isinstance(item, list) or len(item) != 4:
                raise InvalidPositionError(f"a board tile is [row, col, color, shape], got {item!r}")
        return cls.from_placements(value)

    def _load(self, items: list[Placement]) -> None:
        if not items:
            return
        seen: dict[tuple[int, int], Tile] = {}
        for r, c, t in items:
            if (r, c) in seen:
                raise InvalidPositionError(f"two tiles on one cell ({r}, {c})")
            seen[(r, c)] = t
        counts = Counter(t.kind for _, _, t in items)
        for kind, n in counts.items():
            if n > COPIES_PER_KIND:
                raise InvalidPositionError(
                    f"{n} copies of {ALL_TILES[kind]} on the board; the game has {COPIES_PER_KIND}"
                )
        rows = np.array([r for r, _, _ in items], dtype=np.int64)
        cols = np.array([c for _, c, _ in items], dtype=np.int64)
        kinds = np.array([t.kind for _, _, t in items], dtype=np.int8)
        if rows.max() - rows.min() >= MAX_SPAN or cols.max() - cols.min() >= MAX_SPAN:
            raise InvalidPositionError("the tiles are not connected (they span too far)")
        self._row_origin = int(rows.min() + rows.max()) // 2
        self._col_origin = int(cols.min() + cols.max()) // 2
        grid_rows = rows - self._row_origin + CENTER
        grid_cols = cols - self._col_origin + CENTER
        self._grid[grid_rows, grid_cols] = kinds
        box = (int(grid_rows.min()), int(grid_rows.max()) + 1, int(grid_cols.min()), int(grid_cols.max()) + 1)
        verdict, r, c, direction = _rules.board_problem(self._grid, *box, len(items))
        if verdict != _rules.OK:
            r += self._row_origin - CENTER
            c += self._col_origin - CENTER
            self.__init__()  # type: ignore[misc]  # leave the board empty, as it was
            if verdict == _rules.INVALID_LINE:
                what = "row" if direction == 0 else "column"
                raise InvalidPositionError(
                    f"invalid line: the {what} starting at ({r}, {c}) is neither one colour with "
                    "distinct shapes nor one shape with distinct colours"
                )
            raise InvalidPositionError(f"the tiles are not connected: ({r}, {c}) is cut off")
        self._box = box
        for kind, n in counts.items():
            self._counts[kind] = n
        self._n_tiles = len(items)

    # ----------------------------------------------------------------- reading
    def __len__(self) -> int:
        """Number of tiles on the board."""
        return self._n_tiles

    def is_empty(self) -> bool:
        return self._n_tiles == 0

    def _to_grid(self, row: int, col: int) -> tuple[int, int]:
        return row - self._row_origin + CENTER, col - self._col_origin + CENTER

    def tile_at(self, row: int, col: int) -> Tile | None:
        gr, gc = self._to_grid(row, col)
        if not (0 <= gr < GRID_SIZE and 0 <= gc < GRID_SIZE):
            return None
        kind = int(self._grid[gr, gc])
        return None if kind == EMPTY else ALL_TILES[kind]

    def placements(self) -> list[Placement]:
        """Every tile as ``(row, col, Tile)``, in (row, col) order."""
        if not self._n_tiles:
            return []
        r0, r1, c0, c1 = self._box
        sub = self._grid[r0:r1, c0:c1]
        rr, cc = np.nonzero(sub != EMPTY)
        dr = r0 - CENTER + self._row_origin
        dc = c0 - CENTER + self._col_origin
        kinds = sub[rr, cc].tolist()
        return [(r + dr, c + dc, ALL_TILES[k]) for r, c, k in zip(rr.tolist(), cc.tolist(), kinds)]

    def tile_counts(self) -> list[int]:
        """How many tiles of each kind (0..35) are on the board."""
        return list(self._counts)

    def text(self) -> str:
        return placements_text(self.placements())

    def to_json(self) -> list[list[int]]:
        return [[r, c, int(t.color), int(t.shape)] for r, c, t in self.placements()]

    def bounds(self) -> tuple[int, int, int, int] | None:
        """(min_row, max_row, min_col, max_col) of the tiles, or None when empty."""
        if not self._n_tiles:
            return None
        r0, r1, c0, c1 = self._box
        dr = self._row_origin - CENTER
        dc = self._col_origin - CENTER
        return r0 + dr, r1 - 1 + dr, c0 + dc, c1 - 1 + dc

    def __repr__(self) -> str:
        return f"Board({self.text()!r})" if self._n_tiles else "Board()"

    def __str__(self) -> str:
        from .render import board_text

        return board_text(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self.placements() == other.placements()

    __hash__ = None  # type: ignore[assignment]  # mutable

    # ----------------------------------------------------------- the queries
    def hand_mask(self, hand: Sequence[Tile]) -> int:
        """The kind mask of ``hand`` (bit ``kind`` set for each kind it holds), after
        checking that it is 0..6 Tiles that, with the board, hold at most 3 copies of a
        kind.  (On the hot path of every query, hence the single loop; the slow path
        only runs for duplicates.)"""
        if hand.__class__ is not list and hand.__class__ is not tuple:
            hand = _as_hand_sequence(hand)
        if len(hand) > MAX_HAND:
            raise InvalidPositionError(f"a hand holds at most {MAX_HAND} tiles, got {len(hand)}")
        mask = 0
        counts = self._counts
        for t in hand:
            if t.__class__ is not Tile:
                raise InvalidTileError(f"a hand holds Tiles, got {t!r}")
            k = t.kind
            bit = 1 << k
            if mask & bit or counts[k] >= COPIES_PER_KIND:
                n = counts[k] + sum(1 for u in hand if u is t)
                if n > COPIES_PER_KIND:
                    raise InvalidPositionError(
                        f"{n} copies of {t} between the board and the hand; "
                        f"the game has {COPIES_PER_KIND}"
                    )
            mask |= bit
        return mask

    def check_hand(self, hand: Sequence[Tile]) -> None:
        """Raise unless ``hand`` is 0..6 Tiles that, with the board, hold at most 3
        copies of each kind."""
        self.hand_mask(hand)

    def legal_moves(self, hand: Sequence[Tile]) -> MoveList:
        """Every legal placement of tiles from ``hand`` (0 to 6 Tiles, duplicates
        allowed), each once, with its score.  On the empty board the openings are
        given in the canonical frame: the line starts at (0, 0) and runs east."""
        mask = self.hand_mask(hand)
        if self._n_tiles:
            r0, r1, c0, c1 = self._box
            table = generate_moves(
                self._grid, r0, r1, c0, c1, mask, self._row_origin, self._col_origin, MODE_ALL
            )[0]
        else:
            table = generate_openings(mask, 0, 0, MODE_ALL)[0]
        return MoveList._trusted(table)

    def _generate(self, mask: int, mode: int) -> tuple[npt.NDArray[np.int32], int]:
        if not self._n_tiles:
            table, total = generate_openings(mask, 0, 0, mode)
        else:
            r0, r1, c0, c1 = self._box
            table, total = generate_moves(
                self._grid, r0, r1, c0, c1, mask, self._row_origin, self._col_origin, mode
            )
        return table, int(total)

    def count_moves(self, hand: Sequence[Tile]) -> int:
        """How many legal moves ``hand`` has, without building the list."""
        return self._generate(self.hand_mask(hand), MODE_COUNT)[1]

    def has_move(self, hand: Sequence[Tile]) -> bool:
        """Whether ``hand`` has any legal move (the search stops at the first)."""
        return self._generate(self.hand_mask(hand), MODE_ANY)[1] > 0

    def best_moves(self, hand: Sequence[Tile]) -> MoveList:
        """Every move of the highest score (empty if there is no move)."""
        return MoveList._trusted(self._generate(self.hand_mask(hand), MODE_BEST)[0])

    def legal_tile_masks(self) -> CellMasks:
        """For every empty cell beside the tiles, the kinds that fit there alone.

        On the empty board: the single cell (0, 0), where every kind fits."""
        if not self._n_tiles:
            return CellMasks(
                np.zeros((1, 2), np.int64), np.array([(1 << N_KINDS) - 1], dtype=np.uint64)
            )
        coords, masks = _rules.cell_masks(self._grid, *self._box, self._row_origin, self._col_origin)
        return CellMasks(coords, masks.astype(np.uint64))

    def _judge(self, move: Move | Iterable[Any], hand: Sequence[Tile] | None) -> tuple[Move, int]:
        if not isinstance(move, Move):
            move = Move(move)
        items = move.placements
        n = len(items)
        if n > MAX_HAND:
            raise IllegalMoveError(f"a move places at most {MAX_HAND} tiles, got {n}")
        if hand is not None:
            held = hand_kinds(hand)
            for _, _, t in items:
                if held.count(t.kind) < sum(1 for _, _, u in items if u is t):
                    raise IllegalMoveError(f"{t} is not in the hand")
        counts = self._counts
        flat: list[int] = []
        for r, c, t in items:
            k = t.kind
            if counts[k] >= COPIES_PER_KIND - n + 1:  # cheap test first: only near the limit
                placed_here = sum(1 for _, _, u in items if u is t)
                if counts[k] + placed_here > COPIES_PER_KIND:
                    raise IllegalMoveError(
                        f"only {COPIES_PER_KIND} copies of {t} exist, and {counts[k]} are on the board"
                    )
            flat += (r, c, k)
        placed = np.array(flat, dtype=np.int64).reshape(n, 3)
        verdict, score, r, c, direction = _rules.check_placement(
            self._grid, self._n_tiles == 0, self._row_origin, self._col_origin, placed
        )
        if verdict != _rules.OK:
            raise IllegalMoveError(_verdict_message(verdict, r, c, direction))
        return move, int(score)

    def score(self, placements: Move | Iterable[Any], hand: Sequence[Tile] | None = None) -> int:
        """The score of placing ``placements`` (a Move, or ``(row, col, Tile)`` items).

        Raises :class:`IllegalMoveError` naming the broken rule; with ``hand``, also
        when a tile is not in the hand."""
        return self._judge(placements, hand)[1]

    def is_legal(self, placements: Move | Iterable[Any], hand: Sequence[Tile] | None = None) -> bool:
        try:
            self._judge(placements, hand)
        except (IllegalMoveError, InvalidMoveError, InvalidTileError, InvalidPositionError):
            return False
        return True

    # ----------------------------------------------------------- place and undo
    def push(self, move: Move | Iterable[Any]) -> Move:
        """Place a legal move (checked; an illegal one raises and changes nothing).
        Returns the move with its score."""
        move, score = self._judge(move, None)
        if move.score != score:
            move = Move._trusted(move.placements, score)
        old_box = self._box
        old_origin = (self._row_origin, self._col_origin)
        placements = move.placements
        if not self._n_tiles:
            # The first tiles fix where the board sits in the grid: in its middle.
            rows = [r for r, _, _ in placements]
            cols = [c for _, c, _ in placements]
            self._row_origin = (min(rows) + max(rows)) // 2
            self._col_origin = (min(cols) + max(cols)) // 2
            r0 = c0 = GRID_SIZE
            r1 = c1 = 0
        else:
            r0, r1, c0, c1 = old_box
        dr = CENTER - self._row_origin
        dc = CENTER - self._col_origin
        cells = tuple((r + dr, c + dc, t.kind) for r, c, t in placements)
        for gr, gc, _ in cells:
            r0 = min(r0, gr)
            r1 = max(r1, gr + 1)
            c0 = min(c0, gc)
            c1 = max(c1, gc + 1)
        if r0 <= MARGIN or c0 <= MARGIN or r1 >= GRID_SIZE - MARGIN or c1 >= GRID_SIZE - MARGIN:
            # Unreachable for boards that play produces (see _geometry); refuse rather
            # than let a kernel read past the grid.
            self._row_origin, self._col_origin = old_origin
            raise InvalidPositionError("the board would grow beyond any game of Qwirkle")
        grid = self._grid
        counts = self._counts
        for gr, gc, k in cells:
            grid[gr, gc] = k
            counts[k] += 1
        self._n_tiles += len(cells)
        self._box = (r0, r1, c0, c1)
        self._stack.append(_Undo(move, cells, old_box, old_origin))
        return move

    def pop(self) -> Move:
        """Take back the last pushed move and return it."""
        if not self._stack:
            raise IndexError("pop from a board with no pushed moves")
        undo = self._stack.pop()
        grid = self._grid
        counts = self._counts
        for gr, gc, k in undo.cells:
            grid[gr, gc] = EMPTY
            counts[k] -= 1
        self._n_tiles -= len(undo.cells)
        self._box = undo.box
        self._row_origin, self._col_origin = undo.origin
        return undo.move

    def peek(self) -> Move:
        if not self._stack:
            raise IndexError("no pushed moves")
        return self._stack[-1].move

    @property
    def move_stack(self) -> list[Move]:
        return [u.move for u in self._stack]

    def copy(self, stack: bool = True) -> Board:
        board = Board.__new__(Board)
        board._grid = self._grid.copy()
        board._row_origin = self._row_origin
        board._col_origin = self._col_origin
        board._box = self._box
        board._counts = list(self._counts)
        board._n_tiles = self._n_tiles
        board._stack = list(self._stack) if stack else []
        return board

    def __copy__(self) -> Board:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> Board:
        # Moves and tiles are immutable: copy() shares them, and copies the arrays.
        return self.copy()

    def state_arrays(self) -> tuple[npt.NDArray[np.int8], tuple[int, int], tuple[int, int, int, int]]:
        """The raw state: the grid of kinds (-1 empty), the caller's coordinates of
        grid cell (CENTER, CENTER), and the tiles' grid box.  Read-only use."""
        return self._grid, (self._row_origin, self._col_origin), self._box

    # ----------------------------------------------------------------- pictures
    def svg(self, **options: Any) -> str:
        """The board as an SVG document; options as in :func:`qwirkle_core.render.board_svg`
        (``highlight``, ``show_legal_cells``, ``coordinates``, ``cell_size``, ``hand``)."""
        from .render import board_svg

        return board_svg(self, **options)

    def _repr_svg_(self) -> str:
        """Jupyter shows a board as its picture."""
        return self.svg()

    def ansi(self, **options: Any) -> str:
        """The board in terminal colours; options as in :func:`qwirkle_core.render.board_ansi`."""
        from .render import board_ansi

        return board_ansi(self, **options)

    # ------------------------------------------- exhaustive queries (qwirkle_core.queries)
    def top_moves(self, hand: Sequence[Tile], k: int) -> MoveList:
        """The ``k`` best moves, best first (:func:`qwirkle_core.queries.top_moves`)."""
        from .queries import top_moves

        return top_moves(self, hand, k)

    def moves_with_tiles(self, hand: Sequence[Tile], tiles: Sequence[Tile], *, any_of: bool = False) -> MoveList:
        """Moves restricted to some of the hand's tiles (:func:`qwirkle_core.queries.moves_with_tiles`)."""
        from .queries import moves_with_tiles

        return moves_with_tiles(self, hand, tiles, any_of=any_of)

    def moves_on_cells(self, hand: Sequence[Tile], cells: Any) -> MoveList:
        """Moves that use one of ``cells`` (:func:`qwirkle_core.queries.moves_on_cells`)."""
        from .queries import moves_on_cells

        return moves_on_cells(self, hand, cells)


def _verdict_message(verdict: int, r: int, c: int, direction: int) -> str:
    if verdict == _rules.NO_TILES:
        return "a move places at least one tile"
    if verdict == _rules.TOO_MANY_TILES:
        return "a move places at most 6 tiles"
    if verdict == _rules.SAME_CELL:
        return f"two tiles on one cell ({r}, {c})"
    if verdict == _rules.NOT_ONE_LINE:
        return "the tiles are not in one line (one row or one column)"
    if verdict == _rules.CELL_TAKEN:
        return f"cell ({r}, {c}) is taken"
    if verdict == _rules.GAP:
        return f"gap in the line at ({r}, {c}): the tiles must form one contiguous line"
    if verdict == _rules.NOT_TOUCHING:
        return "the tiles do not touch any tile on the board"
    what = "row" if direction == 0 else "column"
    return (
        f"invalid line: the {what} through ({r}, {c}) would be neither one colour with "
        "distinct shapes nor one shape with distinct colours"
    )
