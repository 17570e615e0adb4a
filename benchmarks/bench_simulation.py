"""Monte Carlo simulation speed (qwirkle_core.analysis.simulation), one core and all.

    .venv/bin/python -m pytest benchmarks/bench_simulation.py --benchmark-enable -q

Each round simulates one mid-game position of a seeded greedy game at plies=2 with
its default candidates and a fixed number of iterations per candidate; the candidates
race, so a round plays fewer playouts than candidates x iterations.  The figures
reported: playouts (one candidate on one sample, then the greedy reply) per second,
counted from the results' iterations.  ``benchmarks/simulation_figures.py speed``
measures the kernel alone, with every candidate kept in the race.
"""

from __future__ import annotations

import numba
import pytest

from qwirkle_core.analysis.simulation import simulate
from qwirkle_core.bots import make_bot
from qwirkle_core.game import Game

ITERATIONS = 2_000


def mid_game(seed: int = 3) -> Game:
    game = Game(players=2, seed=seed)
    bots = [make_bot("greedy", seed=seed, seat=p) for p in range(2)]
    while len(game.board) < 45:
        game.push(bots[game.to_move].choose(game))
    return game


@pytest.mark.parametrize("threads", [1, 0], ids=["one-core", "all-cores"])
def test_simulate_mid_game(benchmark, threads: int) -> None:  # type: ignore[no-untyped-def]
    game = mid_game()
    chosen = threads or numba.config.NUMBA_NUM_THREADS
    simulate(game, iterations=16, threads=chosen)  # compiled (or loaded) before timing
    results = benchmark.pedantic(
        simulate, args=(game,), kwargs={"iterations": ITERATIONS, "threads": chosen}, rounds=3, iterations=1
    )
    playouts = sum(r.iterations for r in results)
    if benchmark.stats is not None:  # --benchmark-disable: the function ran once, untimed
        stats = benchmark.stats.stats
        benchmark.extra_info["playouts_per_second"] = round(playouts / stats.mean)
        print(f"\nsimulate, mid-game, plies=2, {len(results)} candidates, {chosen} thread(s): "
              f"{playouts / stats.mean:,.0f} playouts/s (best round {playouts / stats.min:,.0f})")
