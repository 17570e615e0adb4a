"""Demo: play the first turns of a seeded game, then show a position and its best moves.

    python examples/demo.py
"""

from __future__ import annotations

import random
import time

from qwirkle_core import ALL_TILES, Board


def main(seed: int = 7, turns: int = 14) -> None:
    rng = random.Random(seed)
    bag = [ALL_TILES[k] for k in range(36) for _ in range(3)]
    rng.shuffle(bag)
    hands = [[bag.pop() for _ in range(6)] for _ in range(2)]
    board = Board()
    for turn in range(turns):
        hand = hands[turn % 2]
        move = board.legal_moves(hand).best()
        if move is None:
            continue
        board.push(move)
        for tile in move.tiles:
            hand.remove(tile)
        hand.extend(bag.pop() for _ in range(6 - len(hand)))

    hand = hands[turns % 2]
    print(f"Board after {turns} greedy turns ({len(board)} tiles):")
    print(board)
    print()
    print("Hand:", " ".join(t.text() for t in hand))
    start = time.perf_counter()
    moves = board.legal_moves(hand)
    elapsed = time.perf_counter() - start
    print(f"{len(moves)} legal moves, found in {elapsed * 1e6:.0f} us (first call includes warm-up)")
    start = time.perf_counter()
    for _ in range(1000):
        board.legal_moves(hand)
    print(f"again, 1000 times: {(time.perf_counter() - start) * 1e3:.1f} us per call")
    print()
    print("Best moves:")
    for move in moves.sorted()[:8]:
        print(f"  {move.score:3d}  {move.text()}")
    best = moves.best()
    if best is not None:
        board.push(best)
        print()
        print(f"After {best.text()}:")
        print(board)


if __name__ == "__main__":
    main()
