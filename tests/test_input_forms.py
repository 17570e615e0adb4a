"""The forms each public input takes: a move as a Move, its text, a place Action or
(row, col, Tile) items; a hand as Tiles or tile texts; and the hints an error gives
when a form is close but wrong."""

from __future__ import annotations

import pytest

from qwirkle_core import (
    Action,
    Board,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    InvalidTileError,
    Move,
    Tile,
    parse_tiles,
)
from qwirkle_core.render import board_ansi, board_svg

RC, RS = Tile.from_text("Rc"), Tile.from_text("Rs")


def test_a_move_text_is_pushed_scored_and_judged_like_its_move() -> None:
    text = "Rc@0,0 Rs@0,1"
    board, twin = Board(), Board()
    assert board.score(text) == twin.score(Move.from_text(text)) == 2
    assert board.is_legal(text) and not board.is_legal("Rc@0,0 Gs@0,1")
    assert board.push(text) == twin.push([(0, 0, RC), (0, 1, RS)])
    assert board == twin and board.peek().score == 2


def test_a_bad_move_text_raises_naming_the_word_and_changes_nothing() -> None:
    board = Board("Rc@0,0")
    with pytest.raises(InvalidMoveError, match="not a placement: 'Rs0,1'"):
        board.push("Rs0,1")
    with pytest.raises(IllegalMoveError):
        board.push("Gs@0,1")
    assert board == Board("Rc@0,0")


def test_move_of_a_text_points_at_from_text() -> None:
    with pytest.raises(InvalidMoveError, match="Move.from_text"):
        Move("Rc@0,0")  # type: ignore[arg-type]


def test_a_hand_of_tile_texts_answers_as_its_tiles() -> None:
    board = Board("Rc@0,0 Rs@0,1")
    texts = ["Rd", "Gc", "Rx"]
    assert (
        board.legal_moves(texts).table.tolist() == board.legal_moves(parse_tiles("Rd Gc Rx")).table.tolist()
    )
    assert board.count_moves(texts) == board.count_moves(parse_tiles("Rd Gc Rx"))
    assert board.score("Rd@0,2", hand=["Rd"]) == 3
    with pytest.raises(IllegalMoveError, match="not in the hand"):
        board.score("Rd@0,2", hand=["Gc"])


@pytest.mark.parametrize(
    ("hand", "hint"),
    [(["Rc", 3], "parse_tiles"), ("Rc Rs", "parse_tiles"), (["Zz"], "not a tile: 'Zz'")],
)
def test_a_hand_that_is_almost_right_gets_a_hint(hand: object, hint: str) -> None:
    with pytest.raises(InvalidTileError, match=hint):
        Board().legal_moves(hand)  # type: ignore[arg-type]


def test_pictures_highlight_an_action_a_move_or_its_text_alike() -> None:
    game = Game(seed=3)
    action = game.push(game.legal_actions()[0])
    assert action.kind == Action.PLACE and action.move is not None
    board = game.board
    drawn = {board_svg(board, highlight=form) for form in (action, action.move, action.move.text())}
    assert len(drawn) == 1 and 'class="highlight"' in drawn.pop()
    assert board_ansi(board, highlight=action) == board_ansi(board, highlight=action.move)
    assert board.svg(highlight=action) == board_svg(board, highlight=action)


def test_a_pass_is_no_highlight() -> None:
    with pytest.raises(InvalidMoveError, match="only a place action is a move"):
        board_svg(Board("Rc@0,0"), highlight=Action(Action.PASS))


def test_action_tiles_may_be_texts() -> None:
    assert Action(Action.EXCHANGE, tiles=["Rc", "Rs"]) == Action(Action.EXCHANGE, tiles=[RC, RS])


def test_game_and_action_come_from_the_top_level() -> None:
    import qwirkle_core

    assert qwirkle_core.Game is Game and qwirkle_core.Action is Action


def test_a_hand_of_texts_is_checked_for_copies_like_its_tiles() -> None:
    board = Board("Rc@0,0 Gc@0,1 Rc@1,1")
    with pytest.raises(InvalidPositionError, match="Rc"):
        board.legal_moves(["Rc", "Rc"])  # with the board's two, four red circles
    assert board.hand_mask(["Rc", "Gs"]) == board.hand_mask([RC, Tile.from_text("Gs")])


def test_game_parts_and_queries_take_tile_texts() -> None:
    from qwirkle_core import queries

    board = Board("Rc@0,0 Rs@0,1")
    with_texts = queries.moves_with_tiles(board, ["Rd", "Gc"], ["Rd"])
    assert (
        with_texts.table.tolist()
        == queries.moves_with_tiles(board, parse_tiles("Rd Gc"), [Tile.from_text("Rd")]).table.tolist()
    )
    game = Game(seed=5)
    game.push(game.legal_actions()[0])
    texts = Game.from_position(
        game.board,
        hands=[[t.text() for t in h] for h in game.hands],
        bag=[t.text() for t in game.bag],
        scores=game.scores,
        to_move=game.to_move,
    )
    tiles = Game.from_position(
        game.board, hands=game.hands, bag=game.bag, scores=game.scores, to_move=game.to_move
    )
    assert texts.hands == tiles.hands and texts.bag == tiles.bag
