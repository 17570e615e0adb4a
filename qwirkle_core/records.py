"""Game records: the ``qwirkle-record/1`` format, written and replayed.

A record is one JSON object per game (a records file holds one per line)::

    {"format": "qwirkle-record/1", "players": 2, "seed": 7,
     "turns": [{"player": 0, "hand": [[c, s], ...], "action": "place",
                "placements": [[row, col, c, s], ...], "score": 6, "drawn": [[c, s], ...]},
               {"player": 1, "hand": [...], "action": "exchange", "tiles": [...], "drawn": [...]},
               {"player": 0, "hand": [...], "action": "pass"}, ...],
     "scores": [120, 97], "end": "out"}

``end`` says how the game ended: ``"out"`` (a player emptied their hand: +6),
``"blocked"`` (the bag empty and no one able to place), ``"dead"`` (tiles left in the
bag, but none of them nor of the hands fits the board anywhere), or null for a game
not over.  Records written before the field existed replay without it.

The deal comes from the seed, so a record replays exactly: :func:`game_from_record`
checks every turn's player, hand, score and draws, and the final scores.
:func:`record_from_game` writes the record of a :class:`~qwirkle_core.game.Game`
played from its deal; :func:`record_from_log` writes one from the numba game loop's
turn log, so self-play never builds a ``Game``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from . import _constants, _layout
from ._ints import int_value, read_int
from ._iterables import items_of
from ._prng import SEED_LIMIT
from .errors import InvalidRecordError, QwirkleError, show
from .game import END_NAMES, Action, Game
from .moves import Move
from .tiles import ALL_TILES, Tile, tile_from_json

RECORD_FORMAT = "qwirkle-record/1"

__all__ = [
    "RECORD_FORMAT",
    "InvalidRecordError",
    "game_from_record",
    "read_records",
    "record_from_game",
    "record_from_log",
    "record_line",
]


def record_from_game(game: Game) -> dict[str, Any]:
    """The game so far as a ``qwirkle-record/1`` object."""
    if not isinstance(game, Game):
        raise QwirkleError(f"expected a Game, got {show(game)}")
    if not game.from_deal or game.seed is None:
        raise QwirkleError("only a game played from its deal has a record")
    return {
        "format": RECORD_FORMAT,
        "players": game.players,
        "seed": game.seed,
        "turns": [t.to_json() for t in game.history],
        "scores": game.scores,
        "end": game.end,
    }


def game_from_record(record: dict[str, Any] | str) -> Game:
    """Replay a record (an object, or one JSON line) and return the game at its end.

    The deal comes from the seed; every turn's player, hand, score and draws, and
    the final scores, must be what the replay gives, else InvalidRecordError."""
    if isinstance(record, str):
        record = _loads(record, "")
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise InvalidRecordError(f"not a {RECORD_FORMAT} record")
    players, seed, turns = record.get("players"), record.get("seed"), record.get("turns")
    if type(players) is not int or type(seed) is not int or not isinstance(turns, list):
        raise InvalidRecordError("a record has integer players and seed and a list of turns")
    try:
        probe = Game(players, seed)
        tie_break = None
        if turns and isinstance(turns[0], dict) and turns[0].get("player") != probe.to_move:
            # The opener won a tie that the seat order alone does not explain.
            first = turns[0].get("player")
            if type(first) is not int or not 0 <= first < players:
                raise InvalidRecordError(f"turn 0: no seat {show(first)}")
            tie_break = [first] + [p for p in range(players) if p != first]
        game = Game(players, seed, tie_break)
    except QwirkleError as exc:
        raise InvalidRecordError(str(exc)) from None
    for i, turn in enumerate(turns):
        try:
            _replay_turn(game, turn)
        except (QwirkleError, TypeError) as exc:
            raise InvalidRecordError(f"turn {i}: {exc}") from None
        except KeyError as exc:
            raise InvalidRecordError(f"turn {i}: no {show(exc.args[0])}") from None
        except RecursionError:
            raise InvalidRecordError(f"turn {i}: nested too deeply") from None
    if "end" in record and not _same(record["end"], game.end):
        raise InvalidRecordError(f"the record says the game ended {show(record['end'])}, the replay {show(game.end)}")
    if not _same(record.get("scores"), game.scores):
        raise InvalidRecordError(
            f"the record's final scores {show(record.get('scores'))} are not the replay's {game.scores}"
        )
    return game


def _same(value: Any, expected: object) -> bool:
    """Whether a record's ``value`` is ``expected`` (an int, a list of ints, a string):
    a value of another kind is not, nor is a list holding one (the record format writes
    integers, and ``True == 1`` and ``188.0 == 188`` would pass ==; a numpy array's ==
    gives an array)."""
    if isinstance(expected, list):
        return (
            type(value) is list
            and len(value) == len(expected)
            and all(_same(item, wanted) for item, wanted in zip(value, expected, strict=True))
        )
    return type(value) is type(expected) and bool(value == expected)


def record_from_log(
    players: int, seed: int, log: npt.NDArray[np.int32], scores: Sequence[int], end: int = 0
) -> dict[str, Any]:
    """The qwirkle-record/1 object of one game of the numba loop, from its turn log and
    how it ended (an END_* code).  (Self-play writes records with a kernel instead,
    see :func:`qwirkle_core.selfplay.records_text`; this is the readable twin that the
    tests compare it with.)  Each argument is checked first: InvalidRecordError if
    ``log`` is no turn log of ``players`` (2-d int32, LOG_COLS columns: seats, action
    types, counts and tile kinds in range), ``scores`` no ``players`` integers, or
    ``seed`` or ``end`` no seed or END_* code."""
    players, seed, end, final = _check_log(players, seed, log, scores, end)

    def tiles(kinds: npt.NDArray[np.int32]) -> list[list[int]]:
        return [ALL_TILES[int(k)].as_json() for k in kinds]

    turns = []
    for row in log:
        turn: dict[str, Any] = {
            "player": int(row[_layout.L_PLAYER]),
            "hand": tiles(row[_layout.L_HAND : _layout.L_HAND + row[_layout.L_HAND_SIZE]]),
        }
        n = int(row[_layout.L_N])
        drawn = tiles(row[_layout.L_DRAWN : _layout.L_DRAWN + row[_layout.L_DRAWN_N]])
        if row[_layout.L_TYPE] == _layout.PLACE:
            turn["action"] = "place"
            turn["placements"] = [
                [int(row[_layout.L_ROWS + s]), int(row[_layout.L_COLS + s])] + ALL_TILES[int(row[_layout.L_KINDS + s])].as_json()
                for s in range(n)
            ]
            turn["score"] = int(row[_layout.L_SCORE])
            turn["drawn"] = drawn
        elif row[_layout.L_TYPE] == _layout.EXCHANGE:
            turn["action"] = "exchange"
            turn["tiles"] = tiles(row[_layout.L_KINDS : _layout.L_KINDS + n])
            turn["drawn"] = drawn
        else:
            turn["action"] = "pass"
        turns.append(turn)
    return {
        "format": RECORD_FORMAT,
        "players": players,
        "seed": seed,
        "turns": turns,
        "scores": final,
        "end": END_NAMES.get(end),
    }


def _check_log(players: Any, seed: Any, log: Any, scores: Any, end: Any) -> tuple[int, int, int, list[int]]:
    """The arguments of :func:`record_from_log`, checked (InvalidRecordError): players,
    seed, end and the final scores, as ints."""
    players = read_int(players, "players", 2, _constants.MAX_PLAYERS, InvalidRecordError)
    seed = read_int(seed, "seed", 0, SEED_LIMIT - 1, InvalidRecordError)
    end = read_int(end, "end (an END_* code)", _layout.END_NONE, _layout.END_RUNAWAY, InvalidRecordError)
    if (
        not isinstance(log, np.ndarray)
        or log.ndim != 2
        or log.shape[1] != _layout.LOG_COLS
        or not np.issubdtype(log.dtype, np.integer)
    ):
        raise InvalidRecordError(f"a turn log is an int array of {_layout.LOG_COLS} columns, got {show(log)}")
    if isinstance(scores, np.ndarray):
        values = scores.tolist() if scores.ndim == 1 else None
    else:
        values = list(scores[:players]) if isinstance(scores, (list, tuple)) else None
    final = [int_value(v) for v in values[:players]] if values is not None else []
    if len(final) < players or None in final:
        raise InvalidRecordError(f"scores are {players} integers, one per seat, got {show(scores)}")
    # (int32 and int64 logs compared as they are: a copy of a chunk's log cost more than the checks)
    rows = log if log.dtype in (np.int32, np.int64) else log.astype(np.int64)
    slots = np.arange(6)

    def bad(column: int, lo: int, hi: int) -> bool:
        return bool(((rows[:, column] < lo) | (rows[:, column] > hi)).any())

    def bad_kinds(at: int, count: npt.NDArray[np.int64]) -> bool:
        kinds = rows[:, at : at + 6]
        return bool((((kinds < 0) | (kinds >= len(ALL_TILES))) & (slots < count[:, None])).any())

    acting = np.where(rows[:, _layout.L_TYPE] == _layout.PASS, 0, rows[:, _layout.L_N])
    if (
        bad(_layout.L_PLAYER, 0, players - 1)
        or bad(_layout.L_TYPE, _layout.PLACE, _layout.PASS)
        or bad(_layout.L_N, 0, 6)
        or bad(_layout.L_HAND_SIZE, 0, 6)
        or bad(_layout.L_DRAWN_N, 0, 6)
        or bad_kinds(_layout.L_HAND, rows[:, _layout.L_HAND_SIZE])
        or bad_kinds(_layout.L_KINDS, acting)
        or bad_kinds(_layout.L_DRAWN, rows[:, _layout.L_DRAWN_N])
    ):
        raise InvalidRecordError(
            f"a turn log of {players} players holds seats 0..{players - 1}, action types 0..2, "
            "counts 0..6 and tile kinds 0..35"
        )
    return players, seed, end, [v for v in final if v is not None]


def _tiles_json(value: Any) -> list[Tile]:
    if not isinstance(value, list):
        raise InvalidRecordError(f"expected a list of [color, shape], got {show(value)}")
    return [tile_from_json(v) for v in value]


def _replay_turn(game: Game, turn: Any) -> None:
    if not isinstance(turn, dict):
        raise InvalidRecordError(f"a turn is an object, got {show(turn)}")
    if game.is_over:
        raise InvalidRecordError("the game is already over")
    if not _same(turn["player"], game.to_move):
        raise InvalidRecordError(f"seat {show(turn['player'])} plays, but seat {game.to_move} is to move")
    if _tiles_json(turn["hand"]) != game.hand():
        raise InvalidRecordError("the hand is not the replay's")
    kind = turn["action"]
    if kind == Action.PLACE:
        action = Action.place(Move.from_json(turn["placements"]))
    elif kind == Action.EXCHANGE:
        action = Action.exchange(_tiles_json(turn["tiles"]))
    elif kind == Action.PASS:
        action = Action.pass_turn()
    else:
        raise InvalidRecordError(f"unknown action {show(kind)}")
    game.push(action)
    played = game.last_turn
    if kind == Action.PLACE and not _same(turn["score"], played.score):
        raise InvalidRecordError(f"the record scores {show(turn['score'])}, the rules {played.score}")
    if kind != Action.PASS and _tiles_json(turn["drawn"]) != list(played.drawn):
        raise InvalidRecordError("the tiles drawn are not the replay's")


def _loads(text: str, where: str) -> Any:
    """json.loads for a record: every failure (deep nesting, a huge number) is an
    InvalidRecordError."""
    try:
        return json.loads(text)
    except RecursionError:
        raise InvalidRecordError(f"{where}not a record: nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, or a number too long to convert
        raise InvalidRecordError(f"{where}not JSON: {exc}") from None


def record_line(record: dict[str, Any]) -> str:
    """One record as one line of JSON (a records file holds one per line)."""
    if not isinstance(record, dict):
        raise InvalidRecordError(f"a record is a dict, got {show(record)}")
    try:
        return json.dumps(record, separators=(", ", ": "), allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise InvalidRecordError(f"the record is not JSON data: {show(str(exc))}") from None


def read_records(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """The records of a JSON-lines file (blank lines skipped)."""
    items = items_of(lines)
    if items is None:
        raise InvalidRecordError(f"expected the lines of a records file, got {show(lines)}")
    for number, line in enumerate(items, 1):
        if not isinstance(line, str):
            raise InvalidRecordError(f"line {number}: expected text, got {show(line)}")
        if line.strip():
            value = _loads(line, f"line {number}: ")
            if not isinstance(value, dict):
                raise InvalidRecordError(f"line {number}: a record is a JSON object")
            yield value
