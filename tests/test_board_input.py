"""Boards built from Python values: the fast paths and the slow path agree.

``Board.from_json`` and ``Board.from_placements`` hand the common case (exact ints,
lists or tuples, Tiles) to one kernel call that reads the list where it lies
(``_pyobjects``); where no kernel can (another Python, or while it compiles), to
``marshal`` and a kernel that checks the bytes' layout.  Anything else goes the slow
way, item by item, which names the problem.  The tests below run each change through
both fast paths.  They take a real board, change one part of its value in a way a caller might (a
boolean, a float, a numpy int, an int beyond 32 bits, a tuple for a list, a subclass,
an item too short or too long, a tile moved or repeated), and check the answer against
what the API promises, worked out here without either path: the board of the text
form when every part is acceptable, an :class:`InvalidPositionError` otherwise, and
never another exception.
"""

from __future__ import annotations

import enum
import marshal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numba
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qwirkle_core import Board, Tile, _pyobjects, _state
from qwirkle_core import board as board_module
from qwirkle_core.errors import InvalidPositionError
from qwirkle_core.moves import COORD_MAX
from tests.games import random_positions


class Small(enum.IntEnum):
    ZERO = 0
    ONE = 1
    FIVE = 5


class ListOf(list):  # type: ignore[type-arg]
    pass


class TupleOf(tuple):  # type: ignore[type-arg]
    pass


# What may stand in for one int of a board value, and whether the API takes it as that
# int: coordinates are any integer but a boolean (numpy's and IntEnum's too), colours and
# shapes only exact ints.
def _number_variants(x: int) -> list[tuple[Any, bool, bool]]:
    """(replacement, taken as a coordinate, taken as a colour or shape)."""
    out: list[tuple[Any, bool, bool]] = [
        (x, True, True),
        (np.int64(x), True, False),
        (np.int32(x), True, False),
        (float(x), False, False),
        (str(x), False, False),
        (None, False, False),
        (x + 2**32, False, False),  # the same low 32 bits: must not pass as x
        (x - 2**32, False, False),
        (x + 2**63, False, False),
        (-(2**63), False, False),  # abs() of it is itself in int64
        (-(2**70), False, False),  # read as -2**63 (clipped) in place
    ]
    if x in (0, 1):
        out += [(bool(x), False, False), (np.bool_(x), False, False)]
    if x in (0, 1, 5):
        out.append((Small(x), True, False))
    return out


def _expected(items: list[tuple[Any, Any, Any, Any]]) -> Board | None:
    """The board of already-checked (row, col, colour, shape) ints, or None if it
    breaks a rule: built from its text form (a path that shares neither marshal nor
    the kernel's decoding with the ones under test)."""
    text = " ".join(f"{Tile(c, s).text()}@{r},{q}" for r, q, c, s in items)
    try:
        return Board(text)
    except InvalidPositionError:
        return None


def _check(build: Any, value: Any, want: Board | None) -> None:
    if want is None:
        with pytest.raises(InvalidPositionError):
            build(value)
    else:
        got = build(value)
        assert got == want
        # The same window, cross-checks and all, as the board built from text.
        assert np.array_equal(got.state_arrays()[0], want.state_arrays()[0])


FAST_PATHS = pytest.mark.parametrize("path", ["in place", "marshal"])


@contextmanager
def _fast_path(path: str) -> Iterator[None]:
    """Boards built through one fast path: the list read in place (with the JIT off
    too, where the library itself does not: these tests own their lists), or marshal
    (as where no kernel can read Python objects)."""
    saved_reader = _pyobjects.reader
    saved_ready = board_module._BUILD_IN_PLACE.reader
    reading = _pyobjects.reader()
    assert reading is not None
    board_module._BUILD_IN_PLACE.reader = reading if path == "in place" else None
    if path == "marshal":
        _pyobjects.reader = lambda: None  # type: ignore[assignment]
    try:
        yield
    finally:
        _pyobjects.reader = saved_reader  # type: ignore[method-assign]
        board_module._BUILD_IN_PLACE.reader = saved_ready


def _a_board(data: st.DataObject) -> Board:
    """A board of a random game (anywhere on the plane), which both fast paths read
    themselves: a valid board must not fall back to the slow path."""
    board = Board()
    for board, _ in random_positions(data, max_turns=40):
        pass
    if board.is_empty():
        board = Board("Rc@0,0 Rs@0,1 Bs@1,1")
    board = Board(board.text())  # built, not grown by pushes: the window a build makes
    rows, cols, tiles = zip(*board.placements(), strict=True)
    for data_bytes, columns in (
        (marshal.dumps(board.to_json(), 2), 4),
        (marshal.dumps(rows + cols, 2) + bytes(t.kind for t in tiles), 3),
    ):
        fast = Board._built_marshalled(data_bytes, columns)
        assert fast is not None
        assert np.array_equal(fast.state_arrays()[0], board.state_arrays()[0])
    reading = _pyobjects.reader()
    for value, json in ((board.to_json(), True), (board.placements(), False)):
        st_in_place = _state.build_in_place(id(value), json, reading)
        assert np.array_equal(st_in_place, board.state_arrays()[0])
    return board


# Each change through each fast path; fewer with the JIT off, whose run is for coverage.
INPUT = settings(
    max_examples=20 if numba.config.DISABLE_JIT else 150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@FAST_PATHS
@INPUT
@given(st.data())
def test_from_json_with_one_number_replaced(path: str, data: st.DataObject) -> None:
    board = _a_board(data)
    value = board.to_json()
    i = data.draw(st.integers(0, len(value) - 1), label="item")
    k = data.draw(st.integers(0, 3), label="field")
    replacement, as_coord, as_tile_part = data.draw(st.sampled_from(_number_variants(value[i][k])), label="number")
    value[i][k] = replacement
    items = [tuple(v) for v in value]
    taken = as_coord if k < 2 else as_tile_part
    with _fast_path(path):
        _check(Board.from_json, value, _expected(items) if taken else None)


@FAST_PATHS
@INPUT
@given(st.data())
def test_from_json_with_one_item_or_the_list_replaced(path: str, data: st.DataObject) -> None:
    board = _a_board(data)
    value: Any = board.to_json()
    i = data.draw(st.integers(0, len(value) - 1), label="item")
    item = value[i]
    how = data.draw(
        st.sampled_from(["tuple", "subclass", "short", "long", "nested", "dict", "text", "outer subclass",
                         "outer tuple", "repeat", "move far", "move next to", "overflow row"]),
        label="change",
    )
    items = [tuple(v) for v in value]
    want: Board | None = None
    if how == "tuple":
        value[i] = tuple(item)
    elif how == "subclass":
        value[i] = ListOf(item)
        want = _expected(items)
    elif how == "short":
        value[i] = item[:3]
    elif how == "long":
        value[i] = [*item, 0]
    elif how == "nested":
        value[i] = [item]
    elif how == "dict":
        value[i] = dict(enumerate(item))
    elif how == "text":
        value[i] = "abcd"
    elif how == "outer subclass":
        value = ListOf(value)
        want = _expected(items)
    elif how == "outer tuple":
        value = tuple(value)
    elif how == "repeat":
        value.append(list(item))
        want = _expected([*items, tuple(item)])
    elif how in ("move far", "move next to"):
        dr = 200 if how == "move far" else data.draw(st.integers(-3, 3), label="dr")
        dc = data.draw(st.integers(-3, 3), label="dc")
        value[i] = [item[0] + dr, item[1] + dc, item[2], item[3]]
        items[i] = tuple(value[i])
        if all(abs(v) <= COORD_MAX for v in value[i][:2]):
            want = _expected(items)
    else:
        value[i] = [COORD_MAX + 1, item[1], item[2], item[3]]
    with _fast_path(path):
        _check(Board.from_json, value, want)


@FAST_PATHS
@INPUT
@given(st.data())
def test_from_placements_with_one_part_replaced(path: str, data: st.DataObject) -> None:
    board = _a_board(data)
    value: list[Any] = list(board.placements())
    i = data.draw(st.integers(0, len(value) - 1), label="item")
    r, c, tile = value[i]
    items = [(rr, cc, t.color, t.shape) for rr, cc, t in value]
    how = data.draw(st.sampled_from(["row", "col", "tile", "list", "subclass", "short", "long", "four ints",
                                     "four ints list", "foreign tile", "tiles of a list", "set", "repeat"]),
                    label="change")
    want: Board | None = None
    if how in ("row", "col"):
        k = 0 if how == "row" else 1
        replacement, taken, _ = data.draw(st.sampled_from(_number_variants((r, c)[k])), label="number")
        value[i] = (replacement, c, tile) if k == 0 else (r, replacement, tile)
        want = _expected(items) if taken else None
    elif how == "tile":
        value[i] = (r, c, data.draw(st.sampled_from([tile.kind, tile.text(), None, [tile.color, tile.shape]])))
    elif how == "list":
        value[i] = [r, c, tile]
        want = _expected(items)
    elif how == "subclass":
        value[i] = TupleOf((r, c, tile))
        want = _expected(items)
    elif how == "short":
        value[i] = (r, c)
    elif how == "long":
        value[i] = (r, c, tile, 0)
    elif how == "four ints":
        value[i] = (r, c, int(tile.color), int(tile.shape))
        want = _expected(items)
    elif how == "set":
        value[i] = {r, c, tile}
    elif how == "four ints list":
        value[i] = [r, c, int(tile.color), int(tile.shape)]
        want = _expected(items)
    elif how == "foreign tile":  # a Tile, but not one of the 36 shared ones
        value[i] = (r, c, Tile._make(tile.kind))
        want = _expected(items)
    elif how == "tiles of a list":
        value = [[rr, cc, t] for rr, cc, t in value]
        want = _expected(items)
    else:
        value.append((r, c, tile))
        want = _expected([*items, items[i]])
    with _fast_path(path):
        _check(Board.from_placements, value, want)


def test_the_layouts_the_kernel_reads_are_marshal_version_2() -> None:
    """The kernel reads marshal's version-2 bytes: a list or tuple code and a 4-byte
    count, then 'i' and 4 little-endian bytes per int.  If a Python changed them, the
    fast path would refuse every board (caught here), never misread one."""
    assert marshal.dumps([[1, -2, 3, 4]], 2) == (
        b"[\x01\x00\x00\x00[\x04\x00\x00\x00i\x01\x00\x00\x00i\xfe\xff\xff\xffi\x03\x00\x00\x00i\x04\x00\x00\x00"
    )
    assert marshal.dumps((7, -1), 2) == b"(\x02\x00\x00\x00i\x07\x00\x00\x00i\xff\xff\xff\xff"
    board = Board("Rc@0,0 Rs@0,1 Bs@1,1")
    assert Board._built_marshalled(marshal.dumps(board.to_json(), 2), 4) == board
    rows, cols, tiles = zip(*board.placements(), strict=True)
    data = marshal.dumps(rows + cols, 2) + bytes(t.kind for t in tiles)
    assert Board._built_marshalled(data, 3) == board


@pytest.mark.parametrize("cut", [0, 1, 4, 5, 6, 30, -1])
def test_truncated_or_padded_bytes_are_refused_by_the_kernel(cut: int) -> None:
    board = Board("Rc@0,0 Rs@0,1 Bs@1,1")
    data = marshal.dumps(board.to_json(), 2)
    assert Board._built_marshalled(data[:cut], 4) is None
    assert Board._built_marshalled(data + b"i", 4) is None
    rows, cols, tiles = zip(*board.placements(), strict=True)
    packed = marshal.dumps(rows + cols, 2) + bytes(t.kind for t in tiles)
    assert Board._built_marshalled(packed[:cut], 3) is None
    assert Board._built_marshalled(packed + b"\x00", 3) is None
    assert Board._built_marshalled(packed[:-1] + b"\x24", 3) is None  # kind 36 does not exist
