"""Write tests/data/golden_moves.txt: positions with the count, best score and digest of
their legal moves, all computed by the independent reference (tests/naive.py).

In the spirit of chess's perft files: made once, slowly, by the reference; checked on
every run, quickly, against the library (tests/test_golden_moves.py).  Run from the
repository root: ``python tests/make_golden_moves.py`` (about two minutes; stdlib only,
deterministic).  Each line::

    <board> | <hand> | <number of legal moves> | <best score> | <digest>

The board is its placement text (``Rc@0,0 Rs@0,1``, tiles in (row, col) order), the
hand its tiles (``Rc Rc Yd``), ``-`` for none; the best score is ``-`` when nothing is
legal; the digest is :func:`naive.naive_moves_digest` (sha256 of the sorted lines
``"<placements> <score>"``, first 16 hex digits).  The positions: empty boards with
every kind of hand, and the early, middle and late positions of random games of 2 to
6 players, turned, mirrored and moved anywhere (offsets up to ±1,000,000,000), with
the player's own hand, a one-colour or one-shape hand with duplicates, a random hand
or an empty one.
"""

from __future__ import annotations

import os
import random
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from naive import (
    Board,
    Tile,
    mirror,
    naive_board_problem,
    naive_board_text,
    naive_legal_moves,
    naive_moves_digest,
    naive_play_random_game,
    naive_tile_text,
    rotate90,
    translate,
)

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "golden_moves.txt")
GAMES = 80
PER_GAME = 12
EMPTY_BOARDS = 100
ALL = [(co, sh) for co in range(6) for sh in range(6) for _ in range(3)]


def pool(board: Board) -> list[Tile]:
    """The tiles not on the board (3 copies of each kind in all)."""
    left = Counter(ALL)
    left.subtract(board.values())
    return sorted(left.elements())


def group_hand(rng: random.Random, tiles: list[Tile], size: int) -> list[Tile]:
    """Up to ``size`` tiles of one colour or one shape, duplicates allowed (and likely)."""
    g = rng.randrange(12)
    same = [t for t in tiles if (t[0] == g if g < 6 else t[1] == g - 6)]
    rng.shuffle(same)
    # Prefer duplicates: take a few kinds and all their copies first.
    kinds = sorted(set(same), key=lambda t: rng.random())[: max(1, size // 2)]
    first = [t for t in same if t in kinds]
    rest = [t for t in same if t not in kinds]
    return (first + rest)[:size]


def a_hand(rng: random.Random, board: Board, own: list[Tile]) -> list[Tile]:
    roll = rng.random()
    tiles = pool(board)
    if roll < 0.5:
        return list(own)
    if roll < 0.7:
        return group_hand(rng, tiles, rng.randint(2, 6))
    if roll < 0.78:
        return []
    return rng.sample(tiles, min(len(tiles), rng.randint(1, 6)))


def moved(rng: random.Random, board: Board) -> Board:
    """The board turned and/or mirrored at random, then moved by some offset."""
    for _ in range(rng.randrange(4)):
        board = rotate90(board)
    if rng.random() < 0.5:
        board = mirror(board)
    roll = rng.random()
    if roll < 0.3:
        return board
    if roll < 0.6:
        return translate(board, rng.randint(-60, 60), rng.randint(-60, 60))
    if roll < 0.75:
        return translate(board, rng.choice([-1, 1]) * 1_000_000, rng.choice([-1, 1]) * 1_000_000)
    if roll < 0.9:
        return translate(board, rng.randint(-1_000_000, 1_000_000), rng.randint(-1_000_000, 1_000_000))
    return translate(board, rng.choice([-1, 1]) * 1_000_000_000, rng.randint(-1_000_000_000, 1_000_000_000))


def line(board: Board, hand: list[Tile]) -> str:
    assert naive_board_problem(board) is None
    moves = naive_legal_moves(board, hand)
    best = str(max(moves.values())) if moves else "-"
    return " | ".join(
        [
            naive_board_text(board) or "-",
            " ".join(naive_tile_text(t) for t in hand) or "-",
            str(len(moves)),
            best,
            naive_moves_digest(moves),
        ]
    )


def positions(rng: random.Random) -> list[tuple[Board, list[Tile]]]:
    out: list[tuple[Board, list[Tile]]] = []
    for i in range(EMPTY_BOARDS):
        size = i % 7
        if i % 3 == 0:
            hand = group_hand(rng, list(ALL), size)
        else:
            hand = rng.sample(ALL, size)
        out.append(({}, hand))
    for seed in range(GAMES):
        players = 2 + seed % 5
        game = naive_play_random_game(random.Random(seed), players)
        n = len(game)
        # early, middle and late: the first turns, spread picks, the last turns
        picks = sorted({1, 2, 3, n // 4, n // 2, 3 * n // 4, n - 3, n - 2, n - 1} | {rng.randrange(n) for _ in range(3)})
        for k in picks[:PER_GAME]:
            board, own = game[k]
            if not board:
                continue
            out.append((moved(rng, board), a_hand(rng, board, own)))
    return out


def main() -> None:
    rng = random.Random(20261201)
    rows = [line(board, hand) for board, hand in positions(rng)]
    header = [
        "# Golden legal moves, made by tests/make_golden_moves.py from tests/naive.py (do not edit).",
        "# board | hand | number of legal moves | best score | sha256[:16] of the sorted lines '<placements> <score>'",
    ]
    with open(OUT, "w") as f:
        f.write("\n".join(header + rows) + "\n")
    print(f"{len(rows)} positions, {os.path.getsize(OUT)} bytes -> {OUT}")


if __name__ == "__main__":
    main()
