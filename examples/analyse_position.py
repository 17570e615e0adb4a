"""Analyse a position: every move with its score and risk, Qwirkle slots, masks, planes.

    python examples/analyse_position.py [--seed 3] [--turns 24]
"""

from __future__ import annotations

import argparse
import time

from qwirkle_core import queries
from qwirkle_core.game import Game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--turns", type=int, default=24, help="greedy turns played before the analysis")
    args = parser.parse_args()

    game = Game(players=2, seed=args.seed)
    for _ in range(args.turns):
        if game.is_over:
            break
        best = game.legal_moves().best()
        game.push(best if best is not None else game.legal_actions()[-1])

    board, hand, player = game.board, game.hand(), game.to_move
    unseen = game.unseen_tiles(player)
    print(board)
    print(f"\nseat {player} to move, hand: {' '.join(t.text() for t in hand)}; "
          f"{len(unseen)} tiles unseen; scores {game.scores}")

    for _ in range(2):  # the first round may compile the kernels; time the second
        start = time.perf_counter()
        moves = game.legal_moves()
        risk = queries.move_risk(board, hand, unseen)
        slots = queries.qwirkle_slots(board, unseen)
        _, masks = board.legal_tile_masks()
        planes = queries.position_planes(board, 24)
        elapsed = time.perf_counter() - start
    print(f"{len(moves)} legal moves; the analysis took {elapsed * 1e6:.0f} us (moves, risk, slots, masks, planes)")

    print("\nbest moves (score, move, leaves the next player a Qwirkle?):")
    order = (-risk.moves.scores).argsort(kind="stable")[:10]
    for i in order:
        move = risk.moves[int(i)]
        flag = "RISKY" if risk.risky[i] else ""
        print(f"  {move.score:3d}  {move.text():40s} {flag}")

    print(f"\nopen Qwirkle slots: {len(slots.coords)}")
    for i in range(len(slots.coords)):
        row, col = slots.coords[i].tolist()
        tiles = " ".join(t.text() for t in slots.unseen_tiles(i)) or "none unseen"
        print(f"  ({row}, {col}): {tiles}")

    dead = int((masks == 0).sum())
    print(f"\n{len(masks)} cells beside the tiles, {dead} of them dead (no tile fits)")
    print(f"planes for machine learning: {planes.planes.shape} from origin {planes.origin}")


if __name__ == "__main__":
    main()
