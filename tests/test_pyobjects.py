"""The kernel that reads a board's Python list where it lies (``_pyobjects``).

What it reads is checked against the API in tests/test_board_input.py (every change a
caller might make, through both fast paths).  Here: that it is there where it should
be, that the library uses it only when it may, and that a list changed by another
thread while boards are built from it never crashes the process.
"""

from __future__ import annotations

import sys
import sysconfig
import threading
import time
from typing import Any

import numba
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qwirkle_core import Board, Tile, _numba_private, _pyobjects, _state
from qwirkle_core import board as board_module
from qwirkle_core.errors import InvalidPositionError, QwirkleError
from qwirkle_core.tiles import ALL_TILES
from tests.games import random_positions

JIT_OFF = bool(numba.config.DISABLE_JIT)
CPYTHON_WITH_A_GIL = (
    sys.implementation.name == "cpython"
    and sys.maxsize == 2**63 - 1
    and not sysconfig.get_config_var("Py_GIL_DISABLED")
    and not hasattr(sys, "getobjects")
)


@pytest.mark.skipif(not CPYTHON_WITH_A_GIL, reason="reads objects only on 64-bit CPython with a GIL")
def test_a_kernel_can_read_python_objects_here() -> None:
    """Where the reader should work it does: a change of CPython's layouts that it
    detects would quietly cost from_placements its fast path, so it fails here."""
    tagged = int(sys.version_info >= (3, 12))  # ints' digit count: lv_tag from 3.12
    assert _pyobjects._layout_holds(tagged)
    assert not _pyobjects._layout_holds(1 - tagged)  # the probe tells the two apart
    reading = _pyobjects.reader()
    assert reading is not None
    assert reading[_pyobjects.R_INT_TAGGED] == tagged
    kinds = reading[_pyobjects.R_KINDS :]
    assert sorted(kinds) == list(range(36))
    assert list(reading[_pyobjects.R_TILES : _pyobjects.R_KINDS]) == sorted(
        reading[_pyobjects.R_TILES : _pyobjects.R_KINDS]
    )


@pytest.mark.parametrize("which", ["build", "hand"])
def test_the_library_reads_in_place_only_with_a_compiled_kernel_that_keeps_the_gil(which: str, monkeypatch: Any) -> None:
    board = Board("Rc@0,0 Rs@0,1 Bs@1,1")
    in_place = board_module._BUILD_IN_PLACE if which == "build" else board_module._HAND_IN_PLACE
    monkeypatch.setattr(in_place, "reader", None)
    hand = [Tile.from_text(t) for t in ("Rd", "Bd", "Gs")]
    if JIT_OFF:  # plain Python lets other threads run between its reads
        assert in_place.when_ready() is None
    else:
        assert in_place.kernel.targetoptions["nogil"] is False
        # Where no kernel can read objects, the other path serves: the kernel is not called.
        monkeypatch.setattr(_pyobjects, "reader", lambda: None)

        def must_not_run(*args: Any) -> Any:
            raise AssertionError("a reading kernel ran where objects cannot be read")

        monkeypatch.setattr(in_place, "call", must_not_run)
        assert in_place.when_ready() is None
        assert Board.from_placements(board.placements()) == board
        assert Board.from_json(board.to_json()) == board
        assert len(board.legal_moves(hand)) == 13
        monkeypatch.undo()
        monkeypatch.setattr(in_place, "reader", None)
        assert in_place.when_ready() is _pyobjects.reader() is not None
    assert Board.from_placements(board.placements()) == board
    assert Board.from_json(board.to_json()) == board
    assert len(board.legal_moves(hand)) == 13
    if not JIT_OFF:  # called through the compiled code's own entry once it is there
        assert in_place.call is not in_place._first_calls
        assert in_place.call == _numba_private.compiled_entry(in_place.kernel, _example(which))


def _example(which: str) -> tuple[Any, ...]:
    """Arguments of the types the library calls ``which``'s kernel with."""
    reading = _pyobjects.reader()
    if which == "build":
        return (0, False, reading)
    return (0, reading, board_module._EMPTY_STATE.copy())


def test_coordinates_beyond_int64_are_refused_not_wrapped() -> None:
    for row in (-(2**63), -(2**70), 2**63, 2**70):
        with pytest.raises(InvalidPositionError):
            Board.from_placements([(row, 0, Tile.from_text("Rc"))])
        with pytest.raises(InvalidPositionError):
            Board.from_json([[0, row, 0, 0]])
        with pytest.raises(InvalidPositionError):
            Board.from_placements([(row, 0, Tile.from_text("Rc")), (0, 0, Tile.from_text("Rs"))])


@pytest.mark.skipif(JIT_OFF, reason="the library reads in place only with the JIT on")
def test_a_list_changed_by_another_thread_meanwhile_never_crashes() -> None:
    """The reading kernel keeps the GIL: another thread that grows, shrinks and
    rewrites the list between (never during) the reads gives a board or a clear error."""
    if _pyobjects.reader() is None:
        pytest.skip("no kernel reads Python objects on this Python")
    board = Board("Rc@0,0 Rs@0,1 Bs@1,1 Bc@1,2 Bd@1,3 Gd@0,3")
    items: list[Any] = list(board.placements())
    extra = (2, 3, items[0][2])
    allowed = {*items, extra}
    stop = threading.Event()

    def change() -> None:
        k = 0
        while not stop.is_set():
            items.append(extra)
            items.pop()
            r, c, t = items[k % len(items)]
            items[k % len(items)] = (int(str(r)), int(str(c)), t)  # a new tuple of new ints
            items.insert(0, items.pop())
            k += 1

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    worker = threading.Thread(target=change)
    worker.start()
    built = refused = 0
    try:
        deadline = time.perf_counter() + 0.5
        while time.perf_counter() < deadline:
            try:
                got = Board.from_placements(items)
            except InvalidPositionError:
                refused += 1
            else:
                assert len(got) in (5, 6, 7)  # a tile popped and not yet put back, or one added
                assert set(got.placements()) <= allowed
                built += 1
    finally:
        stop.set()
        worker.join()
        sys.setswitchinterval(switch)
    assert built > 0


class HandList(list):  # type: ignore[type-arg]
    pass


def _outcome(call: Any) -> Any:
    try:
        return [m.text() for m in call()]
    except QwirkleError as exc:
        return (type(exc), str(exc))


@settings(max_examples=15 if JIT_OFF else 150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_hand_read_in_place_is_the_hand_checked_in_python(data: st.DataObject) -> None:
    """The hand kernel's verdict against an independent count, and every query the same
    with it and without it (the Python path's moves, or its error and message)."""
    reading = _pyobjects.reader()
    if reading is None:
        pytest.skip("no kernel reads Python objects on this Python")
    board = Board()
    for board, _ in random_positions(data, max_turns=data.draw(st.integers(0, 60), label="turns")):
        pass
    board = board.copy()
    hand: Any = data.draw(st.lists(st.sampled_from(ALL_TILES), max_size=7), label="hand")
    odd = data.draw(
        st.sampled_from(["none", "foreign tile", "int", "text", "tuple", "subclass", "array"]), label="odd"
    )
    if odd in ("foreign tile", "int", "text") and hand:
        k = data.draw(st.integers(0, len(hand) - 1), label="at")
        hand[k] = {"foreign tile": Tile._make(hand[k].kind), "int": hand[k].kind, "text": hand[k].text()}[odd]
    elif odd == "tuple":
        hand = tuple(hand)
    elif odd == "subclass":
        hand = HandList(hand)
    elif odd == "array":
        hand = np.array(hand + [None], dtype=object)[:-1]  # a numpy array of Tiles
    got = _state.hand_mask_in_place(id(hand), reading, board.state_arrays()[0])
    readable = type(hand) in (list, tuple) and len(hand) <= 6 and all(any(t is u for u in ALL_TILES) for t in hand)
    counts = [0] * 36
    for _, _, t in board.placements():
        counts[t.kind] += 1
    for t in hand if readable else ():
        counts[t.kind] += 1
    if not readable:
        assert got == _state.HAND_UNREAD
    elif max(counts) > 3:
        assert got == _state.HAND_TOO_MANY_COPIES
    else:
        assert got == sum(1 << k for k in {t.kind for t in hand})
    in_place = board_module._HAND_IN_PLACE
    saved = in_place.reader
    saved_reader = _pyobjects.reader
    try:
        in_place.reader = reading
        read = [_outcome(lambda q=q: getattr(board, q)(hand)) for q in ("legal_moves", "best_moves")]
        in_place.reader = None
        _pyobjects.reader = lambda: None  # type: ignore[assignment]  # the Python path only
        checked = [_outcome(lambda q=q: getattr(board, q)(hand)) for q in ("legal_moves", "best_moves")]
    finally:
        in_place.reader = saved
        _pyobjects.reader = saved_reader  # type: ignore[method-assign]
    assert read == checked

