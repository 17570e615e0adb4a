"""A small Monte Carlo search bot, built on push/pop and numba rollouts, against greedy.

    python examples/monte_carlo_bot.py [--games 100] [--candidates 5] [--worlds 2] [--rollouts 16]

For each decision the bot takes the best few placements by immediate score, and for
a few *determinized worlds* (the bag and the opponent's hand dealt anew from the tiles
it cannot see: no peeking at hidden tiles, nor at the tiles it would draw) it pushes
each candidate, plays the game out greedily many times inside numba (each rollout deals
the unseen tiles anew again), and pops the candidate.  It plays the candidate with the
best mean final margin.  Without a placement it does what greedy does.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from qwirkle_core.bots import Bot, make_bot, rollouts
from qwirkle_core.game import Action, Game


class MonteCarloBot(Bot):
    name = "monte-carlo"

    def __init__(self, candidates: int = 5, worlds: int = 2, rollouts_per_world: int = 16, seed: int = 0) -> None:
        self.candidates = candidates
        self.worlds = worlds
        self.rollouts_per_world = rollouts_per_world
        self.seed = seed
        self.fallback = make_bot("greedy", seed=seed)
        self.decisions = 0

    def choose(self, game: Game) -> Action:
        moves = game.legal_moves()
        if len(moves) <= 1:
            return self.fallback.choose(game)
        me = game.to_move
        bots = ["greedy"] * game.players
        ranked = moves.sorted()[: self.candidates]
        margins = np.zeros(len(ranked))
        self.decisions += 1
        for w in range(self.worlds):
            world_seed = self.seed * 1_000_003 + self.decisions * 1009 + w
            world = game.determinize(me, seed=world_seed)
            for i, move in enumerate(ranked):
                world.push(Action.place(move))
                finals = rollouts(world, bots, self.rollouts_per_world, seed=world_seed * 7 + i, viewer=me)
                world.pop()
                others = np.delete(finals, me, axis=1).max(axis=1)
                margins[i] += float((finals[:, me] - others).mean())
        return Action.place(ranked[int(np.argmax(margins))])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--candidates", type=int, default=5)
    parser.add_argument("--worlds", type=int, default=2)
    parser.add_argument("--rollouts", type=int, default=16, help="rollouts per world and candidate")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    wins = draws = 0
    margin = 0
    start = time.perf_counter()
    for g in range(args.games):
        seed = args.seed + g
        game = Game(players=2, seed=seed)
        mc_seat = g % 2  # alternate seats so that neither bot always opens
        bots: list[Bot] = [make_bot("greedy", seed=seed, seat=s) for s in range(2)]
        bots[mc_seat] = MonteCarloBot(args.candidates, args.worlds, args.rollouts, seed=seed)
        while not game.is_over:
            game.push(bots[game.to_move].choose(game))
        mine, theirs = game.scores[mc_seat], game.scores[1 - mc_seat]
        wins += mine > theirs
        draws += mine == theirs
        margin += mine - theirs
        print(f"game {g + 1:3d}: monte-carlo {mine:3d}  greedy {theirs:3d}", flush=True)
    elapsed = time.perf_counter() - start
    n = args.games
    print(
        f"monte-carlo won {wins} of {n} games against greedy ({100 * wins / n:.0f}%), "
        f"{draws} drawn, mean margin {margin / n:+.1f}, {elapsed / n:.1f} s per game"
    )


if __name__ == "__main__":
    main()
