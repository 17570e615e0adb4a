"""Strict reading of the JSON shapes of docs/rules.md, with errors that name the place.

Shared by every JSON front end (the command line, the engine): a boolean is not an
integer, a float is not an integer, and every value is range-checked before it can
reach a kernel."""

from __future__ import annotations

import json
import math
from typing import Any

from ._constants import COORD_MAX, HAND_SIZE
from .board import Board
from .errors import InvalidPositionError, QwirkleError, show
from .tiles import ALL_TILES, Tile


class BadInputError(QwirkleError):
    """Input that does not have the documented JSON shape."""


def _no_constant(name: str) -> Any:
    raise BadInputError(f"input is not valid JSON ({name} is not a JSON number)")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BadInputError(f"the number {text[:40]} is out of range")
    return value


def loads(text: str | bytes) -> Any:
    """``json.loads`` that turns every failure into BadInputError (deep nesting, NaN,
    Infinity, a float too large to be finite, an integer too long to convert)."""
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        if not isinstance(text, str):
            raise BadInputError(f"expected JSON text, got {show(text)}")
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite_float)
    except BadInputError:
        raise
    except UnicodeDecodeError:
        raise BadInputError("input is not UTF-8 text") from None
    except RecursionError:
        raise BadInputError("input JSON is nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError
        raise BadInputError(f"input is not valid JSON ({exc})") from None


def brief(value: Any) -> str:
    """A value as a short piece of JSON for an error message (safe for any value: a
    deeply nested or huge one is shortened, never serialised whole)."""
    if value is None or isinstance(value, (bool, str)) or (
        isinstance(value, (int, float)) and abs(value) < 1e300
    ):
        try:
            return json.dumps(value)[:40]
        except (ValueError, TypeError):  # an integer too long to print
            pass
    return show(value)


def _int(value: Any, where: str, lo: int, hi: int) -> int:
    if type(value) is not int:
        raise BadInputError(f"{where} must be an integer, got {brief(value)}")
    if not lo <= value <= hi:
        raise BadInputError(f"{where} = {value} is out of range {lo}..{hi}")
    return value


def _where(where: Any) -> str:
    """``where`` (the value's name in messages), which must be a str."""
    if not isinstance(where, str):
        raise BadInputError(f"where (the value's name in messages) must be a str, got {show(where)}")
    return where


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise BadInputError(f"{where} must be a list, got {brief(value)}")
    return value


def read_tile(value: Any, where: str) -> Tile:
    """A Tile from JSON ``[color, shape]``; ``where`` names the value in errors."""
    item = _list(value, _where(where))
    if len(item) != 2:
        raise BadInputError(f"{where} must be [color, shape]")
    return ALL_TILES[_int(item[0], f"{where}[0] (color)", 0, 5) * 6 + _int(item[1], f"{where}[1] (shape)", 0, 5)]


def read_placement(value: Any, where: str) -> tuple[int, int, Tile]:
    """A placement ``(row, col, Tile)`` from JSON ``[row, col, color, shape]``."""
    item = _list(value, _where(where))
    if len(item) != 4:
        raise BadInputError(f"{where} must be [row, col, color, shape]")
    limit = COORD_MAX
    row = _int(item[0], f"{where}[0] (row)", -limit, limit)
    col = _int(item[1], f"{where}[1] (col)", -limit, limit)
    color = _int(item[2], f"{where}[2] (color)", 0, 5)
    shape = _int(item[3], f"{where}[3] (shape)", 0, 5)
    return row, col, ALL_TILES[color * 6 + shape]


def read_placements(value: Any, where: str) -> list[tuple[int, int, Tile]]:
    """A list of placements from a JSON list of ``[row, col, color, shape]``."""
    return [read_placement(v, f"{where}[{i}]") for i, v in enumerate(_list(value, _where(where)))]


def read_board(value: Any, where: str = "board") -> Board:
    """A Board from a JSON list of ``[row, col, color, shape]``, read and checked in one
    kernel call (``Board.from_json``); a refused one is read again item by item, so
    that the error names the item (``board[3][0] (row) must be an integer``) or the
    rule the board breaks."""
    _where(where)
    try:
        return Board.from_json(value)
    except InvalidPositionError:
        return Board.from_placements(read_placements(value, where))


def read_hand(value: Any, where: str = "hand") -> list[Tile]:
    """A hand (0 to 6 Tiles) from a JSON list of ``[color, shape]``."""
    items = _list(value, _where(where))
    if len(items) > HAND_SIZE:
        raise BadInputError(f"{where} holds at most {HAND_SIZE} tiles, got {len(items)}")
    return [read_tile(v, f"{where}[{i}]") for i, v in enumerate(items)]


def read_position(obj: Any) -> tuple[Board, list[Tile]]:
    """``{"board": [[row, col, color, shape], ...], "hand": [[color, shape], ...]}``."""
    if not isinstance(obj, dict):
        raise BadInputError('expected an object {"board": [...], "hand": [...]}')
    for key in ("board", "hand"):
        if key not in obj:
            raise BadInputError(f'missing "{key}"')
    board = read_board(obj["board"])
    hand = read_hand(obj["hand"])
    board.check_hand(hand)  # board + hand must not hold more than 3 copies of a kind
    return board, hand


def dumps(value: Any) -> str:
    """Compact JSON; a value with no JSON form (NaN or Infinity, which are not JSON, an
    object json cannot write, a cycle, nesting too deep) is a QwirkleError (a
    ValueError)."""
    try:
        return json.dumps(value, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise QwirkleError(f"no JSON form for {show(value)} ({str(exc)[:120]})") from None
