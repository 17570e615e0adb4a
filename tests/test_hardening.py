"""Regression tests for issue 8, "Nothing kills the engine, nothing loses games": each
test reproduces one finding of the fuzzing pass (it failed before the fix)."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys

import numba
import numpy as np
import pytest

from qwirkle_core import (
    ALL_TILES,
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
from qwirkle_core.engine import EngineSession, Limits, reply_line, serve
from qwirkle_core.envs import encoding
from qwirkle_core.envs.vector import VectorQwirkle
from qwirkle_core.errors import show
from qwirkle_core.game import MAX_SCORE, Action, Game, distinct_exchanges, largest_group
from qwirkle_core.moves import COORD_MAX
from qwirkle_core.records import read_records, record_line

from .signals import popen_taking_sigint

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
        # numpy parses dtype strings with ast: a SyntaxError or "not a 2- or 3- tuple"
        # ValueError came out (found by the long fuzz run)
        lambda: queries.position_planes(Board("Rc@0,0"), 8, dtype="01"),
        lambda: queries.position_planes(Board("Rc@0,0"), 8, dtype="0/"),
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
        # issue 26: each was a bare TypeError/IndexError/OverflowError/RecursionError, or accepted
        lambda: distinct_exchanges(parse_tiles("Rc Rs"), None),
        lambda: distinct_exchanges(parse_tiles("Rc Rs"), 5.5),  # was accepted (and compiled a float variant)
        lambda: distinct_exchanges(parse_tiles("Rc Rs"), _deep(10_000)),  # was a segfault
        lambda: distinct_exchanges(range(10**12), 3),
        lambda: largest_group([1]),
        lambda: largest_group(5),
        lambda: queries.mask_tiles(-1),  # was accepted as all 36 tiles
        lambda: queries.mask_tiles(1 << 36),
        lambda: queries.mask_tiles("7"),
        lambda: encoding.describe("7"),  # was accepted
        lambda: encoding.describe(7, 10**30),
        lambda: encoding.place_id(0, 0, 40),
        lambda: encoding.window(None),
        lambda: Board("Rc@0,0").legal_moves(parse_tiles("Rs")).index(5),  # was a bare ValueError
        lambda: Board("Rc@0,0").legal_moves(np.array(3)),  # a 0-d array: was TypeError
        lambda: Board("Rc@0,0").legal_moves(range(10**20)),  # was OverflowError
        lambda: Move([(0, 1, Tile(0, 1))], score=2**40),  # is_legal raised OverflowError on it
        lambda: Game(seed=_deep(10_000)),  # was RecursionError (from repr)
        lambda: make_bot("greedy", seed=_deep(10_000)),
        lambda: Tile(_LyingInt(7), 0),  # its value is 7: out of range, whatever int() says
        lambda: Move([(_LyingInt(COORD_MAX + 1), 0, Tile(0, 0))]),
        lambda: VectorQwirkle(1).scores(-1),
        lambda: VectorQwirkle(10**12),
    ],
)
def test_bad_values_raise_qwirkle_errors(call):
    with pytest.raises(QwirkleError):
        call()


class _LyingInt(int):
    """An int whose ``__int__`` and ``__index__`` disagree with its value."""

    def __int__(self) -> int:
        return 0

    def __index__(self) -> int:
        return 0


def _deep(depth: int) -> list:  # type: ignore[type-arg]
    value: list = []  # type: ignore[type-arg]
    for _ in range(depth):
        value = [value]
    return value


def test_an_integer_is_read_once():
    """Issue 26: a coordinate was range-checked as its value and stored as its
    ``int()``; the number checked is now the number used."""

    class Lying(int):
        def __int__(self) -> int:
            return 10**9 + 7

        def __index__(self) -> int:
            return 10**9 + 7

    board = Board()
    board.push(Move([(Lying(0), Lying(1), Tile(Lying(2), Lying(3)))]))
    assert board.text() == "Yl@0,1" and Board(board.text()) == board
    assert board.tile_at(Lying(0), Lying(1)) == Tile(2, 3)


def test_qwirkle_slots_checks_the_length_first():
    """Issue 26: 36 counts were told from tiles by walking the whole sequence."""
    with pytest.raises(QwirkleError):
        queries.qwirkle_slots(Board("Rc@0,0"), range(10**12))  # was a hang
    with pytest.raises(QwirkleError):
        queries.qwirkle_slots(Board("Rc@0,0"), range(10**20))  # len() itself fails
    with pytest.raises(QwirkleError):
        queries.unseen_counts(Board("Rc@0,0"), itertools.repeat(Tile(0, 1)))


def test_a_refused_reset_seed_changes_nothing():
    """Issue 26: VectorQwirkle.reset stored the seed before refusing it, and every
    later reset() failed."""
    env = VectorQwirkle(2, game_seeds=5)
    env.reset()
    for seed in (2**63, 2**63 - 3, -1, 1.5, None.__class__, _deep(10_000)):
        with pytest.raises(QwirkleError):
            env.reset(game_seeds=seed)
        if seed != 2**63 - 3:  # a seed (not game_seeds) of 2**63 - 3 is fine
            with pytest.raises(QwirkleError):
                env.reset(seed=seed)
    env.reset()  # continues each env's seeds (5 + 2, 6 + 2): the refused resets changed nothing
    assert env.game_seed(0) == 7 and env.game_seed(1) == 8


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
    for thing in (None, 5, "Rs 0,1", [None], [[0, 1]], [(0, 1, "Rs")], object(), [(0.5, 1, Tile(0, 1))]):
        assert board.is_legal(thing) is False  # was TypeError for None
    assert board.is_legal("Rs@0,1")  # a move's text is a move
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


# Without the JIT (the coverage run) one of the four edges: they take the same paths.
@pytest.mark.parametrize("index", (3,) if numba.config.DISABLE_JIT else range(4))
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


@pytest.mark.parametrize("gap", range(10))
def test_every_query_keeps_to_the_area_at_every_distance_from_its_edge(gap):
    """A board ``gap`` cells from the edge has the moves of the same board at the
    origin, moved there, less those that would leave the area; the generator says
    whether to filter (CHECK_EDGE), so its answer is checked on both sides of the
    reach (7 cells) and in every query that uses it."""
    m = COORD_MAX - gap
    hand = parse_tiles("Rd Rl Rx Rb Bc Bs")
    for cells in ([(m, 0), (m, 1)], [(0, -m), (1, -m)], [(-m, m), (-m + 1, m)]):
        board = Board(" ".join(f"{t}@{r},{c}" for t, (r, c) in zip(("Rc", "Rs"), cells)))
        assert board.near_edge() == (gap < 7)
        dr, dc = cells[0]
        origin = Board(" ".join(f"{t}@{r - dr},{c - dc}" for t, (r, c) in zip(("Rc", "Rs"), cells)))
        want = set()
        for move in origin.legal_moves(hand):
            placed = [(r + dr, c + dc, t) for r, c, t in move.placements]
            if all(abs(r) <= COORD_MAX and abs(c) <= COORD_MAX for r, c, _ in placed):
                want.add((tuple(sorted(placed)), move.score))
        moves = board.legal_moves(hand)
        assert {(tuple(sorted(mv.placements)), mv.score) for mv in moves} == want
        assert len(moves) == len(want) > 0
        assert board.count_moves(hand) == len(want)
        assert board.has_move(hand)
        best = max(score for _, score in want)
        assert {mv.score for mv in board.best_moves(hand)} == {best}
        assert len(board.best_moves(hand)) == sum(score == best for _, score in want)


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
    # The seat at the limit cannot score any more (its legal moves are none); the other
    # one can, up to it.
    assert not loaded.legal_moves()
    with pytest.raises(IllegalMoveError):
        loaded.push(loaded.board.legal_moves(loaded.hand()).best())
    # 2**63 - 1 used to be accepted, and wrapped in the numba engine's int64 scores.
    fields[3] = f"{2**63 - 1},0"
    with pytest.raises(QwirkleError):
        Game.from_string("|".join(fields))


# ------------------------------------------------------------------- the engine

POSITION = {"cmd": "new", "players": 2, "seed": 3}


def _session(**limits: object) -> EngineSession:
    session = EngineSession(Limits(**limits))  # type: ignore[arg-type]
    assert "error" not in session.handle(POSITION)
    return session


@pytest.mark.parametrize(
    "request_",
    [
        {"cmd": "play", "action": "Rc@" + "9" * 5000 + ",0"},  # killed the engine
        {"cmd": "play", "action": "Rc@٣,0"},
        {"cmd": "position", "position": "-|RcRs/Bc|-|0,0|³|p|00000000000000000000000000000001"},  # killed it
        {"cmd": "position", "position": "-|RcRs/Bc|-|0,0|0|o³|00000000000000000000000000000001"},
        {"cmd": "play", "action": {"action": "place", "placements": [[2**31, 0, 0, 0]]}},
        {"cmd": "new", "tie_break": [1.0, 0]},
        {"cmd": "position", "board": [], "hands": [[], []], "scores": [2**63 - 1, 0]},
        {"cmd": "analyse", "top": 10**30},
        {"cmd": "selfplay", "games": 10**30},
        {"cmd": "moves", "timeout": float("inf")},
        {"cmd": "moves", "timeout": 0},
        {"cmd": "undo"},
    ],
)
def test_bad_requests_get_an_error_and_change_nothing(request_):
    session = _session()
    before = session.handle({"cmd": "state"})
    reply = session.handle({**request_, "id": 5})
    assert reply["id"] == 5 and isinstance(reply["error"], str) and "ok" not in reply
    assert session.handle({"cmd": "state"}) == before


def test_an_internal_failure_restores_the_state(monkeypatch):
    session = _session()
    before = session.handle({"cmd": "state"})
    best = session.handle({"cmd": "best"})["action"]

    def broken(self):  # type: ignore[no-untyped-def]
        raise RuntimeError("boom")

    # Fails half-way through a play: after the board and the hands have changed.
    monkeypatch.setattr(Game, "_sync_board_meta", broken)
    reply = session.handle({"cmd": "play", "action": best})
    assert "internal error" in reply["error"] and "boom" in reply["error"]
    monkeypatch.undo()
    assert session.handle({"cmd": "state"}) == before
    assert "error" not in session.handle({"cmd": "play", "action": best})


@pytest.mark.parametrize("rid", ["NaN", "1e400", "-Infinity", "[" * 900 + "]" * 900])
def test_replies_are_always_json(rid):
    session = _session()
    reply = reply_line(session.handle_line('{"cmd": "count", "id": ' + rid + "}"))
    def refuse(name: str) -> None:
        raise AssertionError(f"{name} is not JSON")

    assert isinstance(json.loads(reply, parse_constant=refuse), dict)  # strict JSON: no NaN, no Infinity


def test_limits_bound_every_request():
    session = _session(max_moves=3, max_games=5)
    assert "--max-moves" in session.handle({"cmd": "moves", "top": 4})["error"]
    assert "--max-moves" in session.handle({"cmd": "analyse", "top": 4})["error"]
    assert len(session.handle({"cmd": "moves", "top": 3})["moves"]) == 3
    count = session.handle({"cmd": "count"})["count"]
    assert count > 3 and "--max-moves" in session.handle({"cmd": "moves"})["error"]
    assert "--max-games" in session.handle({"cmd": "selfplay", "games": 6})["error"]
    assert session.handle({"cmd": "hello"})["limits"]["max_games"] == 5
    with pytest.raises(QwirkleError):
        Limits(max_moves=0)


def test_timeout_and_stop_end_a_request_not_the_engine():
    session = _session()
    reply = session.handle({"cmd": "selfplay", "games": 1000, "timeout": 1e-9})
    assert "timed out" in reply["error"]
    session.stop()  # as a stop read while this request runs
    session.current -= 1  # (the next request is the one that was running)
    reply = session.handle({"cmd": "selfplay", "games": 1000}, seq=session.current)
    assert "stopped" in reply["error"]
    assert session.handle({"cmd": "stop"})["stopped"] is True
    assert session.handle({"cmd": "stop"})["stopped"] is False
    assert session.handle({"cmd": "selfplay", "games": 2})["games"] == 2


def _worst_session() -> tuple[EngineSession, Board, list[Tile]]:
    """A position whose hand has tens of thousands of moves (one colour of six)."""
    game = Game(2, 11)
    while len(game.board) < 40:
        game.push(game.legal_moves().best() or game.legal_actions()[0])
    board = game.board
    counts = board.tile_counts()
    hands = []
    for colour in range(6):
        kinds = [colour * 6 + s for s in range(6)]
        if all(counts[k] < 3 for k in kinds):
            hand = [ALL_TILES[k] for k in kinds]
            hands.append((board.count_moves(hand), hand))
    _, hand = max(hands, key=lambda x: x[0])
    used = list(counts)
    for t in hand:
        used[t.kind] += 1
    rest = [ALL_TILES[k] for k in range(36) for _ in range(3 - used[k])]
    session = EngineSession()
    reply = session.handle(
        {
            "cmd": "position",
            "board": board.to_json(),
            "hands": [[t.as_json() for t in hand], [t.as_json() for t in rest[:6]]],
            "bag": [t.as_json() for t in rest[6:]],
        }
    )
    assert "error" not in reply, reply
    return session, board, hand


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="a position of 1,000+ moves, each analysed: 10 s without the JIT")
def test_analyse_of_every_move_matches_the_risk_of_each():
    """analyse with top = every move took a minute (one MoveList.index scan per move);
    it now matches the moves by one sort, with the same answers."""
    session, board, hand = _worst_session()
    reply = session.handle({"cmd": "analyse", "top": 100_000})
    assert reply["count"] > 1000 and len(reply["moves"]) == reply["count"]
    game = session.game
    assert game is not None
    risk = queries.move_risk(board, hand, game.unseen_tiles(game.to_move))
    for entry in reply["moves"][:: max(1, len(reply["moves"]) // 300)]:
        j = risk.moves.index(Move.from_text(entry["text"]))
        assert entry["leaves_qwirkle"] == bool(risk.risky[j])
        assert entry["opens_slots"] == int(risk.opened[j])


# ----------------------------------------------------------- processes and the CLI


def _engine(*args: str) -> subprocess.Popen[bytes]:
    return popen_taking_sigint(
        [sys.executable, "-m", "qwirkle_core", "engine", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _ask(proc: subprocess.Popen[bytes], line: str | bytes) -> dict:  # type: ignore[type-arg]
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write((line.encode() if isinstance(line, str) else line) + b"\n")
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())  # type: ignore[no-any-return]


@pytest.mark.process
def test_engine_process_survives_the_killers_and_ends_cleanly():
    proc = _engine("--max-line-bytes", "20000")
    try:
        assert "error" not in _ask(proc, json.dumps(POSITION))
        for line in (
            '{"cmd":"play","action":"Rc@' + "9" * 5000 + ',0"}',
            '{"cmd":"position","position":"-|RcRs/Bc|-|0,0|\u00b3|p|00000000000000000000000000000001"}',
            '{"cmd":"count","id":NaN}',
            "x" * 50_000,  # over the line limit
            b"\xff\xfe",
        ):
            assert "error" in _ask(proc, line)
        assert _ask(proc, '{"cmd":"hello","id":"still here"}')["id"] == "still here"
        _, err = proc.communicate(b"", timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0 and b"Traceback" not in err and b"error" not in err, err


@pytest.mark.process
def test_stop_ends_the_running_request_not_the_engine():
    proc = _engine()
    try:
        assert proc.stdin is not None
        # Sent together: the stop is read while the selfplay runs (or before it starts).
        proc.stdin.write(b'{"cmd":"selfplay","games":10000,"id":1}\n{"cmd":"stop","id":2}\n')
        proc.stdin.flush()
        assert proc.stdout is not None
        first = json.loads(proc.stdout.readline())
        second = json.loads(proc.stdout.readline())
        assert first["id"] == 1 and "stopped" in first["error"]
        assert second == {"id": 2, "ok": True, "stopped": True}
        assert _ask(proc, '{"cmd":"hello","id":3}')["id"] == 3
    finally:
        proc.kill()
        proc.communicate()


@pytest.mark.process
@pytest.mark.parametrize(("sig", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signals_end_the_engine_with_their_status(sig, status):
    proc = _engine()
    try:
        assert _ask(proc, '{"cmd":"hello"}')["ok"]
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == status and b"Traceback" not in err and b"error" not in err


def _cli(args: list[str], stdin: bytes | None = b"", **kwargs: object) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-m", "qwirkle_core", *args], check=False, input=stdin, capture_output=True, timeout=120,
        **kwargs,
    )


def _one_error_line(stderr: bytes) -> bool:
    """One line naming the problem (a notice that kernels compile may come first)."""
    lines = [line for line in stderr.splitlines() if b"compiling" not in line]
    return len(lines) == 1 and b"error" in lines[0] and b"internal error" not in lines[0]


POSITION_JSON = b'{"board": [[0, 0, 0, 0]], "hand": [[0, 1]]}'


@pytest.mark.process
def test_moves_jsonl_answers_every_line_after_a_deep_one():
    deep = b"[" * 984 + b"]" * 984
    lines = [b'{"board": ' + deep + b', "hand": []}', POSITION_JSON, b'{"board": [], "hand": ' + deep + b"}", POSITION_JSON]
    result = _cli(["moves", "--jsonl"], b"\n".join(lines) + b"\n")
    answers = [json.loads(x) for x in result.stdout.splitlines()]
    assert len(answers) == 4 and "error" in answers[0] and "moves" in answers[1] and "moves" in answers[3]
    assert result.returncode == 2 and b"Traceback" not in result.stderr and b"error" not in result.stderr


@pytest.mark.process
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("command", [["moves"], ["render"], ["render", "--format", "text"]])
def test_a_full_disk_is_a_one_line_error(command):
    with open("/dev/full", "wb") as full:
        result = subprocess.run(
            [sys.executable, "-m", "qwirkle_core", *command], check=False, input=POSITION_JSON,
            stdout=full, stderr=subprocess.PIPE, timeout=120,
        )
    assert result.returncode == 2
    assert _one_error_line(result.stderr)


@pytest.mark.process
@pytest.mark.parametrize("command", [["moves"], ["moves", "--jsonl"], ["render"], ["engine"]])
def test_a_closed_stdin_is_handled(command):
    """A closed stdin (``<&-``) ended in "internal error"."""
    closed = subprocess.run(
        [sys.executable, "-m", "qwirkle_core", *command],
        check=False, capture_output=True, timeout=120,
        preexec_fn=lambda: os.close(0),
    )
    assert closed.returncode == (0 if command == ["engine"] else 2), closed.stderr
    assert b"internal error" not in closed.stderr and b"Traceback" not in closed.stderr


def test_render_refuses_what_it_cannot_draw_or_write(tmp_path, monkeypatch, capsys):
    """In-process (cli.main, as the command runs it): a fresh process per case would
    cost seconds each; test_cli checks render's exit and error line in a process."""
    import io

    from qwirkle_core import cli

    def render(args: list[str]) -> tuple[int, str]:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(POSITION_JSON)))
        status = cli.main(["render", *args])
        return status, capsys.readouterr().err

    for args in (["--highlight", "Rs@30000,30000"], ["--highlight", "Rs@1000000000,0"], ["--cell-size", "1e308"],
                 ["--cell-size", "nan"], ["-o", str(tmp_path / "no" / "such" / "dir.svg")], ["-o", str(tmp_path)]):
        status, err = render(args)
        assert status == 2, (args, err)
        assert _one_error_line(err.encode())
    target = tmp_path / "board.svg"
    assert render(["-o", str(target)])[0] == 0
    assert target.read_text().endswith("</svg>\n") and [p.name for p in tmp_path.iterdir()] == ["board.svg"]


def test_render_output_keeps_what_the_path_is(tmp_path, monkeypatch, capsys):
    """Issue 26: ``render -o`` renamed a temporary file over any path, so a symlink, a
    FIFO or /dev/null became a regular file.  Only a regular (or new) file is replaced."""
    import io
    import stat
    import threading

    from qwirkle_core import cli

    def render(path: os.PathLike[str] | str) -> int:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(POSITION_JSON)))
        status = cli.main(["render", "-o", str(path)])
        capsys.readouterr()
        return status

    target, link = tmp_path / "target.svg", tmp_path / "link.svg"
    target.write_text("old")
    link.symlink_to(target.name)
    assert render(link) == 0
    assert link.is_symlink() and target.read_text().endswith("</svg>\n")
    dangling = tmp_path / "dangling.svg"
    dangling.symlink_to("new.svg")
    assert render(dangling) == 0
    assert dangling.is_symlink() and (tmp_path / "new.svg").read_text().endswith("</svg>\n")

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    assert render(fifo) == 0
    reader.join(30)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and got and got[0].endswith(b"</svg>\n")

    devnull = tmp_path / "null"
    devnull.symlink_to(os.devnull)
    assert render(devnull) == 0 and render(os.devnull) == 0
    assert devnull.is_symlink() and stat.S_ISCHR(os.stat(os.devnull).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling.svg", "fifo", "link.svg", "new.svg", "null",
                                                          "target.svg"]


def test_read_only_queries_are_safe_from_many_threads():
    """What the README promises (and the Board and Game docstrings): reading one Board
    from several threads at once gives every thread the right answers."""
    from concurrent.futures import ThreadPoolExecutor

    game = Game(2, 21)
    for _ in range(12):
        game.push(game.legal_actions()[0])
    board = game.board
    hands = [parse_tiles(h) for h in ("Rc Rs Rd Rl Rx Rb", "Rc Oc Yc Gc Bc Pc", "Bs Bd Gx Yl Oc Pb")]
    want = [board.legal_moves(h).table.tolist() for h in hands]

    def work(i: int) -> bool:
        h = i % len(hands)
        return board.legal_moves(hands[h]).table.tolist() == want[h] and board.count_moves(hands[h]) == len(want[h])

    calls = 4 if numba.config.DISABLE_JIT else 48  # without the JIT, the GIL serialises them anyway
    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(work, range(calls)))
    for doc in (Board.__doc__, Game.__doc__):
        assert doc is not None and "Threads:" in doc


def test_serve_skips_long_lines_and_answers_the_rest():
    import io

    lines = b'{"cmd": "hello", "id": 1}\n' + b"x" * 500 + b'\n{"cmd": "stop", "id": 2}\n\n{"cmd": "count", "id": 3}\n'
    out = io.StringIO()
    assert serve(io.BytesIO(lines), out, Limits(max_line_bytes=100)) == 0
    replies = [json.loads(x) for x in out.getvalue().splitlines()]
    assert [r["id"] for r in replies] == [1, None, 2, 3]
    # The stop stops the hello if it was still waiting when the stop was read.
    assert "longer than 100 bytes" in replies[1]["error"] and replies[2]["stopped"] is ("error" in replies[0])
    assert "no game" in replies[3]["error"]


@pytest.mark.parametrize(
    "args",
    [("10", 2, ["greedy"] * 2), (-1, 2, ["greedy"] * 2), (10**12, 2, ["greedy"] * 2), (1, 7, ["greedy"] * 7),
     (1, 2, "greedy"), (1, 2, [[], []]), (1, 2, ["greedy", "nobody"])],
)
def test_selfplay_arguments_are_checked(args):
    from qwirkle_core.selfplay import play_batches, selfplay

    with pytest.raises(QwirkleError):
        selfplay(*args)
    with pytest.raises(QwirkleError):
        next(play_batches(*args))
    with pytest.raises(QwirkleError):
        selfplay(1, 2, ["greedy"] * 2, seed=-1)


def test_tile_at_does_not_wrap_numpy_integers():
    board = Board("Rc@0,0")
    for far in (np.int64(2**63 - 1), np.int64(-(2**63)), np.uint64(2**64 - 1)):
        assert board.tile_at(far, 0) is None and board.tile_at(0, far) is None
    assert board.tile_at(np.int64(0), np.int8(0)) == Tile(0, 0)
