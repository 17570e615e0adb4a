"""Endgame solver speed: exact solves of a few fixed two-player endgames.

    .venv/bin/python -m pytest benchmarks/bench_endgame.py --benchmark-enable -q

The positions are seeded greedy self-play played until the bag first empties (full
hands), and the same games played on by the random bot until the hands hold 6 tiles in
all (small endgames).  Each round solves them all once; positions per second and nodes
per second are reported.
"""

from __future__ import annotations

import pytest

from qwirkle_core.analysis.endgame import solve_endgame
from qwirkle_core.bots import make_bot
from qwirkle_core.game import Game

FULL_SEEDS = (1, 2, 6, 9)  # full-hand endgames solved in about 0.05-0.3 s each (2 loaded cores)
SMALL_SEEDS = tuple(range(20))


def bag_empty(seed: int) -> Game:
    game = Game(players=2, seed=seed)
    bots = [make_bot("greedy", seed=seed, seat=s) for s in range(2)]
    while not game.is_over and game.bag_size > 0:
        game.push(bots[game.to_move].choose(game))
    assert not game.is_over
    return game


def small(seed: int, tiles: int = 6) -> Game | None:
    game = bag_empty(seed)
    bots = [make_bot("random", seed=seed, seat=s) for s in range(2)]
    while not game.is_over and sum(len(h) for h in game.hands) > tiles:
        game.push(bots[game.to_move].choose(game))
    return None if game.is_over else game


def _solve_all(games: list[Game]) -> int:
    return sum(solve_endgame(g).nodes for g in games)


@pytest.mark.parametrize("kind", ["full-hands", "six-tiles"])
def test_solve_fixed_endgames(benchmark, kind: str) -> None:  # type: ignore[no-untyped-def]
    if kind == "full-hands":
        games = [bag_empty(s) for s in FULL_SEEDS]
    else:
        games = [g for s in SMALL_SEEDS if (g := small(s)) is not None]
    nodes = _solve_all(games)  # compile or load outside the rounds
    benchmark.pedantic(_solve_all, args=(games,), rounds=3, iterations=1)
    if benchmark.stats is None:  # --benchmark-disable: ran once, untimed
        return
    mean = benchmark.stats.stats.mean
    benchmark.extra_info["positions_per_second"] = round(len(games) / mean, 1)
    benchmark.extra_info["nodes_per_second"] = round(nodes / mean)
    print(f"\n{kind}: {len(games)} endgames, {len(games) / mean:,.1f} solves/s, {nodes / mean:,.0f} nodes/s")
