"""A small Monte Carlo search bot, built on push/pop and numba rollouts, against greedy.

    python examples/monte_carlo_bot.py [--games 100] [--candidates 8] [--worlds 16]

For each decision the bot takes the best few placements by immediate score and
compares them over *sampled worlds*: the bag and the other hands dealt anew from the
tiles it cannot see (no peeking at hidden tiles, nor at the tiles it will draw), the
same worlds for every candidate (common random numbers, so the comparison is not
drowned in the noise of the deal).  In each world it pushes the candidate and plays
the game on:

- while the bag still holds tiles, a short greedy rollout with push/pop -- each
  opponent's best reply, then its own best follow-up -- and scores the candidate by
  its points minus the opponents' replies plus its follow-up: this is what catches a
  line of five left for the next player, or a hand left with nothing to play;
- once the bag is empty, full numba rollouts to the end of the game (short by then,
  and the going-out bonus decides many endgames), scored by the final margin.

It pops the candidate and plays the one with the best mean value.  With at most one
placement it plays as greedy does.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from tqdm import tqdm  # a dependency of qwirkle_core: progress on stderr

from qwirkle_core.bots import Bot, make_bot, rollouts
from qwirkle_core.game import Action, Game


class MonteCarloBot(Bot):
    name = "monte-carlo"

    def __init__(self, candidates: int = 8, worlds: int = 16, endgame_rollouts: int = 8, seed: int = 0) -> None:
        self.candidates = candidates
        self.worlds = worlds
        self.endgame_rollouts = endgame_rollouts
        self.seed = seed
        self.fallback = make_bot("greedy", seed=seed)
        self.decisions = 0

    def _best_score(self, world: Game) -> int:
        """Push the greedy move of the player to move (if any); return its points."""
        best = world.legal_moves().best()
        if best is None:
            return -1
        return world.push(Action.place(best)).score or 0

    def _lookahead(self, world: Game, me: int) -> float:
        """Opponents' best replies, then my best follow-up; undone before returning."""
        value = 0.0
        pushed = 0
        for _ in range(world.players - 1):
            if world.is_over:
                break
            points = self._best_score(world)
            if points < 0:
                break  # no placement: the chain of replies stops here
            pushed += 1
            value -= points
        if not world.is_over and world.to_move == me:
            follow = world.legal_moves().best()
            value += follow.score if follow is not None and follow.score is not None else 0
        for _ in range(pushed):
            world.pop()
        return value

    def choose(self, game: Game) -> Action:
        moves = game.legal_moves()
        if len(moves) <= 1:
            return self.fallback.choose(game)
        me = game.to_move
        bots = ["greedy"] * game.players
        ranked = moves.sorted()[: self.candidates]
        values = np.zeros(len(ranked))
        self.decisions += 1
        for w in range(self.worlds):
            world_seed = (self.seed * 1_000_003 + self.decisions * 1009 + w) % 2**63
            world = game.determinize(me, seed=world_seed)
            for i, move in enumerate(ranked):
                played = world.push(Action.place(move))
                if world.is_over:
                    values[i] += float(world.scores[me] - max(s for p, s in enumerate(world.scores) if p != me))
                elif world.bag_size == 0:
                    finals = rollouts(world, bots, self.endgame_rollouts, seed=world_seed, viewer=me)
                    others = np.delete(finals, me, axis=1).max(axis=1)
                    values[i] += float((finals[:, me] - others).mean())
                else:
                    values[i] += (played.score or 0) + self._lookahead(world, me)
                world.pop()
        return Action.place(ranked[int(np.argmax(values))])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--candidates", type=int, default=8)
    parser.add_argument("--worlds", type=int, default=16)
    parser.add_argument("--rollouts", type=int, default=8, help="endgame rollouts per world and candidate")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    wins = draws = 0
    margin = 0
    start = time.perf_counter()
    bar = tqdm(desc="monte_carlo_bot", total=args.games, unit="games", file=sys.stderr)  # the results on stdout
    for g in range(args.games):
        seed = args.seed + g
        game = Game(players=2, seed=seed)
        mc_seat = g % 2  # alternate seats so that neither bot always opens
        bots: list[Bot] = [make_bot("greedy", seed=seed, seat=s) for s in range(2)]
        bots[mc_seat] = MonteCarloBot(args.candidates, args.worlds, args.rollouts, seed=seed)
        while not game.is_over:
            game.push(bots[game.to_move].choose(game))
            bar.set_postfix_str(f"game {g + 1}: turn {len(game.history)}", refresh=False)
        mine, theirs = game.scores[mc_seat], game.scores[1 - mc_seat]
        wins += mine > theirs
        draws += mine == theirs
        margin += mine - theirs
        bar.update(1)
        tqdm.write(f"game {g + 1:3d}: monte-carlo {mine:3d}  greedy {theirs:3d}", file=sys.stdout)
    bar.set_postfix_str("")
    bar.close()
    elapsed = time.perf_counter() - start
    n = args.games
    print(
        f"monte-carlo won {wins} of {n} games against greedy ({100 * wins / n:.0f}%), "
        f"{draws} drawn, mean margin {margin / n:+.1f}, {elapsed / n:.1f} s per game"
    )


if __name__ == "__main__":
    main()
