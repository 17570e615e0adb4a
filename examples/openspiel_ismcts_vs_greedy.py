"""OpenSpiel's ISMCTS against qwirkle_core's greedy bot, in the OpenSpiel game python_qwirkle.

    .venv/bin/python examples/openspiel_ismcts_vs_greedy.py [--games 4] [--simulations 30]

Needs the rl extra (``pip install '.[rl]'``).  ISMCTS (open_spiel's
``ISMCTSBot``) searches information sets, resampling what it cannot see with
``resample_from_infostate`` (the kernel behind ``Game.determinize``); its leaves are
valued by greedy-vs-greedy rollouts of the library (``bots.play`` on
``state.to_game().determinize(...)``).  The greedy bot is the library's
(``make_bot("greedy").choose(state.to_game())``), its action played as OpenSpiel
sub-steps (``state.action_ids(action)``): only public API.  Seats alternate between games; the chance draws come from a seeded
generator.  Nothing is written to disk.  The games' results go to stdout, the progress
(games, and the sub-steps of the game in play) to stderr.

Measured (the defaults, 4 games, 30 simulations per sub-step): ISMCTS lost all four,
about 100 points to greedy's 240.  A turn is several sub-steps over a tree hundreds of
actions wide, and 30 simulations with a uniform prior barely look past the first; the
example shows the plumbing (resampling, chance nodes, numba rollouts), not a strong bot.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import numpy as np
from tqdm import tqdm  # a dependency of qwirkle_core: progress on stderr

try:
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    import qwirkle_core.envs.openspiel  # noqa: F401  (registers python_qwirkle)
except ImportError:
    print("this example needs the rl extra (open_spiel): pip install '.[rl]'", file=sys.stderr)
    sys.exit(2)

from qwirkle_core.bots import make_bot
from qwirkle_core.bots import play as play_out
from qwirkle_core.game import Game


class GreedyRollouts(mcts.Evaluator):  # type: ignore[misc]
    """A leaf's value: the mean result of ``n`` greedy-vs-greedy games from it, each
    from ``state.to_game()`` with what the player to move cannot see dealt anew
    (``Game.determinize``), played by the library's ``bots.play``."""

    def __init__(self, n: int, seed: int) -> None:
        self.n = n
        self.rng = np.random.default_rng(seed)

    def evaluate(self, state: Any) -> np.ndarray:
        state = state.clone()
        while state.is_chance_node():  # finish the draws in progress
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(self.rng.choice(outcomes, p=probs)))
        if state.is_terminal():
            return np.array(state.returns())
        game: Game = state.to_game()
        players = game.players
        greedy = [make_bot("greedy", seat=p) for p in range(players)]
        values = np.zeros(players)
        for seed in self.rng.integers(0, 2**31, self.n):
            scores = play_out(game.determinize(game.to_move, seed=int(seed)), greedy).scores
            values += np.where(np.array(scores) == max(scores), 1.0, -1.0)
        return values / self.n

    def prior(self, state: Any) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return state.chance_outcomes()  # type: ignore[no-any-return]
        actions = state.legal_actions()
        return [(a, 1.0 / len(actions)) for a in actions]


def play(game: Any, searcher_seat: int, simulations: int, rollouts: int, seed: int, bar: tqdm) -> list[int]:
    chance = np.random.default_rng(seed)
    searcher = ismcts.ISMCTSBot(
        game, GreedyRollouts(rollouts, seed), 2.0, simulations, random_state=np.random.RandomState(seed)
    )
    greedy = make_bot("greedy", seed=seed, seat=1 - searcher_seat)
    state = game.new_initial_state()
    queued: list[int] = []
    steps = 0
    while not state.is_terminal():
        steps += 1
        if steps % 16 == 0:
            bar.set_postfix_str(f"game {seed}: {steps} actions, scores {[int(s) for s in state.scores[:2]]}")
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(chance.choice(outcomes, p=probs)))
        elif state.current_player() == searcher_seat:
            state.apply_action(searcher.step(state))
        else:
            if not queued:  # the library's bot on the library's Game, its action as OpenSpiel sub-steps
                queued = state.action_ids(greedy.choose(state.to_game()))
            state.apply_action(queued.pop(0))
    return [int(s) for s in state.scores[:2]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--simulations", type=int, default=30, help="ISMCTS simulations per sub-step")
    parser.add_argument("--rollouts", type=int, default=8, help="greedy rollouts per leaf")
    args = parser.parse_args()
    game = pyspiel.load_game("python_qwirkle", {"players": 2})
    wins = 0.0
    start = time.perf_counter()
    bar = tqdm(desc="openspiel_ismcts_vs_greedy", total=args.games, unit="games", file=sys.stderr)
    for g in range(args.games):
        seat = g % 2
        scores = play(game, seat, args.simulations, args.rollouts, seed=g, bar=bar)
        mine, theirs = scores[seat], scores[1 - seat]
        wins += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
        bar.update(1)
        tqdm.write(f"game {g}: ISMCTS (seat {seat}) {mine} - greedy {theirs}", file=sys.stdout)
    bar.set_postfix_str("")
    bar.close()
    print(f"ISMCTS won {wins:g} of {args.games} games against greedy in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
