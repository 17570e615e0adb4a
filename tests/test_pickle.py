"""Every public type pickles and deep-copies (worker processes, search frameworks' clone())."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest

from qwirkle_core import ALL_TILES, Board, Move, MoveList, Tile, parse_tiles
from qwirkle_core.bots import make_bot
from qwirkle_core.game import Action, Game, Turn


def _mid_game(turns: int = 12) -> Game:
    game = Game(3, seed=21)
    bots = [make_bot("greedy", 21, p) for p in range(3)]
    for _ in range(turns):
        game.push(bots[game.to_move].choose(game))
    return game


def _round_trips(value: Any) -> list[Any]:
    return [
        pickle.loads(pickle.dumps(value, protocol=p)) for p in range(2, pickle.HIGHEST_PROTOCOL + 1)
    ] + [copy.copy(value), copy.deepcopy(value)]


@pytest.mark.parametrize(
    "value",
    [
        ALL_TILES[17],
        Tile.from_text("Px"),
        Move.from_text("Rc@0,0 Rs@0,1"),
        Action.from_text("Rc@0,0 Rs@0,1"),
        Action.from_text("x Rc Rc Yd"),
        Action.pass_turn(),
    ],
    ids=repr,
)
def test_immutable_values_round_trip(value: Any) -> None:
    for other in _round_trips(value):
        assert other == value and hash(other) == hash(value) and repr(other) == repr(value)


def test_tiles_stay_shared_instances() -> None:
    for other in _round_trips(ALL_TILES[5]):
        assert other is ALL_TILES[5]


def test_a_move_list_round_trips() -> None:
    board = Board("Rc@0,0 Rs@0,1 Bs@1,1")
    moves = board.legal_moves(parse_tiles("Rd Bd Gs Yc Rs Pl"))
    for other in _round_trips(moves):
        assert isinstance(other, MoveList) and list(other) == list(moves)
        assert (other.table == moves.table).all()


def test_a_board_round_trips_with_its_move_stack() -> None:
    game = _mid_game()
    board = game.board.copy()
    for other in _round_trips(board):
        assert other == board and repr(other) == repr(board)
        assert other.move_stack == board.move_stack
        # It is independent, and its undo still works.
        other.pop()
        assert len(other) < len(board)


def test_a_game_round_trips_mid_game_with_its_history() -> None:
    game = _mid_game()
    for other in _round_trips(game):
        assert other == game
        assert other.history == game.history and other.to_record() == game.to_record()
        assert other.legal_actions() == game.legal_actions()
        # Independent: play on one, the other is unchanged; undo works after a round trip.
        action = other.legal_actions()[0]
        other.push(action)
        assert other != game
        other.pop()
        other.pop()
        assert other.history == game.history[:-1]
    turn = game.history[-1]
    assert isinstance(turn, Turn) and pickle.loads(pickle.dumps(turn)) == turn


def test_deepcopy_of_a_game_is_its_copy() -> None:
    """copy.deepcopy takes the cheap path (Game.copy), not a walk over every object."""
    game = _mid_game()
    deep = copy.deepcopy(game)
    assert deep == game and deep._board is not game._board
    assert deep._undo is not game._undo and deep._hands is not game._hands


def test_a_board_pickled_with_another_byte_order_unpickles_as_the_kernels_need_it() -> None:
    """The kernels trust a state's layout: an unpickled board's arrays are native int64,
    contiguous and writable, whatever the pickle held (another machine's byte order)."""
    board = Board("Rc@0,0 Rs@0,1 Bs@1,1")
    board.push(board.legal_moves([Tile.from_text("Rd")])[0])
    moves = [m.text() for m in board.legal_moves(parse_tiles("Rl Bd Gs"))]
    board._st = board._st.astype(">i8")
    board._log = board._log.astype(">i8")
    back = pickle.loads(pickle.dumps(board))
    for array in back.state_arrays():
        assert array.dtype == "=i8" and array.flags.c_contiguous and array.flags.writeable
    assert [m.text() for m in back.legal_moves(parse_tiles("Rl Bd Gs"))] == moves
    back.pop()
    assert back == Board("Rc@0,0 Rs@0,1 Bs@1,1")
