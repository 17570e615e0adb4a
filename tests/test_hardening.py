"""Regression tests for issue 8, "Nothing kills the engine, nothing loses games": each
test reproduces one finding of the fuzzing pass (it failed before the fix)."""

from __future__ import annotations

import numpy as np
import pytest

from qwirkle_core import (
    Board,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    QwirkleError,
    Tile,
    parse_tiles,
    queries,
)
from qwirkle_core.bots import make_bot, rollouts
from qwirkle_core.errors import show
from qwirkle_core.game import MAX_SCORE, Action, Game
from qwirkle_core.moves import COORD_MAX
from qwirkle_core.records import read_records, record_line

# ----------------------------------------------------------- wrong kinds of error


@pytest.mark.parametrize(
    "call",
    [
        lambda: Tile(float("inf"), 0),  # was OverflowError
        lambda: Tile(1.0, 2.0),  # was accepted
        lambda: Tile(np.bool_(True), 0),  # was accepted
        lambda: Tile("1", 0),
        lambda: Move(None),  # was TypeError
        lambda: Move(5),
        lambda: Move([(0, 0, Tile(0, 0))], score="3"),
        lambda: Board.from_placements(None),  # was TypeError
        lambda: Board(5),
        lambda: Board().score(None),  # was TypeError
        lambda: Board().push(None),  # was TypeError
        lambda: Board().tile_at("a", 0),
        lambda: Game(tie_break=5),  # was TypeError
        lambda: Game(tie_break=[0.0, 1.0]),
        lambda: make_bot([]),  # was TypeError
        lambda: make_bot("greedy", seat="a"),
        lambda: Action("exchange", tiles=5),  # was TypeError
        lambda: Board("Rc@0,0").svg(cell_size="48"),  # was TypeError
        lambda: Board("Rc@0,0").svg(cell_size=1e308),
        lambda: Board("Rc@0,0").svg(hand=[1]),  # was AttributeError
        lambda: parse_tiles(None),  # was AttributeError
        lambda: queries.position_planes(Board("Rc@0,0"), 100000),  # was MemoryError
        lambda: queries.position_planes(Board("Rc@0,0"), np.uint64(2**64 - 1)),  # was OverflowError
        lambda: queries.position_planes(Board("Rc@0,0"), 8, dtype="no such dtype"),
        lambda: Move.from_text("Rc@٣,0"),  # was read as row 3
        lambda: Move.from_text("Rc@" + "9" * 5000 + ",0"),  # was a plain ValueError
        lambda: Board().pop(),  # IndexError, now also a QwirkleError
        lambda: Game().pop(),
        lambda: Board("Rc@0,0").legal_moves(parse_tiles("Rs"))["a"],
        lambda: rollouts(Game(), "greedy", 1),
        lambda: Game.from_record("[" * 100_000),  # was RecursionError
        lambda: Game.from_record('{"format": "qwirkle-record/1", "players": 2, "seed": 1, "turns": [' + "[" * 100_000),
        lambda: Game.from_record("1" * 5000),
        lambda: record_line({"x": float("nan")}),
        lambda: record_line({"x": object()}),
        lambda: list(read_records(None)),
        lambda: list(read_records(["[" * 100_000])),
        lambda: Game.from_position(None, [[], []], []),
        lambda: Game.from_position(Board(), 5, []),
        lambda: Game.from_position(Board(), [5, 5], []),
        lambda: rollouts(Game(), [[], []], 1),
        lambda: rollouts(Game(), ["greedy", "greedy"], 10**12),
        lambda: queries.moves_on_cells(Board("Rc@0,0"), [], np.array([[2**64 - 1, 0]], np.uint64)),
    ],
)
def test_bad_values_raise_qwirkle_errors(call):
    with pytest.raises(QwirkleError):
        call()


def test_index_errors_are_still_index_errors():
    with pytest.raises(IndexError):
        Board().pop()
    moves = Board("Rc@0,0").legal_moves(parse_tiles("Rs"))
    assert list(moves) == [moves[i] for i in range(len(moves))]  # iteration protocol intact


def test_huge_k_means_every_move():
    board, hand = Board("Rc@0,0 Rs@0,1"), parse_tiles("Rd Rl Bc")
    everything = board.legal_moves(hand).sorted()
    for k in (10**30, 2**63, np.int64(2**63 - 1)):  # was OverflowError / numba TypingError
        assert queries.top_moves(board, hand, k).table.tolist() == everything.table.tolist()
        assert board.top_moves(hand, k).table.tolist() == everything.table.tolist()


def test_is_legal_answers_false_for_anything():
    board = Board("Rc@0,0")
    for thing in (None, 5, "Rs@0,1", [None], [[0, 1]], [(0, 1, "Rs")], object(), [(0.5, 1, Tile(0, 1))]):
        assert board.is_legal(thing) is False  # was TypeError for None
    assert board.is_legal([(0, 1, Tile(0, 1))], hand=5) is False
    assert board.is_legal([(0, 1, Tile(0, 1))])


def test_error_messages_survive_deep_and_huge_values():
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    assert len(show(deep)) < 100
    assert len(show("x" * 10**6)) < 100
    with pytest.raises(QwirkleError):
        Move(deep)
    with pytest.raises(QwirkleError):
        Board.from_json(deep)


# ------------------------------------------------------------ bounds and round trips


def _edge_boards():
    m = COORD_MAX
    return [
        Board(f"Rc@{m},0 Rs@{m},1"),
        Board(f"Rc@{-m},{-m} Rs@{-m},{-m + 1}"),
        Board(f"Rc@0,{m} Rs@1,{m}"),
        Board(f"Rc@{m - 3},{m - 3} Rs@{m - 3},{m - 2} Rd@{m - 3},{m - 1}"),
    ]


@pytest.mark.parametrize("index", range(4))
def test_moves_at_the_edge_read_back(index):
    """A board at row 2**30 - 1 used to yield moves at 2**30, which were then refused."""
    board = _edge_boards()[index]
    hand = parse_tiles("Rd Rl Rx Rb Bc Bs")
    moves = board.legal_moves(hand)
    assert len(moves) > 0
    assert int(np.abs(moves.rows).max()) <= COORD_MAX and int(np.abs(moves.cols).max()) <= COORD_MAX
    for move in moves:
        assert Move.from_text(move.text()) == move
        assert Move.from_json(move.to_json()) == move
        assert board.score(move) == move.score
        board.push(move)
        assert Board(board.text()) == board
        assert Board.from_json(board.to_json()) == board
        board.pop()
    # Every query agrees with legal_moves about the edge.
    assert board.count_moves(hand) == len(moves)
    assert board.has_move(hand)
    best = int(moves.scores.max())
    assert set(board.best_moves(hand)) == {m for m in moves if m.score == best}
    assert queries.top_moves(board, hand, 5).table.tolist() == moves.sorted()[:5].table.tolist()
    assert set(queries.moves_with_tiles(board, hand, hand[:2])) <= set(moves)
    cells = [(r, c) for r, c in board.legal_tile_masks().coords.tolist()]
    assert all(abs(r) <= COORD_MAX and abs(c) <= COORD_MAX for r, c in cells)
    assert set(queries.moves_on_cells(board, hand, cells)) == set(moves)
    assert set(queries.move_risk(board, hand).moves) == set(moves)
    assert all(abs(v) <= COORD_MAX for v in queries.qwirkle_slots(board).coords.ravel().tolist())
    assert queries.batch_counts([(board, hand)] * 2).tolist() == [len(moves)] * 2
    assert queries.batch_best_scores([(board, hand)]).tolist() == [best]
    assert [len(x) for x in queries.batch_moves([(board, hand)])] == [len(moves)]


def test_coordinates_beyond_the_area_are_refused():
    m = COORD_MAX
    for text in (f"Rc@{m + 1},0", f"Rc@0,{-m - 1}", f"Rc@{2**30},0"):
        with pytest.raises(QwirkleError):
            Board(text)
        with pytest.raises(InvalidMoveError):
            Move.from_text(text)
    with pytest.raises(QwirkleError):
        Board.from_json([[m + 1, 0, 0, 0]])


def test_game_at_the_edge_round_trips():
    m = COORD_MAX
    game = Game.from_string(Game(2, 3).to_string())
    # Put the game's board at the edge: same tiles, moved.
    text = game.to_string().split("|")
    first = game.legal_moves().best()
    assert first is not None
    shifted = " ".join(f"{t.text()}@{m},{m - 6 + i}" for i, (_, _, t) in enumerate(first.placements))
    hands = game.hands
    hands[game.to_move] = [t for t in hands[game.to_move]]
    for _, _, t in first.placements:
        hands[game.to_move].remove(t)
    text[0] = shifted
    text[1] = "/".join("".join(t.text() for t in h) or "-" for h in hands)
    text[5] = "p"
    text[4] = str(1 - game.to_move)
    # The bag must give the removed tiles' room back: refill the hand from the bag.
    bag = text[2]
    need = len(first.placements)
    refill, text[2] = bag[len(bag) - 2 * need :], bag[: len(bag) - 2 * need] or "-"
    seat_hand = text[1].split("/")
    seat_hand[game.to_move] += refill
    text[1] = "/".join(seat_hand)
    edge = Game.from_string("|".join(text))
    for _ in range(6):
        actions = edge.legal_actions()
        if not actions:
            break
        for action in actions[:20]:
            edge.push(action)
            assert Game.from_string(edge.to_string()) == edge
            edge.pop()
        edge.push(actions[0])


def test_position_string_numbers_are_strict():
    text = Game(2, 1).to_string()
    fields = text.split("|")
    bad = []
    for field, values in ((3, ["0,-0", "0,³", "0,1_0", "0, +1", f"0,{MAX_SCORE + 1}", "0," + "9" * 5000]),
                          (4, ["³", "٠", "+0", "0" * 20]),
                          (6, ["-" + fields[6][1:], "0x" + fields[6][2:], "_" + fields[6][1:]])):
        for value in values:
            f = list(fields)
            f[field] = value
            bad.append("|".join(f))
    f = list(fields)
    f[5] = "o³"
    bad.append("|".join(f))
    for text in bad:
        with pytest.raises(QwirkleError):
            Game.from_string(text)


def test_scores_are_bounded_and_round_trip():
    game = Game(2, 5)
    game.push(game.legal_moves().best())
    fields = game.to_string().split("|")
    scores = [MAX_SCORE - 100, MAX_SCORE - 100]
    scores[game.to_move] = MAX_SCORE
    fields[3] = ",".join(map(str, scores))
    loaded = Game.from_string("|".join(fields))
    assert Game.from_string(loaded.to_string()) == loaded
    # The seat at the limit cannot score any more; the other one can, up to it.
    with pytest.raises(IllegalMoveError):
        loaded.push(loaded.legal_moves().best())
    scores = rollouts(Game.from_string("|".join(fields[:3] + [f"{MAX_SCORE - 100},0"] + fields[4:])),
                      ["greedy", "greedy"], 4)
    assert (scores >= 0).all()  # no wrap-around in the numba engine
