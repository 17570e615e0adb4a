"""The move generator against a golden file made once by the reference (perft-style).

tests/data/golden_moves.txt was written by tests/make_golden_moves.py from tests/naive.py
alone: for each position (board text, hand) the number of legal moves, the best score
and a digest of every move with its score.  Here the library must give the same three
for every line; a few lines are also recomputed by the reference, so that a stale or
hand-edited file shows up.
"""

from __future__ import annotations

from pathlib import Path

import numba
import pytest

from qwirkle_core import Board, parse_tiles

from .naive import (
    naive_board_from_text,
    naive_legal_moves,
    naive_moves_digest,
    naive_tile_from_text,
)

GOLDEN = Path(__file__).parent / "data" / "golden_moves.txt"
# Without the JIT the generator is plain Python: one line in 20.
EVERY = 20 if numba.config.DISABLE_JIT else 1


def golden_lines() -> list[tuple[str, str, int, int | None, str]]:
    out = []
    for text in GOLDEN.read_text().splitlines():
        if not text or text.startswith("#"):
            continue
        board, hand, count, best, digest = (field.strip() for field in text.split("|"))
        out.append((board, hand, int(count), None if best == "-" else int(best), digest))
    return out


LINES = golden_lines()


def library_moves(board_text: str, hand_text: str) -> dict[frozenset[tuple[int, int, int, int]], int]:
    board = Board() if board_text == "-" else Board(board_text)
    hand = [] if hand_text == "-" else parse_tiles(hand_text)
    moves = board.legal_moves(hand)
    out: dict[frozenset[tuple[int, int, int, int]], int] = {}
    for n, rows, cols, kinds, score in zip(
        moves.sizes.tolist(), moves.rows.tolist(), moves.cols.tolist(), moves.kinds.tolist(), moves.scores.tolist()
    ):
        key = frozenset((rows[s], cols[s], kinds[s] // 6, kinds[s] % 6) for s in range(n))
        assert key not in out, f"a move twice: {sorted(key)}"
        out[key] = score
    return out


def test_the_golden_file_covers_what_it_should() -> None:
    assert GOLDEN.stat().st_size < 1_000_000
    assert len(LINES) >= 900
    boards = [b for b, _, _, _, _ in LINES]
    sizes = [0 if b == "-" else len(b.split()) for b in boards]
    assert sum(s == 0 for s in sizes) >= 50  # empty boards (openings)
    assert sum(s >= 60 for s in sizes) >= 100  # late game
    assert sum(h == "-" for _, h, _, _, _ in LINES) >= 30  # empty hands
    assert sum(c == 0 for _, h, c, _, _ in LINES if h != "-") >= 20  # hands with no legal move
    coords = [abs(int(x)) for b in boards if b != "-" for x in b.split()[0].split("@")[1].split(",")]
    assert max(coords) >= 1_000_000_000 and sum(c >= 999_000 for c in coords) >= 100
    hands = [h.split() for _, h, _, _, _ in LINES if h != "-"]
    one_group_with_duplicates = [
        h for h in hands if len(set(h)) < len(h) and (len({t[0] for t in h}) == 1 or len({t[1] for t in h}) == 1)
    ]
    assert len(one_group_with_duplicates) >= 50


@pytest.mark.parametrize("part", range(4))
def test_legal_moves_match_the_golden_file(part: int) -> None:
    for board, hand, count, best, digest in LINES[part::4][::EVERY]:
        moves = library_moves(board, hand)
        where = f"{board} | {hand}"
        assert len(moves) == count, where
        assert (max(moves.values()) if moves else None) == best, where
        assert naive_moves_digest(moves) == digest, where


def test_the_reference_still_makes_the_golden_file() -> None:
    """Recompute the smallest positions with the reference (a stale file fails here)."""
    picked = sorted(LINES, key=lambda line: (len(line[0]), line[1]))[:: max(1, len(LINES) // 25)]
    for board, hand, count, best, digest in picked:
        nb = {} if board == "-" else naive_board_from_text(board)
        nh = [] if hand == "-" else [naive_tile_from_text(t) for t in hand.split()]
        moves = naive_legal_moves(nb, nh)
        assert (len(moves), max(moves.values()) if moves else None, naive_moves_digest(moves)) == (count, best, digest)
