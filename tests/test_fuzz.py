"""The fuzz suite: random text, JSON and Python values fed to every parser and public
entry point, and random request streams to a live engine process.

The promise it checks: a bad value gets a clear error (a ``QwirkleError``, so a
``ValueError``) and changes nothing; whatever is accepted and written back reads back
the same; the engine answers every line with one line of JSON and keeps running.

A short run is part of the normal suite.  ``QWIRKLE_FUZZ=long`` runs each test with
many more examples (minutes), e.g.::

    QWIRKLE_FUZZ=long .venv/bin/python -m pytest tests/test_fuzz.py -q
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qwirkle_core import ALL_TILES, Board, Move, QwirkleError, Tile, parse_tiles, queries, render
from qwirkle_core.analysis.endgame import solve_endgame
from qwirkle_core.analysis.simulation import best_action, default_candidates, simulate
from qwirkle_core.bots import make_bot
from qwirkle_core.engine import EngineSession, Limits, reply_line
from qwirkle_core.game import Action, Game
from qwirkle_core.jsonio import loads, read_hand, read_placements, read_position
from qwirkle_core.moves import COORD_MAX
from qwirkle_core.records import game_from_record, read_records

LONG = os.environ.get("QWIRKLE_FUZZ", "") == "long"
FUZZ = settings(
    deadline=None,
    # (Without the JIT, the coverage run, the kernels behind every parser are plain Python: 10.)
    max_examples=1500 if LONG else 10 if os.environ.get("NUMBA_DISABLE_JIT") == "1" else 25,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
    derandomize=not LONG,  # the short run is the same on every machine; the long one explores
)

# ------------------------------------------------------------------ strategies
# Text close to the notations (so that parsers get past their first check), and any text.
NOTATION = "RrOYGBPcsdlxb@,-0123456789 |/xpe³٣\t\n"
notation_text = st.text(alphabet=NOTATION, max_size=60)
any_text = st.one_of(notation_text, st.text(max_size=40))
numbers = st.one_of(
    st.integers(-3, 8),
    st.integers(),
    st.sampled_from([COORD_MAX, COORD_MAX + 1, -COORD_MAX - 1, 2**30, 2**31, 2**63 - 1, 2**63, 2**64 - 1, -(2**63)]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
)
json_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
                         any_text)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(any_text, inner, max_size=4)),
    max_leaves=12,
)
tiles = st.sampled_from(ALL_TILES)
placements = st.tuples(st.integers(-3, 3), st.integers(-3, 3), tiles)
python_values = st.one_of(
    json_values,
    numbers,
    tiles,
    st.lists(tiles, max_size=8),
    st.lists(placements, max_size=7),
    st.lists(st.tuples(numbers, numbers, tiles), max_size=3),
    st.builds(np.int64, st.integers(-(2**63), 2**63 - 1)),
    st.builds(np.uint64, st.integers(0, 2**64 - 1)),
    st.just(np.bool_(True)),
    st.binary(max_size=10),
    st.just(object()),
    st.just(Tile),
)


def _deep(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def rejects_cleanly(call: Callable[[], Any]) -> Any:
    """Call; a failure must be a QwirkleError (a ValueError) with a message."""
    try:
        return call()
    except QwirkleError as exc:
        assert isinstance(exc, ValueError) and str(exc)
        return None


SAMPLE_GAME = Game(players=3, seed=5)
for _ in range(6):
    SAMPLE_GAME.push(SAMPLE_GAME.legal_actions()[0])
SAMPLE_BOARD = SAMPLE_GAME.board.copy(stack=False)


# ------------------------------------------------------------------ parsers


@FUZZ
@given(any_text)
def test_text_parsers(text: str) -> None:
    tile = rejects_cleanly(lambda: Tile.from_text(text))
    if tile is not None:
        assert Tile.from_text(tile.text()) is tile
    hand = rejects_cleanly(lambda: parse_tiles(text))
    if hand is not None:
        assert parse_tiles(" ".join(t.text() for t in hand)) == hand
    move = rejects_cleanly(lambda: Move.from_text(text))
    if move is not None:
        assert Move.from_text(move.text()) == move and Move.from_json(move.to_json()) == move
    board = rejects_cleanly(lambda: Board(text))
    if board is not None:
        assert Board(board.text()) == board and Board.from_json(board.to_json()) == board
    action = rejects_cleanly(lambda: Action.from_text(text))
    if action is not None:
        assert Action.from_text(action.text()) == action
    game = rejects_cleanly(lambda: Game.from_string(text))
    if game is not None:
        assert Game.from_string(game.to_string()) == game


@FUZZ
@given(st.integers(0, 6), any_text)
def test_position_strings_with_one_field_changed(field: int, text: str) -> None:
    fields = SAMPLE_GAME.to_string().split("|")
    fields[field] = text.replace("|", "")
    game = rejects_cleanly(lambda: Game.from_string("|".join(fields)))
    if game is not None:
        assert Game.from_string(game.to_string()) == game


@FUZZ
@given(st.one_of(json_values.map(json.dumps), any_text, st.binary(max_size=40).map(lambda b: b.decode("latin-1"))))
def test_json_readers(text: str) -> None:
    value = rejects_cleanly(lambda: loads(text))
    for reader in (read_position, read_hand, lambda v: read_placements(v, "board"), Board.from_json, Move.from_json,
                   game_from_record, lambda v: list(read_records([json.dumps(v)]))):
        rejects_cleanly(lambda reader=reader: reader(value))  # type: ignore[misc]
    rejects_cleanly(lambda: game_from_record(text))
    rejects_cleanly(lambda: list(read_records(text.splitlines())))


@FUZZ
@given(st.sampled_from(["board", "hand"]), json_values)
def test_read_position_with_one_part_replaced(part: str, value: Any) -> None:
    good = {"board": [[0, 0, 0, 0], [0, 1, 0, 1]], "hand": [[0, 2], [4, 0]]}
    good[part] = value
    result = rejects_cleanly(lambda: read_position(good))
    if result is not None:
        board, _ = result
        assert Board.from_json(board.to_json()) == board


def test_deep_and_huge_values_are_clear_errors() -> None:
    for value in (_deep(100_000), _deep(990), "[" * 100_000, "9" * 100_000, [[0, 0, 0, 0]] * 200):
        text = value if isinstance(value, str) else "[" * 990 + "]" * 990
        rejects_cleanly(lambda v=value: read_position({"board": v, "hand": []}))  # type: ignore[misc]
        rejects_cleanly(lambda v=value: Move(v))  # type: ignore[misc]
        rejects_cleanly(lambda v=value: Board.from_placements(v))  # type: ignore[misc]
        rejects_cleanly(lambda v=value: Board.from_json(v))  # type: ignore[misc]
        rejects_cleanly(lambda t=text: loads(t))  # type: ignore[misc]
        rejects_cleanly(lambda t=text: game_from_record(t))  # type: ignore[misc]
        rejects_cleanly(lambda v=value: game_from_record({"format": "qwirkle-record/1", "players": 2, "seed": 1,  # type: ignore[misc]
                                                          "turns": v, "scores": [0, 0]}))


# ------------------------------------------------------------ public entry points


@FUZZ
@given(python_values, python_values, python_values)
def test_library_entry_points(a: Any, b: Any, c: Any) -> None:
    board = SAMPLE_BOARD.copy()
    before = board.text()
    rejects_cleanly(lambda: Tile(a, b))
    rejects_cleanly(lambda: Tile.from_kind(a))
    rejects_cleanly(lambda: Move(a, b))
    rejects_cleanly(lambda: Board.from_placements(a))
    rejects_cleanly(lambda: board.legal_moves(a))
    rejects_cleanly(lambda: board.count_moves(a))
    rejects_cleanly(lambda: board.has_move(a))
    rejects_cleanly(lambda: board.score(a, b))
    assert board.is_legal(a, b) in (True, False)
    rejects_cleanly(lambda: board.tile_at(a, b))
    pushed = rejects_cleanly(lambda: board.push(a))
    if pushed is not None:
        assert Board(board.text()) == board
        board.pop()
    assert board.text() == before
    rejects_cleanly(lambda: queries.top_moves(board, a, b))
    rejects_cleanly(lambda: queries.moves_with_tiles(board, a, b))
    rejects_cleanly(lambda: queries.moves_on_cells(board, a, b))
    rejects_cleanly(lambda: queries.qwirkle_slots(board, a))
    rejects_cleanly(lambda: queries.move_risk(board, a, b))
    rejects_cleanly(lambda: queries.position_planes(board, a, b, c))
    rejects_cleanly(lambda: queries.unseen_counts(board, a, b))
    rejects_cleanly(lambda: queries.batch_counts(a, threads=1))
    rejects_cleanly(lambda: render.board_svg(board, highlight=a, cell_size=b, hand=c))
    rejects_cleanly(lambda: render.board_ansi(board, highlight=a))
    rejects_cleanly(lambda: render.board_text(a))
    rejects_cleanly(lambda: make_bot(a, b, c))
    rejects_cleanly(lambda: Action(a, b, c))
    rejects_cleanly(lambda: Game(a, b, c))
    assert board.text() == before


@FUZZ
@given(python_values, python_values)
def test_game_entry_points_change_nothing_on_error(a: Any, b: Any) -> None:
    game = SAMPLE_GAME.copy()
    before = game.to_string()
    played = rejects_cleanly(lambda: game.push(a))
    if played is not None:
        assert Game.from_string(game.to_string()).to_string() == game.to_string()
        game.pop()
    assert game.to_string() == before
    rejects_cleanly(lambda: game.hand(a))
    rejects_cleanly(lambda: game.unseen_tiles(a))
    rejects_cleanly(lambda: game.determinize(a, b))
    rejects_cleanly(lambda: Game.from_position(a, b, []))
    rejects_cleanly(lambda: Game.from_record(a))
    assert game.to_string() == before


@FUZZ
@given(st.data())
def test_every_legal_action_round_trips(data: st.DataObject) -> None:
    game = Game(players=data.draw(st.integers(2, 4)), seed=data.draw(st.integers(0, 2**64 - 1)))
    for _ in range(data.draw(st.integers(0, 8))):
        actions = game.legal_actions()
        if not actions:
            break
        action = data.draw(st.sampled_from(actions))
        assert Action.from_text(action.text()) == action
        game.push(action)
        assert Game.from_string(game.to_string()) == game
        assert Board(game.board.text()) == game.board
    if game.from_deal:
        assert Game.from_record(json.dumps(game.to_record())) == game


def _endgame() -> Game:
    """A two-player game whose bag has just emptied (what solve_endgame takes)."""
    game = Game(players=2, seed=1)
    greedy = make_bot("greedy")
    while game.bag_size and not game.is_over:
        game.push(greedy.choose(game))
    assert not game.is_over
    return game


SAMPLE_ENDGAME = _endgame()


@FUZZ
@given(python_values, python_values, python_values)
def test_analysis_entry_points_change_nothing_on_error(a: Any, b: Any, c: Any) -> None:
    # Every search gets a bound that holds whatever the fuzzed values are (two
    # iterations, a hundredth of a second, a stop at once), so a value that is accepted
    # returns at once; a bad one is a QwirkleError, and the game is never changed.
    game, endgame = SAMPLE_GAME.copy(), SAMPLE_ENDGAME.copy()
    before, before_end = game.to_string(), endgame.to_string()
    rejects_cleanly(lambda: simulate(game, candidates=a, top=b, plies=c, iterations=2, threads=1))
    rejects_cleanly(lambda: simulate(game, iterations=a, time_limit=0.01, seed=b, threads=c))
    rejects_cleanly(lambda: simulate(game, iterations=2, time_limit=a, should_stop=b, threads=1))
    rejects_cleanly(lambda: best_action(game, iterations=a, time_limit=0.01, seed=b))
    rejects_cleanly(lambda: default_candidates(game, a))
    rejects_cleanly(lambda: simulate(a, iterations=2))
    rejects_cleanly(lambda: solve_endgame(endgame, time_limit=a, should_stop=lambda: True))
    rejects_cleanly(lambda: solve_endgame(endgame, time_limit=0.01, should_stop=a))
    rejects_cleanly(lambda: solve_endgame(a))
    assert game.to_string() == before and endgame.to_string() == before_end


# ------------------------------------------------------------------ the engine

COMMANDS = ["hello", "new", "position", "state", "moves", "count", "best", "play", "undo", "masks", "analyse",
            "sim", "solve", "selfplay", "stop", "no-such-command"]
request_fields = st.dictionaries(
    st.sampled_from(["players", "seed", "tie_break", "position", "board", "hands", "bag", "scores", "to_move",
                     "top", "min_score", "action", "games", "bots", "timeout", "id", "plies", "candidates",
                     "time_limit", "threads", "win"]),
    st.one_of(json_values, numbers.filter(lambda x: not isinstance(x, float) or not np.isnan(x))),
    max_size=4,
)
# Two iterations, always: an accepted sim (or analyse with "win") answers at once.
requests = st.builds(lambda cmd, fields: {**fields, "cmd": cmd, "iterations": 2}, st.sampled_from(COMMANDS),
                     request_fields)


@FUZZ
@given(st.lists(requests, max_size=6))
def test_engine_session_answers_everything(stream: list[dict[str, Any]]) -> None:
    session = EngineSession(Limits(max_games=2, max_moves=2000))
    session.handle({"cmd": "new", "seed": 1})
    for request in stream:
        before = session.handle({"cmd": "state"})
        reply = session.handle(request)
        line = reply_line(reply)
        assert isinstance(json.loads(line, parse_constant=_not_json), dict)
        if "error" in reply:
            assert "internal error" not in reply["error"], reply
            assert session.handle({"cmd": "state"}) == before


def _not_json(name: str) -> None:
    raise AssertionError(f"{name} in a reply")


@pytest.fixture(scope="module")
def engine() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "qwirkle_core", "engine", "--max-games", "2", "--max-line-bytes", "4096",
         "--timeout", "30"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    yield proc
    _, err = proc.communicate(b"", timeout=60)
    assert proc.returncode == 0 and b"Traceback" not in err and b"error" not in err, err


raw_lines = st.one_of(
    requests.map(lambda r: json.dumps(r).encode()),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.binary(max_size=30).map(lambda b: b.replace(b"\n", b" ")),
    any_text.map(lambda t: t.replace("\n", " ").encode("utf-8", "surrogatepass")),
    st.just(b"x" * 5000),  # over the line limit
    st.just(b'{"cmd": "count", "id": NaN}'),
)


@pytest.mark.process
@FUZZ
@given(st.lists(raw_lines, min_size=1, max_size=8))
def test_live_engine_answers_every_line(engine: subprocess.Popen[bytes], lines: list[bytes]) -> None:
    assert engine.stdin is not None and engine.stdout is not None
    sent = [line for line in lines if line.strip() and b'"quit"' not in line]
    engine.stdin.write(b"".join(line + b"\n" for line in sent) + b'{"cmd": "hello", "id": "end"}\n')
    engine.stdin.flush()
    for _ in range(len(sent)):
        reply = json.loads(engine.stdout.readline(), parse_constant=_not_json)
        assert isinstance(reply, dict) and ("ok" in reply or "error" in reply)
    assert json.loads(engine.stdout.readline())["id"] == "end"
    assert engine.poll() is None
