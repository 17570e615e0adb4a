"""Moves, and the lazy list of moves that the generator returns."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator
from typing import Any, overload

import numpy as np
import numpy.typing as npt

from ._constants import COORD_MAX
from ._ints import int_value, read_int
from ._layout import COL_COLS, COL_KINDS, COL_N, COL_ROWS, COL_SCORE, OUT_COLS
from .errors import InvalidMoveError, InvalidTileError, NothingToUndoError, show
from .tiles import ALL_TILES, N_KINDS, N_TILES, Tile, tile_from_json

Placement = tuple[int, int, Tile]

# The playing area: a tile (and so a move) lies at |row|, |col| <= COORD_MAX.  Kernels
# look up to MARGIN (7) cells beyond the tiles and compute in int32, so every cell they
# touch stays far below 2**31; moves that would leave the area are not legal (the area
# has an edge, like a table), so whatever the library outputs it also accepts.
_COORD_DIGITS = len(str(COORD_MAX))
_PLACEMENT_TEXT = re.compile(r"^([A-Za-z]{2})@(-?[0-9]+),(-?[0-9]+)$", re.ASCII)


def is_int(value: Any) -> bool:
    """An int (an IntEnum too) or a numpy integer, but not a boolean."""
    return int_value(value) is not None


def check_coord(value: Any, what: str) -> int:
    """``value`` as a coordinate: an integer (not a boolean) with absolute value at most
    COORD_MAX, else InvalidMoveError naming ``what`` (a str).  The value is read once
    (``_ints.int_value``): the number checked is the number returned."""
    number = int_value(value)
    if not isinstance(what, str):
        raise InvalidMoveError(f"what (the coordinate's name in messages) must be a str, got {show(what)}")
    if number is None:
        raise InvalidMoveError(f"{what} must be an integer, got {show(value)}")
    if not -COORD_MAX <= number <= COORD_MAX:
        raise InvalidMoveError(f"{what} {show(number)} is out of range (|{what}| <= {COORD_MAX:,})")
    return number


def _coord_text(text: str, what: str) -> int:
    """A coordinate written in ASCII digits; no int() of an absurdly long number."""
    if len(text.lstrip("-").lstrip("0")) > _COORD_DIGITS:  # leading zeros are no digits of size
        raise InvalidMoveError(f"{what} {text[:12]}... is out of range (|{what}| <= {COORD_MAX:,})")
    return check_coord(int(text), what)


def _placement(item: Any) -> Placement:
    """Accept (row, col, Tile) or (row, col, color, shape)."""
    if not isinstance(item, (tuple, list)):
        raise InvalidMoveError(f"a placement is (row, col, tile), got {show(item)}")
    if len(item) == 3:
        row, col, tile = item
        if not isinstance(tile, Tile):
            raise InvalidMoveError(f"a placement's third item must be a Tile, got {show(tile)}")
    elif len(item) == 4:
        row, col = item[0], item[1]
        try:
            tile = tile_from_json(item[2:])
        except InvalidTileError as exc:
            raise InvalidMoveError(str(exc)) from None
    else:
        raise InvalidMoveError(f"a placement is (row, col, tile), got {show(item)}")
    return (check_coord(row, "row"), check_coord(col, "col"), tile)


def placements_text(placements: Iterable[Placement]) -> str:
    """The text form of placements: ``"Rc@0,0 Rs@0,1"`` (each one ``(row, col, Tile)``
    or ``(row, col, color, shape)``, checked as :class:`Move` checks them)."""
    if isinstance(placements, (str, bytes)) or not isinstance(placements, Iterable):
        raise InvalidMoveError(f"placements are a sequence of (row, col, tile), got {show(placements)}")
    try:
        items = iter(placements)
    except TypeError:  # an object that says it is iterable but is not (a 0-d array)
        raise InvalidMoveError(f"placements are a sequence of (row, col, tile), got {show(placements)}") from None
    return _placements_text([_placement(p) for p in items])


def _placements_text(placements: Iterable[Placement]) -> str:
    """:func:`placements_text` of placements already checked."""
    return " ".join(f"{t.text()}@{r},{c}" for r, c, t in placements)


def parse_placements(text: str) -> list[Placement]:
    """Parse ``"Rc@0,0 Rs@0,1"`` (tile, '@', row, ',', col; separated by spaces)."""
    if not isinstance(text, str):
        raise InvalidMoveError(f"expected placement text, got {show(text)}")
    out = []
    for word in text.split():
        m = _PLACEMENT_TEXT.match(word)
        if m is None:
            raise InvalidMoveError(f"not a placement: {word[:40]!r} (expected e.g. 'Rc@0,-1')")
        try:
            tile = Tile.from_text(m.group(1))
        except InvalidTileError as exc:
            raise InvalidMoveError(str(exc)) from None
        out.append((_coord_text(m.group(2), "row"), _coord_text(m.group(3), "col"), tile))
    return out


class Move:
    """A set of placements, ordered by (row, col); immutable and hashable.

    Two moves are equal when they put the same tiles on the same cells; ``score`` is
    carried along (it is ``None`` for a move parsed from text) but not compared.

    >>> m = Move.from_text("Rs@0,1 Rc@0,0")
    >>> str(m), m == Move.from_text("Rc@0,0 Rs@0,1")
    ('Rc@0,0 Rs@0,1', True)
    """

    __slots__ = ("_hash", "_row", "placements", "score")
    placements: tuple[Placement, ...]
    score: int | None
    _hash: int
    _row: npt.NDArray[np.int32] | None  # the move-table row it came from, if any

    def __init__(self, placements: Iterable[Any], score: int | None = None) -> None:
        try:
            if isinstance(placements, (str, bytes)) or not isinstance(placements, Iterable):
                raise TypeError
            given = iter(placements)
        except TypeError:  # no iterable (a 0-d array says it is one)
            hint = " (Move.from_text reads a move's text)" if isinstance(placements, str) else ""
            raise InvalidMoveError(
                f"a move is a sequence of (row, col, tile) placements, got {show(placements)}{hint}"
            ) from None
        if score is not None:
            # A score rides in the kernels' int32 move rows.
            score = read_int(score, "a move's score (an integer or None)", -(2**31), 2**31 - 1, InvalidMoveError)
        # At most the game's tiles (one more, to tell): a long iterable is never walked to its end.
        checked = [_placement(p) for p in itertools.islice(given, N_TILES + 1)]
        if len(checked) > N_TILES:
            raise InvalidMoveError(f"a move places at most the game's {N_TILES} tiles")
        items = tuple(sorted(checked, key=lambda p: (p[0], p[1], p[2].kind)))  # a set: one order for any input
        if not items:
            raise InvalidMoveError("a move places at least one tile")
        object.__setattr__(self, "placements", items)
        object.__setattr__(self, "score", score)
        object.__setattr__(self, "_hash", hash(items))
        object.__setattr__(self, "_row", None)

    @classmethod
    def _trusted(
        cls, placements: tuple[Placement, ...], score: int | None, row: npt.NDArray[np.int32] | None = None
    ) -> Move:
        self = object.__new__(cls)
        object.__setattr__(self, "placements", placements)
        object.__setattr__(self, "score", score)
        object.__setattr__(self, "_hash", hash(placements))
        object.__setattr__(self, "_row", row)
        return self

    def _move_row(self) -> npt.NDArray[np.int32]:
        """The move as a move-table row (what the kernels take)."""
        row = self._row
        if row is None:
            n = len(self.placements)
            values = [n, -1 if self.score is None else self.score]
            values += [r for r, _, _ in self.placements] + [0] * (6 - n)
            values += [c for _, c, _ in self.placements] + [0] * (6 - n)
            values += [t.kind for _, _, t in self.placements] + [-1] * (6 - n)
            row = np.array(values, dtype=np.int32) if n <= 6 else np.zeros(OUT_COLS, np.int32)
            object.__setattr__(self, "_row", row)
        return row

    @classmethod
    def from_text(cls, text: str) -> Move:
        """The move of a placement text such as ``"Rc@0,0 Rs@0,1"`` (its score unknown: None)."""
        return cls(parse_placements(text))

    @classmethod
    def from_json(cls, value: Any) -> Move:
        """From ``[[row, col, color, shape], ...]``."""
        if not isinstance(value, list):
            raise InvalidMoveError(f"a move is a list of [row, col, color, shape], got {show(value)}")
        for item in value:
            if not isinstance(item, list) or len(item) != 4:
                raise InvalidMoveError(f"a placement is [row, col, color, shape], got {show(item)}")
        return cls(value)

    def text(self) -> str:
        """The move's placement text, in (row, col) order."""
        return _placements_text(self.placements)

    def to_json(self) -> list[list[int]]:
        """The move as JSON placements ``[[row, col, color, shape], ...]``."""
        return [[r, c, int(t.color), int(t.shape)] for r, c, t in self.placements]

    @property
    def tiles(self) -> tuple[Tile, ...]:
        """The tiles placed, in (row, col) order."""
        return tuple(t for _, _, t in self.placements)

    def __len__(self) -> int:
        return len(self.placements)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        if self.score is None:
            return f"Move.from_text({self.text()!r})"
        return f"<Move {self.text()} score={self.score}>"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Move):
            return self.placements == other.placements
        return NotImplemented

    def __hash__(self) -> int:
        return self._hash

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Move is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Move._trusted, (self.placements, self.score))


IntArray = npt.NDArray[np.int32]


def as_move(value: Any) -> Move:
    """``value`` as a Move: a Move, a move's text (``"Rc@0,0 Rs@0,1"``), an Action
    that places one, or ``(row, col, Tile)`` items."""
    if isinstance(value, Move):
        return value
    if isinstance(value, str):
        return Move.from_text(value)
    from .game import Action  # game imports this module

    if isinstance(value, Action):
        if value.move is None:
            raise InvalidMoveError(f"{value.kind} places no tiles: only a place action is a move")
        return value.move
    return Move(value)


def _check_table(table: Any) -> IntArray:
    """``table`` if it is a move table (a 2-d int32 array of OUT_COLS columns), else
    InvalidMoveError."""
    if not isinstance(table, np.ndarray) or table.ndim != 2 or table.shape[1] != OUT_COLS:
        raise InvalidMoveError(f"not a move table (an int32 array of {OUT_COLS} columns): {show(table)}")
    if table.dtype != np.int32:
        raise InvalidMoveError(f"a move table holds int32, got {table.dtype}")
    return table


def _check_table_rows(table: IntArray) -> None:
    """InvalidMoveError naming the first row of ``table`` that is not a move as the
    generator writes one: 1 to 6 placements, each a tile kind (0..35) on a cell of the
    playing area, in (row, col) order with no cell twice; unused slots 0, 0 and -1.
    (A move built from such a row is what its placements say: the kernels that check
    or push it read the row, and a kind out of range would name another tile.)  The
    scores are taken as given: a checked push scores the move itself."""
    if not len(table):
        return
    n = table[:, COL_N].astype(np.int64)
    rows = table[:, COL_ROWS : COL_ROWS + 6].astype(np.int64)
    cols = table[:, COL_COLS : COL_COLS + 6].astype(np.int64)
    kinds = table[:, COL_KINDS : COL_KINDS + 6].astype(np.int64)
    used = np.arange(6) < n[:, None]
    later = used[:, 1:]  # the slots that follow a used one
    # (row, col) strictly increasing over the used slots (so no cell twice).
    ordered = (rows[:, 1:] > rows[:, :-1]) | ((rows[:, 1:] == rows[:, :-1]) & (cols[:, 1:] > cols[:, :-1]))
    problems = [
        ((n < 1) | (n > 6), "places 1 to 6 tiles"),
        ((used & ((kinds < 0) | (kinds >= N_KINDS))).any(axis=1), f"holds tile kinds 0..{N_KINDS - 1}"),
        ((used & ((np.abs(rows) > COORD_MAX) | (np.abs(cols) > COORD_MAX))).any(axis=1),
         f"lies in the playing area (|row|, |col| <= {COORD_MAX:,})"),
        ((later & ~ordered).any(axis=1), "lists its cells in (row, col) order, each once"),
        ((~used & ((rows != 0) | (cols != 0) | (kinds != -1))).any(axis=1), "holds 0, 0 and -1 in its unused slots"),
    ]
    for bad, rule in problems:
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InvalidMoveError(f"row {i} of the move table is not a move: a move {rule}")


def inside_area(table: IntArray) -> IntArray:
    """The rows of a move table whose placements all lie in the playing area
    (|row|, |col| <= COORD_MAX); unused slots hold 0, so they always pass."""
    _check_table(table)
    rows = table[:, COL_ROWS : COL_ROWS + 6]
    cols = table[:, COL_COLS : COL_COLS + 6]
    keep = ((rows >= -COORD_MAX) & (rows <= COORD_MAX) & (cols >= -COORD_MAX) & (cols <= COORD_MAX)).all(axis=1)
    return table if keep.all() else table[keep]


class MoveList:
    """Every legal move of a position, kept as one int32 table.

    Numpy views come first (:attr:`scores`, :attr:`sizes`, :attr:`rows`, :attr:`cols`,
    :attr:`kinds`); :class:`Move` objects are built only when you index or iterate.
    The placements of each move are in (row, col) order; unused slots of ``rows``,
    ``cols`` and ``kinds`` hold 0, 0 and -1.

    ``MoveList(table)`` wraps a table of that layout (InvalidMoveError for a row that is
    not a move; its scores are taken as given) and keeps the array itself, not a copy:
    write to a copy of a list's ``table``, not to the table, while the list is in use.
    """

    __slots__ = ("_table",)

    def __init__(self, table: IntArray) -> None:
        checked = _check_table(table)
        _check_table_rows(checked)
        self._table = checked

    def __getstate__(self) -> tuple[None, dict[str, Any]]:
        """For pickle: the table (defined, so that pickle's protocols 0 and 1 take a
        class with __slots__ too)."""
        return None, {"_table": self._table}

    @classmethod
    def _trusted(cls, table: IntArray) -> MoveList:
        self = object.__new__(cls)
        self._table = table
        return self

    @property
    def table(self) -> IntArray:
        """The raw table: one row per move (see ``qwirkle_core._layout.COL_*``)."""
        return self._table

    @property
    def scores(self) -> IntArray:
        """The score of each move (numpy int32)."""
        return self._table[:, COL_SCORE]

    @property
    def sizes(self) -> IntArray:
        """Number of tiles each move places."""
        return self._table[:, COL_N]

    @property
    def rows(self) -> IntArray:
        """The rows of each move's placements, one row of 6 per move (unused slots 0)."""
        return self._table[:, COL_ROWS : COL_ROWS + 6]

    @property
    def cols(self) -> IntArray:
        """The columns of each move's placements, one row of 6 per move (unused slots 0)."""
        return self._table[:, COL_COLS : COL_COLS + 6]

    @property
    def kinds(self) -> IntArray:
        """The tile kinds of each move's placements, one row of 6 per move (unused slots -1)."""
        return self._table[:, COL_KINDS : COL_KINDS + 6]

    def __len__(self) -> int:
        return int(self._table.shape[0])

    def count(self) -> int:
        """The number of moves (as ``len``)."""
        return len(self)

    def __bool__(self) -> bool:
        return bool(self._table.shape[0] > 0)

    def _move(self, i: int) -> Move:
        table_row = self._table[i].copy()  # its own: the table may be written to later
        row = table_row.tolist()
        n = row[COL_N]
        placements = tuple(
            (row[COL_ROWS + s], row[COL_COLS + s], ALL_TILES[row[COL_KINDS + s]]) for s in range(n)
        )
        return Move._trusted(placements, row[COL_SCORE], table_row)

    @overload
    def __getitem__(self, index: int) -> Move: ...

    @overload
    def __getitem__(self, index: slice) -> MoveList: ...

    def __getitem__(self, index: int | slice) -> Move | MoveList:
        if isinstance(index, slice):
            return MoveList._trusted(self._table[index])
        i = int_value(index)
        if i is None:
            raise NothingToUndoError(f"a move index is an integer or a slice, got {show(index)}")
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise NothingToUndoError("move index out of range")
        return self._move(i)

    def __iter__(self) -> Iterator[Move]:
        for i in range(len(self)):
            yield self._move(i)

    def _row_of(self, move: Move) -> np.ndarray | None:
        if len(move.placements) > 6:
            return None
        key = np.zeros(OUT_COLS - 2, np.int64)
        key[COL_KINDS - 2 : COL_KINDS + 4] = -1
        for s, (r, c, t) in enumerate(move.placements):
            key[COL_ROWS - 2 + s] = r
            key[COL_COLS - 2 + s] = c
            key[COL_KINDS - 2 + s] = t.kind
        return key

    def index(self, move: Move) -> int:
        """Position of ``move`` in the list (InvalidMoveError, a ValueError, if it is not
        there).  One scan of the table: to place many moves, compare tables instead."""
        if isinstance(move, Move):
            key = self._row_of(move)
            if key is not None and len(self):
                hits = np.flatnonzero((self._table[:, 2:] == key).all(axis=1))
                if hits.size:
                    return int(hits[0])
        raise InvalidMoveError(f"{show(move)} is not in the list")

    def __contains__(self, move: object) -> bool:
        if not isinstance(move, Move):
            return False
        try:
            self.index(move)
        except ValueError:
            return False
        return True

    def best(self) -> Move | None:
        """A highest-scoring move (the first in generation order), or None."""
        if not len(self):
            return None
        return self._move(int(np.argmax(self.scores)))

    def sorted(self, descending: bool = True) -> MoveList:
        """The moves by score (stable; highest first by default)."""
        order = np.argsort(-self.scores if descending else self.scores, kind="stable")
        return MoveList._trusted(self._table[order])

    def to_json(self) -> list[dict[str, Any]]:
        """The moves as ``[{"placements": [[row, col, color, shape], ...], "score": n}, ...]``."""
        out = []
        for row in self._table.tolist():
            n = row[COL_N]
            out.append(
                {
                    "placements": [
                        [row[COL_ROWS + s], row[COL_COLS + s], row[COL_KINDS + s] // 6, row[COL_KINDS + s] % 6]
                        for s in range(n)
                    ],
                    "score": row[COL_SCORE],
                }
            )
        return out

    def __repr__(self) -> str:
        shown = ", ".join(f"{m.text()} ({m.score})" for m in self[:5])
        more = f", ... {len(self) - 5} more" if len(self) > 5 else ""
        return f"<MoveList {len(self)} moves: {shown}{more}>"
