"""The naive minimax's answers for the endgames tests/test_endgame.py asks about, kept
in tests/data/golden_endgames.txt.gz (perft-style, like tests/data/golden_moves.txt).

The naive minimax (tests/naive_endgame.py) is plain Python with no table and no
pruning: a six-tile endgame takes it seconds, and the endgame tests ask it about
hundreds of positions in each of the three runs of the suite.  Its answers do not
depend on the library, so they are written once, by it alone
(``python tests/make_golden_endgames.py``), and read here.  A position missing from
the file (a test changed, or the kernel's move tables list their rows in another
order, so that a test's sample picks other lines of play) is solved naively as
before: the file saves time and decides nothing.  A test of tests/test_endgame.py
(marker ``reference``: the JIT-on run of .ci/test.sh and everyday runs) solves sixty
of its lines again, so that a stale or hand-edited file shows up.

The file is gzipped text (the answers of 880 positions take 1 MB, 95 kB gzipped).
Each line is one position and every move of the player to move with its value::

    <board> | <mover's hand> | <other's hand> | <move>=<value> <move>=<value> ...

the board as ``row,col,colour,shape`` cells joined by ``;`` (sorted), a hand as
``colour,shape`` tiles joined by ``;`` (sorted), a move as its cells joined by ``+``
(sorted), ``-`` for an empty board, hand or move list.  It reads nothing from
``qwirkle_core``.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Iterable
from pathlib import Path

from tests.naive import Board, Tile
from tests.naive_endgame import naive_endgame_values

GOLDEN = Path(__file__).parent / "data" / "golden_endgames.txt.gz"
# Set (to a directory) by tests/make_golden_endgames.py: every position solved
# naively is written there, one file per process.
RECORD = os.environ.get("QWIRKLE_RECORD_NAIVE_ENDGAMES")

Move = frozenset[tuple[int, int, int, int]]
Values = dict[Move, int]
Key = tuple[str, str, str]


def _cells(cells: Iterable[tuple[int, ...]], sep: str) -> str:
    text = sep.join(",".join(map(str, cell)) for cell in sorted(cells))
    return text or "-"


def _parse_cells(text: str, sep: str) -> list[tuple[int, ...]]:
    return [] if text == "-" else [tuple(int(x) for x in cell.split(",")) for cell in text.split(sep)]


def position_key(board: Board, hands: tuple[list[Tile], list[Tile]]) -> Key:
    """The position as the file writes it: the mover's hand first."""
    return (
        _cells(((r, c, *tile) for (r, c), tile in board.items()), ";"),
        _cells(hands[0], ";"),
        _cells(hands[1], ";"),
    )


def format_line(key: Key, values: Values) -> str:
    moves = " ".join(sorted(f"{_cells(move, '+')}={value}" for move, value in values.items())) or "-"
    return " | ".join((*key, moves))


def parse_line(line: str) -> tuple[Key, Values]:
    board, mover, other, moves = (field.strip() for field in line.split("|"))
    values: Values = {}
    if moves != "-":
        for item in moves.split():
            cells, value = item.split("=")
            values[frozenset((r, c, color, shape) for r, c, color, shape in _parse_cells(cells, "+"))] = int(value)
    return (board, mover, other), values


def read_golden(path: Path = GOLDEN) -> dict[Key, Values]:
    """The file's answers by position (none while recording: every position the tests
    ask about is then solved, and so recorded)."""
    out: dict[Key, Values] = {}
    if path.exists() and not RECORD:
        with gzip.open(path, "rt") as text:
            lines = text.read().splitlines()
        for line in lines:
            if line and not line.startswith("#"):
                key, values = parse_line(line)
                out[key] = values
    return out


def solve_naively(board: Board, hands: tuple[list[Tile], list[Tile]]) -> Values:
    """The naive minimax's answer (the mover is hands[0]), recorded when asked to."""
    values = naive_endgame_values(board, hands, 0)
    if RECORD:
        with open(Path(RECORD) / f"naive-{os.getpid()}.txt", "a") as out:
            out.write(format_line(position_key(board, hands), values) + "\n")
    return values


def write_golden(lines: list[str], header: str, path: Path = GOLDEN) -> None:
    """The file, from its lines (sorted already); the same bytes for the same lines
    (no time stamp in the gzip header)."""
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0, filename="") as out:
        out.write((header + "".join(f"{line}\n" for line in lines)).encode())


def board_and_hands(key: Key) -> tuple[Board, tuple[list[Tile], list[Tile]]]:
    """The position a key names (to solve a line of the file again)."""
    board: Board = {(r, c): (color, shape) for r, c, color, shape in _parse_cells(key[0], ";")}
    mover = [(color, shape) for color, shape in _parse_cells(key[1], ";")]
    other = [(color, shape) for color, shape in _parse_cells(key[2], ";")]
    return board, (mover, other)
