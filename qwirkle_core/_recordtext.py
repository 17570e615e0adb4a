"""Game records as JSON text, written by a kernel straight from the turn logs.

Building a Python dict per turn and calling ``json.dumps`` made self-play three times
slower; this kernel writes the bytes of many records into one buffer instead, with no
Python object per turn.  The text is exactly what :func:`qwirkle_core.records.record_line`
writes for the same record (a test compares them), one record per line.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import _layout
from ._jit import batch_kernel, inline_helper, kernel
from ._layout import KArray, KInt


def seed_digits(seeds: Sequence[int]) -> tuple[KArray, KArray]:
    """The ASCII decimal digits of seeds (uint8[n, 20], a seed's in its row's first
    ``lengths[i]``) and their lengths: what the kernels write a seed with (a seed reaches
    2**64, past what a kernel's int64 holds)."""
    digits = np.zeros((len(seeds), 20), np.uint8)
    lengths = np.zeros(len(seeds), np.int64)
    for i, seed in enumerate(seeds):
        text = str(seed).encode()
        digits[i, : len(text)] = np.frombuffer(text, np.uint8)
        lengths[i] = len(text)
    return digits, lengths


# Fixed fragments, as uint8 arrays (numba compiles global arrays in as constants).


def _text(s: str) -> KArray:
    return np.frombuffer(s.encode("ascii"), np.uint8).copy()


RECORD_START = _text('{"format": "qwirkle-record/1", "players": ')
SEED = _text(', "seed": ')
TURNS = _text(', "turns": [')
TURN_PLAYER = _text('{"player": ')
HAND = _text(', "hand": ')
ACTION_PLACE = _text(', "action": "place", "placements": ')
SCORE = _text(', "score": ')
ACTION_EXCHANGE = _text(', "action": "exchange", "tiles": ')
ACTION_PASS = _text(', "action": "pass"')
DRAWN = _text(', "drawn": ')
SCORES = _text('], "scores": ')
END = _text(', "end": ')
END_OUT = _text('"out"}\n')
END_BLOCKED = _text('"blocked"}\n')
END_DEAD = _text('"dead"}\n')
END_NULL = _text("null}\n")
# A turn's text is at most about 400 bytes; a record's frame about 150.
TURN_BYTES = 448
RECORD_BYTES = 192


@inline_helper
def _put(out: KArray, pos: KInt, fragment: KArray) -> KInt:
    for i in range(fragment.shape[0]):
        out[pos + i] = fragment[i]
    return pos + fragment.shape[0]


@inline_helper
def _put_byte(out: KArray, pos: KInt, byte: KInt) -> KInt:
    out[pos] = byte
    return pos + 1


@inline_helper
def _put_uint(out: KArray, pos: KInt, value: KInt) -> KInt:
    """The decimal digits of a non-negative integer."""
    digits = 1
    rest = value // 10
    while rest > 0:
        digits += 1
        rest //= 10
    end = pos + digits
    for i in range(digits):
        out[end - 1 - i] = 48 + value % 10
        value //= 10
    return end


@inline_helper
def _put_int(out: KArray, pos: KInt, value: KInt) -> KInt:
    if value < 0:
        out[pos] = 45  # '-'
        return _put_uint(out, pos + 1, -value)
    return _put_uint(out, pos, value)


@inline_helper
def _put_tile(out: KArray, pos: KInt, kind: KInt) -> KInt:
    """``[color, shape]``."""
    pos = _put_byte(out, pos, 91)  # '['
    pos = _put_byte(out, pos, 48 + kind // 6)
    pos = _put_byte(out, pos, 44)  # ','
    pos = _put_byte(out, pos, 32)
    pos = _put_byte(out, pos, 48 + kind % 6)
    return _put_byte(out, pos, 93)  # ']'


@inline_helper
def _put_separator(out: KArray, pos: KInt, first: bool) -> KInt:
    if first:
        return pos
    pos = _put_byte(out, pos, 44)  # ','
    return _put_byte(out, pos, 32)


@kernel
def _put_tiles(out: KArray, pos: KInt, row: KArray, at: KInt, n: KInt) -> KInt:
    """``[[color, shape], ...]`` of the kinds row[at : at + n]."""
    pos = _put_byte(out, pos, 91)
    for i in range(n):
        pos = _put_separator(out, pos, i == 0)
        pos = _put_tile(out, pos, row[at + i])
    return _put_byte(out, pos, 93)


@kernel
def _put_turn(out: KArray, pos: KInt, row: KArray) -> KInt:
    pos = _put(out, pos, TURN_PLAYER)
    pos = _put_uint(out, pos, row[_layout.L_PLAYER])
    pos = _put(out, pos, HAND)
    pos = _put_tiles(out, pos, row, _layout.L_HAND, row[_layout.L_HAND_SIZE])
    n = row[_layout.L_N]
    action = row[_layout.L_TYPE]
    if action == _layout.PLACE:
        pos = _put(out, pos, ACTION_PLACE)
        pos = _put_byte(out, pos, 91)
        for s in range(n):
            pos = _put_separator(out, pos, s == 0)
            pos = _put_byte(out, pos, 91)
            pos = _put_int(out, pos, row[_layout.L_ROWS + s])
            pos = _put_byte(out, pos, 44)
            pos = _put_byte(out, pos, 32)
            pos = _put_int(out, pos, row[_layout.L_COLS + s])
            pos = _put_byte(out, pos, 44)
            pos = _put_byte(out, pos, 32)
            kind = row[_layout.L_KINDS + s]
            pos = _put_byte(out, pos, 48 + kind // 6)
            pos = _put_byte(out, pos, 44)
            pos = _put_byte(out, pos, 32)
            pos = _put_byte(out, pos, 48 + kind % 6)
            pos = _put_byte(out, pos, 93)
        pos = _put_byte(out, pos, 93)
        pos = _put(out, pos, SCORE)
        pos = _put_uint(out, pos, row[_layout.L_SCORE])
        pos = _put(out, pos, DRAWN)
        pos = _put_tiles(out, pos, row, _layout.L_DRAWN, row[_layout.L_DRAWN_N])
    elif action == _layout.EXCHANGE:
        pos = _put(out, pos, ACTION_EXCHANGE)
        pos = _put_tiles(out, pos, row, _layout.L_KINDS, n)
        pos = _put(out, pos, DRAWN)
        pos = _put_tiles(out, pos, row, _layout.L_DRAWN, row[_layout.L_DRAWN_N])
    else:
        pos = _put(out, pos, ACTION_PASS)
    return _put_byte(out, pos, 125)  # '}'


@kernel
def _put_record(
    out: KArray, pos: KInt, players: KInt, seed_digits: KArray, seed_length: KInt, scores: KArray, rows: KArray,
    end: KInt,
) -> KInt:
    """One game's record and its newline: ``rows`` its turn log rows, ``scores`` its
    final scores, ``end`` its END_* code, its seed the ASCII ``seed_digits[:seed_length]``."""
    pos = _put(out, pos, RECORD_START)
    pos = _put_uint(out, pos, players)
    pos = _put(out, pos, SEED)
    for i in range(seed_length):
        out[pos + i] = seed_digits[i]
    pos += seed_length
    pos = _put(out, pos, TURNS)
    for t in range(rows.shape[0]):
        pos = _put_separator(out, pos, t == 0)
        pos = _put_turn(out, pos, rows[t])
    pos = _put(out, pos, SCORES)
    pos = _put_byte(out, pos, 91)
    for p in range(players):
        pos = _put_separator(out, pos, p == 0)
        pos = _put_uint(out, pos, scores[p])
    pos = _put_byte(out, pos, 93)
    pos = _put(out, pos, END)
    if end == _layout.END_OUT:
        return _put(out, pos, END_OUT)
    if end == _layout.END_BLOCKED:
        return _put(out, pos, END_BLOCKED)
    if end == _layout.END_DEAD:
        return _put(out, pos, END_DEAD)
    return _put(out, pos, END_NULL)


@batch_kernel
def format_records(
    players: KInt, seed_digits: KArray, seed_lengths: KArray, scores: KArray, turns: KArray, ends: KArray,
    logs: KArray, out: KArray,
) -> KInt:
    """Write the records of games i = 0.. (seed written as the ASCII digits
    ``seed_digits[i, :seed_lengths[i]]`` (seeds reach 2**64, past int64), final
    ``scores[i]``, ``turns[i]`` turns logged in ``logs[i]``, ended as ``ends[i]``)
    into ``out``, one line each; returns the number of bytes written.  ``out`` must
    hold RECORD_BYTES per game plus TURN_BYTES per turn."""
    pos = np.int64(0)  # (a literal 0 would compile _put_record for it too)
    for g in range(seed_lengths.shape[0]):
        pos = _put_record(out, pos, players, seed_digits[g], seed_lengths[g], scores[g], logs[g, : turns[g]], ends[g])
    return pos


@batch_kernel
def format_flat_records(
    players: KInt, seed_digits: KArray, seed_lengths: KArray, scores: KArray, starts: KArray, ends: KArray,
    rows: KArray, out: KArray,
) -> KInt:
    """:func:`format_records` of games whose turns lie one after the other in ``rows``
    (game i's are ``rows[starts[i] : starts[i + 1]]``), as a dataset's chunk holds them."""
    pos = np.int64(0)  # (a literal 0 would compile _put_record for it too)
    for g in range(seed_lengths.shape[0]):
        pos = _put_record(
            out, pos, players, seed_digits[g], seed_lengths[g], scores[g], rows[starts[g] : starts[g + 1]], ends[g]
        )
    return pos
