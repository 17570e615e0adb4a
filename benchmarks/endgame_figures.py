"""Endgame solver figures (measured, not asserted): seeded greedy two-player self-play
until the bag is first empty, each position solved exactly on one core, with a warm
cache; and what playing the solver is worth against greedy from the same positions.

    .venv/bin/python benchmarks/endgame_figures.py            # seeds 0..999
    .venv/bin/python benchmarks/endgame_figures.py --games 100 --gain-games 100

Prints a markdown table (median, 99th percentile and max solve time, nodes per second)
and the command line that produced it.  The gain: from each position, greedy plays
both sides to the end (the spread of the player to move, ``greedy``), then the solver
plays the player to move (solving again at each of its turns) against the same greedy
replies (``solver``); the mean of solver - greedy.  Greedy breaks ties with its own
seeded generator (the game's seed, its seat), the same in both games.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from qwirkle_core.analysis.endgame import solve_endgame
from qwirkle_core.bots import make_bot
from qwirkle_core.game import Game


def bag_empty(seed: int) -> Game | None:
    """Greedy self-play of ``seed`` (2 players) until the bag is first empty; None when
    the game ends before."""
    game = Game(players=2, seed=seed)
    bots = [make_bot("greedy", seed=seed, seat=s) for s in range(2)]
    while not game.is_over and game.bag_size > 0:
        game.push(bots[game.to_move].choose(game))
    return None if game.is_over else game


def spread(game: Game, player: int) -> int:
    return game.scores[player] - game.scores[1 - player]


def play_out(game: Game, seed: int, solver_seat: int | None) -> int:
    """The final spread of the player to move now, greedy for both seats, or the
    solver for ``solver_seat``."""
    mover = game.to_move
    play = game.copy()
    bots = [make_bot("greedy", seed=seed, seat=s) for s in range(2)]
    while not play.is_over:
        seat = play.to_move
        play.push(solve_endgame(play).action if seat == solver_seat else bots[seat].choose(play))
    return spread(play, mover)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    at = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[at]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="seeds 0..games-1 (default 1000)")
    parser.add_argument("--gain-games", type=int, default=1000, help="positions for the gain against greedy")
    args = parser.parse_args(argv)

    positions = [(seed, g) for seed in range(args.games) if (g := bag_empty(seed)) is not None]
    solve_endgame(positions[0][1])  # compile or load the kernels outside the timing
    times: list[float] = []
    cpu: list[float] = []
    nodes: list[int] = []
    for _, game in positions:
        began, began_cpu = time.perf_counter(), time.thread_time()
        result = solve_endgame(game)
        cpu.append(time.thread_time() - began_cpu)
        times.append(time.perf_counter() - began)
        nodes.append(result.nodes)
    print(f"command: {' '.join([sys.executable, *sys.argv])}")
    print(f"positions: {len(positions)} of seeds 0..{args.games - 1} (the others ended before the bag emptied)\n")
    # Wall time, and the solving thread's CPU time (what other work on a shared machine
    # moves least: the solver runs on one thread).
    print("| time | median | p99 | max | nodes per second |")
    print("|---|---|---|---|---|")
    for name, spent in (("wall", times), ("CPU", cpu)):
        print(
            f"| {name} | {statistics.median(spent) * 1e3:.1f} ms | {percentile(spent, 0.99) * 1e3:.0f} ms "
            f"| {max(spent) * 1e3:.0f} ms | {sum(nodes) / sum(spent):,.0f} |"
        )
    print(f"\nnodes: median {statistics.median(nodes):,.0f}, p99 {percentile(nodes, 0.99):,}, max {max(nodes):,}")
    gains = []
    for seed, game in positions[: args.gain_games]:
        greedy = play_out(game, seed, None)
        solver = play_out(game, seed, game.to_move)
        gains.append(solver - greedy)
    if gains:
        print(
            f"\nsolver for the player to move vs greedy, against greedy replies, {len(gains)} positions: "
            f"mean spread gain {statistics.mean(gains):+.2f} points (better in {sum(g > 0 for g in gains)}, "
            f"worse in {sum(g < 0 for g in gains)}, equal in {sum(g == 0 for g in gains)})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
