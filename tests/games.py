"""Random positions for the property tests, played with the library itself.

The positions only need to be ones real play reaches; which moves are correct is
judged by tests/naive.py.  Moves are chosen at random, sometimes greedily (so that
long lines and Qwirkles appear), and the game can start anywhere on the plane.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from qwirkle_core import ALL_TILES, Board, Tile

NaiveBoard = dict[tuple[int, int], tuple[int, int]]


def random_positions(
    seed: int, n_players: int = 2, max_turns: int = 200, greedy: float = 0.3
) -> Iterator[tuple[Board, list[Tile]]]:
    """Yield (board, hand of the player to move) before each turn of a random game.
    The same Board object is reused and changes after each yield: copy to keep."""
    rng = random.Random(seed)
    bag = [ALL_TILES[k] for k in range(36) for _ in range(3)]
    rng.shuffle(bag)
    hands = [[bag.pop() for _ in range(6)] for _ in range(n_players)]
    board = Board()
    offset = (rng.randint(-1_000_000, 1_000_000), rng.randint(-1_000_000, 1_000_000))
    player = 0
    passes = 0
    for _ in range(max_turns):
        hand = hands[player]
        yield board, list(hand)
        moves = board.legal_moves(hand)
        if moves:
            if board.is_empty():
                m = moves[rng.randrange(len(moves))]
                # Put the opening somewhere else on the plane, turned at random.
                vertical = rng.random() < 0.5
                placements = [
                    (offset[0] + (c if vertical else r), offset[1] + (r if vertical else c), t)
                    for r, c, t in m.placements
                ]
                move = board.push(placements)
            elif rng.random() < greedy:
                move = board.push(moves.best())  # type: ignore[arg-type]
            else:
                move = board.push(moves[rng.randrange(len(moves))])
            for t in move.tiles:
                hand.remove(t)
            while len(hand) < 6 and bag:
                hand.append(bag.pop())
            passes = 0
            if not hand:
                return
        elif bag:
            n = min(len(hand), len(bag))
            rng.shuffle(hand)
            out = [hand.pop() for _ in range(n)]
            hand.extend(bag.pop() for _ in range(n))
            bag.extend(out)
            rng.shuffle(bag)
        else:
            passes += 1
            if passes >= n_players:
                return
        player = (player + 1) % n_players


def as_naive(board: Board) -> NaiveBoard:
    return {(r, c): (int(t.color), int(t.shape)) for r, c, t in board.placements()}


def hand_as_naive(hand: list[Tile]) -> list[tuple[int, int]]:
    return [(int(t.color), int(t.shape)) for t in hand]


def moves_as_naive(moves) -> dict[frozenset[tuple[int, int, int, int]], int]:  # type: ignore[no-untyped-def]
    out: dict[frozenset[tuple[int, int, int, int]], int] = {}
    for m in moves:
        key = frozenset((r, c, int(t.color), int(t.shape)) for r, c, t in m.placements)
        assert key not in out, f"move generated twice: {m}"
        out[key] = m.score
    return out
