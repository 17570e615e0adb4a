"""Deterministic benchmark positions: random games played with the library itself.

Phases by the number of tiles on the board: early (1-29), mid (30-70), late (71+);
and a worst case: positions whose hand of six tiles of one colour (or one shape) has
thousands of moves.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from functools import cache
from typing import Any

from qwirkle_core import ALL_TILES, Board, Tile

Position = tuple[Board, list[Tile]]


def _game(seed: int) -> list[tuple[Board, list[Tile]]]:
    rng = random.Random(seed)
    bag = [ALL_TILES[k] for k in range(36) for _ in range(3)]
    rng.shuffle(bag)
    hands = [[bag.pop() for _ in range(6)] for _ in range(2)]
    board = Board()
    out = []
    player = 0
    for _ in range(200):
        hand = hands[player]
        out.append((board.copy(stack=False), list(hand)))
        moves = board.legal_moves(hand)
        if not moves:
            if not bag:
                break
            n = min(len(hand), len(bag))
            back = [hand.pop() for _ in range(n)]
            hand.extend(bag.pop() for _ in range(n))
            bag.extend(back)
            rng.shuffle(bag)
        else:
            # Mostly greedy, as real players: boards then grow long lines and Qwirkles.
            move = moves.best() if rng.random() < 0.7 else moves[rng.randrange(len(moves))]
            assert move is not None
            board.push(move)
            for t in move.tiles:
                hand.remove(t)
            while len(hand) < 6 and bag:
                hand.append(bag.pop())
            if not hand:
                break
        player = 1 - player
    return out


@cache
def positions(phase: str, count: int = 60) -> list[Position]:
    """``count`` positions of the phase, hands of 6 where the bag allowed it."""
    lo, hi = {"early": (1, 29), "mid": (30, 70), "late": (71, 108)}[phase]
    out: list[Position] = []
    seed = 0
    while len(out) < count:
        for board, hand in _game(seed):
            if lo <= len(board) <= hi and len(hand) == 6:
                out.append((board, hand))
        seed += 1
    rng = random.Random(phase)
    rng.shuffle(out)
    return out[:count]


@cache
def worst_cases(count: int = 10) -> list[Position]:
    """Mid-game boards with the one-colour or one-shape hand of six that has the most moves."""
    found = []
    for board, _ in positions("mid", 60):
        counts = board.tile_counts()
        best: tuple[int, list[Tile]] = (-1, [])
        for group in range(12):
            kinds = [group * 6 + s for s in range(6)] if group < 6 else [c * 6 + group - 6 for c in range(6)]
            if any(counts[k] >= 3 for k in kinds):
                continue
            hand = [ALL_TILES[k] for k in kinds]
            n = board.count_moves(hand)
            if n > best[0]:
                best = (n, hand)
        found.append((best[0], board, best[1]))
    found.sort(key=lambda x: -x[0])
    return [(b, h) for _, b, h in found[:count]]


# Timed calls per position of a time_per_position benchmark: 60 positions give 2,400.
ROUNDS_PER_POSITION = 40
CACHES = ("cold", "warm")


def time_per_position(benchmark: Any, function: Callable[..., Any], calls: list[tuple[Any, ...]], cache: str) -> None:
    """Time ``function(*args)``, ONE call per round, for each ``args`` of ``calls`` in
    turn (one per position; each is run once first, to compile): the median is a median
    over positions.  Only the call is timed: picking the next position's arguments is
    pytest-benchmark's untimed setup, so the figure holds no Python of the benchmark's
    own (``function`` is the library's, e.g. ``Board.legal_moves``).

    - ``cold``: consecutive rounds take consecutive positions, so a call finds the
      last position's data in the CPU caches, not its own (a program that jumps from
      board to board);
    - ``warm``: an untimed call of the same position comes just before each timed
      one (a search or a bot that queries the board it stands on, again and again)."""
    for args in calls:
        function(*args)
    it = itertools.cycle(calls)

    def next_position() -> tuple[tuple[Any, ...], dict[str, Any]]:
        args = next(it)
        if cache == "warm":
            function(*args)
        return args, {}

    benchmark.pedantic(function, setup=next_position, rounds=ROUNDS_PER_POSITION * len(calls))
