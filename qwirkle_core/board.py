"""The position: tiles on an unbounded board, kept in one int64 state array.

The state (see ``qwirkle_core._state``) is a compact window around the tiles that holds
each empty cell's cross-checks, kept up to date on push and pop with an undo log, so a
query is one kernel call that recomputes nothing."""

from __future__ import annotations

import itertools
import marshal
import operator
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from . import _frontier, _jit, _movegen, _pyobjects, _state
from ._constants import COORD_MAX, HAND_SIZE, MAX_SPAN
from ._ints import int_value
from ._layout import COL_SCORE, OUT_COLS
from ._movegen import (
    CHECK_EDGE,
    HAND_CONFLICT,
    INITIAL_CAPACITY,
    MODE_ALL,
    MODE_ANY,
    MODE_BEST,
    MODE_COUNT,
    NEAR_EDGE,
    generate,
)
from ._state import NEED_REGROW, S_COUNTS, S_ERROR, S_FULL, S_LEFT, S_ONE, S_TOP, S_TWO
from .errors import (
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    InvalidTileError,
    NothingToUndoError,
    QwirkleError,
    show,
)
from .moves import (
    Move,
    MoveList,
    Placement,
    _check_table,
    _placement,
    _placements_text,
    as_move,
    inside_area,
    parse_placements,
)
from .tiles import ALL_TILES, COPIES_PER_KIND, N_KINDS, N_TILES, Tile, as_tile

_LOG_ROOM = 2 * _state.LOG_PER_PUSH  # int64 words of the undo log one push may use


class _Tables(threading.local):
    """The move table the generator writes into, one per thread (reused from query to
    query, so a query allocates only its result): boards are read from several threads
    at once, and a table shared between them would mix their moves."""

    def __init__(self) -> None:
        self.out = np.empty((INITIAL_CAPACITY, OUT_COLS), np.int32)


_TABLES = _Tables()


class CellMasks(NamedTuple):
    """Legal-tile masks: ``coords[i]`` = (row, col) of an empty cell beside the tiles,
    ``masks[i]`` = the 36-bit set of kinds (bit ``color * 6 + shape``) that could be
    placed there alone.  Cells where nothing fits are included with mask 0."""

    coords: npt.NDArray[np.int64]
    masks: npt.NDArray[np.uint64]


def _as_hand_sequence(hand: object) -> Sequence[Tile]:
    if isinstance(hand, str):
        raise InvalidTileError(f"a hand is a sequence of Tiles, got the text {show(hand)} (parse_tiles({show(hand)}) reads it)")
    if isinstance(hand, bytes) or not hasattr(hand, "__len__") or not hasattr(hand, "__iter__"):
        raise InvalidTileError(f"a hand is a sequence of Tiles, got {show(hand)}")
    try:
        n = len(hand)
    except (TypeError, OverflowError):  # a 0-d array; a range too long for a length
        raise InvalidTileError(f"a hand is a sequence of Tiles, got {show(hand)}") from None
    if n > HAND_SIZE:  # before copying it: a range(10**12) is no hand
        raise InvalidPositionError(f"a hand holds at most {HAND_SIZE} tiles, got {n}")
    return list(hand)


def tile_kinds(tiles: Iterable[Tile], what: str) -> list[int]:
    """The kinds of ``tiles``, checking that each is a Tile (``what`` names them in
    the error; a str)."""
    if not isinstance(what, str):
        raise QwirkleError(f"what (the tiles' name in messages) must be a str, got {show(what)}")
    try:
        if isinstance(tiles, (str, bytes)):
            raise TypeError
        items = iter(tiles)
    except TypeError:  # no iterable (a 0-d array says it is one)
        raise InvalidTileError(f"{what} is a sequence of Tiles, got {show(tiles)}") from None
    # At most the game's tiles (one more, to tell): an endless iterable is refused, not
    # walked to its end.
    kinds = [as_tile(t, what).kind for t in itertools.islice(items, N_TILES + 1)]
    if len(kinds) > N_TILES:
        raise InvalidTileError(f"{what}: more than the game's {N_TILES} tiles")
    return kinds


def hand_kinds(hand: Sequence[Tile]) -> list[int]:
    """Validate a hand (0..6 Tiles) and return its kinds."""
    hand = _as_hand_sequence(hand)
    if len(hand) > HAND_SIZE:
        raise InvalidPositionError(f"a hand holds at most {HAND_SIZE} tiles, got {len(hand)}")
    return tile_kinds(hand, "a hand")


_EMPTY_STATE = _state.empty_state()
_EMPTY_STATE.setflags(write=False)
_NO_LOG = np.zeros(1, np.int64)  # the log of a board never pushed to (read only)
_NO_LOG.setflags(write=False)
_KIND = operator.attrgetter("kind")


_TUPLE_TYPE = frozenset({tuple})  # the set of types of a list of tuples

class _InPlace(_jit.CompiledEntry):
    """A kernel that reads Python objects where they lie (``_pyobjects``), and the
    reader to call it with: ``reader`` is None until the first call asks for it, and
    stays None wherever no kernel can read Python objects (then callers take their
    other path), and with the JIT off (where what the kernel reads could change
    between its Python steps; the tests call it themselves, on their own values).
    ``call`` is the kernel through its compiled entry (see _jit.CompiledEntry): its
    first call compiles or loads it, as any kernel's does."""

    __slots__ = ("kernel", "reader")

    def __init__(self, kernel: Any) -> None:
        super().__init__(kernel)
        self.kernel = kernel
        self.reader: npt.NDArray[np.int64] | None = None

    def ready_reader(self) -> npt.NDArray[np.int64] | None:
        """``reader``, or :meth:`when_ready`'s while it is None."""
        return self.reader if self.reader is not None else self.when_ready()

    def when_ready(self) -> npt.NDArray[np.int64] | None:
        """``reader``, found in this process (None where no kernel can read objects)."""
        if not _jit.JIT_OFF:
            self.reader = _pyobjects.reader()
        return self.reader


# The generator as the queries below call it: always a board's state (int64), the
# thread's move table (int32 rows), the hand's mask and the mode (ints).
_GENERATE = _jit.CompiledEntry(generate)

# Boards built from Python lists, and hands checked, where they lie.
_BUILD_IN_PLACE = _InPlace(_state.build_in_place)
_HAND_IN_PLACE = _InPlace(_state.hand_mask_in_place)


def _placed_values(items: list[Placement]) -> npt.NDArray[np.int64]:
    """Checked placements as build's values: rows, columns, kinds."""
    return np.array(
        [r for r, _, _ in items] + [c for _, c, _ in items] + [t.kind for _, _, t in items], dtype=np.int64
    )


class Board:
    """A Qwirkle board.

    ``Board()`` is empty; ``Board("Rc@0,0 Rs@0,1")`` parses the text form that
    ``repr`` writes; :meth:`from_placements` takes ``(row, col, Tile)`` items.
    Rows grow south, columns east; tiles lie anywhere in the playing area, |row| and
    |col| at most ``COORD_MAX`` (2**30 - 8), whose edge no move may cross.

    Threads: reading one Board from several threads at once is safe (``legal_moves``,
    ``count_moves``, ``score``, ``is_legal``, the queries, ``copy``, the pictures): the
    kernels only read the grid.  Changing it (``push``, ``pop``) while any other
    thread uses it is not: a reader may see half a move and get wrong moves or a
    spurious error.  Give each thread its own ``copy()``, or guard the Board with a
    lock.

    >>> board = Board("Rc@0,0 Rs@0,1")
    >>> moves = board.legal_moves([Tile.from_text("Rd"), Tile.from_text("Bc")])
    >>> len(moves), moves.best()
    (8, <Move Rd@0,-1 score=3>)
    """

    __slots__ = ("_log", "_n_tiles", "_st", "_stack")

    def __init__(self, text: str | None = None) -> None:
        if text is not None and not isinstance(text, str):
            raise InvalidPositionError(f"a board's text is a string like 'Rc@0,0 Rs@0,1', got {show(text)}")
        self._st = _EMPTY_STATE.copy()
        self._log = _NO_LOG
        self._n_tiles = 0
        # One entry per push: the move, and the state before it when the push had to
        # grow the window (a new array; None when it wrote to the same one).
        self._stack: list[tuple[Move, npt.NDArray[np.int64] | None]] = []
        if text:
            self._load(parse_placements(text))

    @classmethod
    def _with_state(cls, st: npt.NDArray[np.int64], n_tiles: int) -> Board:
        board = cls.__new__(cls)
        board._st = st
        board._log = _NO_LOG
        board._n_tiles = n_tiles
        board._stack = []
        return board

    @classmethod
    def from_placements(cls, placements: Iterable[Any]) -> Board:
        """A board from ``(row, col, Tile)`` (or ``(row, col, color, shape)``) items.

        Raises :class:`InvalidPositionError` for a board that no game can produce."""
        if type(placements) is list:
            items = placements
        elif isinstance(placements, (str, bytes)) or not isinstance(placements, Iterable):
            raise InvalidPositionError(f"a board is a sequence of (row, col, tile) placements, got {show(placements)}")
        else:
            try:
                given = iter(placements)
            except TypeError:  # a 0-d array says it is iterable
                raise InvalidPositionError(
                    f"a board is a sequence of (row, col, tile) placements, got {show(placements)}"
                ) from None
            # At most the game's tiles (one more, to tell): never walked to its end.
            items = list(itertools.islice(given, MAX_SPAN + 1))
            if len(items) > MAX_SPAN:
                raise InvalidPositionError(f"a board holds at most the game's {MAX_SPAN} tiles")
        n = len(items)
        if not n:
            return cls()
        # The common case (exact ints, Tiles, tuples or lists) in one kernel call that
        # reads the list where it lies; anything else takes the slow path, which names
        # what is wrong.
        reading = _BUILD_IN_PLACE.ready_reader()
        if reading is not None:
            board = cls._read_in_place(items, False, reading)
            if board is not None:
                return board
        # Where no kernel can read Python objects (or while it compiles): checked and
        # packed at C speed for (row, col, Tile) tuples.  marshal writes the
        # coordinates (and refuses or marks anything but exact ints: booleans, floats,
        # numpy ints), the kernel checks its layout and the ranges.
        elif n <= MAX_SPAN and {*map(type, items)} == _TUPLE_TYPE:
            try:
                rows, cols, tiles = zip(*items, strict=True)
            except ValueError:
                pass
            else:
                if list(map(type, tiles)).count(Tile) == n:
                    try:
                        data = marshal.dumps(rows + cols, 2) + bytes(map(_KIND, tiles))
                    except ValueError:
                        pass
                    else:
                        board = cls._built_marshalled(data, 3)
                        if board is not None:
                            return board
        try:
            checked = [_placement(p) for p in items]
        except InvalidMoveError as exc:
            raise InvalidPositionError(str(exc)) from None
        return cls._built(checked)

    @classmethod
    def from_json(cls, value: Any) -> Board:
        """From ``[[row, col, color, shape], ...]``."""
        if not isinstance(value, list):
            raise InvalidPositionError(f"a board is a list of [row, col, color, shape], got {show(value)}")
        n = len(value)
        if not n:
            return cls()
        # The common case, lists of four exact ints, in one kernel call that reads them
        # where they lie (as from_placements); elsewhere, or while that kernel
        # compiles, written by marshal and read by a kernel that checks their layout
        # (so booleans, floats and the like) and their ranges.
        reading = _BUILD_IN_PLACE.ready_reader()
        if reading is not None:
            board = cls._read_in_place(value, True, reading)
            if board is not None:
                return board
        elif n <= MAX_SPAN:
            try:
                data = marshal.dumps(value, 2)
            except ValueError:  # not marshallable, or nested too deep
                pass
            else:
                board = cls._built_marshalled(data, 4)
                if board is not None:
                    return board
        for item in value:
            if not isinstance(item, list) or len(item) != 4:
                raise InvalidPositionError(f"a board tile is [row, col, color, shape], got {show(item)}")
        return cls.from_placements(value)

    def _load(self, items: list[Placement]) -> None:
        if items:
            board = Board._built(items)
            self._st = board._st
            self._n_tiles = board._n_tiles

    @classmethod
    def _read_in_place(cls, value: list[Any], json: bool, reading: npt.NDArray[np.int64]) -> Board | None:
        """The board of the list ``value``, read where it lies (``_state.build_in_place``),
        or None when it is not a valid board read that way: the caller then takes the
        slow path, which names what is wrong."""
        st = _BUILD_IN_PLACE.call(id(value), json, reading)
        if st[S_ERROR] != _state.OK:
            return None
        return cls._with_state(st, int(st[_state.S_TILES]))  # the list's length then, whatever changed it since

    @classmethod
    def _built_marshalled(cls, data: bytes, columns: int) -> Board | None:
        """The board of ``data`` (see ``_state.build_marshalled``), or None when it is
        not a valid board in that layout: the caller then takes the slow path, which
        names what is wrong (a rare case, so it does not need to be fast)."""
        st = _state.build_marshalled(data, columns)
        if st[S_ERROR] != _state.OK:
            return None
        return cls._with_state(st, int(st[_state.S_TILES]))

    @classmethod
    def _built(cls, items: list[Placement]) -> Board:
        """The board of checked placements (coordinates in the area, Tiles), built and
        checked in one kernel call (``_state.build``); an InvalidPositionError names
        the rule it breaks."""
        values = _placed_values(items)
        st = _state.build(values, 3)
        verdict = int(st[S_ERROR])
        if verdict == _state.OK:
            return cls._with_state(st, len(items))
        cells = values.reshape(3, -1).T
        r, c, arg, n = (int(v) for v in st[_state.S_ERROR_ROW : _state.S_ERROR_N + 1])
        if verdict == _state.SAME_CELL:
            raise InvalidPositionError(f"two tiles on one cell ({r}, {c})")
        if verdict == _state.TOO_FAR:
            # Report what the other checks would have found first, as they come first.
            seen: set[tuple[int, int]] = set()
            for rr, cc in cells[:, :2].tolist():
                if (rr, cc) in seen:
                    raise InvalidPositionError(f"two tiles on one cell ({rr}, {cc})")
                seen.add((rr, cc))
            for kind, count in Counter(cells[:, 2].tolist()).items():
                if count > COPIES_PER_KIND:
                    verdict, arg, n = _state.TOO_MANY_COPIES, kind, count
                    break
            else:
                raise InvalidPositionError("the tiles are not connected (they span too far)")
        if verdict == _state.TOO_MANY_COPIES:
            raise InvalidPositionError(
                f"{n} copies of {ALL_TILES[arg]} on the board; the game has {COPIES_PER_KIND}"
            )
        if verdict == _state.INVALID_LINE:
            what = "row" if arg == 0 else "column"
            raise InvalidPositionError(
                f"invalid line: the {what} starting at ({r}, {c}) is neither one colour with "
                "distinct shapes nor one shape with distinct colours"
            )
        raise InvalidPositionError(f"the tiles are not connected: ({r}, {c}) is cut off")

    # ----------------------------------------------------------------- reading
    def __len__(self) -> int:
        """Number of tiles on the board."""
        return self._n_tiles

    def is_empty(self) -> bool:
        """Whether the board has no tile."""
        return self._n_tiles == 0

    def tile_at(self, row: int, col: int) -> Tile | None:
        """The tile on cell (row, col), or None if the cell is empty."""
        r, c = int_value(row), int_value(col)  # Python ints: a numpy int64 would wrap
        if r is None or c is None:
            raise InvalidMoveError(f"a cell is two integers, got ({show(row)}, {show(col)})")
        st = self._st
        i = r - int(st[S_TOP])
        j = c - int(st[_state.S_LEFT])
        if not (0 <= i < int(st[_state.S_HEIGHT]) and 0 <= j < int(st[_state.S_WIDTH])):
            return None
        word = int(st[int(st[_state.S_ROW_AT]) + i * int(st[_state.S_WIDTH]) + j])
        return ALL_TILES[~word] if word < 0 else None

    def placements(self) -> list[Placement]:
        """Every tile as ``(row, col, Tile)``, in (row, col) order."""
        if not self._n_tiles:
            return []
        return [(r, c, ALL_TILES[k]) for r, c, k in _state.tiles_of(self._st).tolist()]

    def tile_counts(self) -> list[int]:
        """How many tiles of each kind (0..35) are on the board."""
        return [int(v) for v in self._st[S_COUNTS : S_COUNTS + N_KINDS]]

    def text(self) -> str:
        """The placement text of the board (``"Rc@0,0 Rs@0,1"``), which ``Board(text)`` reads back."""
        return _placements_text(self.placements())

    def to_json(self) -> list[list[int]]:
        """The board as JSON placements ``[[row, col, color, shape], ...]``."""
        return [[r, c, int(t.color), int(t.shape)] for r, c, t in self.placements()]

    def bounds(self) -> tuple[int, int, int, int] | None:
        """(min_row, max_row, min_col, max_col) of the tiles, or None when empty."""
        if not self._n_tiles:
            return None
        top, left, r0, r1, c0, c1 = (int(v) for v in self._st[[S_TOP, S_LEFT, _state.S_R0, _state.S_R1,
                                                               _state.S_C0, _state.S_C1]])
        return top + r0, top + r1 - 1, left + c0, left + c1 - 1

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
    def _hand_bits(self, hand: Sequence[Tile]) -> int:
        """The kind mask of a hand, checked (on the Python path, but for the kinds
        whose three copies are all on the board: the generator refuses those,
        HAND_CONFLICT).  On the hot path of every query: a list or a tuple of the 36
        tiles is read and checked where it lies, in one kernel call; anything else, or
        a hand that makes too many copies, takes the Python path, which says what is
        wrong."""
        reading = _HAND_IN_PLACE.reader  # (ready_reader() written out: a call less per query)
        if reading is None:
            reading = _HAND_IN_PLACE.when_ready()
        if reading is not None:
            mask: int = _HAND_IN_PLACE.call(id(hand), reading, self._st)
            if mask >= 0:
                return mask
        return self._hand_bits_in_python(hand)

    def _hand_bits_in_python(self, hand: Sequence[Tile]) -> int:
        """:meth:`_hand_bits` one tile at a time (the copies checked only for kinds the
        hand holds twice or more)."""
        if hand.__class__ is not list and hand.__class__ is not tuple:
            hand = _as_hand_sequence(hand)
        if len(hand) > HAND_SIZE:
            raise InvalidPositionError(f"a hand holds at most {HAND_SIZE} tiles, got {len(hand)}")
        mask = 0
        twice = 0  # kinds held at least twice
        if any(t.__class__ is not Tile for t in hand):
            hand = [as_tile(t, "a hand") for t in hand]  # tile texts ("Rc") read here
        for t in hand:
            bit = 1 << t.kind
            twice |= mask & bit
            mask |= bit
        if twice:
            self._check_held_copies(hand, twice)
        return mask

    def _check_held_copies(self, hand: Sequence[Tile], twice: int) -> None:
        """Raise if a kind held ``twice`` (or more) has too many copies with the
        board's (a second loop, only for hands that hold a kind twice)."""
        once = held_twice = thrice = four = 0  # kinds held at least 1, 2, 3, 4 times
        for t in hand:
            bit = 1 << t.kind
            four |= thrice & bit
            thrice |= held_twice & bit
            held_twice |= once & bit
            once |= bit
        st = self._st
        if four or twice & int(st[S_TWO]) or thrice & int(st[S_ONE]):
            self._check_copies(hand)

    def _check_copies(self, hand: Sequence[Tile]) -> None:
        """Raise if the board and ``hand`` hold more than 3 copies of a kind, naming the
        first tile of the hand (in its order) that is a second copy in the hand or a
        kind whose three copies are on the board, and makes too many."""
        hand = [as_tile(t, "a hand") for t in hand]  # tile texts read as their tiles
        st = self._st
        full = int(st[S_FULL])
        seen = 0
        for t in hand:
            bit = 1 << t.kind
            if seen & bit or full & bit:
                n = int(st[S_COUNTS + t.kind]) + sum(1 for u in hand if u is t)
                if n > COPIES_PER_KIND:
                    raise InvalidPositionError(
                        f"{n} copies of {t} between the board and the hand; the game has {COPIES_PER_KIND}"
                    )
            seen |= bit

    def hand_mask(self, hand: Sequence[Tile]) -> int:
        """The kind mask of ``hand`` (bit ``kind`` set for each kind it holds), after
        checking that it is 0..6 Tiles that, with the board, hold at most 3 copies of a
        kind."""
        mask = self._hand_bits(hand)
        if mask & int(self._st[S_FULL]):
            self._check_copies(list(hand))
        return mask

    def check_hand(self, hand: Sequence[Tile]) -> None:
        """Raise unless ``hand`` is 0..6 Tiles that, with the board, hold at most 3
        copies of each kind."""
        self.hand_mask(hand)

    def _generate(self, hand: Sequence[Tile], mode: int) -> int:
        """One call of the generator into this board's move table; returns what
        ``generate`` returns for ``mode`` with CHECK_EDGE: NEAR_EDGE, or the count."""
        mask = self._hand_bits(hand)
        out = _TABLES.out
        n: int = _GENERATE.call(self._st, out, mask, mode | CHECK_EDGE)
        if n > out.shape[0] or n < 0:
            n, _ = self._generate_again(hand, mask, mode, n)
        return n

    def _generate_again(
        self, hand: Sequence[Tile], mask: int, mode: int, n: int
    ) -> tuple[int, npt.NDArray[np.int32]]:
        """The rare paths of a query: a hand that holds a kind whose copies are all on
        the board (raise), a board near the edge (NEAR_EDGE, passed on), or more moves
        than the table holds (grow it, call again).  Returns the count and the table."""
        if n == HAND_CONFLICT:
            self._check_copies(list(hand))
        if n == NEAR_EDGE:
            return n, _TABLES.out
        out = _TABLES.out = np.empty((max(n, 4 * INITIAL_CAPACITY), OUT_COLS), np.int32)
        return int(_GENERATE.call(self._st, out, mask, mode)), out

    def near_edge(self) -> bool:
        """Whether some move could leave the playing area (|row|, |col| <= COORD_MAX):
        a tile lies within EDGE_REACH cells of its edge.  Such moves are not legal, and the
        queries leave them out."""
        return bool(_movegen.near_edge(self._st))

    def _edge_table(self, hand: Sequence[Tile], mode: int) -> tuple[npt.NDArray[np.int32], int]:
        """What the generator gives in ``mode`` near the edge of the playing area:
        from every legal move, those inside it."""
        mask = self._hand_bits(hand)
        out = _TABLES.out
        n: int = _GENERATE.call(self._st, out, mask, MODE_ALL)
        if n > out.shape[0] or n < 0:
            n, out = self._generate_again(hand, mask, MODE_ALL, n)
        return table_for_mode(inside_area(out[:n]).copy(), mode)

    def legal_moves(self, hand: Sequence[Tile]) -> MoveList:
        """Every legal placement of tiles from ``hand`` (0 to 6 Tiles, duplicates
        allowed), each once, with its score.  On the empty board the openings are
        given in the canonical frame: the line starts at (0, 0) and runs east."""
        mask = self._hand_bits(hand)
        out = _TABLES.out
        n: int = _GENERATE.call(self._st, out, mask, MODE_ALL | CHECK_EDGE)
        if n > out.shape[0] or n < 0:
            if n == NEAR_EDGE:
                return MoveList._trusted(self._edge_table(hand, MODE_ALL)[0])
            n, out = self._generate_again(hand, mask, MODE_ALL, n)
        return MoveList._trusted(out[:n].copy())

    def count_moves(self, hand: Sequence[Tile]) -> int:
        """How many legal moves ``hand`` has, without building the list."""
        n = self._generate(hand, MODE_COUNT)
        return self._edge_table(hand, MODE_COUNT)[1] if n == NEAR_EDGE else n

    def has_move(self, hand: Sequence[Tile]) -> bool:
        """Whether ``hand`` has any legal move (the search stops at the first)."""
        n = self._generate(hand, MODE_ANY)
        return (self._edge_table(hand, MODE_ANY)[1] if n == NEAR_EDGE else n) > 0

    def best_moves(self, hand: Sequence[Tile]) -> MoveList:
        """Every move of the highest score (empty if there is no move)."""
        n = self._generate(hand, MODE_BEST)
        if n == NEAR_EDGE:
            return MoveList._trusted(self._edge_table(hand, MODE_BEST)[0])
        return MoveList._trusted(_TABLES.out[:n].copy())

    def legal_tile_masks(self) -> CellMasks:
        """For every empty cell beside the tiles, the kinds that fit there alone.

        On the empty board: the single cell (0, 0), where every kind fits."""
        if not self._n_tiles:
            return CellMasks(
                np.zeros((1, 2), np.int64), np.array([(1 << N_KINDS) - 1], dtype=np.uint64)
            )
        coords, masks = _frontier.cell_masks(self._st)
        if self.near_edge():
            keep = (np.abs(coords) <= COORD_MAX).all(axis=1)
            coords, masks = coords[keep], masks[keep]
        return CellMasks(coords, masks.astype(np.uint64))

    def _judge(self, move: Move | str | Iterable[Any], hand: Sequence[Tile] | None) -> tuple[Move, int]:
        move = as_move(move)
        items = move.placements
        n = len(items)
        if n > HAND_SIZE:
            raise IllegalMoveError(f"a move places at most {HAND_SIZE} tiles, got {n}")
        if hand is not None:
            held = hand_kinds(hand)
            for _, _, t in items:
                if held.count(t.kind) < sum(1 for _, _, u in items if u is t):
                    raise IllegalMoveError(f"{t} is not in the hand")
        verdict, score, r, c, arg = _state.judge(self._st, move._move_row())
        if verdict != _state.OK:
            raise IllegalMoveError(_verdict_message(verdict, r, c, arg))
        return move, int(score)

    def score(self, placements: Move | str | Iterable[Any], hand: Sequence[Tile] | None = None) -> int:
        """The score of placing ``placements`` (a Move, its text, or ``(row, col, Tile)`` items).

        Raises :class:`IllegalMoveError` naming the broken rule; with ``hand``, also
        when a tile is not in the hand."""
        return self._judge(placements, hand)[1]

    def is_legal(self, placements: Move | str | Iterable[Any], hand: Sequence[Tile] | None = None) -> bool:
        """Whether ``placements`` is a legal move here (with ``hand``: from that hand).
        Anything that is not one, whatever its type, is simply not legal."""
        try:
            self._judge(placements, hand)
        except QwirkleError:
            return False
        return True

    # ----------------------------------------------------------- place and undo
    def push(self, move: Move | str | Iterable[Any], trusted: bool = False) -> Move:
        """Place a legal move and return it with its score.

        Checked by default: an illegal move raises :class:`IllegalMoveError` naming the
        rule and changes nothing.  ``trusted=True`` is the fast path for searches
        (like python-chess's unchecked push): it skips every check, so pass it only
        moves taken from this position's ``legal_moves``/``best_moves`` (they carry
        their score); anything else may corrupt the board.  ``move`` may also be a
        move's text (``"Rc@0,0 Rs@0,1"``) or ``(row, col, Tile)`` items."""
        move = as_move(move)
        check = not trusted or move.score is None
        if check and len(move.placements) > HAND_SIZE:
            raise IllegalMoveError(f"a move places at most {HAND_SIZE} tiles, got {len(move.placements)}")
        row = move._move_row()
        log = self._log
        need = (len(self._stack) + 1) * _LOG_ROOM + 1
        if log.shape[0] < need:
            grown = np.zeros(max(need, 2 * log.shape[0], 8 * _LOG_ROOM + 1), np.int64)
            grown[: log.shape[0]] = log
            log = self._log = grown
        st = self._st
        score = int(_state.push(st, log, row, check))
        old = None
        if score == NEED_REGROW:
            old = st
            st = self._st = _state.regrown(st, row)
            score = int(_state.push(st, log, row, check))
        if score < 0:
            verdict, _, r, c, arg = _state.judge(st, row)
            raise IllegalMoveError(_verdict_message(verdict, r, c, arg))
        if move.score != score:
            move = Move._trusted(move.placements, score, None)
        self._stack.append((move, old))
        self._n_tiles += len(move.placements)
        return move

    def pop(self) -> Move:
        """Take back the last pushed move and return it."""
        if not self._stack:
            raise NothingToUndoError("pop from a board with no pushed moves")
        move, old = self._stack.pop()
        _state.pop(self._st, self._log)
        if old is not None:
            # The state before a push that grew the window: shared by every copy made
            # since, never written, so the board takes its own copy.
            self._st = old.copy()
        self._n_tiles -= len(move.placements)
        return move

    def peek(self) -> Move:
        """The last move pushed (IndexError when there is none)."""
        if not self._stack:
            raise NothingToUndoError("no pushed moves")
        return self._stack[-1][0]

    @property
    def move_stack(self) -> list[Move]:
        """The moves pushed so far, oldest first."""
        return [m for m, _ in self._stack]

    def copy(self, stack: bool = True) -> Board:
        """An independent copy of the board; with ``stack=False`` without the undo stack."""
        board = Board.__new__(Board)
        board._st = self._st.copy()
        board._n_tiles = self._n_tiles
        if stack:
            board._log = self._log.copy()
            board._stack = list(self._stack)
        else:
            board._log = _NO_LOG
            board._stack = []
        return board

    def __copy__(self) -> Board:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> Board:
        # Moves and tiles are immutable: copy() shares them, and copies the arrays.
        return self.copy()

    def __getstate__(self) -> tuple[None, dict[str, Any]]:
        """For pickle: the slots (defined, so that pickle's protocols 0 and 1 take a
        class with __slots__ too)."""
        return None, {name: getattr(self, name) for name in Board.__slots__}

    def __setstate__(self, state: Any) -> None:
        """From a pickle: the slots as pickled, with the state and the undo log made
        the arrays the kernels are compiled for (native int64, contiguous, writable).
        The kernels trust their layout, and a pickle made on another machine may hold
        another byte order."""
        _, slots = state
        for name, value in slots.items():
            setattr(self, name, value)
        self._st = np.array(self._st, dtype=np.int64, order="C")
        self._log = np.array(self._log, dtype=np.int64, order="C")

    def state_arrays(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The raw state: the state array (layout in ``qwirkle_core._state``) and the
        undo log.  Read-only use."""
        return self._st, self._log

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


def table_for_mode(table: npt.NDArray[np.int32], mode: int) -> tuple[npt.NDArray[np.int32], int]:
    """What the generator returns in ``mode`` (MODE_ALL, MODE_COUNT, MODE_ANY or
    MODE_BEST), from the full table of legal moves."""
    _check_table(table)
    if int_value(mode) not in (MODE_ALL, MODE_COUNT, MODE_ANY, MODE_BEST):
        raise QwirkleError(f"mode is one of MODE_ALL, MODE_COUNT, MODE_ANY, MODE_BEST (0..3), got {show(mode)}")
    total = int(table.shape[0])
    if mode == MODE_COUNT:
        return table[:0], total
    if mode == MODE_ANY:
        return table[:1].copy(), min(total, 1)
    if mode == MODE_BEST and total:
        scores = table[:, COL_SCORE]
        return table[scores == scores.max()], total
    return table, total


def _verdict_message(verdict: int, r: int, c: int, arg: int) -> str:
    if verdict == _state.NO_TILES:
        return "a move places at least one tile"
    if verdict == _state.TOO_MANY_TILES:
        return "a move places at most 6 tiles"
    if verdict == _state.SAME_CELL:
        return f"two tiles on one cell ({r}, {c})"
    if verdict == _state.NOT_ONE_LINE:
        return "the tiles are not in one line (one row or one column)"
    if verdict == _state.CELL_TAKEN:
        return f"cell ({r}, {c}) is taken"
    if verdict == _state.GAP:
        return f"gap in the line at ({r}, {c}): the tiles must form one contiguous line"
    if verdict == _state.NOT_TOUCHING:
        return "the tiles do not touch any tile on the board"
    if verdict == _state.TOO_MANY_COPIES:
        return f"only {COPIES_PER_KIND} copies of {ALL_TILES[arg]} exist, and {r} are on the board"
    what = "row" if arg == 0 else "column"
    return (
        f"invalid line: the {what} through ({r}, {c}) would be neither one colour with "
        "distinct shapes nor one shape with distinct colours"
    )
