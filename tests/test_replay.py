"""The kernels' replay of recorded games (``_replay``, what a dataset's check runs):
every game the library plays replays as itself, and each kind of tampering is found,
at the turn where it is, as ``records.game_from_record`` (the Python replay through
``Game.push``) finds it too; and on randomly tampered games the kernel and the stdlib
referee (``tests/naive.py``, which shares no code with it) agree on every verdict."""

from __future__ import annotations

import json
from typing import Any

import numba
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from qwirkle_core import _layout, _replay, _turn
from qwirkle_core._constants import MAX_PLAYERS
from qwirkle_core._prng import seed_words
from qwirkle_core.bots import make_bot, play
from qwirkle_core.errors import InvalidRecordError
from qwirkle_core.game import MAX_SCORE, Game
from qwirkle_core.records import game_from_record, record_from_game, record_from_log

from .naive import RefereeError, referee_replay

JIT_OFF = bool(numba.config.DISABLE_JIT)
MIXES = [("greedy", "random"), ("heuristic", "greedy", "random"), ("random",) * 4, ("greedy",) * 6]


def played(players: int, seed: int, bots: tuple[str, ...]) -> Game:
    names = [bots[p % len(bots)] for p in range(players)]
    return play(Game(players, seed), [make_bot(n, seed=seed, seat=p) for p, n in enumerate(names)])


def replay(games: list[Game], logs: list[np.ndarray]) -> np.ndarray:  # type: ignore[type-arg]
    """The kernel's report on these games (their seeds, the logs given, their scores and ends)."""
    players = games[0].players
    low, high = seed_words([g.seed or 0 for g in games])
    starts = np.concatenate([[0], np.cumsum([len(log) for log in logs])]).astype(np.int64)
    log = np.concatenate(logs).astype(np.int32) if logs else np.zeros((0, _layout.LOG_COLS), np.int32)
    finals = np.array([g.scores for g in games], np.int64)
    ends = np.array([g.engine_state()[1][_layout.M_END] for g in games], np.int64)
    report = np.full((len(games), _replay.REPORT_COLS), -9, np.int64)
    _replay.replay_games(
        players, low, high, np.arange(MAX_PLAYERS, dtype=np.int64), log, starts, MAX_SCORE, finals, ends, report
    )
    return report


def python_replay_refuses(game: Game, log: np.ndarray) -> bool:  # type: ignore[type-arg]
    try:
        record = record_from_log(
            game.players, game.seed or 0, log, game.scores, int(game.engine_state()[1][_layout.M_END])
        )
        game_from_record(record)
    except InvalidRecordError:
        return True
    return False


@pytest.mark.parametrize("bots", MIXES, ids=["-".join(m) for m in MIXES])
def test_every_game_replays_as_itself(bots: tuple[str, ...]) -> None:
    players = len(bots) if len(bots) > 1 else 2
    games = [played(players, seed, bots) for seed in range(2 if JIT_OFF else 12)]
    report = replay(games, [g.turn_log() for g in games])
    assert report.tolist() == [[_replay.OK, -1, 0, 0]] * len(games)
    assert {g.end for g in games} >= {"out"}


@pytest.fixture(scope="module")
def game() -> Game:
    return played(2, 7, ("greedy", "heuristic"))


def tampered(game: Game, turn: int, slot: int, change: int) -> np.ndarray:  # type: ignore[type-arg]
    log = game.turn_log()
    log[turn, slot] += change
    return log


@pytest.mark.parametrize(
    ("slot", "change", "status"),
    [
        (_layout.L_SCORE, 1, _replay.R_DIFFERS),  # a score
        (_layout.L_DRAWN, 1, _replay.R_DIFFERS),  # a tile drawn
        (_layout.L_HAND, 1, _replay.R_DIFFERS),  # the hand before the turn
        (_layout.L_PLAYER, 1, _replay.R_DIFFERS),  # the seat
        (_layout.L_ROWS, 40, _replay.R_ILLEGAL),  # a tile moved away from the others
        (_layout.L_KINDS, 1, _replay.R_ILLEGAL),  # another tile placed (not held, or not fitting)
    ],
)
def test_a_tampered_turn_is_found_at_its_turn(game: Game, slot: int, change: int, status: int) -> None:
    turn = 5
    assert game.turn_log()[turn, _layout.L_TYPE] == _layout.PLACE
    log = tampered(game, turn, slot, change)
    assert replay([game], [log])[0, :2].tolist() == [status, turn]
    assert python_replay_refuses(game, log)


def _retyped(record: dict[str, Any], how: str) -> None:
    """Write one of the record's integers as another type of the same value."""
    seat_one = next(t for t in record["turns"] if t["player"] == 1)
    placed = next(t for t in record["turns"] if t["action"] == "place")
    if how == "player as a bool":
        seat_one["player"] = True
    elif how == "player as a float":
        seat_one["player"] = 1.0
    elif how == "first player as a bool":
        record["turns"][0]["player"] = bool(record["turns"][0]["player"])
    elif how == "score as a float":
        placed["score"] = float(placed["score"])
    elif how == "final scores as floats":
        record["scores"] = [float(s) for s in record["scores"]]
    elif how == "one final score as a float":
        record["scores"][-1] = float(record["scores"][-1])


@pytest.mark.parametrize(
    "how",
    ["player as a bool", "player as a float", "first player as a bool", "score as a float",
     "final scores as floats", "one final score as a float"],
)
def test_a_record_integer_of_another_type_is_refused(game: Game, how: str) -> None:
    # True == 1 and 2.0 == 2 in Python: compared with == they replayed as the integers.
    record = record_from_game(game)
    game_from_record(json.dumps(record))
    _retyped(record, how)
    with pytest.raises(InvalidRecordError):
        game_from_record(json.dumps(record))


def test_the_verdict_says_which_rule(game: Game) -> None:
    log = game.turn_log()
    log[3, _layout.L_TYPE] = _layout.PASS  # a pass while the bag holds tiles
    log[3, _layout.L_N] = 0
    assert replay([game], [log])[0, :3].tolist() == [_replay.R_ILLEGAL, 3, _turn.V_PASS_BAG]
    log = game.turn_log()
    log[0, _layout.L_N] -= 1  # the opening places fewer than the largest group
    assert replay([game], [log])[0, :3].tolist() == [_replay.R_ILLEGAL, 0, _turn.V_OPENING_SIZE]
    log = game.turn_log()
    log[4, _layout.L_N] = 7
    assert replay([game], [log])[0, :3].tolist() == [_replay.R_ILLEGAL, 4, _turn.V_MALFORMED]
    log = game.turn_log()
    assert log[6, _layout.L_TYPE] == _layout.PLACE
    log[6, _layout.L_ROWS : _layout.L_ROWS + 6] += 2_000_000_000  # beyond the playing area, as a row can hold
    assert replay([game], [log])[0, :3].tolist() == [_replay.R_ILLEGAL, 6, _turn.V_MALFORMED]


def test_the_game_as_a_whole(game: Game) -> None:
    log = game.turn_log()
    assert replay([game], [log[:-1]])[0].tolist() == [_replay.R_NOT_OVER, -1, 0, 0]
    assert replay([game], [np.concatenate([log, log[-1:]])])[0, :2].tolist() == [_replay.R_AFTER_END, len(log)]
    other = game.copy()
    other._scores[1] += 1  # the record's final scores, off by one
    assert replay([other], [log])[0].tolist() == [_replay.R_SCORES, -1, 1, 0]
    other = game.copy()
    other._meta[_layout.M_END] = _layout.END_DEAD
    assert replay([other], [log])[0].tolist() == [_replay.R_END, -1, game.engine_state()[1][_layout.M_END], 0]
    # Games of one call are independent: a bad one between good ones.
    report = replay([game, other, game], [log, log, log])
    assert report[:, 0].tolist() == [_replay.OK, _replay.R_END, _replay.OK]


def used_slots(row: np.ndarray) -> list[int]:  # type: ignore[type-arg]
    """The slots of a log row that a record carries (a hand's, tiles' and draws' unused
    slots are not in it: a dataset's turns table cannot hold them)."""
    slots = [_layout.L_PLAYER, _layout.L_TYPE, _layout.L_HAND_SIZE, _layout.L_DRAWN_N]
    if row[_layout.L_TYPE] == _layout.PLACE:  # (an exchange's score and a pass's count are not in a record)
        slots.append(_layout.L_SCORE)
    if row[_layout.L_TYPE] != _layout.PASS:
        slots.append(_layout.L_N)
    slots += [_layout.L_HAND + s for s in range(int(row[_layout.L_HAND_SIZE]))]
    n = int(row[_layout.L_N]) if row[_layout.L_TYPE] != _layout.PASS else 0
    slots += [_layout.L_KINDS + s for s in range(n)]
    if row[_layout.L_TYPE] == _layout.PLACE:
        slots += [_layout.L_ROWS + s for s in range(n)] + [_layout.L_COLS + s for s in range(n)]
    slots += [_layout.L_DRAWN + s for s in range(int(row[_layout.L_DRAWN_N]))]
    return slots


@settings(max_examples=3 if JIT_OFF else 150, deadline=None)
@given(
    seed=st.integers(0, 40), players=st.integers(2, 4), bots=st.sampled_from(["greedy", "random"]),
    where=st.floats(0, 1, exclude_max=True), pick=st.integers(0, 10**6), change=st.sampled_from([-2, -1, 1, 2, 7]),
)
def test_kernel_and_referee_agree_on_a_tampered_game(
    seed: int, players: int, bots: str, where: float, pick: int, change: int
) -> None:
    game = played(players, seed, (bots,))
    log = game.turn_log()
    turn = int(where * len(log))
    slots = used_slots(log[turn])
    log[turn, slots[pick % len(slots)]] += change
    end = int(game.engine_state()[1][_layout.M_END])
    try:
        record = record_from_log(players, game.seed or 0, log, game.scores, end)
    except InvalidRecordError:
        assume(False)  # out of the ranges a record can hold: not a game to replay
    try:
        referee_replay(record)
    except RefereeError as error:
        refused: int | None = error.turn if error.turn is not None else -1
    else:
        refused = None
    status, at, _, _ = replay([game], [log])[0].tolist()
    assert (status != _replay.OK) == (refused is not None), (status, at, refused)
