"""The typed Python API: tiles, moves, move lists, boards."""

from __future__ import annotations

import importlib
import pickle
import subprocess
import sys

import numpy as np
import pytest

from qwirkle_core import (
    ALL_TILES,
    Board,
    Color,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    InvalidTileError,
    Move,
    MoveList,
    QwirkleError,
    Shape,
    Tile,
    parse_tiles,
)


def test_tiles_follow_the_order_of_the_rules() -> None:
    assert [c.name for c in Color] == ["RED", "ORANGE", "YELLOW", "GREEN", "BLUE", "PURPLE"]
    assert [s.name for s in Shape] == ["CIRCLE", "SQUARE", "DIAMOND", "CLOVER", "STAR4", "STAR8"]
    t = Tile(Color.BLUE, Shape.STAR4)
    assert t.kind == 4 * 6 + 4 and t is Tile(4, 4) and t is ALL_TILES[28]
    assert hash(t) == hash(Tile(4, 4)) and {t, Tile(4, 4)} == {t}


def test_tile_text_round_trips_for_all_36() -> None:
    texts = [t.text() for t in ALL_TILES]
    assert len(set(texts)) == 36
    for t in ALL_TILES:
        assert Tile.from_text(t.text()) is t
        assert eval(repr(t), {"Tile": Tile}) is t
        assert pickle.loads(pickle.dumps(t)) is t


def test_tiles_are_immutable_and_checked() -> None:
    t = Tile(0, 0)
    with pytest.raises(AttributeError):
        t.color = Color.BLUE  # type: ignore[misc]
    for bad in [(6, 0), (0, -1), (True, 0), ("a", 0), (1.5, 0)]:
        with pytest.raises(InvalidTileError):
            Tile(*bad)  # type: ignore[arg-type]
    for text in ["", "R", "Rz", "Qc", "Rcc", 5]:
        with pytest.raises(InvalidTileError):
            Tile.from_text(text)  # type: ignore[arg-type]
    with pytest.raises(InvalidTileError):
        Tile.from_kind(36)
    assert issubclass(InvalidTileError, ValueError) and issubclass(IllegalMoveError, QwirkleError)


def test_move_is_a_hashable_set_of_placements_with_text() -> None:
    a = Move.from_text("Rs@0,1 Rc@0,0")
    b = Move([(0, 0, Tile(0, 0)), (0, 1, 0, 1)])
    assert a == b and hash(a) == hash(b) and a.text() == "Rc@0,0 Rs@0,1"
    assert Move.from_text(a.text()) == a and eval(repr(a), {"Move": Move}) == a
    assert a.to_json() == [[0, 0, 0, 0], [0, 1, 0, 1]] and Move.from_json(a.to_json()) == a
    assert pickle.loads(pickle.dumps(a)) == a
    with pytest.raises(AttributeError):
        a.score = 3  # type: ignore[misc]
    for bad in ["", "Rc@0", "Rc@a,b", "Zz@0,0", "Rc0,0"]:
        with pytest.raises(InvalidMoveError):
            Move.from_text(bad)
    with pytest.raises(InvalidMoveError):
        Move([(0, True, Tile(0, 0))])
    with pytest.raises(InvalidMoveError):
        Move([(0, 2**40, Tile(0, 0))])


def test_board_repr_round_trips() -> None:
    board = Board("Rc@0,0 Rs@0,1 Bs@1,1")
    assert eval(repr(board), {"Board": Board}) == board
    assert repr(Board()) == "Board()" and Board("") == Board()
    assert Board.from_json(board.to_json()) == board
    assert "Rs" in str(board) and str(Board()) == "(empty board)"


def test_move_list_is_lazy_numpy_first() -> None:
    board = Board("Rc@0,0 Rs@0,1")
    moves = board.legal_moves(parse_tiles("Rd Rl Bc"))
    assert isinstance(moves, MoveList) and len(moves) == moves.count() > 0 and bool(moves)
    assert moves.scores.dtype.kind == "i" and moves.rows.shape == (len(moves), 6)
    first = moves[0]
    assert isinstance(first, Move) and first in moves and moves.index(first) == 0
    assert moves[-1] == list(moves)[-1]
    assert Move.from_text("Rd@5,5") not in moves and "x" not in moves
    assert len(moves[1:3]) == 2
    best = moves.best()
    assert best is not None and best.score == moves.scores.max()
    assert list(moves.sorted().scores) == sorted(moves.scores, reverse=True)
    for i, m in enumerate(moves):
        n = len(m)
        assert moves.sizes[i] == n and list(moves.kinds[i, n:]) == [-1] * (6 - n)
        assert [t.kind for t in m.tiles] == list(moves.kinds[i, :n])
    with pytest.raises(IndexError):
        moves[len(moves)]
    assert "MoveList" in repr(moves)
    assert moves.to_json()[0] == {"placements": first.to_json(), "score": first.score}


def test_count_has_and_best_agree_with_the_full_list() -> None:
    board = Board("Rc@0,0 Rs@0,1 Bs@1,1 Bd@1,2")
    for hand in (parse_tiles("Rd Rl Bc Yd Gx Pb"), parse_tiles("Gx"), [], parse_tiles("Rc Rc")):
        moves = board.legal_moves(hand)
        assert board.count_moves(hand) == len(moves)
        assert board.has_move(hand) == bool(moves)
        best = board.best_moves(hand)
        if moves:
            top = moves.scores.max()
            assert set(best) == {m for m in moves if m.score == top}
        else:
            assert len(best) == 0 and moves.best() is None
    empty = Board()
    hand = parse_tiles("Rc Rs Rd Rl Rx Rb")
    assert empty.count_moves(hand) == len(empty.legal_moves(hand)) == 6 + 30 + 120 + 360 + 720 + 720
    assert set(empty.best_moves(hand)) == {m for m in empty.legal_moves(hand) if m.score == 12}


def test_push_pop_copy() -> None:
    board = Board("Rc@0,0")
    before = board.copy()
    move = board.push(Move.from_text("Rs@0,1"))
    assert move.score == 2 and board.peek() == move and board.move_stack == [move]
    snapshot = board.copy()
    assert board.pop() == move and board == before and len(board) == 1
    assert snapshot.move_stack == [move] and len(snapshot) == 2
    snapshot.push([(0, 2, Tile.from_text("Rd"))])
    assert len(board) == 1 and board == before  # copies are independent
    with pytest.raises(IndexError):
        Board().pop()
    with pytest.raises(IndexError):
        Board().peek()


def test_an_illegal_push_changes_nothing() -> None:
    board = Board("Rc@0,0 Rs@0,1")
    state = board.state_arrays()[0].copy()
    for bad in ["Rc@0,2", "Rd@5,5", "Rd@0,0", "Rd@0,2 Rl@1,3", "Rd@0,2 Rl@0,3 Rx@0,4 Rb@0,5 Rc@0,6 Rs@0,7 Rd@0,8"]:
        with pytest.raises(IllegalMoveError):
            board.push(Move.from_text(bad))
        assert np.array_equal(board.state_arrays()[0], state) and len(board) == 2


def test_empty_board_push_and_pop_anywhere() -> None:
    board = Board()
    board.push(Move.from_text("Rc@999999,-999999 Rs@999999,-999998"))
    assert board.bounds() == (999999, 999999, -999999, -999998)
    moves = board.legal_moves(parse_tiles("Rd"))
    assert {m.text() for m in moves} == {
        "Rd@999999,-1000000", "Rd@999999,-999997", "Rd@999998,-999999",
        "Rd@999998,-999998", "Rd@1000000,-999999", "Rd@1000000,-999998",
    }
    board.pop()
    assert board.is_empty() and board.bounds() is None


def test_masks_on_the_empty_board_and_far_away() -> None:
    coords, masks = Board().legal_tile_masks()
    assert coords.tolist() == [[0, 0]] and masks.tolist() == [(1 << 36) - 1]
    board = Board("Rc@-500000,700000")
    coords, masks = board.legal_tile_masks()
    assert masks.dtype == np.uint64 and len(masks) == 4
    assert {tuple(c) for c in coords.tolist()} == {
        (-500001, 700000), (-499999, 700000), (-500000, 699999), (-500000, 700001)
    }


def test_bad_hands_are_rejected() -> None:
    board = Board("Rc@0,0")
    with pytest.raises(InvalidPositionError, match="at most 6"):
        board.legal_moves(parse_tiles("Rs Rs Rd Rd Rl Rl Rx"))
    with pytest.raises(InvalidTileError):
        board.legal_moves([(0, 1)])  # type: ignore[list-item]
    with pytest.raises(InvalidTileError, match=r"parse_tiles\('Rd Bd'\)"):  # text is not a hand
        board.legal_moves("Rd Bd")  # type: ignore[arg-type]
    with pytest.raises(InvalidTileError):
        board.legal_moves(5)  # type: ignore[arg-type]
    with pytest.raises(InvalidPositionError, match="copies"):
        board.legal_moves(parse_tiles("Rc Rc Rc"))


def test_is_legal_says_yes_or_no() -> None:
    board = Board("Rc@0,0")
    assert board.is_legal(Move.from_text("Rs@0,1"))
    assert not board.is_legal(Move.from_text("Bs@0,1"))
    assert not board.is_legal(Move.from_text("Rs@0,1"), hand=parse_tiles("Bs"))
    assert not board.is_legal([(0, 1, Tile(0, 1))] * 7)


SNAKE = (
    "Rc@0,0 Rs@0,1 Rd@0,2 Rl@0,3 Rx@0,4 Rb@0,5 Ob@1,5 Yb@2,5 Gb@3,5 Bb@4,5 Pb@5,5 "
    "Px@5,6 Pl@5,7 Pd@5,8 Ps@5,9 Pc@5,10 Bc@6,10 Gc@7,10 Yc@8,10 Oc@9,10 Ox@9,11 Os@9,12 Od@9,13 Ol@9,14"
)


def test_pushes_that_grow_the_window_pop_back_bit_for_bit() -> None:
    """A board that keeps growing eastwards and southwards outgrows its state's window
    (the push builds a larger one); popping goes back through every window, and copies
    taken on the way pop on their own."""
    words = SNAKE.split()
    board = Board()
    snapshots = []
    windows = set()
    for word in words:
        snapshots.append((board.state_arrays()[0].copy(), board.copy()))
        board.push(Move.from_text(word), trusted=False)
        windows.add(board.state_arrays()[0][:5].tobytes())  # its size and place
    assert len(windows) >= 3 and len(board) == len(words)
    assert board == Board(" ".join(words)) and board.legal_tile_masks()[0].tolist() == Board(
        " ".join(words)
    ).legal_tile_masks()[0].tolist()
    middle = snapshots[len(words) // 2][1]
    for state, copy in reversed(snapshots):
        board.pop()
        assert np.array_equal(board.state_arrays()[0], state) and board == copy
    assert board.is_empty()
    while len(middle):
        middle.pop()
    assert middle.is_empty() and len(snapshots[-1][1]) == len(words) - 1


def test_the_package_names_and_their_homes_agree() -> None:
    """``qwirkle_core`` imports its names on first use: each name in ``__all__`` is the
    object of the module that defines it, and a submodule is reachable as an attribute."""
    import qwirkle_core

    assert set(qwirkle_core.__all__) == {*qwirkle_core._HOMES, "__version__"}
    for name, home in qwirkle_core._HOMES.items():
        module = importlib.import_module(f"qwirkle_core.{home}")
        assert getattr(qwirkle_core, name) is getattr(module, name)
    assert qwirkle_core.queries is importlib.import_module("qwirkle_core.queries")
    assert set(qwirkle_core.__all__) <= set(dir(qwirkle_core))
    with pytest.raises(AttributeError):
        qwirkle_core.no_such_name  # noqa: B018


def test_importing_the_package_imports_no_numba() -> None:
    """So that the command line can install its signal handling before the heavy imports."""
    code = "import sys, qwirkle_core, qwirkle_core.cli as c; print('numba' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert result.stdout.strip() == "True"  # the command line itself needs them
    code = "import sys, qwirkle_core; print('numba' in sys.modules, 'numpy' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert result.stdout.strip() == "False False"
